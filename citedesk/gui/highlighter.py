"""Inline highlights: each finding kind its own colour *and* underline style (never colour alone)."""

from __future__ import annotations

from dataclasses import dataclass

from citedesk.core.findings import Finding, Kind, Severity
from citedesk.gui.qt import QColor, QObject, QSyntaxHighlighter, QTextCharFormat, QTextDocument


@dataclass(frozen=True)
class Style:
    colour: str
    underline: QTextCharFormat.UnderlineStyle
    name: str
    """How the legend describes the line."""


WAVE = QTextCharFormat.UnderlineStyle.WaveUnderline
DASH = QTextCharFormat.UnderlineStyle.DashUnderline
DOT = QTextCharFormat.UnderlineStyle.DotLine
SINGLE = QTextCharFormat.UnderlineStyle.SingleUnderline
DASH_DOT = QTextCharFormat.UnderlineStyle.DashDotLine

STYLES: dict[Kind, Style] = {
    Kind.FABRICATED: Style("#c0392b", WAVE, "red wavy"),
    Kind.FABRICATED_REFERENCE: Style("#c0392b", WAVE, "red wavy"),
    Kind.MALFORMED_MARKER: Style("#c0392b", SINGLE, "red solid"),
    Kind.MISATTRIBUTED: Style("#d35400", WAVE, "orange wavy"),
    Kind.UNSUPPORTED_NUMBER: Style("#8e44ad", DOT, "purple dotted"),
    Kind.NUMBER_MISMATCH: Style("#8e44ad", WAVE, "purple wavy"),
    Kind.UNSUPPORTED_PART: Style("#d35400", DASH, "orange dashed"),
    Kind.UNCITED: Style("#2471a3", DASH, "blue dashed"),
    Kind.DEAD_LINK: Style("#7d6608", DASH_DOT, "brown dash-dot"),
    Kind.DOI_MISMATCH: Style("#7d6608", DASH_DOT, "brown dash-dot"),
    Kind.UNREADABLE_SOURCE: Style("#7d6608", DASH_DOT, "brown dash-dot"),
    Kind.UNCHECKED_SOURCE: Style("#7d6608", DASH_DOT, "brown dash-dot"),
    Kind.ORPHAN_REFERENCE: Style("#707b7c", DOT, "grey dotted"),
    Kind.DUPLICATE_REFERENCE: Style("#707b7c", DOT, "grey dotted"),
    Kind.RETRACTED: Style("#c0392b", DASH_DOT, "red dash-dot"),
    Kind.EXPRESSION_OF_CONCERN: Style("#d35400", DASH_DOT, "orange dash-dot"),
    Kind.CORRECTION: Style("#2471a3", DOT, "blue dotted"),
    Kind.METADATA_ERROR: Style("#7d6608", DOT, "brown dotted"),
    Kind.FOUND_BY_TITLE: Style("#2471a3", DASH_DOT, "blue dash-dot"),
    Kind.NOT_FOUND: Style("#7d6608", WAVE, "brown wavy"),
    Kind.POSSIBLE_MATCH: Style("#707b7c", DASH_DOT, "grey dash-dot"),
}


def char_format(finding: Finding) -> QTextCharFormat:
    style = STYLES[finding.kind]
    fmt = QTextCharFormat()
    fmt.setUnderlineStyle(style.underline)
    fmt.setUnderlineColor(QColor(style.colour))
    if finding.severity is Severity.ERROR:
        tint = QColor(style.colour)
        tint.setAlpha(40)
        fmt.setBackground(tint)
    fmt.setToolTip(finding.message)
    return fmt


class FindingHighlighter(QSyntaxHighlighter):
    """Paints findings given as Qt document positions: (start, end, finding)."""

    def __init__(self, document: QTextDocument, parent: QObject | None = None) -> None:
        super().__init__(document)
        self._spans: list[tuple[int, int, Finding]] = []

    def set_spans(self, spans: list[tuple[int, int, Finding]]) -> None:
        self._spans = sorted(spans, key=lambda s: (s[0], s[1]))
        self.rehighlight()

    def spans(self) -> list[tuple[int, int, Finding]]:
        return list(self._spans)

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt's name
        block = self.currentBlock()
        start = block.position()
        end = start + block.length()
        for span_start, span_end, finding in self._spans:
            if span_start >= end:
                break
            if span_end <= start:
                continue
            first = max(span_start, start) - start
            last = min(span_end, end) - start
            self.setFormat(first, max(1, last - first), char_format(finding))
