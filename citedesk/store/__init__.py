"""The store: one SQLite file with the fetched sources, the caches (judgements, embeddings, Claude's
answers, the scholarly indexes' answers), the imported retraction snapshot, and the writer's review
decisions and attachments. The only package that speaks SQL.

`open_store(path)` is how everything else gets one; `default_store_path()` is where it lives.
"""

from __future__ import annotations

from citedesk.errors import NotAStore
from citedesk.store.connection import StoreDamaged
from citedesk.store.lookups import LookupTables, RetractionImport
from citedesk.store.records import Passage, RetractionRow, SnapshotInfo, SourceRecord
from citedesk.store.schema import SCHEMA_VERSION
from citedesk.store.store import Store, default_store_path
from citedesk.store.works import MirrorFile, MirrorHit, MirrorImport, MirrorRow, MirrorTables

__all__ = [
    "SCHEMA_VERSION",
    "LookupTables",
    "MirrorFile",
    "MirrorHit",
    "MirrorImport",
    "MirrorRow",
    "MirrorTables",
    "NotAStore",
    "Passage",
    "RetractionImport",
    "RetractionRow",
    "SnapshotInfo",
    "SourceRecord",
    "Store",
    "StoreDamaged",
    "default_store_path",
]
