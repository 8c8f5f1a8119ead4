"""The works a pandoc document cites: which bibliographies, each entry's local copy, read once."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from citedesk.core.bibliographies.model import BibliographyError
from citedesk.sources.citeworks import bibliography_files, cited_works, read_bibliographies
from citedesk.sources.zotero import ZoteroError
from tests.sources.test_zotero import Library, zotero  # noqa: F401 - the fixture

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "bibliographies"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_front_matter_and_given_bibliographies_relative_to_the_document(tmp_path: Path) -> None:
    document = tmp_path / "thesis" / "ch1.md"
    text = "---\nbibliography:\n  - refs/main.bib\n  - extra.json\n---\n\nText [@a].\n"
    shared = tmp_path / "shared.ris"
    found = bibliography_files(text, document, [shared, tmp_path / "thesis" / "refs" / "main.bib"])
    assert found == [tmp_path / "thesis" / "refs" / "main.bib", tmp_path / "thesis" / "extra.json", shared]
    assert cited_works("No front matter [@a].\n", document) is None  # a numbered document
    assert bibliography_files("---\ntitle: x\n---\n", document) == []


def test_attachments_are_absolute_and_the_readable_existing_copy_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "library"
    write(folder / "papers" / "doe.pdf", "not really a pdf")
    write(folder / "papers" / "doe.txt", "Doe's text.")
    write(
        folder / "refs.bib",
        "@article{doe, title = {Doe}, author = {Doe, Jane}, year = {2001},\n"
        "  file = {Snapshot:papers/doe.snapshot.html:text/html;Full Text:papers/doe.txt:text/plain}}\n"
        "@article{gone, title = {Gone}, file = {:papers/gone.pdf:PDF}, doi = {10.1/gone}}\n"
        "@article{bare, title = {Bare}, url = {https://example.org/bare}}\n",
    )
    monkeypatch.chdir(tmp_path)  # the bibliography named relative to the working folder
    cited = cited_works("Text [@doe].\n", None, [Path("library/refs.bib")], use_zotero=False)
    assert cited is not None
    works = {w.key: w for w in cited.works}
    assert works["doe"].path == str(folder / "papers" / "doe.txt")  # the missing snapshot is skipped
    assert works["doe"].authors == "Doe, Jane"
    assert works["doe"].source == "library/refs.bib"  # as the writer named it
    assert works["gone"].path == str(folder / "papers" / "gone.pdf")  # named, missing: said so later
    assert works["bare"].path is None
    assert cited.folders == (folder,)


def test_zotero_copies_by_key_or_doi_when_the_bibliography_names_none(
    zotero: Library,  # noqa: F811 - the fixture
    tmp_path: Path,
) -> None:
    frogs = zotero.item("AAAA1111", title="Frogs", DOI="10.1000/ABC.1")
    frogs_pdf = zotero.attach(frogs, "PDFDOE01", "storage:Doe - Frogs.pdf", "application/pdf")
    flies = zotero.item("BBBB2222", title="Flies", extra="Citation Key: roe2000")
    flies_txt = zotero.attach(flies, "TXTROE01", "storage:Flies.txt", "text/plain")
    zotero.db.commit()
    bib = write(
        tmp_path / "refs.bib",
        "@article{doe99, title = {Frogs}, doi = {10.1000/abc.1}}\n@article{roe2000, title = {Flies}}\n"
        "@article{moe, title = {Bees}}\n",
    )
    database = zotero.data / "zotero.sqlite"
    before = database.read_bytes()
    cited = cited_works("Text [@doe99].\n", None, [bib], zotero_dir=zotero.data)
    assert cited is not None
    paths = {w.key: w.path for w in cited.works}
    assert paths == {"doe99": str(frogs_pdf), "roe2000": str(flies_txt), "moe": None}
    assert zotero.data in cited.folders
    assert database.read_bytes() == before  # read-only: nothing written, no journal beside it
    assert sorted(p.name for p in zotero.data.iterdir()) == ["storage", "zotero.sqlite"]
    off = cited_works("Text [@doe99].\n", None, [bib], zotero_dir=zotero.data, use_zotero=False)
    assert off is not None
    assert {w.key: w.path for w in off.works}["doe99"] is None


def test_a_zotero_folder_named_but_unreadable_is_an_error_the_usual_one_only_a_notice(tmp_path: Path) -> None:
    bib = write(tmp_path / "refs.bib", "@article{a, title = {A}}\n")
    with pytest.raises(ZoteroError, match="not a Zotero data folder"):
        cited_works("[@a]\n", None, [bib], zotero_dir=tmp_path)
    usual = Path.home() / "Zotero"
    usual.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(usual / "zotero.sqlite")) as db:
        db.execute("CREATE TABLE other (x)")  # not Zotero's schema
        db.commit()
    try:
        cited = cited_works("[@a]\n", None, [bib])
        assert cited is not None
        assert any("Zotero" in notice for notice in cited.notices)
    finally:
        shutil.rmtree(usual)


def test_a_key_in_two_bibliographies_uses_the_first_and_says_so(tmp_path: Path) -> None:
    first = write(tmp_path / "a.bib", "@article{k, title = {First}}\n")
    second = write(tmp_path / "b.json", '[{"id": "k", "type": "book", "title": "Second"}, {"id": "j"}]')
    cited = cited_works("[@k]\n", None, [first, second], use_zotero=False)
    assert cited is not None
    assert [(w.key, w.title) for w in cited.works] == [("k", "First"), ("j", None)]
    assert any("'k'" in n and "the first is used" in n for n in cited.notices)


def test_entries_in_the_front_matter_itself_make_a_pandoc_document(tmp_path: Path) -> None:
    text = "---\nreferences:\n  - id: doe99\n    title: Frogs\n    type: book\n---\n\nFrogs croak [@doe99].\n"
    cited = cited_works(text, tmp_path / "doc.md")
    assert cited is not None
    assert [(w.key, w.title) for w in cited.works] == [("doe99", "Frogs")]


def test_each_bibliography_is_parsed_once_until_it_changes(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    shutil.copy(FIXTURES / "bbt-bibtex.bib", bib)
    one = cited_works("[@x]\n", None, [bib], use_zotero=False)
    two = cited_works("[@y]\n", tmp_path / "ch2.md", [bib], use_zotero=False)
    assert one is not None
    assert two is not None
    assert one.works[0].entry is two.works[0].entry  # the same parsed entries, not a second reading
    assert read_bibliographies([bib])[0].entries[0] is one.works[0].entry
    text = bib.read_text(encoding="utf-8")
    bib.write_text(text.replace("@", "@comment{changed}\n@", 1), encoding="utf-8")
    three = cited_works("[@x]\n", None, [bib], use_zotero=False)
    assert three is not None
    assert three.works[0].entry is not one.works[0].entry
    assert three.works[0].entry.title == one.works[0].entry.title


def test_a_missing_bibliography_says_which(tmp_path: Path) -> None:
    with pytest.raises(BibliographyError, match=r"missing\.bib: the file does not exist"):
        cited_works("---\nbibliography: missing.bib\n---\n[@a]\n", tmp_path / "doc.md")


def test_uncited_entries_with_a_local_copy_are_candidates_never_fetched_most_relevant_first(
    tmp_path: Path,
) -> None:
    from citedesk.core.reading import parse_document
    from citedesk.sources.citeworks import MAX_CANDIDATES, works_to_check

    entries = []
    for n in range(MAX_CANDIDATES + 20):
        write(tmp_path / "papers" / f"w{n}.txt", f"Work {n}.")
        entries.append(
            f"@article{{w{n}, title = {{Unrelated topic number {n}}}, doi = {{10.1/w{n}}}, file = {{papers/w{n}.txt}}}}"
        )
    write(tmp_path / "papers" / "canopy.txt", "Canopy cover grew.")
    entries.append(
        "@report{canopy, title = {Canopy cover survey}, doi = {10.1/c}, file = {papers/canopy.txt}}"
    )
    entries.append("@article{cited, title = {Street trees}, url = {https://example.org/cited}}")
    entries.append("@article{nocopy, title = {Canopy cover without a copy}, doi = {10.1/n}}")
    bib = write(tmp_path / "refs.bib", "\n".join(entries) + "\n")
    text = "The canopy cover of the city grew by a third [@cited].\n"
    cited = cited_works(text, None, [bib], use_zotero=False)
    assert cited is not None
    document = parse_document(text, None, cited.works)
    works = works_to_check(document)
    assert works[0].key == "cited"
    assert works[0].url == "https://example.org/cited"  # a cited entry is fetched as it says
    candidates = works[1:]
    assert len(candidates) == MAX_CANDIDATES
    assert candidates[0].key == "canopy"  # its title shares the sentence's words
    assert "nocopy" not in {w.key for w in candidates}
    assert all(w.doi is None and w.url is None and w.arxiv is None for w in candidates)
    by_folder = works_to_check(parse_document(text, None, cited.works[-2:]), tmp_path / "papers")
    assert [w.key for w in by_folder] == ["cited"]  # no file named `nocopy.*` in the folder
