"""A real SQLite implementation of `indexes.AnswerCache` and `retractions.RetractionIndex` for tests.

It uses the schema proposed for the store (`lookup_cache`, `retractions`, `retraction_snapshots`),
so the tests exercise the contract the store will implement, on a real database file.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from citedesk.sources.metadata import Notice, NoticeKind, normalise_doi
from citedesk.sources.retractions import SNAPSHOT_SOURCE, RetractionRecord, SnapshotSummary

SCHEMA = """
CREATE TABLE IF NOT EXISTS lookup_cache (
    key TEXT PRIMARY KEY,
    payload TEXT NOT NULL,
    fetched_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS retractions (
    record_id TEXT NOT NULL,
    original_doi TEXT NOT NULL,
    notice_doi TEXT,
    kind TEXT NOT NULL,
    nature TEXT NOT NULL,
    date TEXT,
    reasons TEXT NOT NULL DEFAULT '[]',
    original_date TEXT,
    title TEXT,
    journal TEXT,
    PRIMARY KEY (record_id, original_doi)
);
CREATE INDEX IF NOT EXISTS retractions_original_doi ON retractions (original_doi);
CREATE TABLE IF NOT EXISTS retraction_snapshots (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL,
    imported_at REAL NOT NULL,
    rows INTEGER NOT NULL,
    imported INTEGER NOT NULL,
    newest TEXT
);
"""


class SqliteCache:
    """`AnswerCache` and `RetractionIndex` over one SQLite file (one connection per thread)."""

    def __init__(self, path: Path, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self._clock = clock
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        with self._db() as db:
            db.executescript(SCHEMA)

    def _db(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
            self._local.db = db
            with self._lock:
                self._connections.append(db)
        return db

    def close(self) -> None:
        with self._lock:
            for db in self._connections:
                db.close()
            self._connections.clear()

    # AnswerCache
    def get(self, key: str) -> tuple[dict[str, Any], float] | None:
        row = (
            self._db()
            .execute("SELECT payload, fetched_at FROM lookup_cache WHERE key = ?", (key,))
            .fetchone()
        )
        if row is None:
            return None
        payload: dict[str, Any] = json.loads(row[0])
        return payload, float(row[1])

    def put(self, key: str, payload: dict[str, Any]) -> None:
        with self._db() as db:
            db.execute(
                "INSERT OR REPLACE INTO lookup_cache (key, payload, fetched_at) VALUES (?, ?, ?)",
                (key, json.dumps(payload), self._clock()),
            )

    def age(self, key: str, seconds: float) -> None:
        """Make a cached answer `seconds` older (as if it had been fetched that long ago)."""
        with self._db() as db:
            db.execute("UPDATE lookup_cache SET fetched_at = fetched_at - ? WHERE key = ?", (seconds, key))

    # the retraction snapshot
    def replace_retractions(self, batches: list[list[RetractionRecord]]) -> None:
        with self._db() as db:
            db.execute("DELETE FROM retractions")
            for batch in batches:
                self.add_retractions(batch, db)

    def add_retractions(self, batch: list[RetractionRecord], db: sqlite3.Connection | None = None) -> None:
        target = db or self._db()
        with target:
            target.executemany(
                "INSERT OR REPLACE INTO retractions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        r.record_id,
                        r.original_doi,
                        r.notice_doi,
                        r.kind.value,
                        r.nature,
                        r.date,
                        json.dumps(list(r.reasons)),
                        r.original_date,
                        r.title,
                        r.journal,
                    )
                    for r in batch
                ],
            )

    def record_snapshot(self, path: Path, summary: SnapshotSummary) -> None:
        with self._db() as db:
            db.execute(
                "INSERT INTO retraction_snapshots (path, imported_at, rows, imported, newest) VALUES (?, ?, ?, ?, ?)",
                (str(path), self._clock(), summary.rows, summary.imported, summary.newest),
            )

    def notices_for(self, doi: str) -> list[Notice]:
        key = normalise_doi(doi)
        if key is None:
            return []
        rows = self._db().execute(
            "SELECT kind, notice_doi, date, nature, reasons, record_id FROM retractions WHERE original_doi = ?",
            (key,),
        )
        return [
            Notice(
                NoticeKind(kind), notice, date, SNAPSHOT_SOURCE, nature, tuple(json.loads(reasons)), record
            )
            for kind, notice, date, nature, reasons, record in rows
        ]
