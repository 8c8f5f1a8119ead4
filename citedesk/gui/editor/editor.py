"""The editor: the writer's text with each finding marked where it is, and acted on where it is.

Findings arrive as Python string offsets into the audited text; `show_report` maps them to Qt
positions (UTF-16) and hands the marks to the highlighter: the finding's own span, the words of
its claim, and citations that were not checked. Hovering a mark shows the `HoverCard` (fixes by
name, dismiss, needs a source, show evidence); right-clicking one puts the same actions at the top
of the context menu; Alt+Return opens the card at the cursor for the keyboard. Clicking a finding
emits `finding_clicked`. The editor decides nothing: it emits what the writer asked for.

Comfort: a proportional or monospaced font, soft wrap, zoom, and undo that brings the cursor (and
the view) back to the place the undone change was — a fix far down the text is undone where it was.
"""

from __future__ import annotations

from collections.abc import Callable

from citedesk.core.findings import Finding, Fix
from citedesk.core.reports.report import Report
from citedesk.gui.actions import AT_A_FINDING, SHOW_EVIDENCE, ActionSpec, ActionState, button_text
from citedesk.gui.editor.highlighter import FindingHighlighter, Marks
from citedesk.gui.editor.hover_card import Hits, HoverCard, attach_label
from citedesk.gui.editor.line_numbers import NumberedEditor
from citedesk.gui.editor.offsets import Utf16Map
from citedesk.gui.qt import (
    QAction,
    QContextMenuEvent,
    QEvent,
    QFont,
    QFontDatabase,
    QFontInfo,
    QHelpEvent,
    QKeyEvent,
    QKeySequence,
    QMenu,
    QMouseEvent,
    QObject,
    QPlainTextEdit,
    QPoint,
    QRect,
    Qt,
    QTextCursor,
    QTextOption,
    QWheelEvent,
    Signal,
)

BASE_POINTS = 11
ZOOM_RANGE = (-5, 20)
"""Zoom steps of one point each, from the base size."""


class Editor(NumberedEditor):
    finding_clicked = Signal(object)  # Finding
    fix_chosen = Signal(object, object)  # Finding, Fix
    decided = Signal(object, object)  # Finding, Decision
    evidence_requested = Signal(object)  # Finding
    attach_requested = Signal(str)  # reference key
    zoomed = Signal(int)  # zoom steps from the base size

    def __init__(self) -> None:
        super().__init__()
        self.setAcceptDrops(False)  # files dropped anywhere open in the window
        self.setTabChangesFocus(False)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.highlighter = FindingHighlighter(self.document())
        self.viewport().installEventFilter(self)
        self.viewport().setMouseTracking(True)
        self.card = HoverCard(self)
        self.card.fix_chosen.connect(self.fix_chosen)
        self.card.decided.connect(self.decided)
        self.card.evidence_requested.connect(self.evidence_requested)
        self.card.attach_requested.connect(self.attach_requested)
        self.verticalScrollBar().valueChanged.connect(self._hide_card_unless_focused)
        self.zoom = 0
        self.monospace = False
        self.set_font(monospace=False)

    # marks ------------------------------------------------------------------------------------------------
    def show_report(self, report: Report, findings: list[Finding]) -> None:
        """Mark `findings` of `report`, the words each is about, and every citation not checked."""
        self.card.cite = report.document.label
        text = report.document.text
        mapping = Utf16Map(text)
        claims = report.document.claim_by_id
        about: list[tuple[int, int, Finding]] = []
        for f in findings:
            claim = claims.get(f.claim_id) if f.claim_id else None
            if claim is None or claim.sentence.end <= claim.sentence.start:
                continue
            sentence = claim.sentence
            if (sentence.start, sentence.end) != (f.start, f.end):
                about.append((mapping.to_qt(sentence.start), mapping.to_qt(sentence.end), f))
        marks = Marks(
            findings=[(mapping.to_qt(f.start), mapping.to_qt(max(f.end, f.start + 1)), f) for f in findings],
            claims=about,
            unchecked=[
                (mapping.to_qt(u.start), mapping.to_qt(max(u.end, u.start + 1)), u)
                for u in (report.coverage.unchecked if report.coverage else ())
            ],
        )
        self.card.close_card()
        self.highlighter.set_marks(marks)

    def findings_at(self, position: int) -> list[Finding]:
        """Findings painted at, or ending at, a Qt document position (most severe first).

        The end is included: a mouse position maps to the nearest character boundary, and a
        one-character highlight (a single wrong number in `[2, 7]`) must still be hoverable.
        """
        hits = [f for start, end, f in self.highlighter.spans() if start <= position <= end]
        return sorted(hits, key=lambda f: -f.severity.rank)

    def marks_at(self, position: int) -> Hits:
        """Everything marked at a Qt position: findings there (else the findings about the sentence
        there) and citations not checked."""
        findings = self.findings_at(position)
        if not findings:
            about = {id(f): f for start, end, f in self.highlighter.claim_spans() if start <= position <= end}
            findings = sorted(about.values(), key=lambda f: -f.severity.rank)
        unchecked = [u for start, end, u in self.highlighter.unchecked_spans() if start <= position <= end]
        return Hits(findings, unchecked)

    def select_span(self, text: str, start: int, end: int) -> None:
        """Select [start, end) of `text` (Python offsets) and bring it into view."""
        mapping = Utf16Map(text)
        cursor = self.textCursor()
        cursor.setPosition(mapping.to_qt(start))
        cursor.setPosition(mapping.to_qt(end), QTextCursor.MoveMode.KeepAnchor)
        self.setTextCursor(cursor)
        self.centerCursor()

    # the card and the menu --------------------------------------------------------------------------------
    def _anchor(self, position: int, x: int | None = None) -> QRect:
        """Where the card points: the line at `position` (editor coordinates)."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(position)
        rect = self.cursorRect(cursor)
        top_left = self.viewport().mapTo(self, rect.topLeft())
        left = self.viewport().mapTo(self, QPoint(x, 0)).x() if x is not None else top_left.x()
        return QRect(max(0, left - 24), top_left.y(), 1, rect.height())

    def show_card_at(self, position: int, *, focus: bool = False, x: int | None = None) -> bool:
        hits = self.marks_at(position)
        if not hits:
            return False
        self.card.show_hits(hits, self._anchor(position, x), focus=focus)
        return True

    def open_card_at_cursor(self) -> bool:
        """The keyboard's hover: the card for what is marked at the cursor, with the keyboard in it."""
        return self.show_card_at(self.textCursor().position(), focus=True)

    def _hide_card_unless_focused(self) -> None:
        if self.card.isVisible() and not self.card.has_keyboard():
            self.card.close_card()

    def context_menu_at(self, position: int) -> QMenu:
        """The context menu for a Qt position: what can be done about the marks there, then Cut,
        Copy, Paste and the rest."""
        menu = self.createStandardContextMenu()
        hits = self.marks_at(position)
        first = menu.actions()[0] if menu.actions() else None
        actions: list[QAction] = []
        if hits.findings:
            finding = hits.findings[0]
            for fix in finding.fixes:
                actions.append(self._menu_action(menu, fix.title, lambda f=finding, x=fix: self._fix(f, x)))
            state = ActionState(finding)
            for spec in AT_A_FINDING:
                if spec.enabled_when(state):
                    action = self._menu_action(menu, spec.text, lambda f=finding, s=spec: self._act(f, s))
                    action.setShortcuts(spec.key_sequences())
                    actions.append(action)
        keys = dict.fromkeys(u.key for u in hits.unchecked if u.reason.attachable)
        for key in keys:
            label = attach_label(hits.unchecked, key, self.card.cite)
            actions.append(self._menu_action(menu, label, lambda k=key: self.attach_requested.emit(k)))
        if actions and first is not None:
            menu.insertActions(first, actions)
            menu.insertSeparator(first)
        elif actions:
            menu.addActions(actions)
        return menu

    @staticmethod
    def _menu_action(menu: QMenu, label: str, slot: object) -> QAction:
        action = QAction(button_text(label), menu)
        action.triggered.connect(slot)
        return action

    def _fix(self, finding: Finding, fix: Fix) -> None:
        self.fix_chosen.emit(finding, fix)

    def _act(self, finding: Finding, spec: ActionSpec) -> None:
        if spec.decision is not None:
            self.decided.emit(finding, spec.decision)
        elif spec is SHOW_EVIDENCE:
            self.evidence_requested.emit(finding)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # noqa: N802 - Qt's name
        if event.reason() == QContextMenuEvent.Reason.Keyboard:
            position = self.textCursor().position()
            at = self.viewport().mapToGlobal(self.cursorRect().bottomLeft())
        else:
            position = self.cursorForPosition(event.pos()).position()
            at = event.globalPos()
        self.card.close_card()
        menu = self.context_menu_at(position)
        menu.exec(at)
        menu.deleteLater()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if watched is self.viewport():
            kind = event.type()
            if kind == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
                position = self.cursorForPosition(event.pos()).position()
                if not self.show_card_at(position, x=event.pos().x()):
                    self._hide_card_soon()
                return True  # no tooltip: the card is the explanation
            if kind == QEvent.Type.MouseMove and isinstance(event, QMouseEvent) and self.card.isVisible():
                if self.marks_at(self.cursorForPosition(event.position().toPoint()).position()):
                    self.card.hide_timer.stop()
                else:
                    self._hide_card_soon()
            if (
                kind == QEvent.Type.MouseButtonRelease
                and isinstance(event, QMouseEvent)
                and event.button() == Qt.MouseButton.LeftButton
                and not self.textCursor().hasSelection()
            ):
                hits = self.findings_at(self.cursorForPosition(event.position().toPoint()).position())
                if hits:
                    self.finding_clicked.emit(hits[0])
        return super().eventFilter(watched, event)

    def _hide_card_soon(self) -> None:
        if self.card.isVisible() and not self.card.has_keyboard():
            self.card.hide_timer.start()

    # undo where the change was ----------------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        if self.card.isVisible() and not self.card.has_keyboard():
            self.card.close_card()
        if event.matches(QKeySequence.StandardKey.Undo):
            self.undo_in_place()
        elif event.matches(QKeySequence.StandardKey.Redo):
            self.redo_in_place()
        else:
            super().keyPressEvent(event)

    def undo_in_place(self) -> None:
        """Undo, then put the cursor where the undone change was and show it there."""
        self._in_place(self.undo)

    def redo_in_place(self) -> None:
        self._in_place(self.redo)

    def _in_place(self, step: Callable[[], None]) -> None:
        before = self.toPlainText()
        step()
        after = self.toPlainText()
        if before == after:
            return
        prefix = 0
        limit = min(len(before), len(after))
        while prefix < limit and before[prefix] == after[prefix]:
            prefix += 1
        suffix = 0
        while suffix < limit - prefix and before[-1 - suffix] == after[-1 - suffix]:
            suffix += 1
        cursor = self.textCursor()
        cursor.setPosition(Utf16Map(after).to_qt(len(after) - suffix))
        self.setTextCursor(cursor)
        if not self.viewport().rect().contains(self.cursorRect()):
            self.centerCursor()

    # comfort ----------------------------------------------------------------------------------------------
    def set_font(self, *, monospace: bool | None = None, zoom: int | None = None) -> None:
        """A proportional (prose) or monospaced font, `zoom` points bigger or smaller than the base."""
        if monospace is not None:
            self.monospace = monospace
        if zoom is not None:
            self.zoom = max(ZOOM_RANGE[0], min(ZOOM_RANGE[1], zoom))
        font = (
            _monospace_font()
            if self.monospace
            else QFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont))
        )
        font.setPointSize(BASE_POINTS + self.zoom)
        self.setFont(font)
        self.line_numbers.refit()

    def zoom_by(self, steps: int) -> None:
        self.set_font(zoom=self.zoom + steps)
        self.zoomed.emit(self.zoom)

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt's name
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:  # Ctrl+wheel: our zoom, kept
            delta = event.angleDelta().y()
            if delta:
                self.zoom_by(1 if delta > 0 else -1)
            event.accept()
            return
        super().wheelEvent(event)

    def set_soft_wrap(self, wrap: bool) -> None:
        self.setLineWrapMode(
            QPlainTextEdit.LineWrapMode.WidgetWidth if wrap else QPlainTextEdit.LineWrapMode.NoWrap
        )


_FIXED_FAMILIES = ("DejaVu Sans Mono", "Noto Mono", "Liberation Mono", "Cascadia Mono", "Menlo", "Consolas")


def _monospace_font() -> QFont:
    """The system's fixed-width font, or, where the system names one Qt does not see as fixed-width
    (fontconfig's `monospace` can be Noto Sans Mono, whose wide glyphs make it "proportional"), the
    first family that is: a column of text must line up."""
    font = QFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    font.setStyleHint(QFont.StyleHint.Monospace)
    if QFontInfo(font).fixedPitch():
        return font
    for family in (*_FIXED_FAMILIES, *QFontDatabase.families()):
        if QFontDatabase.isFixedPitch(family):
            font.setFamily(family)
            break
    return font
