"""What the running audit has found so far, painted as each stage finishes (issue 26).

The structural findings (fabricated markers, orphans, unknown keys) are known in the first tenth of
a second; the judge may take seconds to load. `StagedView` paints the `DocumentState`'s `staged`
findings as they come — the marks in the editor, the list, a count in the status bar — so the
writer sees them at once; the finished report then replaces them (the window's `_show_report`).

Nothing is painted for an audit that is no longer the current one, nor over a text the writer has
changed since it was sent (the offsets would be another text's), nor for the last two stages
("judging", "findings"): their report follows within a moment, and on a book painting them first
costs the window twice (measured: a stage's paint while the report is unpickled on the reader
thread took 400 ms at 100,000 words, against 50 ms for the report's). While an earlier report is
on screen (a re-audit after an edit, usually done in a few tenths of a second), staged findings
wait `HOLD_MS` from the audit's start: a quick re-audit goes straight to its report, and the
judged marks do not blink out and back.

It also shows the cascade's background re-read (issue 27): the `DocumentState`'s `checking` in the
status bar ("checking with NAME… 3/12"), why a re-read ended without its report, and, when the
strong judge's report replaces the provisional one, it keeps the findings list where the writer
had it: the same finding selected (when the strong judge kept it) and the list scrolled as it was.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from citedesk.core.findings import Finding
from citedesk.core.reports.report import Report
from citedesk.core.text import LineIndex
from citedesk.desk.state import Checking, DocumentState, Staged
from citedesk.gui.editor.editor import Editor
from citedesk.gui.panels.findings_panel import FindingsPanel
from citedesk.gui.panels.status_bar import StatusBar
from citedesk.gui.qt import QObject, QTimer

if TYPE_CHECKING:
    from citedesk.gui.controllers.audit_controller import AuditController

REPORTED_STAGES = frozenset({"judging", "findings"})
"""Stages whose findings are shown with the report, which follows them at once."""
HOLD_MS = 400
"""How long after an audit starts its staged findings may replace an earlier report on screen."""


class StagedView(QObject):
    def __init__(
        self,
        state: DocumentState,
        audits: AuditController,
        paint: tuple[Editor, FindingsPanel, StatusBar],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._state = state
        self._audits = audits
        self._editor, self._findings, self._status = paint
        self._started = time.monotonic()
        self._hold = QTimer(self)
        self._hold.setSingleShot(True)
        self._hold.timeout.connect(lambda: self.show(self._state.staged))
        self.painted: Staged | None = None
        """The staged findings painted last (tests; and nothing is painted twice)."""
        self._kept: tuple[tuple[object, ...] | None, int] | None = None
        """The selected finding's identity and the list's scroll, while a report is replaced."""
        audits.audit_started.connect(self._audit_started)
        audits.replacing.connect(self._keep_place)
        audits.check_ended.connect(self._status.check_ended)
        state.on_change("staged", self.show)
        state.on_change("checking", self._checking)

    def _audit_started(self) -> None:
        self._started = time.monotonic()
        self._hold.stop()

    def show(self, staged: Staged | None) -> None:
        if staged is None or staged.document is None or not staged.stages:
            return
        if staged.stages[-1] in REPORTED_STAGES or not self._current(staged.generation):
            return
        painted = self.painted
        if (
            painted is not None
            and painted.generation == staged.generation
            and painted.findings == staged.findings
        ):
            self.painted = staged  # a stage that changed nothing
            return
        waited_ms = (time.monotonic() - self._started) * 1000
        if self._state.report is not None and waited_ms < HOLD_MS:  # a report is on screen
            if not self._hold.isActive():
                self._hold.start(max(1, int(HOLD_MS - waited_ms)))
            return
        self._paint(staged)

    def _current(self, generation: int) -> bool:
        return self._audits.busy and generation == self._audits.generation

    def _paint(self, staged: Staged) -> None:
        document = staged.document
        assert document is not None
        if document.text != self._editor.toPlainText():
            return
        findings = list(staged.findings)
        self._editor.show_report(Report(document=document, findings=findings), findings)
        lines = LineIndex(document.text)
        self._findings.model.cite = document.label
        self._findings.show_findings(findings, {f.start: lines.line_col(f.start)[0] for f in findings}, {})
        self._status.show_staged(len(findings))
        self.painted = staged

    def _checking(self, checking: Checking | None) -> None:
        self._status.show_checking(checking)
        if checking is None and self._kept is not None:
            self._restore_place(*self._kept)
        self._kept = None

    def _keep_place(self) -> None:
        """The strong judge's report is about to replace the one shown: remember the place."""
        selected = self._findings.selected_finding()
        self._kept = (
            _identity(selected) if selected is not None else None,
            self._findings.tree.verticalScrollBar().value(),
        )

    def _restore_place(self, selected: tuple[object, ...] | None, scroll: int) -> None:
        """The list refilled with the strong judge's findings: back to where the writer had it
        (the scroll once the view has laid the new rows out, on the next turn of the loop)."""
        findings = self._findings
        if selected is not None and findings.selected_finding() is None:
            same = [f for f in findings.model.findings() if _identity(f) == selected]
            if same:
                findings.select(same[0])

        def scroll_back() -> None:
            findings.tree.verticalScrollBar().setValue(scroll)
            current = findings.tree.currentIndex()
            if current.isValid():
                findings.tree.scrollTo(current)  # kept in sight (no scroll when it is already)

        QTimer.singleShot(0, self, scroll_back)


def _identity(finding: Finding) -> tuple[object, ...]:
    """What makes a finding the same across the fast and the strong judge's reports."""
    return (finding.kind, finding.start, finding.end, finding.reference, finding.claim_id)
