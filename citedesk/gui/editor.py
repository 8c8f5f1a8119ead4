"""The editor: the writer's text with each finding underlined where it is.

Findings arrive as Python string offsets into the audited text; `show_findings` maps them to Qt
positions (UTF-16) and hands them to the highlighter. Hovering a highlight shows what it means;
clicking one emits `finding_clicked`, so the window can select it in the findings list.
"""

from __future__ import annotations

from citedesk.core.findings import Finding
from citedesk.gui.evidence_view import hover_html
from citedesk.gui.highlighter import FindingHighlighter
from citedesk.gui.line_numbers import NumberedEditor
from citedesk.gui.offsets import Utf16Map
from citedesk.gui.qt import QEvent, QFont, QHelpEvent, QMouseEvent, QObject, Qt, QTextCursor, QToolTip, Signal


class Editor(NumberedEditor):
    finding_clicked = Signal(object)  # Finding

    def __init__(self) -> None:
        super().__init__()
        self.setAcceptDrops(False)  # files dropped anywhere open in the window
        self.setFont(QFont("Monospace", 11))
        self.setTabChangesFocus(False)
        self.highlighter = FindingHighlighter(self.document())
        self.viewport().installEventFilter(self)

    def show_findings(self, text: str, findings: list[Finding]) -> None:
        """Underline `findings` (offsets into `text`, the audited text)."""
        mapping = Utf16Map(text)
        self.highlighter.set_spans(
            [(mapping.to_qt(f.start), mapping.to_qt(max(f.end, f.start + 1)), f) for f in findings]
        )

    def select_span(self, text: str, start: int, end: int) -> None:
        """Select [start, end) of `text` (Python offsets) and bring it into view."""
        mapping = Utf16Map(text)
        cursor = self.textCursor()
        cursor.setPosition(mapping.to_qt(start))
        cursor.setPosition(mapping.to_qt(end), QTextCursor.MoveMode.KeepAnchor)
        self.setTextCursor(cursor)
        self.centerCursor()

    def findings_at(self, position: int) -> list[Finding]:
        """Findings painted at, or ending at, a Qt document position (most severe first).

        The end is included: a mouse position maps to the nearest character boundary, and a
        one-character highlight (a single wrong number in `[2, 7]`) must still be hoverable.
        """
        hits = [f for start, end, f in self.highlighter.spans() if start <= position <= end]
        return sorted(hits, key=lambda f: -f.severity.rank)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if watched is self.viewport():
            if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
                hits = self.findings_at(self.cursorForPosition(event.pos()).position())
                if hits:
                    QToolTip.showText(event.globalPos(), hover_html(hits), self)
                else:
                    QToolTip.hideText()
                return True
            if (
                event.type() == QEvent.Type.MouseButtonRelease
                and isinstance(event, QMouseEvent)
                and event.button() == Qt.MouseButton.LeftButton
                and not self.textCursor().hasSelection()
            ):
                hits = self.findings_at(self.cursorForPosition(event.position().toPoint()).position())
                if hits:
                    self.finding_clicked.emit(hits[0])
        return super().eventFilter(watched, event)
