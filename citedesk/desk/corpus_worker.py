"""One worker of a corpus audit (`citedesk batch`): audits documents one after another, each exactly
as `citedesk audit DOC --format json` would, and hands back its report and its table rows (the
parent writes the report, then records it in the manifest: `desk.corpus_run`).

A worker is a process of `concurrent.futures.ProcessPoolExecutor` (spawn: a clean interpreter)
started with `start`, its initializer, or a Ray actor (`desk.corpus_ray`): it builds the worker's
desk once and imports the audit's stages, and the judge's model, loaded by the first document that
needs it, is kept process-wide (`evidence.runtime.shared_model`) for every later one — one model
per worker, not per document. With one worker the same functions run in the calling process.

A worker reads no shared store: its options carry the parent's provisions (the corpus's sources
and index answers as data, `sources.provisions`), and its store is a private SQLite file in a
scratch folder of its own (its judgements' and embeddings' caches), removed when it ends.

Whatever one document does (unreadable, a bibliography that cannot be read, a bug met only on
it), the outcome is a row with its error, never an exception that would stop the corpus.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, replace
from multiprocessing.queues import Queue
from pathlib import Path

import citedesk.engine.stages  # noqa: F401 - warm: the stages' imports, once per worker, before its first document
from citedesk.core.reports.corpus_table import DocumentOutcome, failed_outcome, outcome_of
from citedesk.desk.corpus_files import REPORT_FORMAT
from citedesk.desk.desk import Desk
from citedesk.desk.lifeline import die_with_parent
from citedesk.engine.state import AuditOptions
from citedesk.errors import CiteDeskError, InputError

THREADS_VARIABLE = "CITEDESK_THREADS"
"""Read by `evidence.runtime` when a model is loaded: its intra-op threads."""
PRIVATE_STORE = "store.sqlite3"
_desk: list[Desk] = []
"""This worker's desk (`start`): one per process."""


@dataclass(frozen=True)
class WorkerResult:
    outcome: DocumentOutcome
    retry: bool = False
    """The error was not the document's (an internal error, a locked store): audit it again next run."""
    seconds: float = 0.0
    report: str | None = None
    """The JSON report, as `citedesk audit --format json` renders it (None: not audited)."""


def start(options: AuditOptions, threads: int | None = None, scratch: str | None = None) -> None:
    """This worker's desk (the audit's stages were imported with this module; the judge's model
    follows with the first document that is judged). `threads`: the model threads this worker may
    use — the cores shared out among the workers, so that N workers do not each start a pool of
    every core (CITEDESK_THREADS, when set, wins). `scratch`: the folder its private store goes in
    (None: a temporary folder of its own, removed when it exits)."""
    if threads is not None and not os.environ.get(THREADS_VARIABLE):
        os.environ[THREADS_VARIABLE] = str(threads)
    if options.provisions is not None:
        if scratch is not None:
            Path(scratch).mkdir(parents=True, exist_ok=True)
        folder = tempfile.mkdtemp(prefix="citedesk-worker-", dir=scratch)
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        options = replace(options, store_path=Path(folder) / PRIVATE_STORE)
    _desk[:] = [Desk(options)]


def start_given(given: Queue[AuditOptions | None], threads: int, parent: int, scratch: str) -> None:
    """The initializer of a pool started before the parent has gathered the corpus's sources
    (`corpus_run.Workers`): this worker spawns and imports the audit's stages meanwhile, then
    waits for its options — provisions and all — on `given`. None: the run ended before they were
    had; the worker ends (the pool is shut down). `parent`: the process that started the pool —
    when it dies (`kill -9` of `citedesk batch`), this worker ends at once (`desk.lifeline`),
    while it waits or mid-audit, instead of auditing on for nobody."""
    die_with_parent(parent)
    # Ctrl-C reaches the whole process group: while it waits, the parent decides (and sends None)
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    options = given.get()
    if options is None:
        os._exit(0)  # quietly: an initializer that raises is logged as a failure
    signal.signal(signal.SIGINT, before)
    start(options, threads, scratch)


def ready() -> int:
    """A task that does nothing (its process id): submitted once per worker, so that the pool
    spawns them all at once, before there is a document to give them."""
    return os.getpid()


def audit_one(path: str, name: str) -> WorkerResult:
    """Audit the document at `path`: its JSON report and its rows."""
    started = time.perf_counter()
    desk = _desk[0] if _desk else Desk()
    try:
        session = desk.open(path)
        report = session.audit()
        rendered = session.render(report, REPORT_FORMAT)
        outcome = outcome_of(name, json.loads(rendered), session.text)
        return WorkerResult(outcome, seconds=time.perf_counter() - started, report=rendered)
    except InputError as exc:  # the document, or a bibliography of its own, cannot be read
        return WorkerResult(failed_outcome(name, exc.message), seconds=time.perf_counter() - started)
    except CiteDeskError as exc:  # a store locked too long, an output not written: not the document's
        return WorkerResult(failed_outcome(name, exc.message), retry=True)
    except Exception as exc:  # a bug met on this document only: said, and the others go on
        return WorkerResult(failed_outcome(name, f"internal error: {exc!r}"), retry=True)
