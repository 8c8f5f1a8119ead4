"""One worker of a corpus audit (`citedesk batch`): audits documents one after another, each exactly
as `citedesk audit DOC --format json` would, writes its report and hands back its table rows.

A worker is a process of `concurrent.futures.ProcessPoolExecutor` (spawn: a clean interpreter)
started with `start`, its initializer: it builds the worker's desk once and imports the audit's
stages, and the judge's model, loaded by the first document that needs it, is kept process-wide
(`evidence.runtime.shared_model`) for every later one — one model per worker, not per document.
With one worker the same functions run in the calling process (`start` then `audit_one`).

Whatever one document does (unreadable, a bibliography that cannot be read, a bug met only on
it), the outcome is a row with its error, never an exception that would stop the corpus.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import citedesk.engine.stages  # noqa: F401 - warm: the stages' imports, once per worker, before its first document
from citedesk.core.corpus_table import DocumentOutcome, failed_outcome, outcome_of
from citedesk.desk.corpus_files import report_path, write_text
from citedesk.desk.desk import Desk
from citedesk.desk.lifeline import die_with_parent
from citedesk.engine.state import AuditOptions
from citedesk.errors import CiteDeskError, InputError

THREADS_VARIABLE = "CITEDESK_THREADS"
"""Read by `evidence.runtime` when a model is loaded: its intra-op threads."""
_desk: list[Desk] = []
"""This worker's desk (`start`): one per process."""


@dataclass(frozen=True)
class WorkerResult:
    outcome: DocumentOutcome
    retry: bool = False
    """The error was not the document's (an internal error, a locked store): audit it again next run."""
    seconds: float = 0.0


def start(options: AuditOptions, threads: int | None = None, parent: int | None = None) -> None:
    """The initializer: this worker's desk (the audit's stages were imported with this module;
    the judge's model follows with the first document that is judged). `threads`: the model
    threads this worker may use — the cores shared out among the workers, so that N workers do not
    each start a pool of every core (CITEDESK_THREADS, when set, wins). `parent`: the process
    that started the pool — when it dies (`kill -9` of `citedesk batch`), this worker ends at once
    (`desk.lifeline`), mid-audit too, instead of auditing on for nobody."""
    if parent is not None:
        die_with_parent(parent)
    if threads is not None and not os.environ.get(THREADS_VARIABLE):
        os.environ[THREADS_VARIABLE] = str(threads)
    _desk[:] = [Desk(options)]


def audit_one(path: str, name: str, out: str) -> WorkerResult:
    """Audit the document at `path`, write its JSON report under `out`, and return its rows."""
    started = time.perf_counter()
    desk = _desk[0] if _desk else Desk()
    try:
        session = desk.open(path)
        report = session.audit()
        rendered = session.render(report, "json")
        write_text(report_path(Path(out), name), rendered)
        outcome = outcome_of(name, json.loads(rendered), session.text)
        return WorkerResult(outcome, seconds=time.perf_counter() - started)
    except InputError as exc:  # the document, or a bibliography of its own, cannot be read
        return WorkerResult(failed_outcome(name, exc.message), seconds=time.perf_counter() - started)
    except CiteDeskError as exc:  # a store locked too long, an output not written: not the document's
        return WorkerResult(failed_outcome(name, exc.message), retry=True)
    except Exception as exc:  # a bug met on this document only: said, and the others go on
        return WorkerResult(failed_outcome(name, f"internal error: {exc!r}"), retry=True)
