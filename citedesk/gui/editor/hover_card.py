"""The card over a highlight: what is wrong, the evidence, and what to do about it — where it is.

Hovering a highlight (or Alt+Return with the cursor on one) shows a small card: the finding's kind
and message, the judge's score read the right way (`Verdict.strength()`), a snippet of the
evidence, one button per fix named exactly as the fix (`Fix.title`: "Cite [3] instead of [2]"),
and "Dismiss (false alarm)", "Needs a source", "Show evidence". A citation that was not checked
shows why, with "Attach a file…" when a local copy would let it be checked.

It is a child widget of the editor, not a tooltip: it holds buttons, takes the keyboard when
opened by keyboard (Tab or the arrows move, Enter or Space presses, Escape closes) and stays
open while the mouse is over it. It decides nothing: it emits what was asked for.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from citedesk.core.coverage import UncheckedCitation
from citedesk.core.findings import Finding, Fix, judged_line
from citedesk.gui.actions import (
    AT_A_FINDING,
    FALSE_ALARM,
    VERIFY_FIRST,
    ActionSpec,
    ActionState,
    button_text,
    fix_label,
)
from citedesk.gui.actions import NEEDS_SOURCE as NEEDS_SOURCE_ACTION
from citedesk.gui.actions import SHOW_EVIDENCE as SHOW_EVIDENCE_ACTION
from citedesk.gui.editor.highlighter import STYLES
from citedesk.gui.qt import (
    QApplication,
    QEnterEvent,
    QEvent,
    QFrame,
    QHBoxLayout,
    QKeyEvent,
    QLabel,
    QPushButton,
    QRect,
    Qt,
    QTimer,
    QToolButton,
    QVBoxLayout,
    QWidget,
    Signal,
)

DISMISS = FALSE_ALARM.text
NEEDS_SOURCE = NEEDS_SOURCE_ACTION.text
SHOW_EVIDENCE = SHOW_EVIDENCE_ACTION.text
"""The review actions' labels as the card shows them (declared once, in `gui.actions`)."""
ATTACH = "Attach a file…"
CARD_WIDTH = 440
SNIPPET_CHARS = 240
HIDE_DELAY_MS = 350


@dataclass(frozen=True)
class Hits:
    """What is marked at one place in the text: findings (most severe first) and unchecked citations."""

    findings: list[Finding] = field(default_factory=list)
    unchecked: list[UncheckedCitation] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.findings or self.unchecked)


def bracketed(key: str) -> str:
    """How a citation of `key` is written before a report says otherwise (`Document.label`)."""
    return f"[{key}]"


def attach_label(unchecked: list[UncheckedCitation], key: str, cite: Callable[[str], str] = bracketed) -> str:
    """ "Attach a file…" — naming the reference when the place cites several not checked (`[2, 7]`)."""
    keys = {u.key for u in unchecked}
    return ATTACH if len(keys) <= 1 else f"Attach a file for {cite(key)}…"


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class HoverCard(QFrame):
    fix_chosen = Signal(object, object)  # Finding, Fix
    decided = Signal(object, object)  # Finding, Decision
    evidence_requested = Signal(object)  # Finding
    attach_requested = Signal(str)  # reference key

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.cite: Callable[[str], str] = bracketed
        """How the document writes a citation of a key (`Document.label`), set with each report."""
        self.setObjectName("HoverCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setStyleSheet(
            "#HoverCard { background: palette(base); border: 1px solid palette(mid); border-radius: 6px; }"
            "#HoverCard QLabel#snippet { background: palette(alternate-base); padding: 4px;"
            " border-left: 3px solid palette(mid); }"
        )
        self.hide_timer = QTimer(self)
        self.hide_timer.setSingleShot(True)
        self.hide_timer.setInterval(HIDE_DELAY_MS)
        self.hide_timer.timeout.connect(self.hide)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(10, 8, 10, 8)
        self._body: QWidget | None = None
        self._hits = Hits()
        self._index = 0
        self._lines: list[str] = []
        self.hide()

    # what it shows ----------------------------------------------------------------------------------
    def show_hits(self, hits: Hits, anchor: QRect, *, focus: bool = False) -> None:
        """Show the card for `hits`, under (or above) `anchor` (a rectangle in the parent's coordinates)."""
        if not hits:
            self.hide()
            return
        if hits != self._hits or not self.isVisible():
            self._index = 0
        self._hits = hits
        self._rebuild()
        self._place(anchor)
        self.hide_timer.stop()
        self.show()
        self.raise_()
        if focus:
            self.focus_first()

    def current(self) -> Finding | None:
        return self._hits.findings[self._index] if self._hits.findings else None

    def buttons(self) -> list[QPushButton]:
        return self.findChildren(QPushButton)

    def button(self, label: str) -> QPushButton | None:
        return next((b for b in self.buttons() if b.text() == button_text(label)), None)

    def text(self) -> str:
        """What the card says, as plain text (its buttons aside)."""
        return "\n".join(self._lines)

    def labels(self) -> list[str]:
        """The buttons' labels, top to bottom, as the writer reads them."""
        return [b.text().replace("&&", "&") for b in self.buttons()]

    def focus_first(self) -> None:
        buttons = self.buttons()
        if buttons:
            buttons[0].setFocus(Qt.FocusReason.ShortcutFocusReason)
        else:
            self.setFocus()

    def show_next(self) -> None:
        """Another finding at the same place (the card shows one at a time)."""
        if len(self._hits.findings) > 1:
            self._index = (self._index + 1) % len(self._hits.findings)
            geometry = self.geometry()
            self._rebuild()
            self.adjustSize()
            self.move(geometry.topLeft())

    def _rebuild(self) -> None:
        if self._body is not None:
            self._layout.removeWidget(self._body)
            self._body.hide()
            self._body.deleteLater()
        self._body = QWidget(self)
        self._lines = []
        column = QVBoxLayout(self._body)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        finding = self.current()
        if finding is not None:
            self._finding_part(column, finding)
        if self._hits.unchecked:
            self._unchecked_part(column, self._hits.unchecked, heading=finding is None)
        self._layout.addWidget(self._body)

    def _finding_part(self, column: QVBoxLayout, finding: Finding) -> None:
        colour = STYLES[finding.kind].colour
        reference = f" {html.escape(self.cite(finding.reference))}" if finding.reference else ""
        header = QHBoxLayout()
        title = QLabel(f"<b style='color:{colour}'>{html.escape(finding.kind.label)}</b>{reference}")
        self._lines.append(finding.kind.label + html.unescape(reference))
        header.addWidget(title, 1)
        count = len(self._hits.findings)
        if count > 1:
            more = QToolButton()
            more.setText(f"{self._index + 1} of {count} ›")
            more.setToolTip("The next finding at this place")
            more.setAutoRaise(True)
            more.clicked.connect(self.show_next)
            header.addWidget(more)
        column.addLayout(header)
        column.addWidget(self._wrapped(html.escape(finding.message)))
        if finding.verdict is not None:
            score = self._wrapped(f"<i>{html.escape(judged_line(finding))}</i>")
            score.setObjectName("score")
            column.addWidget(score)
        passage = finding.evidence.passage if finding.evidence else ""
        if passage:
            where = (
                f"{self.cite(finding.evidence.source)} "
                if finding.evidence and finding.evidence.source
                else ""
            )
            quote = self._wrapped(f"{html.escape(where)}“{html.escape(snippet(passage))}”")
            quote.setObjectName("snippet")
            column.addWidget(quote)
        for fix in finding.fixes:
            button = self._button(fix_label(fix), lambda _=False, f=fix: self._fix(f))
            if not fix.safe:
                button.setToolTip(VERIFY_FIRST)
            column.addWidget(button)
        row = QHBoxLayout()
        row.setSpacing(4)
        state = ActionState(finding)
        for spec in AT_A_FINDING:
            if spec.enabled_when(state):
                row.addWidget(self._button(spec.text, lambda _=False, s=spec: self._act(s)))
        row.addStretch(1)
        column.addLayout(row)

    def _unchecked_part(
        self, column: QVBoxLayout, unchecked: list[UncheckedCitation], *, heading: bool
    ) -> None:
        if heading:
            column.addWidget(QLabel("<b>Not checked</b>"))
            self._lines.append("Not checked")
        seen: set[str] = set()
        for citation in unchecked:
            if citation.key in seen:
                continue
            seen.add(citation.key)
            line = f"{html.escape(self.cite(citation.key))} was not checked: {html.escape(citation.words)}."
            column.addWidget(self._wrapped(line))
            if citation.reason.attachable:
                label = attach_label(unchecked, citation.key, self.cite)
                column.addWidget(self._button(label, lambda _=False, k=citation.key: self._attach(k)))

    def _wrapped(self, rich: str) -> QLabel:
        self._lines.append(html.unescape(re.sub(r"<[^>]+>", "", rich)))
        label = QLabel(rich)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.RichText)
        return label

    def _button(self, label: str, slot: object) -> QPushButton:
        button = QPushButton(button_text(label))
        button.setAutoDefault(False)
        button.setToolTip(label)
        button.clicked.connect(slot)
        return button

    def _place(self, anchor: QRect) -> None:
        """Below the anchor (above it when there is no room), inside the editor's viewport: never
        under its scroll bar, its frame or the line numbers."""
        parent = self.parentWidget()
        viewport = getattr(parent, "viewport", None)
        if parent is None:
            area = QRect(0, 0, CARD_WIDTH + 16, anchor.bottom() + 2 * CARD_WIDTH)
        elif callable(viewport):
            area = viewport().geometry()
        else:
            area = parent.rect()
        width = max(200, min(CARD_WIDTH, area.width() - 16))
        self.setFixedWidth(width)
        self.setMinimumHeight(0)
        self.setMaximumHeight(16_777_215)
        self.adjustSize()
        height = self.heightForWidth(width) if self.hasHeightForWidth() else self.sizeHint().height()
        height = max(height, self.sizeHint().height())
        self.resize(width, height)
        left, right, top, bottom = area.left(), area.right() + 1, area.top(), area.bottom() + 1
        x = min(max(left + 4, anchor.left()), max(left + 4, right - width - 4))
        y = anchor.bottom() + 4
        if y + height > bottom - 4:
            y = max(top + 4, anchor.top() - height - 4)
        self.move(x, y)

    # what it asks for ----------------------------------------------------------------------------------
    def _fix(self, fix: Fix) -> None:
        finding = self.current()
        self.close_card()
        if finding is not None:
            self.fix_chosen.emit(finding, fix)

    def _act(self, spec: ActionSpec) -> None:
        """A review action on the finding shown: a decision, or its evidence."""
        finding = self.current()
        self.close_card()
        if finding is None:
            return
        if spec.decision is not None:
            self.decided.emit(finding, spec.decision)
        elif spec is SHOW_EVIDENCE_ACTION:
            self.evidence_requested.emit(finding)

    def _attach(self, key: str) -> None:
        self.close_card()
        self.attach_requested.emit(key)

    def has_keyboard(self) -> bool:
        focused = QApplication.focusWidget()
        return focused is not None and (focused is self or self.isAncestorOf(focused))

    def close_card(self) -> None:
        """Hide, giving the keyboard back to the editor if the card had it."""
        had_focus = self.has_keyboard()
        self.hide_timer.stop()
        self.hide()
        parent = self.parentWidget()
        if had_focus and parent is not None:
            parent.setFocus(Qt.FocusReason.OtherFocusReason)

    # mouse and keyboard ----------------------------------------------------------------------------------
    def enterEvent(self, event: QEnterEvent) -> None:  # noqa: N802 - Qt's name
        self.hide_timer.stop()
        super().enterEvent(event)

    def leaveEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        if not self.has_keyboard():
            self.hide_timer.start()
        super().leaveEvent(event)

    def event(self, event: QEvent) -> bool:
        # Escape closes the card before any window shortcut on Escape (cancel the audit) sees it
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Escape
        ):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        key = event.key()
        if key == Qt.Key.Key_Escape:
            self.close_card()
        elif key in (Qt.Key.Key_Down, Qt.Key.Key_Right):
            self.focusNextChild()
        elif key in (Qt.Key.Key_Up, Qt.Key.Key_Left):
            self.focusPreviousChild()
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            focused = self.focusWidget()
            if isinstance(focused, QPushButton) and self.isAncestorOf(focused):
                focused.click()
        else:
            super().keyPressEvent(event)
