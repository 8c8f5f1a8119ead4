"""Citations in a pandoc document's headings are read (pandoc renders them) and checked
structurally, with exact offsets, but a heading is no claim: its citation belongs to no sentence,
so it is never judged and never makes the sentence after it cited."""

from __future__ import annotations

from citedesk.core.bibliographies.model import BibEntry
from citedesk.core.checks import structural_findings
from citedesk.core.document.markdown import scan_markdown
from citedesk.core.document.works import BibReference
from citedesk.core.findings import Kind
from citedesk.core.plan import plan_repairs
from citedesk.core.reading import parse_document

BIB = [
    BibReference.from_entry(e, source="river.bib")
    for e in (
        BibEntry("baptiste2017", "article", title="Silt", authors=("Baptiste, Lou",), year="2017"),
        BibEntry("ng2020", "article", title="Weirs", authors=("Ng, Kai",), year="2020"),
    )
]

TEXT = (
    "# Silt and weirs [@baptiste2017]\n"
    "\n"
    "Weirs slow the river down.\n"
    "\n"
    "## After @baptsite2017 `[@not.a.key]`\n"
    "\n"
    "Silt settles behind them [@ng2020].\n"
    "\n"
    "Floods [see @ghost1999, p. 4]\n"
    "======\n"
    "\n"
    "**Dredging [@ng2020]**\n"
    "\n"
    "It costs more every year.\n"
)


def test_titles_are_where_the_title_stands() -> None:
    layout = scan_markdown(TEXT)
    assert [TEXT[s:e] for s, e in layout.titles] == [
        "Silt and weirs [@baptiste2017]",
        "After @baptsite2017 `[@not.a.key]`",
        "Floods [see @ghost1999, p. 4]",
        "Dredging [@ng2020]",
    ]
    assert layout.opaque.contains(TEXT.index("Silt and"))  # still no prose
    assert not layout.citable_opaque.contains(TEXT.index("[@baptiste2017]"))
    assert layout.citable_opaque.contains(TEXT.index("[@not.a.key]"))  # code in a title stays code


def test_citations_in_headings_are_markers_with_exact_offsets_and_no_sentence() -> None:
    doc = parse_document(TEXT, None, BIB)
    written = [TEXT[g.start : g.end] for g in doc.citations]
    assert written == ["[@baptiste2017]", "@baptsite2017", "[@ng2020]", "[see @ghost1999, p. 4]", "[@ng2020]"]
    assert list(doc.markers_citing["baptiste2017"]) == [0]
    assert list(doc.markers_citing["ng2020"]) == [2, 4]
    assert set(doc.claim_by_marker) == {2}  # only the sentence's own citation
    by_text = {claim.sentence.text: claim for claim in doc.claims}
    assert by_text["Weirs slow the river down."].sentence.markers == ()  # not the next heading's
    assert not any("Silt and weirs" in text or "Dredging" in text or "Floods" in text for text in by_text)


def test_a_headings_citation_is_checked_structurally_and_repaired_in_place() -> None:
    doc = parse_document(TEXT, None, BIB)
    found = {f.reference: f for f in structural_findings(doc) if f.kind is Kind.UNKNOWN_KEY}
    unknown, fabricated = found["baptsite2017"], found["ghost1999"]  # a typo; a key in no bibliography
    assert TEXT[unknown.start : unknown.end] == "@baptsite2017"
    assert unknown.claim_id is None
    assert TEXT[fabricated.start : fabricated.end] == "[see @ghost1999, p. 4]"
    plan = plan_repairs(doc, [unknown.fixes[0], fabricated.fixes[0]])
    assert "## After @baptiste2017 `[@not.a.key]`\n" in plan.result
    assert "\nFloods\n======\n" in plan.result
    assert not [f for f in structural_findings(parse_document(plan.result, None, BIB)) if f.fixes]


def test_a_numbered_documents_headings_are_left_as_they_were() -> None:
    doc = parse_document(
        "# Results [1]\n\nRivers silt up [1].\n\n## References\n\n1. Baptiste, L. Silt. 2017.\n"
    )
    assert len(doc.markers) == 1  # the numbered dialect reads prose only, as before
