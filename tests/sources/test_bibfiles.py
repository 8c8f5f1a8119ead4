"""Bibliography files on disk: formats by name and content, attachments resolved, front matter."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from citedesk.core.bibliographies.model import BibFormat, BibliographyError
from citedesk.sources.bibfiles import (
    front_matter_bibliographies,
    front_matter_references,
    read_bibliography,
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "bibliographies"


def test_attachments_resolve_against_the_bib_folder_home_and_mendeley_root(tmp_path: Path) -> None:
    library = tmp_path / "library"
    (library / "pdfs").mkdir(parents=True)
    (library / "pdfs" / "doe.pdf").write_text("Doe's paper.", encoding="utf-8")
    home = Path.home()  # a temporary folder in tests (conftest)
    (home / "Zotero").mkdir(parents=True, exist_ok=True)
    (home / "Zotero" / "roe.pdf").write_text("Roe's paper.", encoding="utf-8")
    absolute = tmp_path / "elsewhere" / "moe.pdf"
    absolute.parent.mkdir()
    absolute.write_text("Moe's paper.", encoding="utf-8")
    mendeley = str(absolute).lstrip("/")  # Mendeley writes `:home/me/x.pdf:pdf`
    bib = library / "refs.bib"
    bib.write_text(
        "@article{doe, title = {Doe}, file = {:pdfs/doe.pdf:PDF}}\n"
        "@article{roe, title = {Roe}, file = {~/Zotero/roe.pdf}}\n"
        f"@article{{moe, title = {{Moe}}, file = {{:{mendeley}:pdf}}}}\n"
        "@article{gone, title = {Gone}, file = {Full Text PDF:missing.pdf:application/pdf}}\n"
        "@article{none, title = {No file}}\n",
        encoding="utf-8",
    )
    loaded = read_bibliography(bib)
    assert loaded.bibliography.format is BibFormat.BIBTEX
    assert [e.key for e in loaded.bibliography.entries] == ["doe", "roe", "moe", "gone", "none"]
    assert loaded.existing_attachments("doe") == [library / "pdfs" / "doe.pdf"]
    assert loaded.existing_attachments("roe") == [home / "Zotero" / "roe.pdf"]
    assert loaded.existing_attachments("moe") == [absolute]
    assert loaded.attachments["gone"] == (library / "missing.pdf",)
    assert loaded.existing_attachments("gone") == []
    assert "none" not in loaded.attachments


def test_each_fixture_format_loads_from_disk(tmp_path: Path) -> None:
    for name, fmt in [
        ("bbt-csl.json", BibFormat.CSL_JSON),
        ("bbt-csl.yaml", BibFormat.CSL_YAML),
        ("rispy-full.ris", BibFormat.RIS),
        ("jabref-authors.bib", BibFormat.BIBTEX),
    ]:
        copy = tmp_path / name
        shutil.copy(FIXTURES / name, copy)
        loaded = read_bibliography(copy)
        assert loaded.bibliography.format is fmt
        assert loaded.bibliography.source == str(copy)
        assert loaded.bibliography.entries


def test_jabref_header_declares_the_encoding_of_a_latin1_file(tmp_path: Path) -> None:
    bib = tmp_path / "latin1.bib"
    bib.write_bytes("% Encoding: ISO-8859-1\n@book{b, title = {Über Straßen}}\n".encode("latin-1"))
    assert read_bibliography(bib).bibliography.entries[0].title == "Über Straßen"


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("refs.txt", "@book{a, title={A}}", "CiteDesk reads bibliographies in"),
        ("missing.bib", None, "does not exist"),
        ("big.bib", "@book{a, title={" + "x" * 200 + "}}", "over the"),
        ("broken.bib", "@book{a, title = {open\n", "line 1"),
        ("binary.bib", "\x00\x01\x02" * 50, "binary"),
    ],
)
def test_unreadable_bibliographies_are_clear_errors(
    tmp_path: Path, name: str, content: str | None, reason: str
) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(BibliographyError, match=reason) as caught:
        read_bibliography(path, max_bytes=100 if name == "big.bib" else 1_000_000)
    assert str(path) in str(caught.value)


def test_front_matter_names_bibliographies_relative_to_the_document(tmp_path: Path) -> None:
    doc = tmp_path / "chapters" / "one.md"
    single = "---\ntitle: One\nbibliography: refs.bib\n---\n\nText [@a].\n"
    assert front_matter_bibliographies(single, doc) == [tmp_path / "chapters" / "refs.bib"]
    several = "---\nbibliography:\n  - ../shared.bib\n  - local.json\n...\nText.\n"
    assert front_matter_bibliographies(several, doc) == [
        tmp_path / "chapters" / ".." / "shared.bib",
        tmp_path / "chapters" / "local.json",
    ]
    assert front_matter_bibliographies("No front matter.\n---\nbibliography: x.bib\n---\n", doc) == []
    assert front_matter_bibliographies("---\ntitle: none\n---\n", doc) == []
    with pytest.raises(BibliographyError, match="front matter") as caught:
        front_matter_bibliographies("---\nbibliography: [a.bib\n---\n", doc)
    assert caught.value.line is not None


def test_front_matter_references() -> None:
    text = "---\nreferences:\n- id: doe99\n  title: Frogs\n  author:\n  - family: Doe\n    given: John\n  issued: 1999\n---\n\n@doe99 says.\n"
    bib = front_matter_references(text)
    assert bib is not None
    (entry,) = bib.entries
    assert (entry.key, entry.title, entry.authors, entry.year) == ("doe99", "Frogs", ("Doe, John",), "1999")
    assert front_matter_references("---\ntitle: x\n---\n") is None
