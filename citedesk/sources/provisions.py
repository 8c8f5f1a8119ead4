"""What a corpus audit's workers are given instead of the store's path (`citedesk batch`, issue 42):
the corpus's sources and index answers as data, had once in the parent and handed to every worker
(pickled into a local pool, or put in Ray's object store), so that a worker needs no shared disk
and asks the network for nothing the parent already asked.

- **Sources**, by locator: what each distinct work the corpus cites from the network gave — its
  text and passages (as the store's cache gives it back, `CACHED`), or why it could not be had (a
  dead link, a server error, a time-out: said once per corpus, not asked again per document).
  `sources.gather` takes one of these before the store and the network (`SourceOptions.settled`).
- **Answers**: every answer the parent's look-ups read from or wrote to the store's look-up
  tables (the index cache, the retraction snapshot, the index mirror), by method and arguments
  (`RecordingTables`); a worker's tables give them back (`ProvidedTables`), and ask their own,
  private store for anything else.
- **Reviews**: the writer's review decisions for the corpus's documents.
- **Files**: each local file the documents cite (`--sources`, a path in an entry, an attachment),
  as the parent read it once — its record and passages. A worker still reads the file, and takes
  these when its content is the same (the same hash): it extracts and splits nothing again.
- **Vectors**: the embeddings of every provided source's passages, made once in the parent (each
  text's vector is a function of the text alone, `evidence.embed`, so a worker that made its own
  with the same embedder would get the same bytes): a worker embeds only its documents' own
  sentences. Like the store's cache of embeddings, they are kept by model, not by runtime: on a
  developer's first run, while the ONNX file is still being made, the parent's may be torch's.

A worker's store (`ProvidedStore`) is a private SQLite file of its own (its judgements' and
embeddings' caches) with these laid over it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from citedesk.sources.resolved import ResolvedSource, SourceStatus
from citedesk.store import Store
from citedesk.store.lookups import LookupTables
from citedesk.store.records import Passage, SourceRecord

Call = tuple[str, tuple[Any, ...]]
"""(method of the look-up tables, its arguments)."""
RECORDED = ("get", "retractions_for", "snapshot", "mirror_files", "mirror_works", "mirror_titles")


@dataclass(frozen=True)
class Provisions:
    sources: Mapping[str, ResolvedSource] = field(default_factory=dict)
    """By locator: the source as every document citing it gets it (its key, and for a failure its
    location, are the citing entry's)."""
    answers: Mapping[Call, Any] = field(default_factory=dict)
    reviews: Mapping[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """By document key (`core.review.document_key`): the writer's decisions."""
    files: Mapping[str, tuple[SourceRecord, tuple[Passage, ...]]] = field(default_factory=dict)
    """By locator (`file:` and the real path): a local file's record and passages, as read."""
    vectors: Mapping[str, Mapping[str, bytes]] = field(default_factory=dict)
    """By embedding model (the embedder's cache name), then by text key: float32 vectors."""


def as_provided(resolved: ResolvedSource, record: SourceRecord | None, passages: Any) -> ResolvedSource:
    """What the parent's gathering gave for one locator, as workers are to be given it: a text had
    (now or before) as the cache gives it back; a failure as it was met (its location: the
    citing entry's)."""
    if (
        record is not None
        and record.status == "ok"
        and resolved.status
        in (
            SourceStatus.FETCHED,
            SourceStatus.CACHED,
        )
    ):
        return ResolvedSource(
            resolved.key,
            SourceStatus.CACHED,
            record.locator,
            record.final_url or record.locator.split(":", 1)[1],
            record.title,
            record.text,
            list(passages),
            from_cache=True,
            fetched_at=record.fetched_at,
            date=record.date,
        )
    return replace(resolved, location=None)


def _call(name: str, args: tuple[Any, ...], named: dict[str, Any]) -> Call:
    return (name, (*args, *sorted(named.items())))


class RecordingTables(LookupTables):
    """The store's look-up tables, noting every answer they give (and every answer put)."""

    def __init__(self, path: Path, answers: dict[Call, Any], clock: Callable[[], float] = time.time) -> None:
        super().__init__(path, clock=clock)
        self.answers = answers

    def get(self, key: str) -> tuple[dict[str, Any], float] | None:
        found = super().get(key)
        if found is not None:
            self.answers[("get", (key,))] = found
        return found

    def put(self, key: str, payload: dict[str, Any]) -> None:
        super().put(key, payload)
        self.answers[("get", (key,))] = (payload, self._clock())

    def __getattribute__(self, name: str) -> Any:
        found = super().__getattribute__(name)
        if name == "get" or name not in RECORDED:
            return found
        answers = super().__getattribute__("answers")

        def noted(*args: Any, **named: Any) -> Any:
            answer = found(*args, **named)
            answers[_call(name, args, named)] = answer
            return answer

        return noted


class ProvidedTables(LookupTables):
    """A worker's look-up tables: the parent's answers first, then its own private store's."""

    def __init__(self, path: Path, answers: Mapping[Call, Any]) -> None:
        super().__init__(path)
        self.answers = answers

    def __getattribute__(self, name: str) -> Any:
        found = super().__getattribute__(name)
        if name not in RECORDED:
            return found
        answers = super().__getattribute__("answers")

        def given(*args: Any, **named: Any) -> Any:
            call = _call(name, args, named)
            return answers[call] if call in answers else found(*args, **named)

        return given


class RecordingStore(Store):
    """The parent's store, whose look-ups note their answers into `answers`."""

    def __init__(self, path: Path, answers: dict[Call, Any]) -> None:
        super().__init__(path)
        self.answers = answers

    def lookups(self, *, clock: Callable[[], float] = time.time) -> LookupTables:
        return RecordingTables(self.path, self.answers, clock=clock)


class ProvidedStore(Store):
    """A worker's private store, with the parent's provisions laid over it."""

    def __init__(self, path: Path, provisions: Provisions) -> None:
        super().__init__(path)
        self.provisions = provisions

    def lookups(self, *, clock: Callable[[], float] = time.time) -> LookupTables:
        return ProvidedTables(self.path, self.provisions.answers)

    def reviews(self, document: str) -> dict[str, dict[str, Any]]:
        return dict(self.provisions.reviews.get(document, {}))

    def source(self, locator: str) -> SourceRecord | None:
        """Its own record (a file read again here, having changed), else the parent's."""
        own = super().source(locator)
        if own is not None or locator not in self.provisions.files:
            return own
        return self.provisions.files[locator][0]

    def passages(self, locator: str) -> list[Passage]:
        if locator in self.provisions.files and super().source(locator) is None:
            return list(self.provisions.files[locator][1])
        return super().passages(locator)

    def get_embeddings(self, model: str, keys: list[str]) -> dict[str, bytes]:
        """The parent's vectors, and this store's for the rest."""
        given = self.provisions.vectors.get(model, {})
        found = {key: given[key] for key in keys if key in given}
        rest = [key for key in keys if key not in found]
        return found | super().get_embeddings(model, rest) if rest else found
