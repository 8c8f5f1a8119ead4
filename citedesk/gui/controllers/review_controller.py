"""Review mode: the writer decides on each finding — confirmed, false alarm, needs a source.

Decisions are kept by the desk (in the store, keyed by what each finding is about), off the GUI
thread on the window's store worker (`gui.ops`), and applied to the report as soon as they are
kept, so a false alarm disappears without a new audit. After a decision the next
undecided finding is selected: F7 then Ctrl+1/2/3 goes through a whole document by keyboard.
"""

from __future__ import annotations

from collections.abc import Callable

from citedesk.core.findings import Finding
from citedesk.core.reports.report import Report
from citedesk.core.review import Decision, Review
from citedesk.desk import DocumentSession
from citedesk.gui.ops import run_op
from citedesk.gui.panels.findings_panel import FindingsPanel
from citedesk.gui.qt import QInputDialog, QObject, QWidget, Signal


class ReviewController(QObject):
    changed = Signal()
    """A decision was made or cleared (or false alarms shown/hidden): show the report again."""
    message = Signal(str)

    def __init__(
        self,
        panel: FindingsPanel,
        session: Callable[[], DocumentSession],
        report: Callable[[], Report | None],
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.panel = panel
        self._session = session
        self._report = report
        self.window = parent
        self.show_dismissed = False

    def start(self) -> None:
        """Select the first finding with no decision yet (review mode: decide, and move on)."""
        self._select_undecided(after=-1)

    def decide(
        self,
        decision: Decision,
        note: str | None = None,
        finding: Finding | None = None,
        *,
        advance: bool = True,
    ) -> None:
        """Record the decision on `finding` (default: the selected one), then (with `advance`, review
        mode) move to the next undecided; without it the writer stays where they are (the card)."""
        finding = finding or self.panel.selected_finding()
        report = self._report()
        if finding is None or report is None:
            self.message.emit("Select a finding first (F7 starts the review).")
            return
        previous = report.review_of(finding)
        note = note if note is not None else (previous.note if previous else "")
        session = self._session()

        def kept(review: Review) -> None:
            report.record_review(finding, review)
            self.changed.emit()
            self.message.emit(f"{finding.kind.label}: {decision.label}")
            if advance:
                self._select_undecided(after=finding.start)

        run_op(
            self,
            lambda: session.keep_decision(report, finding, decision, note),
            kept,
            lambda exc: self.message.emit(f"The decision was not kept: {exc.message}"),
            label="Keeping the decision…",
        )

    def clear(self) -> None:
        finding = self.panel.selected_finding()
        report = self._report()
        if finding is None or report is None:
            return
        session = self._session()

        def cleared(_: None) -> None:
            report.record_review(finding, None)
            self.changed.emit()
            self.panel.select(finding)

        run_op(
            self,
            lambda: session.forget_decision(report, finding),
            cleared,
            lambda exc: self.message.emit(f"The decision was not cleared: {exc.message}"),
            label="Clearing the decision…",
        )

    def note_dialog(self) -> None:
        finding = self.panel.selected_finding()
        report = self._report()
        if finding is None or report is None:
            return
        previous = report.review_of(finding)
        note, accepted = QInputDialog.getText(
            self.window, "Note", "A note to keep with your decision:", text=previous.note if previous else ""
        )
        if accepted:
            self.decide(previous.decision if previous else Decision.NEEDS_SOURCE, note)

    def toggle_dismissed(self, checked: bool) -> None:
        self.show_dismissed = checked
        self.changed.emit()

    def progress_text(self) -> str:
        report = self._report()
        if report is None:
            return ""
        reviewed, total = report.review_progress()
        return f"{reviewed} of {total} reviewed" if total else ""

    def _select_undecided(self, after: int) -> None:
        report = self._report()
        if report is None:
            return
        findings = sorted(self.panel.model.findings(), key=lambda f: (f.start, f.kind.value))
        undecided = [f for f in findings if report.review_of(f) is None]
        if not undecided:
            self.message.emit("Every finding has a decision.")
            return
        following = [f for f in undecided if f.start > after]
        self.panel.select((following or undecided)[0])
