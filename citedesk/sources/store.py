"""The SQLite store (sqlite-utils): sources, passages with full-text search, a fetch log, caches.

The only module that speaks SQL. One file under the user's data folder; WAL mode, so readers never
block the writer and a process killed mid-write leaves the last committed state; every write is one
transaction. The schema has a version and ordered migrations.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlite_utils

from citedesk.errors import StoreError
from citedesk.sources.passages import Passage

SCHEMA_VERSION = 3


@dataclass
class SourceRecord:
    locator: str
    """What was asked for: `url:https://…`, `doi:10.…`, `arxiv:…`, `file:/abs/path`."""
    kind: str
    status: str
    fetched_at: float
    final_url: str | None = None
    http_status: int | None = None
    content_type: str | None = None
    content_hash: str | None = None
    title: str | None = None
    author: str | None = None
    date: str | None = None
    text: str = ""
    message: str = ""
    metadata: dict[str, Any] | None = None

    @property
    def has_text(self) -> bool:
        return bool(self.text.strip())


def _migrate_1(db: sqlite_utils.Database) -> None:
    db["sources"].create(  # type: ignore[union-attr]
        {
            "locator": str,
            "kind": str,
            "status": str,
            "fetched_at": float,
            "final_url": str,
            "http_status": int,
            "content_type": str,
            "content_hash": str,
            "title": str,
            "author": str,
            "date": str,
            "text": str,
            "message": str,
            "metadata": str,
        },
        pk="locator",
        if_not_exists=True,
    )
    db["passages"].create(  # type: ignore[union-attr]
        {"id": int, "locator": str, "idx": int, "start": int, "end": int, "page": int, "text": str},
        pk="id",
        foreign_keys=[("locator", "sources", "locator")],
        if_not_exists=True,
    )
    db["passages"].create_index(["locator", "idx"], unique=True, if_not_exists=True)  # type: ignore[union-attr]
    db["passages"].enable_fts(["text"], create_triggers=True, tokenize="porter", replace=True)  # type: ignore[union-attr]
    db["fetch_log"].create(  # type: ignore[union-attr]
        {
            "id": int,
            "locator": str,
            "at": float,
            "status": str,
            "http_status": int,
            "elapsed": float,
            "message": str,
        },
        pk="id",
        if_not_exists=True,
    )


def _migrate_2(db: sqlite_utils.Database) -> None:
    db["embeddings"].create(  # type: ignore[union-attr]
        {"key": str, "model": str, "vector": bytes}, pk=("key", "model"), if_not_exists=True
    )
    db["judgements"].create(  # type: ignore[union-attr]
        {"key": str, "judge": str, "result": str, "at": float}, pk=("key", "judge"), if_not_exists=True
    )


def _migrate_3(db: sqlite_utils.Database) -> None:
    db["reviews"].create(  # type: ignore[union-attr]
        {"document": str, "key": str, "decision": str, "note": str, "kind": str, "excerpt": str, "at": float},
        pk=("document", "key"),
        if_not_exists=True,
    )


MIGRATIONS = {1: _migrate_1, 2: _migrate_2, 3: _migrate_3}


class Store:
    """One connection per thread; writes serialised by a lock and done in one transaction each."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._migrate()

    @property
    def db(self) -> sqlite_utils.Database:
        db = getattr(self._local, "db", None)
        if db is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=True)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=30000")
            db = sqlite_utils.Database(conn)
            self._local.db = db
        return db

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.conn.close()
            self._local.db = None

    @contextmanager
    def transaction(self) -> Iterator[sqlite_utils.Database]:
        db = self.db
        with self._write_lock:
            db.conn.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.conn.execute("ROLLBACK")
                raise
            db.conn.execute("COMMIT")

    def _migrate(self) -> None:
        try:  # the common case, on every open: already current, so no write lock is taken
            if self.schema_version == SCHEMA_VERSION:
                return
        except (sqlite3.OperationalError, TypeError):  # a new file: no meta table, or no version yet
            pass
        with self.transaction() as db:
            db["meta"].create({"key": str, "value": str}, pk="key", if_not_exists=True)  # type: ignore[union-attr]
            row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            version = int(row[0]) if row else 0
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"The source store {self.path} was written by a newer CiteDesk (schema {version})."
                )
            for target in range(version + 1, SCHEMA_VERSION + 1):
                MIGRATIONS[target](db)
            db["meta"].upsert({"key": "schema_version", "value": str(SCHEMA_VERSION)}, pk="key")  # type: ignore[union-attr]

    @property
    def schema_version(self) -> int:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0])

    # sources ----------------------------------------------------------------------------------
    def save_source(self, record: SourceRecord, passages: list[Passage] | None = None) -> None:
        row = {**record.__dict__, "metadata": json.dumps(record.metadata or {})}
        with self.transaction() as db:
            db["sources"].upsert(row, pk="locator")  # type: ignore[union-attr]
            if passages is not None:
                db.execute("DELETE FROM passages WHERE locator = ?", [record.locator])
                db["passages"].insert_all(  # type: ignore[union-attr]
                    {
                        "locator": record.locator,
                        "idx": p.index,
                        "start": p.start,
                        "end": p.end,
                        "page": p.page,
                        "text": p.text,
                    }
                    for p in passages
                )

    def log_fetch(
        self, locator: str, status: str, http_status: int | None, elapsed: float, message: str
    ) -> None:
        with self.transaction() as db:
            db["fetch_log"].insert(  # type: ignore[union-attr]
                {
                    "locator": locator,
                    "at": time.time(),
                    "status": status,
                    "http_status": http_status,
                    "elapsed": elapsed,
                    "message": message,
                }
            )

    def source(self, locator: str) -> SourceRecord | None:
        rows = list(self.db.query("SELECT * FROM sources WHERE locator = ?", [locator]))
        return _record(rows[0]) if rows else None

    def sources(self) -> list[SourceRecord]:
        return [_record(r) for r in self.db.query("SELECT * FROM sources ORDER BY fetched_at DESC")]

    def passages(self, locator: str) -> list[Passage]:
        return [
            Passage(r["idx"], r["start"], r["end"], r["text"], r["page"])
            for r in self.db.query("SELECT * FROM passages WHERE locator = ? ORDER BY idx", [locator])
        ]

    def search(self, locator: str, query: str, limit: int = 20) -> list[tuple[Passage, float]]:
        """BM25 search within one source's passages (FTS5; lower rank is better, returned negated)."""
        terms = " OR ".join(f'"{t}"' for t in query.replace('"', " ").split() if t)
        if not terms:
            return []
        rows = self.db.query(
            "SELECT p.idx, p.start, p.end, p.text, p.page, bm25(passages_fts) AS rank "
            "FROM passages_fts JOIN passages p ON p.rowid = passages_fts.rowid "
            "WHERE passages_fts MATCH ? AND p.locator = ? ORDER BY rank LIMIT ?",
            [terms, locator, limit],
        )
        return [
            (Passage(r["idx"], r["start"], r["end"], r["text"], r["page"]), -float(r["rank"])) for r in rows
        ]

    def forget(self, locator: str) -> bool:
        with self.transaction() as db:
            db.execute("DELETE FROM passages WHERE locator = ?", [locator])
            cursor = db.execute("DELETE FROM sources WHERE locator = ?", [locator])
            return bool(cursor.rowcount)

    def fetch_log(self, locator: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        if locator:
            return list(
                self.db.query(
                    "SELECT * FROM fetch_log WHERE locator = ? ORDER BY id DESC LIMIT ?", [locator, limit]
                )
            )
        return list(self.db.query("SELECT * FROM fetch_log ORDER BY id DESC LIMIT ?", [limit]))

    # caches -----------------------------------------------------------------------------------
    def get_judgement(self, key: str, judge: str) -> str | None:
        row = self.db.execute(
            "SELECT result FROM judgements WHERE key = ? AND judge = ?", [key, judge]
        ).fetchone()
        return str(row[0]) if row else None

    def put_judgements(self, judge: str, items: dict[str, str]) -> None:
        now = time.time()
        with self.transaction() as db:
            db["judgements"].upsert_all(  # type: ignore[union-attr]
                ({"key": k, "judge": judge, "result": v, "at": now} for k, v in items.items()),
                pk=("key", "judge"),
            )

    def get_embeddings(self, model: str, keys: list[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for key, vector in self.db.execute(
                f"SELECT key, vector FROM embeddings WHERE model = ? AND key IN ({marks})",
                [model, *chunk],
            ):
                found[key] = vector
        return found

    def put_embeddings(self, model: str, vectors: dict[str, bytes]) -> None:
        with self.transaction() as db:
            db["embeddings"].upsert_all(  # type: ignore[union-attr]
                ({"key": k, "model": model, "vector": v} for k, v in vectors.items()), pk=("key", "model")
            )

    # the writer's review decisions ---------------------------------------------------------------
    def reviews(self, document: str) -> dict[str, dict[str, Any]]:
        """key → {decision, note, kind, excerpt, at} for one document."""
        rows = self.db.query("SELECT * FROM reviews WHERE document = ?", [document])
        return {r["key"]: dict(r) for r in rows}

    def put_review(
        self, document: str, key: str, decision: str, *, note: str = "", kind: str = "", excerpt: str = ""
    ) -> None:
        row = {
            "document": document,
            "key": key,
            "decision": decision,
            "note": note,
            "kind": kind,
            "excerpt": excerpt[:500],
            "at": time.time(),
        }
        with self.transaction() as db:
            db["reviews"].upsert(row, pk=("document", "key"))  # type: ignore[union-attr]

    def clear_review(self, document: str, key: str) -> bool:
        with self.transaction() as db:
            cursor = db.execute("DELETE FROM reviews WHERE document = ? AND key = ?", [document, key])
            return bool(cursor.rowcount)

    def move_reviews(self, old: str, new: str) -> None:
        """A document saved under a new name keeps its decisions (the new name's own ones win)."""
        if old == new:
            return
        with self.transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO reviews (document, key, decision, note, kind, excerpt, at) "
                "SELECT ?, key, decision, note, kind, excerpt, at FROM reviews WHERE document = ?",
                [new, old],
            )
            db.execute("DELETE FROM reviews WHERE document = ?", [old])


def _record(row: dict[str, Any]) -> SourceRecord:
    data = dict(row)
    data["metadata"] = json.loads(data.get("metadata") or "{}")
    data["text"] = data.get("text") or ""
    data["message"] = data.get("message") or ""
    return SourceRecord(**data)


def default_store_path() -> Path:
    import platformdirs  # noqa: PLC0415

    return Path(platformdirs.user_data_dir("citedesk", appauthor=False)) / "sources.sqlite3"
