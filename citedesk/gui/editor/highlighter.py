"""Inline marks: each finding kind its own colour *and* underline style (never colour alone).

Three layers are painted, each over the one before:

1. the words a finding is about (its claim's sentence) in a light underline of the kind's colour;
2. citations that were not checked (offline, no source text, …) in their own subdued style;
3. the finding itself (a marker, a figure, a sentence) in the kind's style, tinted when an error.

Spans are Qt document positions; `Marks` holds them, and the editor asks it what is where.

Under the three, a LaTeX document gets a syntax layer (`latex_syntax`: commands, comments, math in
muted colours), painted first; a mark painted over coloured text keeps the text's colour and adds
its underline and tint, so the layers never fight. A Markdown document has no syntax layer and
is painted exactly as before.

A book has thousands of blocks and thousands of marks, so new marks never repaint the whole
document at once (issue 26: no stall over 50 ms): only the blocks the old or the new marks touch
are repainted (every block, when the text changed since the marks before were set), those on
screen first, then outwards, in slices of `SLICE_MS` between which the window answers the writer. Each block finds its marks by bisection, not by walking every mark
before it.
"""

from __future__ import annotations

import functools
import time
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from citedesk.core.coverage import UncheckedCitation
from citedesk.core.findings import Finding, Kind, Severity
from citedesk.gui.editor.latex_syntax import Span, scan_line, syntax_format
from citedesk.gui.qt import (
    QColor,
    QEvent,
    QObject,
    QPalette,
    QPlainTextEdit,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
    QTimer,
)


@dataclass(frozen=True)
class Style:
    colour: str
    underline: QTextCharFormat.UnderlineStyle
    name: str
    """How the legend describes the line."""


LATEX_SYNTAX = "latex"
"""The editor syntax (`core.formats.DocumentFormat.syntax`) coloured by `latex_syntax`."""
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
    Kind.UNCONFIRMED: Style("#d35400", DOT, "orange dotted"),
}
UNCHECKED = Style("#8c9499", DASH_DOT_DOT, "grey dash-dot-dot on a grey tint")
"""A citation that was not checked: neither right nor wrong, so no colour of a problem."""
T = TypeVar("T")
SLICE_MS = 8
"""How long one slice of repainting may hold the GUI thread."""
AT_ONCE = 200
"""So few blocks to repaint are repainted at once, whatever the time (a short document's marks are
all there when `set_marks` returns)."""
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
        self._layers: list[_Layer] = []
        for spans in (self.findings, self.claims, self.unchecked):
            spans.sort(key=lambda s: (s[0], s[1]))
            self._layers.append(_Layer.of(spans))

    def layer(self, index: int) -> _Layer:
        """0: findings, 1: claims, 2: unchecked."""
        return self._layers[index]

    def touched(self) -> list[tuple[int, int]]:
        """Every span of every layer (for the blocks to repaint)."""
        return [(s[0], s[1]) for spans in (self.findings, self.claims, self.unchecked) for s in spans]


@dataclass(frozen=True)
class _Layer:
    """One layer's span starts, for bisection, and its longest span (how far back to look)."""

    starts: list[int]
    longest: int

    @classmethod
    def of(cls, spans: Sequence[tuple[int, int, object]]) -> _Layer:
        return cls([s[0] for s in spans], max((s[1] - s[0] for s in spans), default=0))

    def window(self, start: int, end: int) -> range:
        """The indices of the spans that may overlap [start, end)."""
        return range(bisect_left(self.starts, start - self.longest), bisect_left(self.starts, end))


class FindingHighlighter(QSyntaxHighlighter):
    """Paints the marks: claims, then unchecked citations, then findings on top."""

    def __init__(self, document: QTextDocument, parent: QObject | None = None) -> None:
        super().__init__(document)
        self._marks = Marks()
        self._todo: list[int] = []
        """Block numbers still to repaint for the current marks, the next one last."""
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._repaint_slice)
        self._text = ""
        """The text the marks were last set on."""
        self.repainting = False
        """True while a block is repainted: the editor then says its text changed, and it did not."""
        self._latex = False
        self._dark = False
        self._watching = False
        """Whether the editor's palette changes are watched (from the first `set_latex`)."""
        self._syntax: list[Span] = []
        """The current block's syntax spans (LaTeX only), which marks painted over it keep."""
        self._over: dict[tuple[int, str], tuple[QTextCharFormat, QTextCharFormat]] = {}
        """(id of a mark's format, syntax kind) → (that format, it with the syntax colour)."""

    @property
    def latex(self) -> bool:
        """Whether the text is coloured as LaTeX."""
        return self._latex

    def set_syntax(self, syntax: str, *, repaint: bool = True) -> None:
        """Colour the text as a document format's editor syntax says (`core.formats`): LaTeX's
        colours for `latex`, none but the marks for any other."""
        self.set_latex(syntax == LATEX_SYNTAX, repaint=repaint)

    def set_latex(self, latex: bool, *, repaint: bool = True) -> None:
        """Colour the text as LaTeX (or not). The theme is read from the editor's palette, now and
        whenever it changes (Settings ▸ theme). With `repaint`, every block is painted again (the
        text stays; the editor is told so); without, the caller is about to replace the text,
        which paints it anyway."""
        owner = self._editor()
        if owner is not None and not self._watching:
            owner.installEventFilter(self)
            self._watching = True
        palette = owner.palette() if owner is not None else QPalette()
        dark = palette.color(QPalette.ColorRole.Base).lightness() < 128
        if (latex, dark) == (self._latex, self._dark):
            return
        self._latex, self._dark = latex, dark
        self._over.clear()
        if repaint:
            self.repainting = True
            try:
                self.rehighlight()
            finally:
                self.repainting = False

    def set_marks(self, marks: Marks) -> None:
        """Show `marks`: the blocks they or the marks before touch are repainted, those on screen
        first; what a slice cannot do waits for the next turn of the event loop."""
        before, self._marks = self._marks, marks
        starts = self._block_starts()
        text = self.document().toPlainText()
        if text != self._text:  # edited since: the marks before are not where their positions say
            blocks = set(range(len(starts)))
        else:
            blocks = set(self._todo)
            for start, end in {*before.touched(), *marks.touched()}:
                first = bisect_right(starts, start) - 1
                last = bisect_right(starts, max(start, end - 1)) - 1
                blocks.update(range(max(first, 0), last + 1))
        self._text = text
        middle = self._on_screen()
        # the farthest from the screen first in the list: the nearest are popped first
        self._todo = sorted(blocks, key=lambda n: -abs(n - middle))
        if len(self._todo) <= AT_ONCE:
            self.finish()
        else:
            self._repaint_slice()

    def _block_starts(self) -> list[int]:
        """Each block's first position, in order (one walk, then bisection in Python: thousands of
        marks would otherwise each ask Qt for their block)."""
        starts = []
        block = self.document().firstBlock()
        while block.isValid():
            starts.append(block.position())
            block = block.next()
        return starts

    def pending(self) -> int:
        """How many blocks still wait to be repainted (0: what is painted is the marks)."""
        return len(self._todo)

    def finish(self) -> None:
        """Repaint every block still waiting, now (tests, and before reading the formats)."""
        self._timer.stop()
        while self._todo:
            self._repaint(self._todo.pop())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        """The editor's palette changed (a light or dark theme chosen): LaTeX coloured for it."""
        if event.type() == QEvent.Type.PaletteChange and self._latex:
            self.set_latex(True)
        return False

    def _editor(self) -> QPlainTextEdit | None:
        owner = self.document().parent()
        while owner is not None and not isinstance(owner, QPlainTextEdit):
            owner = owner.parent()
        return owner

    def _on_screen(self) -> int:
        """The block number in the middle of the editor's view (0 when it has no editor)."""
        owner = self._editor()
        if owner is None:
            return 0
        first = owner.firstVisibleBlock().blockNumber()
        bottom = owner.cursorForPosition(owner.viewport().rect().bottomLeft()).block().blockNumber()
        return (first + max(first, bottom)) // 2

    def _repaint_slice(self) -> None:
        deadline = time.perf_counter() + SLICE_MS / 1000
        while self._todo and time.perf_counter() < deadline:
            self._repaint(self._todo.pop())
        if self._todo:
            self._timer.start(0)

    def _repaint(self, number: int) -> None:
        block = self.document().findBlockByNumber(number)
        if block.isValid():
            self.repainting = True
            try:
                self.rehighlightBlock(block)
            finally:
                self.repainting = False

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
        self._syntax = []
        if self._latex:
            self._syntax, state = scan_line(text, self.previousBlockState())
            self.setCurrentBlockState(state)
            for first, length, kind in self._syntax:
                self.setFormat(first, length, syntax_format(kind, self._dark))
        if marks.claims:
            self._paint(start, end, marks.claims, marks.layer(1), claim_format)
        if marks.unchecked:
            self._paint(start, end, marks.unchecked, marks.layer(2), lambda _u: unchecked_format())
        if marks.findings:
            self._paint(start, end, marks.findings, marks.layer(0), char_format)

    def _paint(
        self,
        start: int,
        end: int,
        spans: Sequence[tuple[int, int, T]],
        layer: _Layer,
        fmt_of: Callable[[T], QTextCharFormat],
    ) -> None:
        for index in layer.window(start, end):
            span_start, span_end, item = spans[index]
            if span_end <= start:
                continue
            first = max(span_start, start) - start
            last = min(span_end, end) - start
            self._put(first, max(1, last - first), fmt_of(item))

    def _put(self, first: int, length: int, fmt: QTextCharFormat) -> None:
        """Paint a mark: where it lies on coloured LaTeX, the mark's format with that colour."""
        if not self._syntax:
            self.setFormat(first, length, fmt)
            return
        end, done = first + length, first
        for start, size, kind in self._syntax:
            low, high = max(start, first), min(start + size, end)
            if low >= high:
                continue
            if low > done:
                self.setFormat(done, low - done, fmt)
            self.setFormat(low, high - low, self._coloured(fmt, kind))
            done = high
        if done < end:
            self.setFormat(done, end - done, fmt)

    def _coloured(self, fmt: QTextCharFormat, kind: str) -> QTextCharFormat:
        key = (id(fmt), kind)
        kept = self._over.get(key)
        if kept is None or kept[0] is not fmt:
            merged = QTextCharFormat(fmt)
            syntax = syntax_format(kind, self._dark)
            merged.setForeground(syntax.foreground())
            merged.setFontItalic(syntax.fontItalic())
            kept = self._over[key] = (fmt, merged)
        return kept[1]
