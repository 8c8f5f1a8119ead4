"""Audits off the GUI thread, results back through signals; no widget is touched here.

`ProcessAuditRunner` runs audits in a child process (`citedesk.audit_process`), so importing torch
and loading models there never holds the GUI's GIL (a worker thread would: ~300 ms stalls). A
reader thread turns the child's messages into signals, queued to the GUI thread.

Each run carries a generation number; the window ignores anything from an older generation, so a
cancelled or superseded audit can never paint stale findings.
"""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import QObject, Signal

from citedesk.pipeline import AuditOptions


class ProcessAuditRunner(QObject):
    progress = Signal(int, str, int, int)  # generation, stage, done, total
    finished = Signal(int, object)  # generation, Report
    failed = Signal(int, str)  # generation, message
    cancelled = Signal(int)

    def __init__(self, parent: QObject | None = None) -> None:
        from citedesk.desk.background import AuditProcess  # noqa: PLC0415

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
