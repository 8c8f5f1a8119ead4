"""The store's schema: a version number and the ordered migrations that reach it.

Each migration runs once, inside the transaction that records the new version, so a store is
always at exactly one version. A store written by a newer CiteDesk is refused, never downgraded.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlite_utils

SCHEMA_VERSION = 7


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


def _migrate_4(db: sqlite_utils.Database) -> None:
    """Drop the passages' full-text index: retrieval ranks passages in memory (BM25 + embeddings),
    so the index was kept up to date on every write and read by nothing."""
    if db["passages_fts"].exists():
        db["passages"].disable_fts()  # type: ignore[union-attr]


def _migrate_5(db: sqlite_utils.Database) -> None:
    """Files and folders the writer attached to a document's references (shared by the CLI and
    the window): `key` is a reference key, or "" for a folder of sources named by key."""
    db["attachments"].create(  # type: ignore[union-attr]
        {"document": str, "key": str, "path": str, "at": float},
        pk=("document", "key", "path"),
        if_not_exists=True,
    )


def _migrate_6(db: sqlite_utils.Database) -> None:
    """Reference truth: every answer of Crossref, OpenAlex and doi.org with its date
    (`lookup_cache`, payloads are JSON), and the imported Retraction Watch snapshot (`retractions`,
    one row per record and retracted DOI; `retraction_snapshots`, one row per import)."""
    db["lookup_cache"].create(  # type: ignore[union-attr]
        {"key": str, "payload": str, "fetched_at": float}, pk="key", if_not_exists=True
    )
    db["retractions"].create(  # type: ignore[union-attr]
        {
            "record_id": str,
            "original_doi": str,
            "notice_doi": str,
            "kind": str,
            "nature": str,
            "date": str,
            "reasons": str,
            "original_date": str,
            "title": str,
            "journal": str,
        },
        pk=("record_id", "original_doi"),
        not_null={"record_id", "original_doi", "kind"},
        if_not_exists=True,
    )
    db["retractions"].create_index(["original_doi"], if_not_exists=True)  # type: ignore[union-attr]
    db["retraction_snapshots"].create(  # type: ignore[union-attr]
        {"id": int, "path": str, "imported_at": float, "rows": int, "imported": int, "newest": str},
        pk="id",
        if_not_exists=True,
    )


def _migrate_7(db: sqlite_utils.Database) -> None:
    """The offline index mirror (`store.works`): works imported from Crossref or OpenAlex snapshots
    (`index_works`, one row per file and DOI, looked up by DOI and by folded title or main title) and
    the files imported (`index_files`, one row per file: a re-import replaces its rows)."""
    db["index_works"].create(  # type: ignore[union-attr]
        {
            "file": str,
            "doi": str,
            "source": str,
            "title": str,
            "title_key": str,
            "main_key": str,
            "authors": str,
            "year": int,
            "container": str,
            "type": str,
            "is_retracted": int,
            "work": str,
        },
        pk=("file", "doi"),
        not_null={"file", "doi", "source", "work"},
        if_not_exists=True,
    )
    for column in ("doi", "title_key", "main_key"):
        db["index_works"].create_index([column], if_not_exists=True)  # type: ignore[union-attr]
    db["index_files"].create(  # type: ignore[union-attr]
        {
            "path": str,
            "source": str,
            "imported_at": float,
            "rows": int,
            "kept": int,
            "skipped": int,
            "bad_lines": int,
        },
        pk="path",
        if_not_exists=True,
    )


MIGRATIONS: dict[int, Callable[[sqlite_utils.Database], None]] = {
    1: _migrate_1,
    2: _migrate_2,
    3: _migrate_3,
    4: _migrate_4,
    5: _migrate_5,
    6: _migrate_6,
    7: _migrate_7,
}
