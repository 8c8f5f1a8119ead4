"""A corpus's distinct cited works, fetched and looked up once before its documents are audited
(`desk.corpus_run`, stage 3).

Every document of a corpus has its own keys (`[1]` in one paper is not `[1]` in the next), so the
works are gathered by what they are fetched by — their DOI, arXiv id or link (`locator_of`) — and
looked up by what the indexes are asked (DOI, else title, authors and year), each under a key of
its own. What is had goes to the store, where each document's audit then finds it: the sources
through `sources.gather` (the cache, the fetcher's per-host limits, its time-outs), the index
answers through `sources.truth.check_entries` (the look-up cache). A work a document reads from a
file (`--sources DIR/KEY.ext`, a path in its entry, an attachment) costs no request: it is read
here once (`read_local_files`), as the document's audit would read it, so that no worker extracts
and splits it again; and every passage had is embedded here once (`provide_vectors`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from citedesk.core.document.works import CitedEntry
from citedesk.engine.judging import make_embedder
from citedesk.engine.sourcing import source_options, truth_fetches, truth_lookups
from citedesk.engine.state import AuditOptions
from citedesk.evidence.embed import text_key
from citedesk.sources.gather import gather_sources
from citedesk.sources.identifiers import locator_of
from citedesk.sources.local import LOCAL_EXTENSIONS
from citedesk.sources.provisions import Call, Provisions, RecordingStore, as_provided
from citedesk.sources.resolved import ResolvedSource, SourceStatus
from citedesk.sources.truth import check_entries
from citedesk.store import Store
from citedesk.store.lookups import LookupTables
from citedesk.store.records import Passage, SourceRecord

Progress = Callable[[str, int, int, str], None]
HOUR = 3600.0
KEPT_FAILURES = {
    SourceStatus.DEAD: 24 * HOUR,
    SourceStatus.NOT_FOUND: 24 * HOUR,
    SourceStatus.UNREADABLE: 24 * HOUR,
    SourceStatus.SERVER_ERROR: HOUR,
    SourceStatus.REFUSED: HOUR,
    SourceStatus.TIMED_OUT: HOUR,
    SourceStatus.RESET: HOUR,
    SourceStatus.UNREACHABLE: HOUR,
}
"""How long a source that could not be had is not asked for again by a corpus run (issue 42): a
day for what the server said (gone, no such DOI, no readable text), an hour for what may pass (a
server error, a refusal, a time-out). `--refresh` asks again at once."""
FAILED_KEY = "source-failed:"
"""The store's look-up tables keep each failure under this prefix and the source's locator."""


def distinct_sources(entries: Sequence[CitedEntry], options: AuditOptions) -> list[CitedEntry]:
    """One entry per network locator, keyed by it; entries read from a file left out."""
    found: dict[str, CitedEntry] = {}
    for ref in entries:
        locator = locator_of(ref)
        if locator is None or _is_local(ref, options):
            continue
        found.setdefault(locator, replace(ref, key=locator))  # type: ignore[type-var]
    return list(found.values())


def _in_sources_dir(key: str, options: AuditOptions) -> bool:
    folder = options.sources_dir
    return folder is not None and any((folder / f"{key}{ext}").is_file() for ext in LOCAL_EXTENSIONS)


def _is_local(ref: CitedEntry, options: AuditOptions) -> bool:
    return (
        bool(ref.path)
        or any(key == ref.key for key, _ in options.attached)
        or _in_sources_dir(ref.key, options)
    )


def local_works(entries: Sequence[CitedEntry], options: AuditOptions) -> int:
    """How many of the cited works are read from a local file (each document's own: a path in its
    entry, `--sources DIR/KEY.ext`, an attachment), distinct by file or key."""
    return len({ref.path or ref.key for ref in entries if _is_local(ref, options)})


Files = dict[str, tuple[SourceRecord, tuple[Passage, ...]]]


class LocalFiles:
    """The local files a corpus's documents cite, each read once, as its audits will read them
    (`sources.gather`: from the citing document's folder, inside the same allowed folders), through
    the store, which keeps each by its content. `files`, by locator: the workers' provisions
    (`Provisions.files`). A work asked for again — the same path from the same folder, the same
    key where keys name files — is not read again: 300 documents citing one file read it once."""

    def __init__(self, options: AuditOptions, store: Store) -> None:
        self.options = options
        self.store = store
        self.files: Files = {}
        self._asked: set[tuple[str, str, str]] = set()
        self._by_key = options.sources_dir is not None or bool(options.attached)

    def add(self, document: Path, works: Sequence[CitedEntry]) -> None:
        folder = document.resolve().parent
        own = []
        for ref in works:
            if not _is_local(ref, self.options):
                continue
            relative = bool(ref.path) and not Path(ref.path or "").is_absolute()
            asked = (ref.key if self._by_key else "", ref.path or "", str(folder) if relative else "")
            if asked not in self._asked:
                self._asked.add(asked)
                own.append(ref)
        if not own:
            return
        reading = source_options(replace(self.options, offline=True, provisions=None), folder)
        for source in gather_sources(own, reading, self.store).values():
            if (
                source.status is not SourceStatus.LOCAL
                or source.locator is None
                or source.locator in self.files
            ):
                continue
            record = self.store.source(source.locator)
            if record is not None and record.status == "ok":
                self.files[source.locator] = (record, tuple(source.passages))


MAX_PROVIDED_PASSAGES = 200_000
"""Vectors made in the parent for at most this many distinct passages (about 300 MB of float32,
pickled into each local worker): past it, the workers embed the rest themselves — the same vectors,
for a text's vector is a function of the text alone."""


def provide_vectors(
    passages: Iterable[Sequence[Passage]], options: AuditOptions, store: Store, progress: Progress
) -> dict[str, dict[str, bytes]]:
    """Every passage's vector, by the embedder's cache name and text key, made here once (through
    the store's cache: none again on a re-run) instead of once in every worker; {} when retrieval
    uses words only (`dense` off, or no embedding model)."""
    embedder, _ = make_embedder(store=store, dense=options.dense)
    if embedder is None:
        return {}
    texts = list(dict.fromkeys(p.text for group in passages for p in group))[:MAX_PROVIDED_PASSAGES]
    if not texts:
        return {}
    progress("source passages embedded", 0, len(texts), "")
    try:
        vectors = embedder.encode(
            texts, progress=lambda done, total: progress("source passages embedded", done, total, "")
        )
    except Exception:  # no model after all, or it failed: the workers embed (or say why) alone
        return {}
    made = {
        text_key(text): np.asarray(row, dtype=np.float32).tobytes()
        for text, row in zip(texts, vectors, strict=True)
    }
    return {embedder.cache_name: made}


def distinct_works(entries: Sequence[CitedEntry]) -> list[CitedEntry]:
    """One entry per work as the indexes are asked about it, each under a key of its own."""
    found: dict[tuple[str, ...], CitedEntry] = {}
    for ref in entries:
        if ref.doi:
            ask: tuple[str, ...] = ("doi", ref.doi.lower())
        else:
            ask = ("work", (ref.title or ref.text).lower(), ref.authors or "", ref.year or "", ref.url or "")
        if ask not in found:
            found[ask] = replace(ref, key=f"work{len(found)}")  # type: ignore[type-var]
    return list(found.values())


@dataclass(frozen=True)
class Gathered:
    """What the parent had for the corpus, and how (the closing line's counts)."""

    provisions: Provisions
    distinct: int
    """Distinct works the corpus cites from the network."""
    fetched: int
    """Of those, fetched now."""
    cached: int
    """Already in the store's cache."""
    failed: int
    """Could not be had (said once, for every document citing them)."""


def prefetch(
    sources: Sequence[CitedEntry],
    works: Sequence[CitedEntry],
    options: AuditOptions,
    store: Store,
    progress: Progress,
    reviews: Mapping[str, dict[str, dict[str, Any]]] | None = None,
) -> Gathered:
    """Fetch the distinct sources and look the distinct works up, once, through `store`; what they
    gave (texts, failures, answers) comes back as the workers' provisions."""
    unique = distinct_sources(sources, options)
    given: dict[str, ResolvedSource] = {}
    with store.lookups() as tables:
        known = {} if options.refresh else _failures_kept(tables, [ref.key for ref in unique])
        resolved = dict(known)
        if len(known) < len(unique):
            resolved |= gather_sources(
                [ref for ref in unique if ref.key not in known],
                source_options(replace(options, sources_dir=None, attached=())),
                store,
                progress=lambda done, total: progress("sources fetched", done, total, ""),
            )
        for locator, source in resolved.items():
            record = store.source(locator)
            passages = store.passages(locator) if record is not None and record.status == "ok" else []
            given[locator] = as_provided(source, record, passages)
            if locator not in known and source.status in KEPT_FAILURES and not source.usable:
                kept = {"status": source.status.value, "message": source.message, "detail": source.detail}
                tables.put(FAILED_KEY + locator, {**kept, "title": source.title})
    answers: dict[Call, Any] = {}
    asked = distinct_works(works)
    if asked and options.check_references:
        recorder = RecordingStore(store.path, answers)
        try:
            check_entries(
                asked,
                truth_lookups(options),
                recorder,
                fetch_policy=truth_fetches(options),
                progress=lambda done, total: progress("references looked up", done, total, ""),
            )
        finally:
            recorder.close()
    statuses = [s.status for s in resolved.values()]
    fetched = sum(1 for s in statuses if s is SourceStatus.FETCHED)
    cached = sum(1 for s in statuses if s is SourceStatus.CACHED)
    return Gathered(
        Provisions(given, answers, dict(reviews or {})),
        len(unique),
        fetched,
        cached,
        len(statuses) - fetched - cached,
    )


def _failures_kept(tables: LookupTables, locators: Sequence[str]) -> dict[str, ResolvedSource]:
    """The sources among `locators` that could not be had when last asked, not long ago
    (`KEPT_FAILURES`): as they were said then."""
    found: dict[str, ResolvedSource] = {}
    now = time.time()
    for locator in locators:
        hit = tables.get(FAILED_KEY + locator)
        if hit is None:
            continue
        payload, when = hit
        try:
            status = SourceStatus(str(payload["status"]))
        except (KeyError, ValueError):
            continue
        if now - when > KEPT_FAILURES.get(status, 0.0):
            continue
        title = payload.get("title")
        found[locator] = ResolvedSource(
            locator,
            status,
            locator,
            title=str(title) if title else None,
            message=str(payload.get("message") or ""),
            detail=str(payload.get("detail") or ""),
        )
    return found
