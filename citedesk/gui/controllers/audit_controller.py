"""Audits off the GUI thread, results back through public signals; no widget is touched here.

`AuditController` owns the one audit that matters: the latest. A new audit cancels the running
one; typing restarts a debounce timer, so an audit starts a second after the writer pauses. The
audits themselves run in a child process (`desk.background`), so importing torch and loading the
models there never holds the GUI's GIL; a reader thread passes the child's typed messages
(`desk.background.AuditMessage`) on as one Qt signal, queued to the GUI thread, where they are
matched by type.

Each run carries a generation number and anything from an older generation is dropped, so a
cancelled or superseded audit can never paint stale findings. What the window (and the tests)
listen to: `audit_started`, `progress(stage, done, total)`, `stage_done(stage, findings so far)`,
`audit_finished(report)`, `audit_failed(AuditFailure)` and `audit_cancelled`. Each stage's findings
(`StageDone`) go into the window's evented `DocumentState` as `staged` the moment they arrive (issue
26: the structural findings are painted while the judge loads); a finished audit's report, the text
it is about and its generation go there next (its observers show it), then `audit_finished` is
emitted. `warm()` starts the child before the first audit (the window calls it as it opens).

With a cascade (a strong judge in the options, issue 27) the child answers twice. Its `Provisional`
report (the fast judge's) is shown as any report is — `audit_finished` is emitted — and the audit is
no longer `busy`: the writer edits, fixes and applies **Fix all** as usual (the provisional
report's judged fixes are suggestions to verify until the strong judge confirms them). The state's
`checking` then says what the strong judge re-reads (`Checking`: "checking with NAME… 3/12", from
the child's "re-reading with NAME" progress). Its `Finished` report replaces the provisional one in
place — same text, same generation; `replacing` is emitted just before, so the view can keep the
list's selection and scroll — and `audit_finished` is emitted again. An edit starts a new audit as
ever, which cancels the re-read; a re-read that fails or is cancelled leaves the fast judge's report
and says so (`check_ended`).
"""

from __future__ import annotations

from collections.abc import Callable

from citedesk.core.reports.report import Report
from citedesk.desk import AuditOptions
from citedesk.desk.background import (
    AuditChannel,
    AuditMessage,
    AuditProcess,
    Cancelled,
    Failed,
    Finished,
    Progress,
    Provisional,
    StageDone,
)
from citedesk.desk.state import Checking, DocumentState, Staged
from citedesk.gui.qt import QObject, QTimer, Signal

AUDIT_DELAY_MS = 1000
REREADING = "re-reading with "
"""How the engine's cascade names its progress (`engine.judging._cascade`), the judge's name after."""
Job = tuple[str, str | None, AuditOptions]
"""What to audit: the text, its document's path (None when unsaved), the options."""


class ProcessAuditRunner(QObject):
    """The audit child and its reader (`desk.background.AuditChannel`), whose messages become a
    signal queued to the GUI thread."""

    received = Signal(object)  # AuditMessage: Progress, StageDone, Finished, Failed or Cancelled

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.channel = AuditChannel(self.received.emit, restarted_by="audit")

    @property
    def process(self) -> AuditProcess:
        return self.channel.process

    def start(self, generation: int, text: str, path: str | None, options: AuditOptions) -> None:
        self.channel.submit(generation, text, path, options)

    def warm(self) -> None:
        """Start the child (and the reader) now, so the first audit finds them running."""
        self.channel.warm()

    def use_process(self, process: AuditProcess) -> None:
        """Audit in `process` from now on (the one before is closed): tests give one whose child
        registers their own judge."""
        self.channel.use_process(process)

    def cancel(self, generation: int) -> None:
        self.channel.cancel(generation)

    def wait_idle(self, timeout: float) -> bool:
        return self.channel.wait_idle(timeout)

    def shutdown(self) -> None:
        self.channel.close()


class AuditController(QObject):
    """The window's audits: one at a time, the latest wins, results as public signals."""

    audit_started = Signal()
    progress = Signal(str, int, int)
    stage_done = Signal(str, int)  # the stage, how many findings the audit has so far
    audit_finished = Signal(object)  # Report
    audit_failed = Signal(object)  # AuditFailure
    audit_cancelled = Signal()
    replacing = Signal()
    """The strong judge's report is about to replace the provisional one (same generation)."""
    check_ended = Signal(str)
    """The strong judge's re-read ended without its report: why, for the status bar."""

    def __init__(
        self, job: Callable[[], Job], parent: QObject | None = None, *, state: DocumentState | None = None
    ) -> None:
        super().__init__(parent)
        self._job_of = job
        self.state = state or DocumentState()
        self.runner = ProcessAuditRunner(self)
        self.runner.received.connect(self._on_message)
        self.debounce = QTimer(self)
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(AUDIT_DELAY_MS)
        self.debounce.timeout.connect(self.start)
        self.generation = 0
        self._running: int | None = None
        self._checking: int | None = None
        """The generation whose provisional report is shown while the strong judge re-reads."""
        self._pending_text: str | None = None
        self._shut = False

    @property
    def report(self) -> Report | None:
        return self.state.report

    @property
    def audited_text(self) -> str | None:
        """The text the current report is about (fixes apply only while the editor still has it)."""
        return self.state.text

    @property
    def busy(self) -> bool:
        """An audit runs whose first report is not in yet (a strong judge's re-read is not busy)."""
        return self._running is not None

    @property
    def checking(self) -> bool:
        """The strong judge is re-reading the report shown, in the background."""
        return self._checking is not None

    def schedule(self) -> None:
        """The text changed: audit once the writer pauses."""
        self.debounce.start()

    def start(self, *, refresh: frozenset[str] = frozenset()) -> None:
        """Audit now, in the background; a running audit is cancelled first. Never once shut
        down: the window is closing, and a child started now would have nobody to close it."""
        if self._shut:
            return
        self.debounce.stop()
        self.cancel(quietly=True)
        text, path, options = self._job_of()
        if refresh:
            from dataclasses import replace  # noqa: PLC0415

            options = replace(options, refresh_keys=refresh)
        self.generation += 1
        self._running = self.generation
        self._pending_text = text
        self.state.update(staged=Staged(self.generation))
        self.audit_started.emit()
        self.runner.start(self.generation, text, path, options)

    def warm(self) -> None:
        """Start the audit process before the first audit needs it (the window, as it opens);
        never once shut down (a late call must not start a child nobody will close)."""
        if not self._shut:
            self.runner.warm()

    def cancel(self, *, quietly: bool = False) -> bool:
        """Cancel the running audit, if any (`audit_cancelled` unless `quietly`), or the strong
        judge's re-read (the fast judge's report stays; `check_ended` unless `quietly`)."""
        if self._checking is not None:
            self._end_check("" if quietly else "stopped")
            return True
        if self._running is None:
            return False
        self.runner.cancel(self._running)
        self._running = None
        if not quietly:
            self.audit_cancelled.emit()
        return True

    def shutdown(self) -> None:
        self._shut = True
        self.debounce.stop()
        self.cancel(quietly=True)
        self.runner.shutdown()

    def _current(self, generation: int) -> bool:
        return (self._running is not None or self._checking is not None) and generation == self.generation

    def _on_message(self, message: AuditMessage) -> None:
        if not self._current(message.generation):
            return  # superseded or cancelled: never paint stale findings
        if self._checking is not None:
            self._second_pass(message)
            return
        match message:
            case Progress(stage=stage, done=done, total=total):
                self.progress.emit(stage, done, total)
            case StageDone():
                self._stage_done(message)
            case Provisional(report=report, strong_judge=judge):
                self._running, self._checking = None, message.generation
                checking = Checking(message.generation, judge)
                self.state.update(
                    report=report, text=self._pending_text, generation=message.generation, checking=checking
                )
                self.audit_finished.emit(report)
            case Finished(report=report):
                self._running = None
                self.state.update(report=report, text=self._pending_text, generation=message.generation)
                self.audit_finished.emit(report)
            case Failed(failure=failure):
                self._running = None
                self.audit_failed.emit(failure)
            case Cancelled():  # cancelled from elsewhere (the runner shut down)
                self._running = None
                self.audit_cancelled.emit()

    def _second_pass(self, message: AuditMessage) -> None:
        """A message of the strong judge's re-read: its progress, its report, or why it ended."""
        match message:
            case Progress(stage=stage, done=done, total=total) if stage.startswith(REREADING):
                judge = stage.removeprefix(REREADING)
                self.state.update(checking=Checking(message.generation, judge, done, total))
            case Finished(report=report):
                self._checking = None
                self.replacing.emit()
                self.state.update(report=report, checking=None)
                self.audit_finished.emit(report)
            case Failed(failure=failure):
                self._end_check(f"could not finish ({failure.message})")
            case Cancelled():
                self._end_check("stopped")

    def _end_check(self, why: str) -> None:
        """The re-read ends without its report: the fast judge's stays (`why` "": say nothing)."""
        checking, generation = self.state.checking, self._checking
        if generation is not None:
            self.runner.cancel(generation)
        self._checking = None
        self.state.update(checking=None)
        if why:
            judge = f"the strong judge {checking.judge}" if checking is not None else "the strong judge"
            self.check_ended.emit(f"{judge} {why}: the fast judge's reading stands")

    def _stage_done(self, message: StageDone) -> None:
        """A stage of the current audit is done: its findings join what the state holds so far."""
        staged = self.state.staged
        if staged is None or staged.generation != message.generation:
            staged = Staged(message.generation)
        staged = staged.after(message.stage, message.findings, message.withdrawn, message.document)
        self.state.update(staged=staged)
        self.stage_done.emit(message.stage, len(staged.findings))
