"""The SQLite store (sqlite-utils): sources and their passages, a fetch log, caches, the writer's
review decisions and attachments.

The only module that speaks SQL. One file under the user's data folder; WAL mode, so readers never
block the writer and a process killed mid-write leaves the last committed state; every write is one
transaction. The schema has a version and ordered migrations (`schema.py`). A locked file is waited
for and a damaged one is moved aside and rebuilt (`connection.py`): the store is a cache plus the
writer's decisions, so rebuilding loses only what can be fetched again — and it says what was lost.
A file that is not a store CiteDesk made is never opened, moved or written (`connection.identify`).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlite_utils

from citedesk.errors import StoreError
from citedesk.store.connection import APPLICATION_ID, LOCK_WAIT_S, StoreDamaged, connect, identify
from citedesk.store.lookups import LookupTables
from citedesk.store.records import Passage, SourceRecord
from citedesk.store.schema import MIGRATIONS, SCHEMA_VERSION


class Store:
    """One connection per thread; writes serialised by a lock and done in one transaction each.

    `notices` collects what the writer should be told about the store itself (it was damaged and
    rebuilt); `on_wait` is told once when a statement has to wait for another program's lock.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        lock_wait: float = LOCK_WAIT_S,
        on_wait: Callable[[str], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.notices: list[str] = []
        self._lock_wait = lock_wait
        self._on_wait = on_wait
        self._local = threading.local()
        self._write_lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"the store's folder {self.path.parent} cannot be created: {exc.strerror or exc}"
            ) from exc
        identify(self.path, own=_is_default(self.path))  # before anything opens it: NotAStore
        try:
            if self._damage_mark.exists():
                self._check()
            self._migrate()
        except StoreDamaged as exc:
            self._rebuild(str(exc))

    @property
    def db(self) -> sqlite_utils.Database:
        db = getattr(self._local, "db", None)
        if db is None:
            conn = connect(
                self.path, lock_wait=self._lock_wait, on_wait=self._on_wait, on_damage=self._mark_damaged
            )
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
                with contextlib.suppress(sqlite3.Error, StoreError):
                    db.conn.execute("ROLLBACK")
                raise
            db.conn.execute("COMMIT")

    def _migrate(self) -> None:
        try:  # the common case, on every open: already current and marked, so no write lock is taken
            if self.schema_version == SCHEMA_VERSION and self._application_id() == APPLICATION_ID:
                return
        except (sqlite3.OperationalError, TypeError):  # a new file: no meta table, or no version yet
            pass
        with self.transaction() as db:
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")  # known as CiteDesk's from now on
            db["meta"].create({"key": str, "value": str}, pk="key", if_not_exists=True)  # type: ignore[union-attr]
            row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            version = int(row[0]) if row else 0
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"The store {self.path} was written by a newer CiteDesk (schema {version}); "
                    "update CiteDesk, or move the file away to start a new store."
                )
            for target in range(version + 1, SCHEMA_VERSION + 1):
                MIGRATIONS[target](db)
            db["meta"].upsert({"key": "schema_version", "value": str(SCHEMA_VERSION)}, pk="key")  # type: ignore[union-attr]

    def _application_id(self) -> int:
        return int(self.db.execute("PRAGMA application_id").fetchone()[0])

    # damage and rebuilding ------------------------------------------------------------------------
    @property
    def _damage_mark(self) -> Path:
        return self.path.with_name(self.path.name + ".damaged")

    def _mark_damaged(self) -> None:
        """Damage found while in use: the next opening checks the whole file (and rebuilds it)."""
        with contextlib.suppress(OSError):
            self._damage_mark.touch()

    def _check(self) -> None:
        row = self.db.execute("PRAGMA quick_check").fetchone()
        if row is None or row[0] != "ok":
            raise StoreDamaged(f"the store {self.path} failed its check ({row[0] if row else 'no answer'})")
        self._damage_mark.unlink(missing_ok=True)

    def _rebuild(self, reason: str) -> None:
        """Move the damaged file aside (never delete it), start a new store, and carry over the
        writer's review decisions and attachments when the old file still yields them."""
        self.close()
        kept = _salvage(self.path)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                self.path.with_name(self.path.name + suffix).replace(aside.with_name(aside.name + suffix))
        self._damage_mark.unlink(missing_ok=True)
        self._migrate()
        with self.transaction() as db:
            for table, rows in kept.items():
                if rows:
                    db[table].insert_all(rows, ignore=True)  # type: ignore[union-attr]
        reviews = len(kept.get("reviews", []))
        self.notices.append(
            f"{reason}. It was moved to {aside.name} and a new store was started: cached sources, "
            "judgements and embeddings will be fetched and computed again; "
            + (
                f"{reviews} review decision{'s' if reviews != 1 else ''} were recovered."
                if "reviews" in kept
                else "your review decisions in it could not be recovered."
            )
        )

    @property
    def schema_version(self) -> int:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0])

    def lookups(self, *, clock: Callable[[], float] = time.time) -> LookupTables:
        """The look-up cache and the retraction snapshot, on a connection any thread may use
        (close it, or use it as a context manager)."""
        return LookupTables(self.path, lock_wait=self._lock_wait, on_wait=self._on_wait, clock=clock)

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
        """A document saved under a new name keeps its decisions and attachments (the new name's
        own ones win)."""
        if old == new:
            return
        with self.transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO reviews (document, key, decision, note, kind, excerpt, at) "
                "SELECT ?, key, decision, note, kind, excerpt, at FROM reviews WHERE document = ?",
                [new, old],
            )
            db.execute("DELETE FROM reviews WHERE document = ?", [old])
            db.execute(
                "INSERT OR IGNORE INTO attachments (document, key, path, at) "
                "SELECT ?, key, path, at FROM attachments WHERE document = ?",
                [new, old],
            )
            db.execute("DELETE FROM attachments WHERE document = ?", [old])

    # files and folders attached to a document's references -------------------------------------
    def attachments(self, document: str) -> list[tuple[str, str]]:
        """(reference key, path) attached for one document, in the order they were attached; the
        key "" marks a folder of sources named by key."""
        rows = self.db.query("SELECT key, path FROM attachments WHERE document = ? ORDER BY at", [document])
        return [(r["key"], r["path"]) for r in rows]

    def attach(self, document: str, key: str, path: str) -> None:
        """Attach `path` to reference `key` (replacing what that key had); "" adds a folder."""
        with self.transaction() as db:
            if key:
                db.execute("DELETE FROM attachments WHERE document = ? AND key = ?", [document, key])
            db["attachments"].upsert(  # type: ignore[union-attr]
                {"document": document, "key": key, "path": path, "at": time.time()},
                pk=("document", "key", "path"),
            )

    def detach(self, document: str, key: str, path: str | None = None) -> bool:
        with self.transaction() as db:
            if path is None:
                cursor = db.execute("DELETE FROM attachments WHERE document = ? AND key = ?", [document, key])
            else:
                cursor = db.execute(
                    "DELETE FROM attachments WHERE document = ? AND key = ? AND path = ?",
                    [document, key, path],
                )
            return bool(cursor.rowcount)


def default_store_path() -> Path:
    """Where the store lives unless a setting says otherwise: CiteDesk's own data folder."""
    import platformdirs  # noqa: PLC0415

    return Path(platformdirs.user_data_dir("citedesk", appauthor=False)) / "sources.sqlite3"


def _is_default(path: Path) -> bool:
    """Whether `path` is CiteDesk's own default store, where no other program's file belongs."""
    return os.path.realpath(path) == os.path.realpath(default_store_path())


def _record(row: dict[str, Any]) -> SourceRecord:
    data = dict(row)
    data["metadata"] = json.loads(data.get("metadata") or "{}")
    data["text"] = data.get("text") or ""
    data["message"] = data.get("message") or ""
    return SourceRecord(**data)


def _salvage(path: Path) -> dict[str, list[dict[str, Any]]]:
    """The writer's own rows (review decisions, attachments) that a damaged store still yields."""
    kept: dict[str, list[dict[str, Any]]] = {}
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
    except sqlite3.Error:
        return kept
    try:
        conn.row_factory = sqlite3.Row
        for table in ("reviews", "attachments"):
            with contextlib.suppress(sqlite3.Error):
                kept[table] = [dict(row) for row in conn.execute(f"SELECT * FROM {table}")]
    finally:
        conn.close()
    return kept
