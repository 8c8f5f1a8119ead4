"""Pandoc documents in the document model: citation groups as markers, in-text keys as words,
checks in the bibliography's terms, and repairs through the checked plan."""

from __future__ import annotations

import pytest

from citedesk.core.bibliographies.model import BibEntry
from citedesk.core.checks import structural_findings
from citedesk.core.coverage import coverage_of
from citedesk.core.dialects.pandoc.repair import citation_prose
from citedesk.core.document.citekeys import find_citations
from citedesk.core.document.markers import MarkerStyle
from citedesk.core.document.model import reparse
from citedesk.core.document.works import BibReference
from citedesk.core.findings import Kind
from citedesk.core.operations import AddCitation, RemoveReference, Renumber, RetargetCitation
from citedesk.core.plan import plan_repairs
from citedesk.core.reading import parse_document, parse_structure
from citedesk.core.repair import build_edits, cite_sentence, make_fix, prose_of
from citedesk.errors import RepairError


def bib(*entries: BibEntry) -> list[BibReference]:
    return [BibReference.from_entry(e, source="refs.bib") for e in entries]


MOREAU = BibEntry(
    "moreau2021", "article", title="Street trees", authors=("Moreau, Anne", "Roe, Ben"), year="2021"
)
FOREST = BibEntry(
    "forestry2019", "report", title="Canopy survey", authors=("City Forestry Office",), year="2019"
)
SMITH = BibEntry("smith04", "article", title="Pollen", authors=("Smith, John",), year="2004")
BIB = bib(MOREAU, FOREST, SMITH)


def test_each_group_is_a_marker_at_the_same_index_with_one_item_per_key() -> None:
    text = "Trees cool streets [see @moreau2021, p. 3; @forestry2019]. @smith04 [p. 2] says so.\n"
    doc = parse_document(text, None, BIB)
    assert doc.dialect.name == "pandoc"
    assert len(doc.markers) == len(doc.citations) == 2
    for marker, group in zip(doc.markers, doc.citations, strict=True):
        assert (marker.start, marker.end, marker.style) == (group.start, group.end, MarkerStyle.PANDOC)
        assert marker.keys == group.keys
        assert [(i.start, i.end) for i in marker.items] == [(i.start, i.end) for i in group.items]
    assert [doc.cited_keys(c) for c in doc.claims] == [["moreau2021", "forestry2019"], ["smith04"]]
    assert doc.entries == ()  # nothing of the bibliography is in the text
    assert [w.key for w in doc.works] == ["moreau2021", "forestry2019", "smith04"]


def test_without_a_bibliography_the_same_text_is_a_numbered_document() -> None:
    text = "Trees cool streets [@moreau2021] and [1].\n\n## References\n\n[1] A work. https://a.example/x\n"
    numbered = parse_document(text)
    assert numbered.dialect.name == "numbered"
    assert [m.keys for m in numbered.markers] == [("1",)]
    assert [e.key for e in numbered.entries] == ["1"]
    pandoc = parse_document(text, None, BIB)
    assert [m.keys for m in pandoc.markers] == [("moreau2021",)]  # `[1]` is text to pandoc
    assert pandoc.references.section is None


def test_in_text_citations_are_said_as_the_first_authors_family_name() -> None:
    text = (
        "Parks matter. @moreau2021 shows that shade cools streets. -@smith04 adds pollen counts. "
        "@nobody2000 [p. 4] disagrees. As @forestry2019 [chap. 2] says, canopy grew."
    )
    doc = parse_document(text, None, BIB)
    assert [c.text for c in doc.claims] == [
        "Parks matter.",
        "Moreau shows that shade cools streets.",
        "adds pollen counts.",  # `-@key` suppresses the author: nothing is said
        "nobody2000 disagrees.",  # no entry: the key itself
        "As City Forestry Office says, canopy grew.",
    ]
    assert [doc.cited_keys(c) for c in doc.claims] == [
        [],
        ["moreau2021"],
        ["smith04"],
        ["nobody2000"],
        ["forestry2019"],
    ]


def test_citations_in_footnotes_are_checked_and_note_references_are_not_words() -> None:
    text = "Trees cool streets.[^1]\n\n[^1]: See @moreau2021 for the 2.1 degree figure.\n"
    doc = parse_document(text, None, BIB)
    assert [c.text for c in doc.claims] == ["Trees cool streets.", "See Moreau for the 2.1 degree figure."]
    # the note only points to its source: its citation cites for the sentence that calls it
    assert doc.cited_keys(doc.claims[0]) == ["moreau2021"]
    assert doc.cited_keys(doc.claims[1]) == []
    own = "Trees cool streets.[^1]\n\n[^1]: Moreau found that trees cool streets by 2.1 degrees [@moreau2021].\n"
    doc = parse_document(own, None, BIB)
    assert doc.cited_keys(doc.claims[1]) == ["moreau2021"]  # a note with a claim of its own keeps it
    assert doc.claims[0].sentence.noted  # and the calling sentence is cited through it


def test_code_urls_and_email_addresses_hold_no_citations() -> None:
    text = (
        "Write to jane@example.org or see https://x.org/@moreau2021 today.\n\n"
        "```\n[@moreau2021]\n```\n\nInline `[@smith04]` code.\n"
    )
    doc = parse_document(text, None, BIB)
    assert doc.markers == ()
    assert structural_findings(doc) == []


def test_a_key_in_no_bibliography_is_fabricated_and_removed_from_its_group() -> None:
    text = "Trees cool streets [see @moreau2021, p. 3; @ghost2020, p. 9; also @forestry2019].\n"
    doc = parse_document(text, None, BIB)
    (finding,) = structural_findings(doc)
    assert finding.kind is Kind.UNKNOWN_KEY
    assert finding.reference == "ghost2020"
    assert text[finding.start : finding.end] == "@ghost2020, p. 9"
    assert "refs.bib (3 entries)" in finding.message
    plan = plan_repairs(doc, [finding.fixes[0]])
    assert plan.result == "Trees cool streets [see @moreau2021, p. 3; also @forestry2019].\n"
    coverage = coverage_of(doc, {})
    assert (coverage.citations, coverage.checked) == (3, 0)


def test_a_missing_in_text_key_gets_no_removal_fix() -> None:
    text = "@ghost2020 says trees cool streets.\n"
    (finding,) = structural_findings(parse_document(text, None, BIB))
    assert finding.kind is Kind.UNKNOWN_KEY
    assert finding.fixes == ()
    assert "part of the sentence" in finding.message


def test_uncited_entries_are_no_orphans_and_duplicates_count_only_when_both_are_cited() -> None:
    entries = bib(
        BibEntry("a", "article", title="Urban heat", year="2020", doi="10.1000/ABC"),
        BibEntry("b", "article", title="Urban Heat!", year="2021", doi="10.1000/abc"),  # same DOI
        BibEntry("c", "article", title="Cool roofs", year="2019"),
        BibEntry("d", "article", title="Cool Roofs.", year="2019"),  # same title and year
        BibEntry("e", "book", title="Never cited", year="2000"),
    )
    only_one = parse_document("Cities are warm [@a]. Roofs help [@c].\n", None, entries)
    assert structural_findings(only_one) == []
    both = parse_document("Cities are warm [@a; @b]. Roofs help [@c]. Paint helps [@d].\n", None, entries)
    duplicates = [f for f in structural_findings(both) if f.kind is Kind.DUPLICATE_REFERENCE]
    assert [(f.reference, f.details["duplicate_of"]) for f in duplicates] == [("b", "a"), ("d", "c")]
    assert "same DOI" in duplicates[0].message
    assert "same title and year" in duplicates[1].message
    plan = plan_repairs(both, [f.fixes[0] for f in duplicates])
    assert plan.result == "Cities are warm [@a]. Roofs help [@c]. Paint helps [@c].\n"


def test_swaps_and_additions_are_written_in_citation_syntax() -> None:
    text = "Shade cools streets [see @moreau2021, p. 3]. @moreau2021 says canopy grew. It rained.\n"
    doc = parse_document(text, None, BIB)
    swap = make_fix("swap", doc, [RetargetCitation(1, "moreau2021", "forestry2019")])
    add = make_fix("add", doc, cite_sentence(doc, doc.claims[2].sentence, ["smith04"]))
    join = make_fix("join", doc, cite_sentence(doc, doc.claims[0].sentence, ["smith04"]))
    assert swap is not None
    assert add is not None
    assert join is not None
    plan = plan_repairs(doc, [swap, add, join])
    assert plan.result == (
        "Shade cools streets [see @moreau2021, p. 3; @smith04]. @forestry2019 says canopy grew. "
        "It rained [@smith04].\n"
    )
    assert citation_prose(plan.result, find_citations(plan.result)) == citation_prose(
        text, find_citations(text)
    )


def test_a_swap_to_another_work_never_carries_the_locator_and_a_key_fixed_in_place_keeps_it() -> None:
    text = "Shade cools streets [see @moreau2021, p. 3]. @moreau2021 [p. 2] says canopy grew.\n"
    doc = parse_document(text, None, BIB)
    for marker in (0, 1):  # page 3 / page 2 of Moreau's book are not pages of another work
        with pytest.raises(RepairError, match=r"locator \(p\. [23]\) that belongs to that work"):
            build_edits(doc, [RetargetCitation(marker, "moreau2021", "forestry2019")])
        assert make_fix("swap", doc, [RetargetCitation(marker, "moreau2021", "forestry2019")]) is None
    same = make_fix("rekey", doc, [RetargetCitation(0, "moreau2021", "forestry2019", same_work=True)])
    assert same is not None
    assert plan_repairs(doc, [same]).result.startswith("Shade cools streets [see @forestry2019, p. 3].")


def test_the_bibliography_is_never_edited_and_there_is_nothing_to_renumber() -> None:
    doc = parse_document("Shade cools streets [@moreau2021].\n", None, BIB)
    for operation in (RemoveReference("moreau2021"), Renumber()):
        with pytest.raises(RepairError, match="never edited"):
            build_edits(doc, [operation])
    assert make_fix("remove entry", doc, [RemoveReference("moreau2021")]) is None


def test_a_plan_that_would_cite_a_missing_key_is_refused() -> None:
    doc = parse_document("Shade cools streets [@moreau2021].\n", None, BIB)
    fix = make_fix("swap to nothing", doc, [RetargetCitation(0, "moreau2021", "ghost")])
    assert fix is not None  # the edit itself is well formed …
    with pytest.raises(RepairError, match="does not exist"):
        plan_repairs(doc, [fix])  # … but the plan refuses what it means


def test_reparse_keeps_the_bibliography_so_checks_compare_like_with_like() -> None:
    text = "Shade cools streets [@moreau2021]. It rained [@ghost].\n"
    doc = parse_structure(text, BIB)
    again = reparse(doc, text + "More.\n")
    assert again.dialect.name == "pandoc"
    assert again.bibliography == doc.bibliography
    assert prose_of(again).startswith(prose_of(doc).rstrip("\n"))
    before_group = make_fix("new group", doc, [AddCitation(len("Shade cools streets"), "smith04")])
    at_group_end = make_fix("join", doc, [AddCitation(doc.citations[0].end, "smith04")])
    assert before_group is not None
    assert at_group_end is not None
    assert plan_repairs(doc, [before_group]).result.startswith(
        "Shade cools streets [@smith04] [@moreau2021]."
    )
    assert plan_repairs(doc, [at_group_end]).result.startswith("Shade cools streets [@moreau2021; @smith04].")
