"""A document's own bibliography (the window's setting) and the keys `@` completes to."""

from __future__ import annotations

from pathlib import Path

import pytest

from citedesk.core.bibliographies.model import BibliographyError
from citedesk.desk import AuditOptions, Desk
from tests.conftest import SAMPLES


@pytest.fixture
def desk(tmp_path: Path) -> Desk:
    return Desk(
        AuditOptions(offline=True, judge="heuristic", dense=False, store_path=tmp_path / "store.sqlite3")
    )


def test_a_chosen_bibliography_is_kept_with_the_document_and_makes_it_a_pandoc_document(
    desk: Desk, tmp_path: Path
) -> None:
    document = tmp_path / "draft.md"
    document.write_text("Shade cools streets [@cool2020]. Roofs too [@ghost].\n", encoding="utf-8")
    bib = tmp_path / "library" / "my.bib"
    bib.parent.mkdir()
    bib.write_text("@article{cool2020, title = {Cool streets}, author = {Lee, Ana}}\n", encoding="utf-8")
    session = desk.open(document)
    before = session.audit()  # no bibliography yet: keys are read, none is looked up, none is fabricated
    assert before.document.dialect.name == "pandoc"
    assert not [f for f in before.findings if f.kind.value in ("fabricated", "unknown_key")]
    assert before.coverage is not None
    assert before.coverage.reasons == {"no bibliography to look the key up in": 2}
    assert session.citation_keys() == []
    session.set_bibliography(bib)
    again = desk.open(document)  # another session of the same file: the setting is in the store
    assert again.bibliography() == bib.resolve()
    assert again.attachments() == {}  # not an attached source
    report = again.audit()
    assert report.document.dialect.name == "pandoc"
    assert [(f.kind.value, f.reference) for f in report.findings] == [("unknown_key", "ghost")]
    assert report.coverage is not None
    # an entry with no file, link or DOI: its citation is not checked, and the writer is told why
    assert report.coverage.reasons == {"key not in the bibliography": 1, "no source: attach a file": 1}
    assert again.citation_keys() == [("cool2020", "Cool streets")]
    again.set_bibliography(None)
    assert desk.open(document).bibliography() is None


def test_a_bibliography_that_cannot_be_read_is_refused_before_it_is_kept(desk: Desk, tmp_path: Path) -> None:
    document = tmp_path / "draft.md"
    document.write_text("Text [@a].\n", encoding="utf-8")
    broken = tmp_path / "broken.bib"
    broken.write_text("@article{a, title = {unclosed\n", encoding="utf-8")
    session = desk.open(document)
    with pytest.raises(BibliographyError):
        session.set_bibliography(broken)
    assert session.bibliography() is None


def test_keys_complete_from_the_front_matter_as_typed_and_an_untitled_copy_finds_its_bibliography(
    desk: Desk,
) -> None:
    sample = desk.open(SAMPLES / "pandoc.md")
    keys = dict(sample.citation_keys())
    assert list(keys) == ["climateoffice", "forestry2019", "moreau2021", "oke2017", "oke2017a"]
    assert keys["moreau2021"] == "Tree Canopy and Afternoon Heat in 112 Mid-Sized Cities"
    copy = desk.untitled(sample.text, folder=SAMPLES)  # what File ▸ Open a sample opens
    assert copy.citation_keys() == sample.citation_keys()
    report = copy.audit()
    assert {s.key: s.status for s in report.sources} == {"climateoffice": "local", "moreau2021": "local"}
    # unsaved text that names no bibliography offers no keys
    assert copy.citation_keys("No front matter here.\n") == []
