"""Audits off the GUI thread: a QRunnable per audit, results back through queued signals.

Each run carries a generation number; the window ignores anything from an older generation, so a
cancelled or superseded audit can never paint stale findings. No widget is touched here.
"""

from __future__ import annotations

import traceback

from PySide6.QtCore import QObject, QRunnable, Signal

from citedesk.core.report import Report
from citedesk.pipeline import AuditOptions, AuditState, Cancelled, audit_text


class AuditSignals(QObject):
    progress = Signal(int, str, int, int)  # generation, stage, done, total
    finished = Signal(int, object)  # generation, Report
    failed = Signal(int, str)  # generation, message
    cancelled = Signal(int)


class AuditJob(QRunnable):
    def __init__(self, generation: int, text: str, path: str | None, options: AuditOptions) -> None:
        super().__init__()
        self.generation = generation
        self.text = text
        self.path = path
        self.options = options
        self.signals = AuditSignals()
        self.state = AuditState(on_progress=self._progress)
        self.setAutoDelete(False)  # the window keeps a reference until the result arrives

    def _progress(self, stage: str, done: int, total: int) -> None:
        self.signals.progress.emit(self.generation, stage, done, total)

    def cancel(self) -> None:
        self.state.cancel()

    def run(self) -> None:
        try:
            report: Report = audit_text(self.text, self.path, self.options, self.state)
        except Cancelled:
            self.signals.cancelled.emit(self.generation)
        except Exception as exc:
            traceback.print_exc()
            self.signals.failed.emit(self.generation, f"{type(exc).__name__}: {exc}")
        else:
            self.signals.finished.emit(self.generation, report)
