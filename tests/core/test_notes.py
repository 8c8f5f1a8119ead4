"""Note-style citations (`core.document.notes`): a note that only cites cites for the sentence that calls it;
a note with a claim of its own keeps its citations, and the sentence calling it is not uncited."""

from __future__ import annotations

from citedesk.core.bibliographies.model import BibEntry
from citedesk.core.checks import structural_findings
from citedesk.core.document.works import BibReference
from citedesk.core.findings import Kind
from citedesk.core.reading import parse_document
from citedesk.core.word import read_docx
from citedesk.sources.citeworks import cited_works
from tests.core.test_word_notes import note_paper

BIB = (
    BibReference.from_entry(
        BibEntry("smith2020", "article", title="Shade trees and street heat", year="2020")
    ),
    BibReference.from_entry(BibEntry("lee2019", "article", title="Parks and heat deaths", year="2019")),
)
TEXT = (
    "Street trees cool the air by three degrees in the afternoon.[^1] "
    "Parks reduce deaths by 30% in heat waves.[^2]\n\n"
    "Heat waves kill more people in cities than anywhere else.\n\n"
    "[^1]: See [@smith2020], 4.\n"
    "[^2]: Lee found that parks reduce heat deaths by 30% in every city they studied [@lee2019].\n"
)


def test_a_citing_note_cites_for_the_sentence_that_calls_it() -> None:
    document = parse_document(TEXT, None, BIB)
    first, second, third, see, lee = document.claims
    assert first.text.startswith("Street trees cool the air")
    assert document.cited_keys(first) == ["smith2020"]  # moved from "See, 4."
    assert document.cited_keys(see) == []
    assert document.cited_keys(lee) == ["lee2019"]  # a note with a claim keeps its citation
    assert second.sentence.noted
    assert not third.sentence.noted
    uncited = [
        document.claim_by_id[f.claim_id].text
        for f in structural_findings(document)
        if f.kind is Kind.UNCITED and f.claim_id
    ]
    assert uncited == ["Heat waves kill more people in cities than anywhere else."]
    marker = document.markers[first.sentence.markers[0]]
    assert TEXT[marker.start : marker.end] == "[@smith2020]"  # a marker keeps its place in the note
    assert first.sentence.span_end <= TEXT.index("[^1]:")  # the calling sentence is not stretched


def test_a_word_paper_in_a_note_style_has_its_body_sentences_cited() -> None:
    view = read_docx(note_paper())
    cited = cited_works(view.text, None)
    assert cited is not None
    document = parse_document(view.text, "paper.docx", cited.works)
    body = next(c for c in document.claims if c.text.startswith("Street trees cool streets"))
    assert document.cited_keys(body) == ["smith2020"]
    uncited = {
        document.claim_by_id[f.claim_id].text
        for f in structural_findings(document)
        if f.kind is Kind.UNCITED and f.claim_id
    }
    assert not any(text.startswith(("Street trees", "Rain falls", "Parks help")) for text in uncited)
