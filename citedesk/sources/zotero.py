"""Attachments from a Zotero library, found by citation key or DOI, read without ever writing.

Zotero keeps its library in `<data>/zotero.sqlite` and attachment files in
`<data>/storage/<ATTACHMENT KEY>/<file>`. This module opens the database through SQLite's URI
`file:…/zotero.sqlite?mode=ro&immutable=1` — read-only, and without taking any lock:

- Zotero opens its database with an exclusive lock while it runs, so a plain read-only connection
  would fail with "database is locked" exactly when the writer has Zotero open;
- `immutable=1` reads the file as it is and creates nothing beside it (no journal, no `-wal` or
  `-shm` file), so nothing CiteDesk does can touch the live library;
- a copy would cost a full read of a database that grows to hundreds of MB, and a copy taken while
  Zotero writes is no more consistent than reading in place. A read that meets a half-written page
  fails with a DatabaseError; it is tried once more, then reported as a ZoteroError.

Citation keys come from, in order: Zotero 7's own `citationKey` field, Better BibTeX's
`better-bibtex.sqlite` (table `citationkey`, opened the same way), and a `Citation Key: …` line in
an item's Extra field. Items in the trash are ignored.
"""

from __future__ import annotations

import re
import sqlite3
import time
import unicodedata
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from citedesk.core.bibliographies.model import bare_doi
from citedesk.errors import InputError

DATABASE = "zotero.sqlite"
BETTER_BIBTEX_DATABASE = "better-bibtex.sqlite"
LINK_MODES = {0: "imported file", 1: "imported URL", 2: "linked file", 3: "linked URL", 4: "embedded image"}
_CITATION_KEY_LINE = re.compile(r"^\s*Citation\s*Key\s*:\s*(\S+)\s*$", re.IGNORECASE | re.MULTILINE)
_RETRY_AFTER_S = 0.2


class ZoteroError(InputError):
    """A Zotero library that cannot be read, with a message meant for the writer."""


@dataclass(frozen=True, slots=True)
class ZoteroAttachment:
    path: Path
    content_type: str | None
    item_key: str
    """The attachment item's own 8-character key (its storage folder)."""
    link_mode: int

    @property
    def exists(self) -> bool:
        return self.path.is_file()


@dataclass(frozen=True, slots=True)
class ZoteroItem:
    item_id: int
    item_key: str
    title: str | None
    doi: str | None
    citation_key: str | None
    attachments: tuple[ZoteroAttachment, ...]


def _folded(title: str | None) -> str:
    """A title as compared: letters and digits only, accents dropped, lower case."""
    plain = unicodedata.normalize("NFKD", title or "").encode("ascii", "ignore").decode().casefold()
    return re.sub(r"[^a-z0-9]+", " ", plain).strip()


def default_data_dir(home: Path | None = None) -> Path | None:
    """Zotero's usual data folder (`~/Zotero`, on every platform) when it holds a library."""
    folder = (home or Path.home()) / "Zotero"
    return folder if (folder / DATABASE).is_file() else None


def read_only_uri(path: Path) -> str:
    """The SQLite URI that reads `path` read-only, lock-free, creating no file beside it."""
    return f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1"


@contextmanager
def _connect(path: Path) -> Iterator[sqlite3.Connection]:
    try:
        connection = sqlite3.connect(read_only_uri(path), uri=True, check_same_thread=False)
    except sqlite3.Error as exc:
        raise ZoteroError(f"The Zotero database {path} cannot be opened: {exc}.") from exc
    with closing(connection):
        connection.execute("PRAGMA query_only = ON")
        yield connection


class ZoteroLibrary:
    """One Zotero data folder, indexed once by citation key and DOI (the library is read when the
    object is made; make a new one to see changes made in Zotero since)."""

    def __init__(self, data_dir: Path, *, linked_base_dir: Path | None = None) -> None:
        """`linked_base_dir` is Zotero's "Linked Attachment Base Directory", for linked files
        stored as `attachments:relative/path` (Zotero keeps it in its preferences, not here)."""
        self.data_dir = data_dir
        self.linked_base_dir = linked_base_dir
        database = data_dir / DATABASE
        if not database.is_file():
            raise ZoteroError(f"{data_dir} is not a Zotero data folder: it has no {DATABASE}.")
        self._database = database
        self._items: dict[int, ZoteroItem] = {}
        self._by_key: dict[str, int] = {}
        self._by_doi: dict[str, int] = {}
        self._by_title: dict[str, list[int]] = {}
        self._load()

    def find(
        self, *, key: str | None = None, doi: str | None = None, title: str | None = None
    ) -> ZoteroItem | None:
        """The item with this citation key or, failing that, this DOI (any form, any case), or
        failing that this title, when exactly one item has it (case, accents and punctuation aside):
        a Word document's citation fields carry Zotero's own titles, often without a DOI or key."""
        if key is not None and key in self._by_key:
            return self._items[self._by_key[key]]
        bare = bare_doi(doi)
        if bare is not None and bare.lower() in self._by_doi:
            return self._items[self._by_doi[bare.lower()]]
        same = self._by_title.get(_folded(title)) if title else None
        return self._items[same[0]] if same is not None and len(same) == 1 else None

    def attachments(
        self, *, key: str | None = None, doi: str | None = None, title: str | None = None
    ) -> list[ZoteroAttachment]:
        """The item's file attachments, existing files first; empty when no item matches."""
        item = self.find(key=key, doi=doi, title=title)
        if item is None:
            return []
        return sorted(item.attachments, key=lambda a: not a.exists)

    @property
    def citation_keys(self) -> list[str]:
        return sorted(self._by_key)

    def _load(self) -> None:
        for attempt in (1, 2):
            try:
                self._read()
                return
            except sqlite3.DatabaseError as exc:  # a page Zotero was writing as we read it
                if attempt == 2:
                    raise ZoteroError(
                        f"The Zotero database {self._database} could not be read ({exc}); "
                        "try again, or close Zotero first."
                    ) from exc
                time.sleep(_RETRY_AFTER_S)

    def _read(self) -> None:
        with _connect(self._database) as db:
            fields = dict(db.execute("SELECT fieldName, fieldID FROM fields").fetchall())
            trashed = {row[0] for row in db.execute("SELECT itemID FROM deletedItems")}
            values: dict[str, dict[int, str]] = {}
            for name in ("title", "DOI", "extra", "citationKey"):
                if name in fields:
                    values[name] = {
                        item_id: str(value)
                        for item_id, value in db.execute(
                            "SELECT itemData.itemID, itemDataValues.value FROM itemData "
                            "JOIN itemDataValues USING (valueID) WHERE itemData.fieldID = ?",
                            (fields[name],),
                        )
                        if item_id not in trashed and value is not None
                    }
            keys = {row[0]: str(row[1]) for row in db.execute("SELECT itemID, key FROM items")}
            attachments: dict[int, list[ZoteroAttachment]] = {}
            for item_id, parent, link_mode, content_type, path in db.execute(
                "SELECT itemID, parentItemID, linkMode, contentType, path FROM itemAttachments"
            ):
                if parent is None or item_id in trashed or parent in trashed or link_mode == 3 or not path:
                    continue
                resolved = self._resolve(str(path), keys.get(item_id, ""))
                if resolved is not None:
                    attachments.setdefault(parent, []).append(
                        ZoteroAttachment(resolved, content_type, keys.get(item_id, ""), int(link_mode or 0))
                    )
        citation_keys = self._citation_keys(values)
        for item_id in {*citation_keys, *values.get("DOI", {}), *attachments}:
            if item_id in trashed or item_id not in keys:
                continue
            item = ZoteroItem(
                item_id=item_id,
                item_key=keys[item_id],
                title=values.get("title", {}).get(item_id),
                doi=bare_doi(values.get("DOI", {}).get(item_id)),
                citation_key=citation_keys.get(item_id),
                attachments=tuple(attachments.get(item_id, ())),
            )
            self._items[item_id] = item
            if item.citation_key:
                self._by_key.setdefault(item.citation_key, item_id)
            if item.doi:
                self._by_doi.setdefault(item.doi.lower(), item_id)
            if item.title and _folded(item.title):
                self._by_title.setdefault(_folded(item.title), []).append(item_id)

    def _citation_keys(self, values: dict[str, dict[int, str]]) -> dict[int, str]:
        found: dict[int, str] = {}
        for item_id, extra in values.get("extra", {}).items():
            match = _CITATION_KEY_LINE.search(extra)
            if match:
                found[item_id] = match.group(1)
        found.update(self._better_bibtex_keys())
        found.update({i: k for i, k in values.get("citationKey", {}).items() if k.strip()})
        return found

    def _better_bibtex_keys(self) -> dict[int, str]:
        path = self.data_dir / BETTER_BIBTEX_DATABASE
        if not path.is_file():
            return {}
        try:
            with _connect(path) as db:
                return {
                    int(item_id): str(key)
                    for item_id, key in db.execute("SELECT itemID, citationKey FROM citationkey")
                    if key
                }
        except (sqlite3.DatabaseError, ZoteroError):
            return {}  # an older or newer Better BibTeX layout: keys still come from Zotero itself

    def _resolve(self, path: str, attachment_key: str) -> Path | None:
        if path.startswith("storage:"):
            return self.data_dir / "storage" / attachment_key / path[len("storage:") :]
        if path.startswith("attachments:"):
            if self.linked_base_dir is None:
                return None
            return self.linked_base_dir / path[len("attachments:") :]
        return Path(path)
