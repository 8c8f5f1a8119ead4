"""The store's side of reference truth: the look-up cache and the imported retraction snapshot.

`LookupTables` works on its own connection, which any thread may use (one call at a time, under a
lock): the reference checks ask Crossref, OpenAlex and doi.org from a pool of threads, and each
thread reads and writes answers here. It is the `AnswerCache` of `sources.indexes` (`get`/`put`,
each answer kept with the time it was stored) and holds the Retraction Watch snapshot
(`retractions_for(doi)`, `importing(path)`, `snapshot()`); `sources.retractions` turns its rows into
notices. Obtain one with `Store.lookups()` and close it (it is a context manager).

An import replaces the whole snapshot in one transaction: a file that turns out to be damaged
halfway leaves the previous snapshot exactly as it was.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from citedesk.store.connection import LOCK_WAIT_S, WaitingConnection, connect
from citedesk.store.records import RetractionRow, SnapshotInfo
from citedesk.store.works import MirrorTables


@dataclass
class RetractionImport:
    """An import in progress: `add` rows batch by batch; `rows_read` and `newest` are the file's
    counts (skipped rows included), recorded with the snapshot when the import ends."""

    _db: WaitingConnection
    imported: int = 0
    rows_read: int = 0
    newest: str | None = None

    def add(self, rows: Sequence[RetractionRow]) -> None:
        self._db.executemany(
            "INSERT OR REPLACE INTO retractions (record_id, original_doi, notice_doi, kind, nature, date, "
            "reasons, original_date, title, journal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    r.record_id,
                    r.original_doi,
                    r.notice_doi,
                    r.kind,
                    r.nature,
                    r.date,
                    json.dumps(list(r.reasons)),
                    r.original_date,
                    r.title,
                    r.journal,
                )
                for r in rows
            ],
        )
        self.imported += len(rows)


class LookupTables(MirrorTables):
    """`lookup_cache`, `retractions` and `retraction_snapshots` (and the index mirror's tables,
    `store.works`) on one thread-safe connection."""

    def __init__(
        self,
        path: Path,
        *,
        lock_wait: float = LOCK_WAIT_S,
        on_wait: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._db = connect(path, lock_wait=lock_wait, on_wait=on_wait, shared=True)
        self._lock = threading.Lock()
        self._clock = clock

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> LookupTables:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # the look-up cache (sources.indexes.AnswerCache) --------------------------------------------------
    def get(self, key: str) -> tuple[dict[str, Any], float] | None:
        """The answer stored under `key` and when it was stored (seconds since the epoch)."""
        with self._lock:
            row = self._db.execute(
                "SELECT payload, fetched_at FROM lookup_cache WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        try:
            payload = json.loads(row[0])
        except json.JSONDecodeError:
            return None  # unreadable: as if never asked
        return (payload, float(row[1])) if isinstance(payload, dict) else None

    def put(self, key: str, payload: dict[str, Any]) -> None:
        text = json.dumps(payload, ensure_ascii=False)
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO lookup_cache (key, payload, fetched_at) VALUES (?, ?, ?)",
                (key, text, self._clock()),
            )

    def cached_answers(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM lookup_cache").fetchone()[0])

    # the retraction snapshot ------------------------------------------------------------------------
    def retractions_for(self, doi: str) -> list[RetractionRow]:
        """The snapshot's records about the work with this DOI (normalised: lower case, bare)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT record_id, original_doi, notice_doi, kind, nature, date, reasons, original_date, "
                "title, journal FROM retractions WHERE original_doi = ? ORDER BY date, record_id",
                (doi,),
            ).fetchall()
        return [
            RetractionRow(
                record_id=r[0],
                original_doi=r[1],
                notice_doi=r[2],
                kind=r[3],
                nature=r[4] or "",
                date=r[5],
                reasons=tuple(json.loads(r[6] or "[]")),
                original_date=r[7],
                title=r[8] or "",
                journal=r[9] or "",
            )
            for r in rows
        ]

    @contextmanager
    def importing(self, path: str) -> Iterator[RetractionImport]:
        """Replace the snapshot: one transaction that deletes the old rows, takes what the caller
        `add`s, and records the import; any exception inside rolls all of it back."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("DELETE FROM retractions")
                job = RetractionImport(self._db)
                yield job
                self._db.execute(
                    "INSERT INTO retraction_snapshots (path, imported_at, rows, imported, newest) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (path, self._clock(), job.rows_read, job.imported, job.newest),
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def snapshot(self) -> SnapshotInfo | None:
        """The latest import, or None when no snapshot was ever imported."""
        with self._lock:
            row = self._db.execute(
                "SELECT path, imported_at, rows, imported, newest FROM retraction_snapshots "
                "ORDER BY imported_at DESC, id DESC LIMIT 1"
            ).fetchone()
        if row is None:
            return None
        return SnapshotInfo(str(row[0]), float(row[1]), int(row[2]), int(row[3]), row[4])

    def retraction_count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM retractions").fetchone()[0])
