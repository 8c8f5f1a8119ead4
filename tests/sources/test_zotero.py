"""Zotero attachments by citation key or DOI, from a real SQLite file with Zotero's own schema."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from citedesk.sources.citeworks import cited_works
from citedesk.sources.zotero import ZoteroError, ZoteroLibrary, default_data_dir, read_only_uri

# Tables as zotero/zotero creates them: resource/schema/userdata.sql (schema version 107) for the
# user data; `fields` as chrome/content/zotero/xpcom/schema.js creates it from the global schema.
ZOTERO_SCHEMA = """
CREATE TABLE libraries (
    libraryID INTEGER PRIMARY KEY,
    type TEXT NOT NULL,
    editable INT NOT NULL,
    filesEditable INT NOT NULL,
    version INT NOT NULL DEFAULT 0,
    storageVersion INT NOT NULL DEFAULT 0,
    lastSync INT NOT NULL DEFAULT 0,
    archived INT NOT NULL DEFAULT 0
);
CREATE TABLE items (
    itemID INTEGER PRIMARY KEY,
    itemTypeID INT NOT NULL,
    dateAdded TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    dateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    libraryID INT NOT NULL,
    key TEXT NOT NULL,
    version INT NOT NULL DEFAULT 0,
    synced INT NOT NULL DEFAULT 0,
    UNIQUE (libraryID, key),
    FOREIGN KEY (libraryID) REFERENCES libraries(libraryID) ON DELETE CASCADE
);
CREATE TABLE fields (
    fieldID INTEGER PRIMARY KEY,
    fieldName TEXT,
    fieldFormatID INT
);
CREATE TABLE itemDataValues (
    valueID INTEGER PRIMARY KEY,
    value UNIQUE
);
CREATE TABLE itemData (
    itemID INT,
    fieldID INT,
    valueID,
    PRIMARY KEY (itemID, fieldID),
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE,
    FOREIGN KEY (fieldID) REFERENCES fieldsCombined(fieldID),
    FOREIGN KEY (valueID) REFERENCES itemDataValues(valueID)
);
CREATE TABLE itemAttachments (
    itemID INTEGER PRIMARY KEY,
    parentItemID INT,
    linkMode INT,
    contentType TEXT,
    charsetID INT,
    path TEXT,
    syncState INT DEFAULT 0,
    storageModTime INT,
    storageHash TEXT,
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE,
    FOREIGN KEY (parentItemID) REFERENCES items(itemID) ON DELETE CASCADE
);
CREATE TABLE deletedItems (
    itemID INTEGER PRIMARY KEY,
    dateDeleted DEFAULT CURRENT_TIMESTAMP NOT NULL,
    FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE
);
"""
# Better BibTeX's own database (content/key-manager/migrate.ts reads this table)
BETTER_BIBTEX_SCHEMA = """
CREATE TABLE citationkey (
    itemID INTEGER PRIMARY KEY, itemKey TEXT NOT NULL, libraryID INTEGER NOT NULL,
    citationKey TEXT NOT NULL, pinned INTEGER NOT NULL DEFAULT 0
);
"""
FIELDS = {"title": 1, "extra": 16, "DOI": 59, "citationKey": 125}


class Library:
    def __init__(self, db: sqlite3.Connection, data: Path) -> None:
        self.db = db
        self.data = data
        self.next_id = 1

    def item(self, key: str, **values: str) -> int:
        item_id = self.next_id
        self.next_id += 1
        self.db.execute(
            "INSERT INTO items (itemID, itemTypeID, libraryID, key) VALUES (?, 22, 1, ?)", (item_id, key)
        )
        for field, value in values.items():
            self.db.execute("INSERT OR IGNORE INTO itemDataValues (value) VALUES (?)", (value,))
            (value_id,) = self.db.execute(
                "SELECT valueID FROM itemDataValues WHERE value = ?", (value,)
            ).fetchone()
            self.db.execute("INSERT INTO itemData VALUES (?, ?, ?)", (item_id, FIELDS[field], value_id))
        return item_id

    def attach(self, parent: int, key: str, path: str, content_type: str, link_mode: int = 0) -> Path | None:
        item_id = self.item(key)
        self.db.execute(
            "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) VALUES (?, ?, ?, ?, ?)",
            (item_id, parent, link_mode, content_type, path),
        )
        if path.startswith("storage:"):
            stored = self.data / "storage" / key / path.removeprefix("storage:")
            stored.parent.mkdir(parents=True)
            stored.write_text(f"The text of {key}.", encoding="utf-8")
            return stored
        return None


@pytest.fixture
def zotero(tmp_path: Path) -> Iterator[Library]:
    data = tmp_path / "Zotero"
    data.mkdir()
    with closing(sqlite3.connect(data / "zotero.sqlite")) as db:
        db.executescript(ZOTERO_SCHEMA)
        db.execute(
            "INSERT INTO libraries (libraryID, type, editable, filesEditable) VALUES (1, 'user', 1, 1)"
        )
        db.executemany("INSERT INTO fields VALUES (?, ?, NULL)", [(i, n) for n, i in FIELDS.items()])
        library = Library(db, data)
        yield library
        db.commit()


def test_attachments_by_better_bibtex_key_extra_line_zotero7_field_and_doi(
    zotero: Library, tmp_path: Path
) -> None:
    doe = zotero.item("AAAA1111", title="Frogs", DOI="10.1000/ABC.1")
    doe_pdf = zotero.attach(doe, "PDFDOE01", "storage:Doe - 1999 - Frogs.pdf", "application/pdf")
    roe = zotero.item("BBBB2222", title="Flies", extra="Original Date: 2000\nCitation Key: roe2000\n")
    zotero.attach(roe, "SNAPROE1", "storage:Flies.html", "text/html", link_mode=1)
    roe_pdf = zotero.attach(roe, "PDFROE01", "storage:Flies.pdf", "application/pdf")
    moe = zotero.item("CCCC3333", title="Bees", citationKey="moe2004")
    linked = tmp_path / "elsewhere" / "bees.pdf"
    linked.parent.mkdir()
    linked.write_text("Bees.", encoding="utf-8")
    zotero.attach(moe, "LINKMOE1", str(linked), "application/pdf", link_mode=2)
    zotero.attach(moe, "URLMOE01", "https://example.org/bees", "text/html", link_mode=3)
    zotero.attach(moe, "BASEMOE1", "attachments:papers/bees-notes.pdf", "application/pdf", link_mode=2)
    zotero.db.commit()
    with closing(sqlite3.connect(zotero.data / "better-bibtex.sqlite")) as bbt:
        bbt.executescript(BETTER_BIBTEX_SCHEMA)
        bbt.execute("INSERT INTO citationkey VALUES (?, 'AAAA1111', 1, 'doe99', 1)", (doe,))
        bbt.commit()

    library = ZoteroLibrary(zotero.data, linked_base_dir=tmp_path / "base")
    assert library.citation_keys == ["doe99", "moe2004", "roe2000"]
    assert [a.path for a in library.attachments(key="doe99")] == [doe_pdf]
    by_doi = library.attachments(doi="https://doi.org/10.1000/abc.1")  # any form, any case
    assert [a.path for a in by_doi] == [doe_pdf]
    roe_files = library.attachments(key="roe2000")
    assert {a.path for a in roe_files} == {roe_pdf, zotero.data / "storage" / "SNAPROE1" / "Flies.html"}
    assert all(a.exists for a in roe_files)
    moe_files = library.attachments(key="moe2004")
    assert [a.path for a in moe_files] == [linked, tmp_path / "base" / "papers" / "bees-notes.pdf"]
    assert [a.exists for a in moe_files] == [True, False]  # the existing file first; no URL link
    item = library.find(key="moe2004")
    assert item is not None
    assert (item.item_key, item.title, item.doi) == ("CCCC3333", "Bees", None)
    assert library.find(key="nobody") is None
    assert library.attachments(doi="10.9999/none") == []


def test_the_zotero_7_field_wins_over_an_extra_line(zotero: Library) -> None:
    zotero.item("DDDD4444", citationKey="new2021", extra="Citation Key: old2021")
    zotero.db.commit()
    library = ZoteroLibrary(zotero.data)
    assert library.citation_keys == ["new2021"]


def test_items_in_the_trash_are_ignored(zotero: Library) -> None:
    gone = zotero.item("EEEE5555", extra="Citation Key: gone2020", DOI="10.1/gone")
    zotero.attach(gone, "PDFGONE1", "storage:gone.pdf", "application/pdf")
    zotero.db.execute("INSERT INTO deletedItems (itemID) VALUES (?)", (gone,))
    zotero.db.commit()
    library = ZoteroLibrary(zotero.data)
    assert library.find(key="gone2020") is None
    assert library.find(doi="10.1/gone") is None


def test_reads_while_zotero_holds_its_exclusive_lock_and_writes_nothing(zotero: Library) -> None:
    item = zotero.item("FFFF6666", extra="Citation Key: locked2022")
    zotero.attach(item, "PDFLOCK1", "storage:locked.pdf", "application/pdf")
    zotero.db.commit()
    database = zotero.data / "zotero.sqlite"
    # Zotero keeps an exclusive lock on its database for as long as it runs
    with closing(sqlite3.connect(database, isolation_level=None)) as running_zotero:
        running_zotero.execute("PRAGMA locking_mode = EXCLUSIVE")
        running_zotero.execute("BEGIN EXCLUSIVE")
        running_zotero.execute("UPDATE items SET synced = 1")
        running_zotero.execute("COMMIT")  # the lock stays until the connection closes
        before = hashlib.sha256(database.read_bytes()).hexdigest()
        files_before = sorted(p.name for p in zotero.data.iterdir())
        with (
            closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=0.1)) as plain,
            pytest.raises(sqlite3.OperationalError, match="locked"),
        ):
            plain.execute("SELECT count(*) FROM items").fetchone()
        library = ZoteroLibrary(zotero.data)
        assert [a.path.name for a in library.attachments(key="locked2022")] == ["locked.pdf"]
        assert hashlib.sha256(database.read_bytes()).hexdigest() == before
        assert sorted(p.name for p in zotero.data.iterdir()) == files_before  # no journal, -wal, -shm
    with (
        closing(sqlite3.connect(read_only_uri(database), uri=True)) as db,
        pytest.raises(sqlite3.OperationalError, match="readonly"),
    ):
        db.execute("UPDATE items SET synced = 0")


def test_not_a_zotero_library(tmp_path: Path) -> None:
    with pytest.raises(ZoteroError, match="not a Zotero data folder"):
        ZoteroLibrary(tmp_path)
    (tmp_path / "zotero.sqlite").write_bytes(b"this is not a database" * 100)
    with pytest.raises(ZoteroError, match="could not be read"):
        ZoteroLibrary(tmp_path)


def test_default_data_dir(tmp_path: Path) -> None:
    assert default_data_dir(tmp_path) is None
    (tmp_path / "Zotero").mkdir()
    assert default_data_dir(tmp_path) is None
    (tmp_path / "Zotero" / "zotero.sqlite").write_bytes(b"")
    assert default_data_dir(tmp_path) == tmp_path / "Zotero"
    assert default_data_dir() is None  # the home folder of the tests is a fresh temporary one


def test_an_item_is_found_by_its_title_when_no_other_item_has_it(zotero: Library) -> None:
    """A Word document's citation fields carry Zotero's titles, often without a DOI or a key."""
    rain = zotero.item("DDDD4444", title="Urban rain: a survey")
    rain_pdf = zotero.attach(rain, "PDFRAIN1", "storage:rain.pdf", "application/pdf")
    twin_a = zotero.item("EEEE5555", title="Notes")
    zotero.attach(twin_a, "PDFTWIN1", "storage:a.pdf", "application/pdf")
    twin_b = zotero.item("FFFF6666", title="Notes")
    zotero.attach(twin_b, "PDFTWIN2", "storage:b.pdf", "application/pdf")
    zotero.db.commit()
    library = ZoteroLibrary(zotero.data)
    assert [a.path for a in library.attachments(title="URBAN RAIN — a survey")] == [rain_pdf]
    assert library.find(title="Notes") is None  # two items have it: neither is chosen
    assert library.find(title="Urban rain, a survey, revisited") is None


def test_a_documents_own_references_find_their_zotero_attachments(zotero: Library, tmp_path: Path) -> None:
    """References carried in the front matter (a Word document's view) use Zotero's files too."""
    rain = zotero.item("DDDD4444", title="Urban rain: a survey")
    rain_pdf = zotero.attach(rain, "PDFRAIN1", "storage:rain.pdf", "application/pdf")
    zotero.db.commit()
    text = '---\nreferences:\n- {"id": "roe2018", "title": "Urban rain: a survey"}\n---\n\nRain [@roe2018].\n'
    cited = cited_works(text, tmp_path / "paper.docx", zotero_dir=zotero.data)
    assert cited is not None
    (work,) = cited.works
    assert work.path == str(rain_pdf)
    assert zotero.data in cited.folders
