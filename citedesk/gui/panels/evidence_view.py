"""How a finding reads: the evidence pane beside the findings, with its fixes as buttons.

The text is HTML built from a finding's typed fields (`Evidence`, `Verdict`, `Suggestion`) in a
read-only browser whose links open in the system browser; scores read the right way round
(`Verdict.strength()`: "contradiction 0.80", never a high "support" beside a contradiction). Under
it, one button per fix, named exactly as the fix, then "Dismiss (false alarm)" and "Needs a source".
The pane decides nothing: it emits `fix_chosen` and `decided`.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from citedesk.core.findings import Evidence, Finding, Fix
from citedesk.core.review import Decision, Review
from citedesk.gui.actions import IN_THE_PANE, VERIFY_FIRST, ActionState, button_text, fix_label
from citedesk.gui.editor.hover_card import bracketed
from citedesk.gui.qt import (
    QDesktopServices,
    QHBoxLayout,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
    Signal,
)

PLACEHOLDER = "<p>Select a finding to see why, and its evidence.</p>"


class EvidenceView(QWidget):
    fix_chosen = Signal(object, object)  # Finding, Fix
    decided = Signal(object, object)  # Finding, Decision

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cite: Callable[[str], str] = bracketed
        """How the document writes a citation of a key (`Document.label`), set with each report."""
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(QDesktopServices.openUrl)
        self.browser.setHtml(PLACEHOLDER)
        self._buttons = QWidget()
        self._buttons_layout = QVBoxLayout(self._buttons)
        self._buttons_layout.setContentsMargins(4, 2, 4, 4)
        self._buttons_layout.setSpacing(4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.browser, 1)
        layout.addWidget(self._buttons)
        self._finding: Finding | None = None
        self._buttons.hide()

    def show_finding(self, finding: Finding | None, review: Review | None = None) -> None:
        self._finding = finding
        self._clear_buttons()
        if finding is None:
            self.browser.setHtml(PLACEHOLDER)
            self._buttons.hide()
            return
        decided = ""
        if review is not None:
            note = f": {html.escape(review.note)}" if review.note else ""
            decided = f"<p><i>Your review: {review.decision.label}{note}</i></p>"
        self.browser.setHtml(evidence_html(finding, self.cite) + decided)
        for fix in finding.fixes:
            button = self._button(fix_label(fix), lambda _=False, f=fix: self._fix(f))
            if not fix.safe:
                button.setToolTip(VERIFY_FIRST)
            self._buttons_layout.addWidget(button)
        row = QHBoxLayout()
        state = ActionState(finding)
        for spec in IN_THE_PANE:
            if spec.decision is not None and spec.enabled_when(state):
                row.addWidget(self._button(spec.text, lambda _=False, d=spec.decision: self._decide(d)))
        row.addStretch(1)
        self._buttons_layout.addLayout(row)
        self._buttons.show()

    def fix_buttons(self) -> list[QPushButton]:
        """One button per fix of the finding shown, in order."""
        titles = {button_text(fix_label(f)) for f in self._finding.fixes} if self._finding else set()
        return [b for b in self._buttons.findChildren(QPushButton) if b.text() in titles]

    def toPlainText(self) -> str:  # noqa: N802 - as QTextBrowser names it
        """What the pane says, the fixes' buttons included."""
        fixes = [f"Fix: {fix_label(f)}" for f in self._finding.fixes] if self._finding else []
        return "\n".join([self.browser.toPlainText(), *fixes])

    def _button(self, label: str, slot: object) -> QPushButton:
        button = QPushButton(button_text(label))
        button.setAutoDefault(False)
        button.setToolTip(label)
        button.clicked.connect(slot)
        return button

    def _clear_buttons(self) -> None:
        while self._buttons_layout.count():
            item = self._buttons_layout.takeAt(0)
            if item is None:
                break
            widget = item.widget()
            inner = item.layout()
            if inner is not None:
                while inner.count():
                    child = inner.takeAt(0)
                    grandchild = child.widget() if child is not None else None
                    if grandchild is not None:
                        grandchild.deleteLater()
            if widget is not None:
                widget.deleteLater()

    def _fix(self, fix: Fix) -> None:
        if self._finding is not None:
            self.fix_chosen.emit(self._finding, fix)

    def _decide(self, decision: Decision) -> None:
        if self._finding is not None:
            self.decided.emit(self._finding, decision)


def hover_html(findings: list[Finding]) -> str:
    """A short account of findings at one place: message, score and a piece of the evidence (the
    hover card's description for screen readers)."""
    parts = []
    for finding in findings[:3]:
        line = f"<b>{html.escape(finding.kind.label)}</b>: {html.escape(finding.message)}"
        if finding.verdict is not None:
            judge = html.escape(finding.verdict.judge or "")
            line += f"<br><i>{html.escape(finding.verdict.strength())} ({judge})</i>"
        passage = finding.evidence.passage if finding.evidence else ""
        if passage:
            shown = passage if len(passage) <= 280 else passage[:277] + "…"
            line += f"<br>Evidence: “{html.escape(shown)}”"
        parts.append(line)
    return "<hr>".join(parts)


def evidence_html(finding: Finding, cite: Callable[[str], str] = bracketed) -> str:
    parts = [f"<h3>{html.escape(finding.kind.label)}</h3><p>{html.escape(finding.message)}</p>"]
    if finding.evidence:
        parts.append(_evidence_block("Evidence", finding.evidence, cite))
    offered = finding.suggestion
    if offered is not None and offered.evidence is not None and finding.verdict is not None:
        parts.append(_evidence_block(f"Reference {cite(offered.key)} says", offered.evidence, cite))
    if finding.verdict is not None:
        judge = html.escape(finding.verdict.judge or "")
        parts.append(
            f"<p>Score: {html.escape(finding.verdict.strength())} {f'({judge})' if judge else ''}.</p>"
        )
    elif offered is not None:
        parts.append(f"<p>Reference {html.escape(cite(offered.key))}: support {offered.score:.2f}.</p>")
    return "".join(parts)


def _evidence_block(heading: str, evidence: Evidence, cite: Callable[[str], str]) -> str:
    passage = html.escape(evidence.passage)
    window = html.escape(evidence.window)
    marked = f"<span style='background-color:#fff1a8; color:#000000'>{passage}</span>"
    shown = window.replace(passage, marked) if passage and passage in window else marked
    title = html.escape(evidence.title or cite(evidence.source))
    location = evidence.location or ""
    if location.startswith(("http://", "https://")):
        link = f" — <a href='{html.escape(location)}'>{html.escape(location)}</a>"
    else:
        link = f" — {html.escape(location)}" if location else ""
    page = f", page {evidence.page}" if evidence.page else ""
    shown = shown.replace("\n", "<br>")  # a title or heading above the passage keeps its own line
    return f"<p><b>{html.escape(heading)}</b> ({title}{link}{page}):</p><blockquote>{shown}</blockquote>"
