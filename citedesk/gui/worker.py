"""Audits off the GUI thread, results back through signals; no widget is touched here.

Two runners with one interface (`start`, `cancel`, `shutdown`, `wait_idle` and four signals):

- `ProcessAuditRunner` (the window's default) runs audits in a child process, so importing torch
  and loading models there never holds the GUI's GIL. A reader thread turns the child's messages
  into queued signals.
- `ThreadAuditRunner` runs them on the global thread pool, for when a child process is not wanted.

Each run carries a generation number; the window ignores anything from an older generation, so a
cancelled or superseded audit can never paint stale findings.
"""

from __future__ import annotations

import threading
import time
import traceback

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from citedesk.core.report import Report
from citedesk.pipeline import AuditOptions, AuditState, Cancelled, audit_text


class AuditRunner(QObject):
    progress = Signal(int, str, int, int)  # generation, stage, done, total
    finished = Signal(int, object)  # generation, Report
    failed = Signal(int, str)  # generation, message
    cancelled = Signal(int)

    def start(self, generation: int, text: str, path: str | None, options: AuditOptions) -> None:
        raise NotImplementedError

    def cancel(self, generation: int) -> None:
        raise NotImplementedError

    def wait_idle(self, timeout: float) -> bool:
        raise NotImplementedError

    def shutdown(self) -> None:
        raise NotImplementedError


class _AuditJob(QRunnable):
    def __init__(
        self, runner: ThreadAuditRunner, generation: int, text: str, path: str | None, options: AuditOptions
    ) -> None:
        super().__init__()
        self.runner, self.generation, self.text, self.path, self.options = (
            runner,
            generation,
            text,
            path,
            options,
        )
        self.state = AuditState(on_progress=lambda s, d, t: runner.progress.emit(generation, s, d, t))

    def run(self) -> None:
        try:
            report: Report = audit_text(self.text, self.path, self.options, self.state)
        except Cancelled:
            self.runner.cancelled.emit(self.generation)
        except Exception as exc:
            traceback.print_exc()
            self.runner.failed.emit(self.generation, f"{type(exc).__name__}: {exc}")
        else:
            self.runner.finished.emit(self.generation, report)


class ThreadAuditRunner(AuditRunner):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool.globalInstance()
        self._jobs: dict[int, _AuditJob] = {}

    def start(self, generation: int, text: str, path: str | None, options: AuditOptions) -> None:
        job = _AuditJob(self, generation, text, path, options)
        self._jobs = {g: j for g, j in self._jobs.items() if g >= generation - 8}
        self._jobs[generation] = job
        self.pool.start(job)

    def cancel(self, generation: int) -> None:
        for g, job in self._jobs.items():
            if g <= generation:
                job.state.cancel()

    def wait_idle(self, timeout: float) -> bool:
        return self.pool.waitForDone(int(timeout * 1000))

    def shutdown(self) -> None:
        self.cancel(max(self._jobs, default=0))


class ProcessAuditRunner(AuditRunner):
    def __init__(self, parent: QObject | None = None) -> None:
        from citedesk.audit_process import AuditProcess  # noqa: PLC0415

        super().__init__(parent)
        self.process = AuditProcess()
        self._pending: set[int] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._reader: threading.Thread | None = None

    def start(self, generation: int, text: str, path: str | None, options: AuditOptions) -> None:
        with self._lock:
            self._pending.add(generation)
        self.process.submit(generation, text, path, options)
        if self._reader is None or not self._reader.is_alive():
            self._stop.clear()
            self._reader = threading.Thread(target=self._read, name="citedesk-audit-reader", daemon=True)
            self._reader.start()

    def cancel(self, generation: int) -> None:
        self.process.cancel_upto(generation)

    def wait_idle(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if not self._pending:
                    return True
            time.sleep(0.02)
        return False

    def shutdown(self) -> None:
        self._stop.set()
        self.process.close()
        if self._reader is not None:
            self._reader.join(5)

    def _read(self) -> None:
        """The reader thread: the child's messages become signals (queued to the GUI thread)."""
        while not self._stop.is_set():
            message = self.process.next_message(0.2)
            if message is None:
                self._check_child()
                continue
            kind, generation = message[0], int(message[1])
            if kind == "progress":
                self.progress.emit(generation, message[2], message[3], message[4])
                continue
            with self._lock:
                self._pending.discard(generation)
            if kind == "finished":
                self.finished.emit(generation, message[2])
            elif kind == "failed":
                self.failed.emit(generation, message[2])
            else:
                self.cancelled.emit(generation)

    def _check_child(self) -> None:
        if self._stop.is_set() or self.process.alive:
            return
        with self._lock:
            lost, self._pending = sorted(self._pending), set()
        for generation in lost:
            self.failed.emit(generation, "the audit process stopped unexpectedly; the next audit restarts it")
