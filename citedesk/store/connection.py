"""Connections to the store's SQLite file, and what happens when the file misbehaves.

- **Locked.** Another program holds the write lock (another CiteDesk, a backup tool, `sqlite3` in a
  terminal). SQLite waits a little on each statement (`busy_timeout`); past that, the connection
  says once that it is waiting (`on_wait`) and keeps trying until `lock_wait` seconds have passed,
  then gives up with a `StoreError` that says what happened — never a raw "database is locked".
- **Not a store.** A file that CiteDesk did not make — a document, a bibliography, another
  program's database — is never opened as the store, so never renamed or written: `identify` looks
  at it first (without writing) and refuses it with `NotAStore`. A store is recognised by its
  `application_id` (`APPLICATION_ID`, set on every store since it was introduced) or, for an older
  one, by its schema (its `meta`, `sources` and `passages` tables); an empty SQLite database holds
  nothing to lose and is taken as a new store. Only the file at CiteDesk's own default place is
  taken as its store whatever it holds (nothing else writes there).
- **Damaged.** A store whose pages are damaged: `StoreDamaged`. When that is found on opening, the
  store moves the file aside and starts a new one (see `Store`); found later, it leaves a mark so
  the next opening checks the file and rebuilds it.
- **Unusable.** A full disk, a read-only folder, a file that cannot be opened: a `StoreError` naming
  the file and the reason.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from citedesk.errors import NotAStore, StoreError

BUSY_MS = 1000
"""How long SQLite itself waits for a lock on each statement before the connection is told."""
LOCK_WAIT_S = 30.0
"""How long, in all, a statement waits for another program's lock before giving up."""

_WAIT_CODES = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}
_DAMAGED_CODES = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}
_UNUSABLE = {
    sqlite3.SQLITE_FULL: "the disk is full",
    sqlite3.SQLITE_READONLY: "it is read-only",
    sqlite3.SQLITE_CANTOPEN: "it cannot be opened",
    sqlite3.SQLITE_PERM: "permission denied",
    sqlite3.SQLITE_IOERR: "the disk reported an error",
}


APPLICATION_ID = 0x43445331
"""`PRAGMA application_id` of every store CiteDesk makes ("CDS1"): how it knows a file is its own."""
SQLITE_MAGIC = b"SQLite format 3\x00"
STORE_TABLES = frozenset({"meta", "sources", "passages"})
"""Tables every store has had since its first schema: how a store from before APPLICATION_ID is known."""


class StoreDamaged(StoreError):
    """The store's file is not a database, or is damaged."""

    kind = "store_damaged"


def primary_code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


class WaitingConnection(sqlite3.Connection):
    """A connection whose statements wait out another program's lock, and whose failures are
    `StoreError`s with plain messages (plain SQL errors — a missing table — pass through)."""

    path: Path = Path()
    lock_wait: float = LOCK_WAIT_S
    on_wait: Callable[[str], None] | None = None
    on_damage: Callable[[], None] | None = None

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        waiting_since: float | None = None
        while True:
            try:
                return super().execute(sql, parameters)
            except sqlite3.Error as exc:
                code = primary_code(exc)
                if code not in _WAIT_CODES:
                    raise translate(exc, self.path, self.on_damage) from exc
                now = time.monotonic()
                if waiting_since is None:
                    waiting_since = now
                    if self.on_wait is not None:
                        self.on_wait(
                            f"waiting for the store {self.path}: another program is using it "
                            f"(giving up after {self.lock_wait:.0f} s)"
                        )
                if now - waiting_since >= self.lock_wait:
                    raise StoreError(
                        f"the store {self.path} stayed locked by another program for "
                        f"{self.lock_wait:.0f} s; close the other CiteDesk (or whatever holds it) and try "
                        "again"
                    ) from exc


def translate(
    exc: sqlite3.Error, path: Path, on_damage: Callable[[], None] | None = None
) -> sqlite3.Error | StoreError:
    """The StoreError a failure means, or the failure itself when it is a plain SQL error."""
    code = primary_code(exc)
    if code in _DAMAGED_CODES:
        if on_damage is not None:
            on_damage()
        return StoreDamaged(f"the store {path} is damaged ({exc})")
    if code in _UNUSABLE:
        return StoreError(f"the store {path} cannot be used: {_UNUSABLE[code]} ({exc})")
    return exc


def identify(path: Path, *, own: bool = False) -> Literal["new", "store"]:
    """Whether `path` may be opened as the store, writing nothing: "new" when nothing is there yet,
    "store" when it holds a store CiteDesk made (perhaps damaged: opening it finds out), or an
    empty SQLite database. Anything else raises `NotAStore`. `own`: the path is CiteDesk's own
    default place, where any regular file is taken as its store (damaged beyond recognition)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return "new"
    except OSError as exc:
        raise StoreError(f"the store {path} cannot be used: {exc.strerror or exc}") from exc
    if stat.S_ISDIR(info.st_mode):
        raise NotAStore(f"the store {path} is a folder: name a file (a new one, or a store CiteDesk made)")
    if stat.S_ISREG(info.st_mode) and own:
        return "store"
    what = _foreign(path, info.st_size) if stat.S_ISREG(info.st_mode) else "not a file"
    if what is None:
        return "store"
    raise NotAStore(
        f"the store {path} is {what}, not a store CiteDesk made; CiteDesk never writes over or moves "
        "a file it did not make: name a new file (or a store CiteDesk made) as the store"
    )


def _foreign(path: Path, size: int) -> str | None:
    """What the regular file at `path` is when it is not a CiteDesk store; None when it is one."""
    if size == 0:
        return "an empty file"
    try:
        with open(path, "rb") as file:
            header = file.read(100)
    except OSError as exc:
        raise StoreError(f"the store {path} cannot be read: {exc.strerror or exc}") from exc
    if not header.startswith(SQLITE_MAGIC) or len(header) < 100:
        return "not a database"
    application_id = int.from_bytes(header[68:72], "big")
    if application_id == APPLICATION_ID:
        return None
    if application_id != 0:
        return "another program's database"
    try:  # read-only, lock-free, creating nothing beside it (no -wal, no -shm)
        conn = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1", uri=True)
        try:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.Error:
        return "a database that cannot be read (so not known to be a CiteDesk store)"
    if not tables or tables >= STORE_TABLES:
        return None
    return "another program's database"


def connect(
    path: Path,
    *,
    lock_wait: float = LOCK_WAIT_S,
    on_wait: Callable[[str], None] | None = None,
    on_damage: Callable[[], None] | None = None,
    shared: bool = False,
) -> WaitingConnection:
    """A connection in autocommit mode (transactions are explicit), WAL, foreign keys on. A
    `shared` one may be used from any thread (its owner serialises the calls)."""
    try:
        conn = sqlite3.connect(
            path,
            timeout=BUSY_MS / 1000,
            isolation_level=None,
            check_same_thread=not shared,
            factory=WaitingConnection,
        )
    except sqlite3.Error as exc:
        raise StoreError(f"the store {path} cannot be opened: {exc}") from exc
    assert isinstance(conn, WaitingConnection)
    conn.path, conn.lock_wait, conn.on_wait, conn.on_damage = path, lock_wait, on_wait, on_damage
    conn.execute(f"PRAGMA busy_timeout={BUSY_MS}")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn
