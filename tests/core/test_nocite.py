"""`nocite:` in a pandoc document's front matter is honoured (issue 28): the entries it lists are
printed in the bibliography though not cited, so two entries for one work are a duplicate when both
are cited or listed, and a listed key no bibliography has is reported on that key."""

from __future__ import annotations

from citedesk.core.bibliographies.model import BibEntry
from citedesk.core.checks import structural_findings
from citedesk.core.dialects.pandoc.checks import nocite
from citedesk.core.document.works import BibReference
from citedesk.core.findings import Finding, Kind
from citedesk.core.reading import parse_document

HALE = BibEntry("hale2019", "article", title="Roof gardens", year="2019", doi="10.1/roof")
HALE_AGAIN = BibEntry("hale2019b", "article", title="Roof Gardens", year="2019", doi="10.1/ROOF")
OKAFOR = BibEntry("okafor2022", "book", title="Rain", authors=("Okafor, Chidi",), year="2022")
BIB = [BibReference.from_entry(e, source="garden.bib") for e in (HALE, HALE_AGAIN, OKAFOR)]
BODY = "Green roofs hold rain [@okafor2022].\n"


def findings(text: str, kind: Kind) -> list[Finding]:
    return [f for f in structural_findings(parse_document(text, None, BIB)) if f.kind is kind]


def test_nocite_keys_are_read_with_their_place_in_the_text() -> None:
    text = "---\ntitle: Roofs\nnocite: |\n  @hale2019, @{okafor2022}\n---\n" + BODY
    listed = nocite(text)
    assert set(listed.keys) == {"hale2019", "okafor2022"}
    start, end = listed.keys["hale2019"]
    assert text[start:end] == "@hale2019"
    assert listed.everything is None
    assert nocite("---\nnocite: ['@*']\n---\n" + BODY).lists("anything")
    assert nocite("---\ntitle: no nocite, not @hale2019\n---\n" + BODY).keys == {}
    assert nocite("---\nnocite: [unclosed\n---\n" + BODY).keys == {}  # the reader says why


def test_without_nocite_an_uncited_duplicate_is_not_reported() -> None:
    assert (
        findings("---\ntitle: Roofs\n---\n" + BODY + "Roofs [@hale2019].\n", Kind.DUPLICATE_REFERENCE) == []
    )


def test_a_duplicate_cited_once_and_listed_once_is_reported_on_the_citation() -> None:
    text = "---\nnocite: |\n  @hale2019\n---\n" + BODY + "Roofs cool [@hale2019b].\n"
    (finding,) = findings(text, Kind.DUPLICATE_REFERENCE)
    assert text[finding.start : finding.end] == "[@hale2019b]"
    assert "its `nocite` lists @hale2019" in finding.message
    assert [f.title for f in finding.fixes] == ["Cite @hale2019 instead of @hale2019b everywhere"]


def test_a_duplicate_listed_by_nocite_only_is_reported_on_the_nocite_key_without_a_fix() -> None:
    text = "---\nnocite: '@hale2019, @hale2019b'\n---\n" + BODY
    (finding,) = findings(text, Kind.DUPLICATE_REFERENCE)
    assert text[finding.start : finding.end] == "@hale2019b"
    assert "`nocite` lists both: the bibliography would print the work twice" in finding.message
    assert finding.fixes == ()
    everything = "---\nnocite: '@*'\n---\n" + BODY
    (finding,) = findings(everything, Kind.DUPLICATE_REFERENCE)  # `@*` prints every entry
    assert everything[finding.start : finding.end] == "@*"


def test_a_nocite_key_in_no_bibliography_is_reported_on_that_key() -> None:
    text = "---\nnocite: '@ghost2020, @okafr2022'\n---\n" + BODY
    ghost, near = findings(text, Kind.UNKNOWN_KEY)  # not in the bibliography; one with a near key
    assert text[ghost.start : ghost.end] == "@ghost2020"
    assert "pandoc prints nothing for it" in ghost.message
    assert "not in the bibliography" in ghost.message
    assert text[near.start : near.end] == "@okafr2022"
    assert "did you mean @okafor2022?" in near.message
    assert near.fixes == ()
