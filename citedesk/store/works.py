"""The store's side of the offline index mirror: works imported from a Crossref or OpenAlex snapshot.

A corpus of thousands of documents cites hundreds of thousands of works; asking Crossref about each
is days of polite requests. A subset of Crossref's public data file or of the OpenAlex snapshot,
imported here, answers the same questions locally: `mirror_works` by DOI, `mirror_titles` by
normalised title (the folded title and the folded main title, both indexed), each row carrying the
work as `sources.metadata.Work.to_json` wrote it, so a check against the mirror compares exactly
what a check against the API compares.

Rows belong to the file they came from (`index_files`, one row per imported file): importing a
file again replaces its rows, in one transaction; other files' rows stay. `MirrorTables` is mixed
into `LookupTables` (same connection and lock: the reference checks read the mirror from their
thread pool as they read the answer cache).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from citedesk.store.connection import WaitingConnection


@dataclass(frozen=True, slots=True)
class MirrorRow:
    """One work of an imported snapshot: `doi` normalised (lower case, bare), `title_key` and
    `main_key` the folded title and main title (how titles are looked up), `work` the parsed record."""

    doi: str
    source: str
    """`crossref` or `openalex`: whose snapshot it came from."""
    title: str
    title_key: str
    main_key: str
    authors: tuple[str, ...]
    year: int | None
    container: str | None
    kind: str | None
    is_retracted: bool | None
    work: dict[str, Any]


@dataclass(frozen=True, slots=True)
class MirrorFile:
    """One imported file: where it came from, whose snapshot, when, and what the import kept."""

    path: str
    source: str
    imported_at: float
    rows: int
    """Records read (every non-empty line's record, kept or not)."""
    kept: int
    skipped: int
    bad_lines: int


@dataclass(frozen=True, slots=True)
class MirrorHit:
    """A work the mirror holds, with whose snapshot and when it was imported."""

    source: str
    imported_at: float
    work: dict[str, Any]


@dataclass
class MirrorImport:
    """An import of one file in progress: `add` rows batch by batch; the counts are recorded with
    the file when the import ends."""

    _db: WaitingConnection
    path: str
    source: str = ""
    kept: int = 0
    rows: int = 0
    skipped: int = 0
    bad_lines: int = 0
    _seen: set[str] = field(default_factory=set)

    def add(self, rows: Sequence[MirrorRow]) -> None:
        self._db.executemany(
            "INSERT OR REPLACE INTO index_works (file, doi, source, title, title_key, main_key, authors, "
            "year, container, type, is_retracted, work) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    self.path,
                    r.doi,
                    r.source,
                    r.title,
                    r.title_key,
                    r.main_key,
                    json.dumps(list(r.authors), ensure_ascii=False),
                    r.year,
                    r.container,
                    r.kind,
                    None if r.is_retracted is None else int(r.is_retracted),
                    json.dumps(r.work, ensure_ascii=False),
                )
                for r in rows
            ],
        )
        self.kept += len(rows)


class MirrorTables:
    """`index_works` and `index_files`; mixed into `LookupTables`, whose connection and lock it uses."""

    _db: WaitingConnection
    _lock: threading.Lock
    _clock: Callable[[], float]

    @contextmanager
    def importing_works(self, path: str) -> Iterator[MirrorImport]:
        """Replace the rows of the file at `path` (its resolved path): one transaction that deletes
        them, takes what the caller `add`s and records the file; an exception inside rolls it all back."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("DELETE FROM index_works WHERE file = ?", (path,))
                job = MirrorImport(self._db, path)
                yield job
                self._db.execute(
                    "INSERT OR REPLACE INTO index_files (path, source, imported_at, rows, kept, skipped, "
                    "bad_lines) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (path, job.source, self._clock(), job.rows, job.kept, job.skipped, job.bad_lines),
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def mirror_files(self) -> list[MirrorFile]:
        """Every imported file, the latest import first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT path, source, imported_at, rows, kept, skipped, bad_lines FROM index_files "
                "ORDER BY imported_at DESC, path"
            ).fetchall()
        return [
            MirrorFile(str(r[0]), str(r[1]), float(r[2]), int(r[3]), int(r[4]), int(r[5]), int(r[6]))
            for r in rows
        ]

    def mirror_count(self) -> int:
        """Works held (a DOI imported from two files counts twice)."""
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM index_works").fetchone()[0])

    def mirror_works(self, doi: str) -> list[MirrorHit]:
        """The mirror's records of the work with this DOI (normalised), Crossref's first, the latest
        import first."""
        return self._hits("w.doi = ?", (doi,))

    def mirror_titles(self, title_key: str, main_key: str, *, limit: int = 20) -> list[MirrorHit]:
        """Works whose folded title or main title is `title_key` or `main_key` (either side may lack
        its subtitle)."""
        keys = tuple(dict.fromkeys(k for k in (title_key, main_key) if k))
        if not keys:
            return []
        marks = ", ".join("?" for _ in keys)
        return self._hits(f"(w.title_key IN ({marks}) OR w.main_key IN ({marks}))", (*keys, *keys), limit)

    def _hits(self, where: str, params: tuple[object, ...], limit: int = 20) -> list[MirrorHit]:
        with self._lock:
            rows = self._db.execute(
                "SELECT w.source, f.imported_at, w.work FROM index_works w JOIN index_files f ON f.path = w.file "
                f"WHERE {where} ORDER BY w.source = 'crossref' DESC, f.imported_at DESC LIMIT ?",
                (*params, limit),
            ).fetchall()
        hits = []
        for source, imported_at, work in rows:
            try:
                payload = json.loads(work)
            except json.JSONDecodeError:
                continue
            if isinstance(payload, dict):
                hits.append(MirrorHit(str(source), float(imported_at), payload))
        return hits
