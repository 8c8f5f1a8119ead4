"""Claude assistance in the window: off unless the writer turns it on for this document.

Turning it on needs the writer's own key and shows, before anything is sent, exactly what the first
requests will be (the desk builds the same preview as `citedesk audit --assist-preview`). The choice
is remembered per document; turning it off cancels the running audit (which may be sending) and
stops all traffic. The Claude judge is a second switch that needs assistance on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from citedesk.desk import Desk, DocumentSession, models
from citedesk.gui.qt import QAction, QMessageBox, QObject, QSettings, QWidget, Signal


class AssistConsent(QObject):
    changed = Signal()
    """Assistance or the Claude judge was turned on or off: audit again."""
    message = Signal(str)

    def __init__(
        self,
        assist_action: QAction,
        judge_action: QAction,
        settings: QSettings,
        session: Callable[[], DocumentSession],
        text: Callable[[], str],
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.assist_action = assist_action
        self.judge_action = judge_action
        self.settings = settings
        self._session = session
        self._text = text
        self.window = parent
        self.confirm_assist: Callable[[int, str], bool] = self._ask_assist
        self.confirm_claude_judge: Callable[[int, str], bool] = self._ask_claude_judge
        assist_action.setCheckable(True)
        judge_action.setCheckable(True)
        judge_action.setEnabled(False)
        assist_action.triggered.connect(self._toggle_assist)
        judge_action.triggered.connect(self._toggle_judge)

    @property
    def enabled(self) -> bool:
        return self.assist_action.isChecked()

    @property
    def judging(self) -> bool:
        return self.enabled and self.judge_action.isChecked()

    def audit_choices(self, judge: str) -> tuple[str, str]:
        """(assist, judge) for this document's audits: assistance on or off, and the judge (a
        Claude judge chosen elsewhere never sends while assistance is off)."""
        if self.judging:
            judge = models.sending_judge()
        elif models.judge_sends_text(judge):
            judge = models.auto_judge()
        return ("claude" if self.enabled else "none"), judge

    def load(self) -> None:
        """The opened document's choice (off without a key, whatever was chosen)."""
        chosen = bool(self.settings.value(self._key("assist"), False, type=bool))
        self._show(chosen and Desk.assist_key_available())

    def _toggle_assist(self, checked: bool) -> None:
        if checked and not self._consent():
            self.assist_action.setChecked(False)
            return
        self.settings.setValue(self._key("assist"), checked)
        self._show(checked)
        self.message.emit(
            "Claude assistance is on for this document"
            if checked
            else "Claude assistance is off: nothing is sent"
        )
        self.changed.emit()

    def _consent(self) -> bool:
        if not Desk.assist_key_available():
            self.message.emit(
                f"Claude assistance needs your Anthropic API key: {Desk.how_to_set_assist_key()}."
            )
            return False
        count, preview = self._session().assist_preview(self._text())
        return self.confirm_assist(count, preview)

    def _toggle_judge(self, checked: bool) -> None:
        """Claude as the judge for this document (needs assistance on): every cited sentence and the
        passages retrieved from its sources are sent; its quotes are checked against the sources."""
        if checked:
            count, preview = self._session().judge_preview(self._text())
            if not self.confirm_claude_judge(count, preview):
                self.judge_action.setChecked(False)
                return
        self.settings.setValue(self._key("claude_judge"), checked)
        self.message.emit(
            "Claude judges this document's citations (its quotes are checked against the sources)"
            if checked
            else "The local judge decides again; nothing is sent for judging"
        )
        self.changed.emit()

    def _show(self, enabled: bool) -> None:
        self.assist_action.setChecked(enabled)
        judging = enabled and bool(self.settings.value(self._key("claude_judge"), False, type=bool))
        self.judge_action.setEnabled(enabled)
        self.judge_action.setChecked(judging)

    def _key(self, name: str) -> str:
        """The settings key of `name` for the open document."""
        digest = hashlib.sha1(self._session().key.encode()).hexdigest()
        return f"{name}/{digest[:16]}"

    def _ask_assist(self, count: int, preview: str) -> bool:
        return self._ask_to_send(
            "Turn on Claude assistance?",
            f"For this document, CiteDesk will send up to {count} request(s) to Anthropic with your key: "
            "each long cited sentence, to split it into facts that are checked one by one, and each "
            "uncited sentence with the titles of your references. Claude may only add citations; "
            "every answer is checked here before it is used. Show details to see exactly what is sent.",
            preview or "(nothing to send now: no long cited or uncited sentence)",
        )

    def _ask_claude_judge(self, count: int, preview: str) -> bool:
        return self._ask_to_send(
            "Let Claude judge the citations?",
            f"For this document, CiteDesk will send {count} cited (sentence, reference) pair(s) to "
            "Anthropic with your key: each sentence with the best passages of the source it cites (the "
            "passages the evidence pane shows). Claude answers supported / neutral / contradicted "
            "with a quote; a quote that is not word for word in the source downgrades its verdict. "
            "Show details for the requests.",
            preview or "(nothing to send now: no cited sentence)",
        )

    def _ask_to_send(self, title: str, text: str, details: str) -> bool:
        """Ask before anything leaves the machine, with the requests under Show details."""
        box = QMessageBox(self.window)
        box.setWindowTitle(title)
        box.setText(text)
        box.setDetailedText(details)
        box.setStandardButtons(QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel)
        return box.exec() == QMessageBox.StandardButton.Ok
