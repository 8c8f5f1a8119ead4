"""The one audit entry: every front end's audit of a document goes through `audit_document`.

The window (its audit child, `desk.background`), the CLI and `citedesk batch` (through
`DocumentSession.audit`, also in the corpus workers) and the language server (the same child as
the window) each hand it an `AuditInput` — the document's text and where it is, from which its
format (and so its dialect) is decided — with the options the desk built for it and the state
token of the run. It yields the stages' results as each stage is done (`AuditState.on_stage`:
the window paints them, `--format jsonl` streams them, the language server publishes them as
diagnostics) and returns the report. Nothing else in CiteDesk calls the engine's front door
(`pipeline.audit_text`): `tests/desk/test_entry.py` reads every module's imports to keep it so.

`observing` (or `observe`, for a process's life: a test's audit child) lets a caller see each
audit that comes through, in this process: what was audited, the stages it published, whether it
finished.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from citedesk.core.reports.report import Report
from citedesk.pipeline import AuditOptions, AuditState, StageResult, audit_text

__all__ = ["AuditInput", "Entered", "audit_document", "observe", "observing"]


@dataclass(frozen=True)
class AuditInput:
    """A document to audit: its text (a Word document's Markdown view) and its path (None when
    unsaved), whose format decides how the text is read."""

    text: str
    path: str | None = None


@dataclass(frozen=True)
class Entered:
    """What an observer hears of one audit: the document, the stages it published (in order) and
    whether it returned a report (not: cancelled, or failed)."""

    document: AuditInput
    stages: tuple[str, ...]
    finished: bool


Observer = Callable[[Entered], None]
_observers: list[Observer] = []
_lock = threading.Lock()


def observe(observer: Observer) -> Callable[[], None]:
    """Call `observer` with each audit that ends in this process from now on; returns the
    function that stops it."""
    with _lock:
        _observers.append(observer)

    def stop() -> None:
        with _lock:
            _observers.remove(observer)

    return stop


@contextlib.contextmanager
def observing(observer: Observer) -> Iterator[None]:
    """Call `observer` with each audit that ends in this process while the block runs."""
    stop = observe(observer)
    try:
        yield
    finally:
        stop()


def audit_document(document: AuditInput, options: AuditOptions, state: AuditState | None = None) -> Report:
    """Audit `document` with `options`; each stage's result goes to `state.on_stage` when it is
    done, and the report is returned (raises `Cancelled` when `state` is cancelled)."""
    state = state or AuditState()
    stages: list[str] = []
    publish = state.on_stage

    def heard(result: StageResult) -> None:
        stages.append(result.stage)
        if publish is not None:
            publish(result)

    state.on_stage = heard if publish is not None or _observers else None
    finished = False
    try:
        report = audit_text(document.text, document.path, options, state)
        finished = True
        return report
    finally:
        state.on_stage = publish
        with _lock:
            observers = list(_observers)
        for observer in observers:
            observer(Entered(document, tuple(stages), finished))
