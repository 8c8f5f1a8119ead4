"""Inline marks: each finding kind its own colour *and* underline style (never colour alone).

Three layers are painted, each over the one before:

1. the words a finding is about (its claim's sentence) in a light underline of the kind's colour;
2. citations that were not checked (offline, no source text, …) in their own subdued style;
3. the finding itself (a marker, a figure, a sentence) in the kind's style, tinted when an error.

Spans are Qt document positions; `Marks` holds them, and the editor asks it what is where.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from citedesk.core.coverage import UncheckedCitation
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
DASH_DOT_DOT = QTextCharFormat.UnderlineStyle.DashDotDotLine

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
    Kind.UNKNOWN_KEY: Style("#c0392b", DASH, "red dashed"),
    Kind.DIRECTION_MISMATCH: Style("#8e44ad", DASH, "purple dashed"),
    Kind.REDUNDANT_CITATION: Style("#707b7c", DASH, "grey dashed"),
}
UNCHECKED = Style("#8c9499", DASH_DOT_DOT, "grey dash-dot-dot on a grey tint")
"""A citation that was not checked: neither right nor wrong, so no colour of a problem."""
T = TypeVar("T")
ERROR_TINT = 70
"""How strongly an error's own span is tinted (of 255): the marker stands out on its underlined sentence."""
CLAIM_ALPHA = 130
"""How light the claim's underline is (of 255): present, but quieter than the finding's own mark."""


def char_format(finding: Finding) -> QTextCharFormat:
    return _finding_format(finding.kind, finding.severity is Severity.ERROR)


@functools.cache
def _finding_format(kind: Kind, error: bool) -> QTextCharFormat:
    """Built once per kind: highlightBlock runs for every block of every rehighlight."""
    style = STYLES[kind]
    fmt = QTextCharFormat()
    fmt.setUnderlineStyle(style.underline)
    fmt.setUnderlineColor(QColor(style.colour))
    if error:
        tint = QColor(style.colour)
        tint.setAlpha(ERROR_TINT)
        fmt.setBackground(tint)
    return fmt


def claim_format(finding: Finding) -> QTextCharFormat:
    """The words a finding is about: a thin, light underline in the kind's colour."""
    return _claim_format(finding.kind)


@functools.cache
def _claim_format(kind: Kind) -> QTextCharFormat:
    colour = QColor(STYLES[kind].colour)
    colour.setAlpha(CLAIM_ALPHA)
    fmt = QTextCharFormat()
    fmt.setUnderlineStyle(SINGLE)
    fmt.setUnderlineColor(colour)
    return fmt


@functools.cache
def unchecked_format() -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setUnderlineStyle(UNCHECKED.underline)
    fmt.setUnderlineColor(QColor(UNCHECKED.colour))
    tint = QColor(UNCHECKED.colour)
    tint.setAlpha(45)
    fmt.setBackground(tint)
    return fmt


@dataclass
class Marks:
    """What is painted where (Qt positions, sorted by start)."""

    findings: list[tuple[int, int, Finding]] = field(default_factory=list)
    claims: list[tuple[int, int, Finding]] = field(default_factory=list)
    """(sentence start, sentence end, the finding about it)."""
    unchecked: list[tuple[int, int, UncheckedCitation]] = field(default_factory=list)

    def __post_init__(self) -> None:
        for spans in (self.findings, self.claims, self.unchecked):
            spans.sort(key=lambda s: (s[0], s[1]))


class FindingHighlighter(QSyntaxHighlighter):
    """Paints the marks: claims, then unchecked citations, then findings on top."""

    def __init__(self, document: QTextDocument, parent: QObject | None = None) -> None:
        super().__init__(document)
        self._marks = Marks()

    def set_marks(self, marks: Marks) -> None:
        self._marks = marks
        self.rehighlight()

    def spans(self) -> list[tuple[int, int, Finding]]:
        """The findings' own spans."""
        return list(self._marks.findings)

    def claim_spans(self) -> list[tuple[int, int, Finding]]:
        return list(self._marks.claims)

    def unchecked_spans(self) -> list[tuple[int, int, UncheckedCitation]]:
        return list(self._marks.unchecked)

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt's name
        block = self.currentBlock()
        start = block.position()
        end = start + block.length()
        marks = self._marks
        if marks.claims:
            self._paint(start, end, marks.claims, claim_format)
        if marks.unchecked:
            self._paint(start, end, marks.unchecked, lambda _u: unchecked_format())
        if marks.findings:
            self._paint(start, end, marks.findings, char_format)

    def _paint(
        self,
        start: int,
        end: int,
        spans: Sequence[tuple[int, int, T]],
        fmt_of: Callable[[T], QTextCharFormat],
    ) -> None:
        for span_start, span_end, item in spans:
            if span_start >= end:
                break
            if span_end <= start:
                continue
            first = max(span_start, start) - start
            last = min(span_end, end) - start
            self.setFormat(first, max(1, last - first), fmt_of(item))
