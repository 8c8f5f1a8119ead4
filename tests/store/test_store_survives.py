"""The store survives what happens to files: damage, another program's lock, a folder it cannot use."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlite_utils

from citedesk.errors import StoreError
from citedesk.store import SCHEMA_VERSION, NotAStore, SourceRecord, Store, default_store_path
from citedesk.store.connection import APPLICATION_ID
from citedesk.store.schema import MIGRATIONS


def test_garbage_in_citedesks_own_store_file_is_moved_aside_and_rebuilt() -> None:
    path = default_store_path()  # conftest points the data folder at a temporary home
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not SQLite at all\n" * 200)
    store = Store(path)
    assert store.schema_version == SCHEMA_VERSION
    aside = list(path.parent.glob("sources.sqlite3.corrupt-*"))
    assert len(aside) == 1
    assert aside[0].read_bytes().startswith(b"this is not SQLite")  # never deleted
    assert len(store.notices) == 1
    assert aside[0].name in store.notices[0]
    assert "could not be recovered" in store.notices[0]
    store.put_review("doc", "k", "confirmed")  # and the new store works
    assert store.reviews("doc")["k"]["decision"] == "confirmed"
    store.close()


def _other_database(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)")
        conn.execute("INSERT INTO moz_places (url) VALUES ('https://a.example')")
    conn.close()


@pytest.mark.parametrize(
    ("name", "make", "what"),
    [
        ("paper.md", lambda p: p.write_text("# Paper\n\nTrees.\n", encoding="utf-8"), "not a database"),
        ("notes.md", lambda p: p.write_bytes(b""), "an empty file"),
        ("places.sqlite", _other_database, "another program's database"),
        ("folder", lambda p: p.mkdir(), "is a folder"),
    ],
)
def test_a_file_citedesk_did_not_make_is_refused_never_moved_or_written(
    tmp_path: Path, name: str, make: Callable[[Path], None], what: str
) -> None:
    path = tmp_path / name
    make(path)
    before = {
        p.name: (p.read_bytes() if p.is_file() else None, p.stat().st_mtime_ns) for p in tmp_path.iterdir()
    }
    with pytest.raises(NotAStore, match=what) as caught:
        Store(path)
    assert caught.value.exit_code == 2
    assert str(path) in caught.value.message
    after = {
        p.name: (p.read_bytes() if p.is_file() else None, p.stat().st_mtime_ns) for p in tmp_path.iterdir()
    }
    assert after == before  # not renamed, not written, nothing beside it (no -wal, -shm, .damaged)


def test_a_store_is_known_by_its_application_id_and_an_older_one_by_its_schema(tmp_path: Path) -> None:
    path = tmp_path / "mine.sqlite3"
    Store(path).close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        conn.execute("PRAGMA application_id = 0")  # as every store made before the id was set
    conn.close()
    store = Store(path)  # known by its tables, and marked on this opening
    assert store.db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    store.close()


def test_damage_found_in_use_is_rebuilt_on_the_next_open_keeping_the_decisions(tmp_path: Path) -> None:
    path = tmp_path / "sources.sqlite3"
    store = Store(path)
    store.put_review("doc", "k1", "false_alarm", note="checked by hand")
    store.put_review("doc", "k2", "needs_source")
    big = "Long source text about street trees. " * 4000  # many pages, after the reviews
    store.save_source(SourceRecord("url:https://a.example", "html", "ok", time.time(), text=big))
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    data = bytearray(path.read_bytes())
    for offset in range(len(data) - 8 * 4096, len(data) - 4096, 97):  # scribble over the last pages
        data[offset : offset + 8] = b"\xde\xad\xbe\xef" * 2
    path.write_bytes(bytes(data))

    damaged = Store(path)  # the header is fine: opening works until a damaged page is read
    with pytest.raises(StoreError, match="damaged"):
        damaged.source("url:https://a.example")
    damaged.close()

    rebuilt = Store(path)
    assert list(tmp_path.glob("sources.sqlite3.corrupt-*"))
    assert "2 review decisions were recovered" in rebuilt.notices[0]
    reviews = rebuilt.reviews("doc")
    assert reviews["k1"]["decision"] == "false_alarm"
    assert reviews["k1"]["note"] == "checked by hand"
    assert rebuilt.source("url:https://a.example") is None  # the cache is what was lost
    assert rebuilt.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_locked_store_is_waited_for_with_a_message_then_given_up_cleanly(tmp_path: Path) -> None:
    path = tmp_path / "sources.sqlite3"
    Store(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another program is writing and does not let go
    said: list[str] = []
    try:
        store = Store(path, lock_wait=1.5, on_wait=said.append)
        started = time.monotonic()
        with pytest.raises(StoreError, match="locked by another program"):
            store.put_review("doc", "k", "confirmed")
        assert time.monotonic() - started >= 1.5
        assert len(said) == 1
        assert "waiting for the store" in said[0]
        store.close()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    store = Store(path, lock_wait=1.5)  # once the other program is done, writes go through
    store.put_review("doc", "k", "confirmed")
    assert store.reviews("doc")["k"]["decision"] == "confirmed"


def test_a_folder_that_cannot_hold_the_store_is_a_plain_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be", encoding="utf-8")
    with pytest.raises(StoreError, match="cannot be created"):
        Store(blocker / "citedesk" / "sources.sqlite3")


def test_an_old_store_is_migrated_and_loses_its_unused_full_text_index(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite_utils.Database(path)
    db["meta"].create({"key": str, "value": str}, pk="key")  # type: ignore[union-attr]
    for version in (1, 2, 3):
        MIGRATIONS[version](db)
    db["meta"].insert({"key": "schema_version", "value": "3"})  # type: ignore[union-attr]
    db["sources"].insert(  # type: ignore[union-attr]
        {"locator": "url:https://a.example", "kind": "html", "status": "ok", "fetched_at": 1.0, "text": "x"}
    )
    db.conn.close()
    store = Store(path)
    assert store.schema_version == SCHEMA_VERSION
    assert not store.db["passages_fts"].exists()
    assert store.source("url:https://a.example") is not None
    store.attach("doc", "3", "/tmp/paper.pdf")
    assert store.attachments("doc") == [("3", "/tmp/paper.pdf")]


def test_a_store_from_a_newer_citedesk_is_refused_not_downgraded(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    store = Store(path)
    with store.transaction() as db:
        db["meta"].upsert({"key": "schema_version", "value": str(SCHEMA_VERSION + 1)}, pk="key")  # type: ignore[union-attr]
    store.close()
    with pytest.raises(StoreError, match="newer CiteDesk"):
        Store(path)
