"""A corpus audit (`citedesk batch PATH… --out DIR`, issue 31): every document under the paths,
each report as `citedesk audit --format json` gives it, one table and one overview.

The stages, in order:

1. **Which documents, and which changed** (`desk.corpus_files`): the manifest says which were
   audited with these settings and have not changed since; those keep their reports.
2. **Parse** every document to audit, and collect the *distinct* works the corpus cites that are
   read from the network: a DOI or a link cited by 300 documents is one work.
3. **Gather** those works once, here (`sources.gather`, through the store's cache, with the
   fetcher's per-host limits: polite to each server whatever the number of workers), and look the
   cited works up in the indexes once (`sources.truth`). What they gave — texts, failures (a dead
   link is asked once per corpus, not once per document), index answers — is the workers'
   *provisions* (`sources.provisions`): data, pickled into the local pool or put in Ray's object
   store, so a worker reads no shared store and needs no shared disk. The local files the
   documents cite are read here once too, and every source passage embedded once: a worker
   extracts and embeds none of them again. The local pool is started before this stage (its
   workers spawn and import meanwhile) and given the provisions when they are had (`Workers`).
4. **Audit** the documents in `workers` processes (`desk.corpus_worker`: a
   `ProcessPoolExecutor`, spawned, one desk, one private store and one judge model per worker),
   the largest first (a huge document does not stall the tail), at most a few per worker in
   flight so a million documents are never all queued at once.
5. **Write** each report here as it comes back, then its line in the manifest's journal
   (`corpus_files.Journal`): a run killed at any point resumes with at most the documents in
   flight redone. At the end, the table (CSV, Parquet), the overview, and the whole manifest.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from multiprocessing.queues import Queue
from pathlib import Path

from citedesk.core.document.model import Document, document_of
from citedesk.core.document.works import CitedEntry
from citedesk.core.reading import parse_document, structure_without_bibliography
from citedesk.core.reports.corpus_table import DocumentOutcome, failed_outcome, outcome_of
from citedesk.core.review import document_key
from citedesk.desk import corpus_worker
from citedesk.desk.corpus_files import (
    CorpusDocument,
    Entry,
    Journal,
    LeftOut,
    content_hash,
    discover,
    read_manifest,
    report_path,
    settings_hash,
    unchanged,
    write_manifest,
    write_outputs,
    write_text,
)
from citedesk.desk.corpus_ray import ray_audits, ray_installed
from citedesk.desk.desk import Desk
from citedesk.desk.prefetch import Gathered, LocalFiles, local_works, prefetch, provide_vectors
from citedesk.engine.state import AuditOptions
from citedesk.errors import CiteDeskError, InputError, OutputError, UsageError
from citedesk.sources.citeworks import cited_works, works_to_check
from citedesk.sources.provisions import Provisions
from citedesk.sources.truth import entries_to_check

Progress = Callable[[str, int, int, str], None]
"""(label, done, total, note): what the front end shows (a bar, or lines in a log)."""
MAX_WORKERS = 4
IN_FLIGHT_PER_WORKER = 4
SLOWEST_SAID = 3
TICK = 2.0
"""Seconds between progress lines while no audit finishes (a huge document in flight is named)."""
SCRATCH = ".workers"
"""Below the output folder: the workers' private stores while the run lasts."""


def default_workers() -> int:
    """The machine's cores, at most MAX_WORKERS (each worker holds a judge model)."""
    return max(1, min(MAX_WORKERS, os.cpu_count() or 1))


@dataclass(frozen=True)
class Waiting:
    """No audit finished in the last TICK seconds; `seconds`: how long the oldest document in
    flight has been (a huge one, started first, shown while it runs rather than a silent bar)."""

    seconds: float


@dataclass(frozen=True)
class CorpusResult:
    outcomes: list[DocumentOutcome]
    """Every document's, in the corpus's order."""
    audited: int
    skipped: int
    """Unchanged since the last run: their reports were kept."""
    distinct_sources: int
    """Distinct works cited from the network (each had once for the corpus)."""
    fetched: int
    """Of those, fetched now."""
    seconds: float
    audit_seconds: float
    """The audits alone (the documents/s figure is of these)."""
    parquet: bool
    left_out: tuple[LeftOut, ...] = ()
    """Files under the paths that were not read (a link out of the corpus, a named pipe …)."""
    cached: int = 0
    """Distinct network works already in the store's cache."""
    failed_sources: int = 0
    """Distinct network works that could not be had (asked once, said for every document)."""
    local_sources: int = 0
    """Cited works read from local files (the documents' own: `--sources`, a path, an attachment)."""
    slowest: tuple[tuple[str, float], ...] = ()
    """The slowest documents audited now, (name, seconds), slowest first."""


def _say_nothing(label: str, done: int, total: int, note: str) -> None:
    """No progress shown."""


def run_corpus(
    desk: Desk,
    paths: Sequence[str | os.PathLike[str]],
    out: Path,
    *,
    workers: int | None = None,
    force: bool = False,
    progress: Progress = _say_nothing,
    engine: str = "local",
    address: str | None = None,
) -> CorpusResult:
    """Audit every document under `paths` into `out` (see the module's docstring); `engine`
    "ray" audits on Ray Data (`desk.corpus_ray`; `address`: a running cluster's)."""
    started = time.perf_counter()
    options = desk.options
    if engine == "ray" and not ray_installed():  # said before anything is read or written
        raise UsageError('--engine ray needs Ray: pip install "citedesk[scale]" (or use the local engine)')
    documents, left_out = discover(paths, out)
    settings = settings_hash(options)
    before = {} if force else read_manifest(out)
    entries: dict[str, Entry] = {}
    todo: list[CorpusDocument] = []
    for doc in documents:
        try:
            content = content_hash(doc.path)
        except OSError as exc:
            content = f"unreadable: {exc.strerror or exc}"
        entry = before.get(doc.name)
        if unchanged(entry, content, settings, out, doc.name):
            assert entry is not None
            entries[doc.name] = entry
        else:
            entries[doc.name] = Entry(content, settings, retry=True)  # until its audit says otherwise
            todo.append(doc)
    scratch = out / SCRATCH
    shutil.rmtree(scratch, ignore_errors=True)  # a killed run's
    count = min(workers or default_workers(), max(1, len(todo)))
    found: dict[str, DocumentOutcome] = {}
    times: list[tuple[str, float]] = []
    journal = Journal(out)
    pool: Workers | None = None
    done = 0
    try:  # whatever stops the run from here on, the pool's workers are told to end
        if engine == "local" and count > 1:
            pool = Workers(count, scratch)
        gathered, local = _gather(desk, todo, progress)
        worker_options = replace(
            options, refresh=False, refresh_keys=frozenset(), provisions=gathered.provisions
        )
        audit_started = time.perf_counter()
        for doc, result in _audits(
            worker_options, _largest_first(todo), scratch, count, engine, address, pool
        ):
            if isinstance(result, Waiting):  # nothing finished for a while: say what is in flight
                rate = done / max(1e-9, time.perf_counter() - audit_started)
                note = f"{rate:.1f} documents/s; in flight: {doc.name} for {result.seconds:.0f} s"
                progress("documents audited", done, len(todo), note)
                continue
            done += 1
            outcome, retry = _written(out, doc, result)
            found[doc.name] = outcome
            entries[doc.name] = replace(entries[doc.name], error=outcome.error, retry=retry)
            journal.record(doc.name, entries[doc.name])
            times.append((doc.name, result.seconds))
            rate = done / max(1e-9, time.perf_counter() - audit_started)
            slow = max(times, key=lambda t: t[1])
            progress(
                "documents audited",
                done,
                len(todo),
                f"{rate:.1f} documents/s; slowest {slow[0]} {slow[1]:.1f} s",
            )
    finally:  # interrupted too: what was audited is kept, and the rest is audited next time
        if pool is not None:
            pool.close()
        journal.close()
        write_manifest(out, entries)
        shutil.rmtree(scratch, ignore_errors=True)
    audit_seconds = time.perf_counter() - audit_started
    outcomes = [found.get(doc.name) or _kept(desk, doc, entries[doc.name], out) for doc in documents]
    parquet = write_outputs(out, outcomes)
    return CorpusResult(
        outcomes,
        len(todo),
        len(documents) - len(todo),
        gathered.distinct,
        gathered.fetched,
        time.perf_counter() - started,
        audit_seconds,
        parquet,
        tuple(left_out),
        cached=gathered.cached,
        failed_sources=gathered.failed,
        local_sources=local,
        slowest=tuple(sorted(times, key=lambda t: (-t[1], t[0]))[:SLOWEST_SAID]),
    )


def _largest_first(todo: Sequence[CorpusDocument]) -> list[CorpusDocument]:
    """The order the audits start in: the largest documents first, so that one huge document is
    started at once instead of stalling the tail (the outputs keep the corpus's order)."""

    def size(doc: CorpusDocument) -> int:
        try:
            return doc.path.stat().st_size
        except OSError:
            return 0

    return sorted(todo, key=lambda doc: (-size(doc), doc.name))


def _written(
    out: Path, doc: CorpusDocument, result: corpus_worker.WorkerResult
) -> tuple[DocumentOutcome, bool]:
    """Write the document's report (atomically), before the journal records it: its outcome."""
    if result.report is None:
        return result.outcome, result.retry
    try:
        write_text(report_path(out, doc.name), result.report)
    except OutputError as exc:
        return failed_outcome(doc.name, exc.message), True
    return result.outcome, result.retry


def _kept(desk: Desk, doc: CorpusDocument, entry: Entry, out: Path) -> DocumentOutcome:
    """A document left alone: its rows, from its report and its text as they are on disk."""
    if entry.error is not None:
        return failed_outcome(doc.name, entry.error)
    try:
        report = json.loads(report_path(out, doc.name).read_text(encoding="utf-8"))
        return outcome_of(doc.name, report, desk.open(doc.path).text)
    except (OSError, ValueError) as exc:
        return failed_outcome(doc.name, f"its report could not be read again: {exc}")
    except CiteDeskError as exc:
        return failed_outcome(doc.name, exc.message)


def _gather(desk: Desk, todo: Sequence[CorpusDocument], progress: Progress) -> tuple[Gathered, int]:
    """Parse each document to audit and gather the distinct works they cite, once (stages 2-3):
    the workers' provisions, and how many cited works are read from local files."""
    options = desk.options
    reviews: dict[str, dict[str, dict[str, object]]] = {}
    if not todo:
        return Gathered(Provisions(), 0, 0, 0, 0), 0
    entries: list[CitedEntry] = []
    truth: list[CitedEntry] = []
    with desk.jobs().store() as store:
        local_files = LocalFiles(options, store)
        for done, doc in enumerate(todo, start=1):
            document = _parsed(desk, doc) if options.check_sources else None
            if document is not None:
                works, checked = _cited(document, options)
                entries.extend(works)
                truth.extend(checked)
                local_files.add(doc.path, works)
            progress("documents read", done, len(todo), "")
        if options.reviews:
            for doc in todo:
                key = document_key(str(doc.path))
                found = store.reviews(key)
                if found:
                    reviews[key] = found
        if not options.check_sources:
            return Gathered(Provisions(reviews=reviews), 0, 0, 0, 0), 0
        gathered = prefetch(entries, truth, options, store, progress, reviews)
        passages = [s.passages for s in gathered.provisions.sources.values() if s.usable]
        files = local_files.files
        vectors = provide_vectors([*passages, *(p for _, p in files.values())], options, store, progress)
        provisions = replace(gathered.provisions, files=files, vectors=vectors)
        return replace(gathered, provisions=provisions), local_works(entries, options)


def _parsed(desk: Desk, doc: CorpusDocument) -> Document | None:
    """The document read as its audit will read it (None: it cannot be; its audit will say why)."""
    options = desk.options
    try:
        text = desk.open(doc.path).text
        path = str(doc.path)
        cited = cited_works(
            text,
            doc.path,
            options.bibliographies,
            zotero_dir=options.zotero_dir,
            use_zotero=options.zotero,
            roots=(options.sources_dir, *options.local_roots),
            anywhere=options.allow_local_paths,
        )
        if cited is None:
            return document_of(structure_without_bibliography(text, path), path)
        return parse_document(text, path, cited.works)
    except InputError:
        return None
    except Exception:  # a bug met on this document: its audit will say so, and the rest go on
        return None


def _cited(document: Document, options: AuditOptions) -> tuple[list[CitedEntry], list[CitedEntry]]:
    works = works_to_check(document, options.sources_dir, frozenset(k for k, _ in options.attached))
    checked = entries_to_check(document) if options.check_references else []
    return works, checked


class Workers:
    """The local pool, started before the parent gathers the corpus's sources: its workers spawn
    and import the audit's stages meanwhile (about 2 s of a 2-worker run on 2 cores), then each
    waits for its options, provisions and all (`corpus_worker.start_given`)."""

    def __init__(self, count: int, scratch: Path) -> None:
        context = mp.get_context("spawn")
        self.count = count
        self.given: Queue[AuditOptions | None] = context.Queue()
        self.pool = ProcessPoolExecutor(
            max_workers=count,
            mp_context=context,
            initializer=corpus_worker.start_given,
            initargs=(self.given, max(1, (os.cpu_count() or 1) // count), os.getpid(), str(scratch)),
        )
        self._given = False
        try:
            for _ in range(count):  # one task each, none idle: the pool spawns every worker now
                self.pool.submit(corpus_worker.ready)
        except BaseException:
            self.close()
            raise

    def give(self, options: AuditOptions) -> None:
        for _ in range(self.count):
            self.given.put(options)
        self._given = True

    def close(self) -> None:
        """Shut the pool down; workers still waiting for their options — the run ended before
        they were had — are told to end first."""
        if not self._given:
            for _ in range(self.count):
                self.given.put(None)
        self.pool.shutdown(wait=True, cancel_futures=True)
        # every worker has ended: what is still queued (the options of one that died before it
        # took them) has no reader left, so it is dropped rather than waited on
        self.given.cancel_join_thread()
        self.given.close()


def _audits(
    options: AuditOptions,
    todo: Sequence[CorpusDocument],
    scratch: Path,
    count: int,
    engine: str = "local",
    address: str | None = None,
    workers: Workers | None = None,
) -> Iterator[tuple[CorpusDocument, corpus_worker.WorkerResult | Waiting]]:
    """Each document's audit as it finishes, started in `todo`'s order: on Ray, in this process
    with one worker, else in the local pool `workers` (the workers' private stores below
    `scratch`), where every TICK seconds without one finishing the oldest document in flight is
    given, Waiting."""
    if engine == "ray":
        yield from ray_audits(options, todo, count, address)
        return
    if workers is None:
        corpus_worker.start(options, scratch=str(scratch))
        for doc in todo:
            yield doc, corpus_worker.audit_one(str(doc.path), doc.name)
        return
    workers.give(options)  # (`run_corpus` closes the pool, whatever ends the run)
    pool = workers.pool
    waiting = iter(todo)
    running: dict[Future[corpus_worker.WorkerResult], CorpusDocument] = {}
    since: dict[str, float] = {}
    while True:
        for doc in waiting:
            try:
                running[pool.submit(corpus_worker.audit_one, str(doc.path), doc.name)] = doc
                since[doc.name] = time.perf_counter()
            except BrokenProcessPool:  # a worker died: the documents left are said, not lost
                yield doc, _died(doc)
                continue
            if len(running) >= count * IN_FLIGHT_PER_WORKER:
                break
        if not running:
            return
        finished, _ = wait(running, timeout=TICK, return_when=FIRST_COMPLETED)
        if not finished:
            oldest = min(running.values(), key=lambda d: since[d.name])
            yield oldest, Waiting(time.perf_counter() - since[oldest.name])
        for future in finished:
            doc = running.pop(future)
            since.pop(doc.name, None)
            yield doc, _result(future, doc)


def _result(future: Future[corpus_worker.WorkerResult], doc: CorpusDocument) -> corpus_worker.WorkerResult:
    try:
        return future.result()
    except BrokenProcessPool:
        return _died(doc)


def _died(doc: CorpusDocument) -> corpus_worker.WorkerResult:
    said = "a worker process ended before its audit did (out of memory?): run again to audit it"
    return corpus_worker.WorkerResult(failed_outcome(doc.name, said), retry=True)
