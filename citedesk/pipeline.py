"""`audit()`: the stages in order. The CLI and the window both call this, and nothing else.

`AuditState` is the token handed to a running audit: it carries progress and partial results out
and a cancellation request in. A cancelled audit raises `Cancelled`, which callers never show as
an error.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from citedesk.core.checks import structural_findings
from citedesk.core.document import Document, parse_document
from citedesk.core.report import Report

ProgressCallback = Callable[[str, int, int], None]


class Cancelled(Exception):
    """The audit was cancelled by its caller; not an error."""


@dataclass(frozen=True)
class AuditOptions:
    offline: bool = False


@dataclass
class AuditState:
    """Progress out, cancellation in. Thread-safe: a worker runs the audit, the GUI polls or listens."""

    on_progress: ProgressCallback | None = None
    _cancel: threading.Event = field(default_factory=threading.Event)
    stage: str = ""
    done: int = 0
    total: int = 0

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check(self) -> None:
        if self._cancel.is_set():
            raise Cancelled

    def progress(self, stage: str, done: int = 0, total: int = 0) -> None:
        """Report progress; only real changes are passed on, so callers are never flooded."""
        self.check()
        if (stage, done, total) == (self.stage, self.done, self.total):
            return
        self.stage, self.done, self.total = stage, done, total
        if self.on_progress is not None:
            self.on_progress(stage, done, total)


def audit_text(
    text: str, path: str | None = None, options: AuditOptions | None = None, state: AuditState | None = None
) -> Report:
    state = state or AuditState()
    started = time.perf_counter()
    state.progress("parsing")
    document = parse_document(text, path)
    parse_s = time.perf_counter() - started
    report = audit(document, options or AuditOptions(), state)
    report.timings = {"parse": parse_s, **report.timings}
    return report


def audit(document: Document, options: AuditOptions, state: AuditState) -> Report:
    timings: dict[str, float] = {}
    started = time.perf_counter()
    state.progress("checking citations")
    findings = structural_findings(document)
    timings["findings"] = time.perf_counter() - started
    state.progress("done")
    return Report(document=document, findings=findings, timings=timings)
