from __future__ import annotations

import pytest

from citedesk.core.document.references import LabelStyle, normalise_url
from citedesk.core.reading import parse_document


@pytest.mark.parametrize(
    "heading",
    [
        "## References",
        "# Sources",
        "### Bibliography",
        "## Works cited",
        "**Notes**",
        "References\n----------",
        "## References:",
    ],
)
def test_section_titles(heading: str) -> None:
    doc = parse_document(f"A claim [1].\n\n{heading}\n\n[1] Entry one. https://a.example/x\n")
    assert [r.key for r in doc.entries] == ["1"]
    assert doc.entries[0].url == "https://a.example/x"


@pytest.mark.parametrize(
    ("entry", "style"),
    [
        ("[1] Smith (2020). Title.", LabelStyle.BRACKET),
        ("1. Smith (2020). Title.", LabelStyle.DOTTED),
        ("1) Smith (2020). Title.", LabelStyle.DOTTED),
        ("[^1]: Smith (2020). Title.", LabelStyle.FOOTNOTE),
        ("- [1] Smith (2020). Title.", LabelStyle.BRACKET),
    ],
)
def test_numbered_entry_styles(entry: str, style: LabelStyle) -> None:
    text = f"Claim [1].\n\n## References\n\n{entry}\n"
    doc = parse_document(text)
    (ref,) = doc.entries
    assert ref.key == "1"
    assert ref.style is style
    assert text[ref.label_start : ref.label_end] == "1"
    assert ref.year == "2020"


def test_fields_extracted() -> None:
    text = (
        "Claim [1] and [2] and [3] and [4].\n\n## References\n\n"
        '[1] Ding, M. (2014). "Coffee and diabetes". doi:10.2337/dc13-1203.\n'
        "[2] Vaswani et al. (2017). *Attention is all you need*. arXiv:1706.03762v5\n"
        "[3] [The field guide](https://example.org/guide?x=1). Accessed 2024.\n"
        "[4] Internal memo, sources/memo.pdf\n"
    )
    doc = parse_document(text)
    r1, r2, r3, r4 = doc.entries
    assert (r1.title, r1.doi, r1.url) == ("Coffee and diabetes", "10.2337/dc13-1203", None)
    assert r1.authors == "Ding, M"
    assert (r2.title, r2.arxiv) == ("Attention is all you need", "1706.03762v5")
    assert (r3.title, r3.url) == ("The field guide", "https://example.org/guide?x=1")
    assert (r4.path, r4.title) == ("sources/memo.pdf", "Internal memo")
    assert text[r4.start : r4.end] == "[4] Internal memo, sources/memo.pdf"


def test_doi_url_and_continuation_lines() -> None:
    text = "Claim [1].\n\n## References\n\n[1] Smith (2020). A long title\n    that wraps. https://doi.org/10.1000/xyz123\n"
    (ref,) = parse_document(text).entries
    assert ref.doi == "10.1000/xyz123"
    assert ref.text.endswith("https://doi.org/10.1000/xyz123")


def test_unnumbered_references_are_keyed_by_position() -> None:
    text = (
        "Claim [2].\n\n## Sources\n\n- First source, https://a.example\n- Second source, https://b.example\n"
    )
    doc = parse_document(text)
    assert [(r.key, r.style) for r in doc.entries] == [("1", LabelStyle.NONE), ("2", LabelStyle.NONE)]


def test_last_matching_section_wins_and_ends_at_next_heading() -> None:
    text = (
        "## Notes on method\n\nWe counted [1].\n\n## References\n\n[1] A. https://a.example\n\n"
        "## Appendix\n\nMore text [1].\n"
    )
    doc = parse_document(text)
    assert [r.key for r in doc.entries] == ["1"]
    assert len(doc.markers) == 2  # the appendix is prose again


def test_footnote_definitions_anywhere_are_references() -> None:
    text = "A claim [^a].\n\n[^a]: Jones (2019). Report. https://r.example\n\nMore prose here.\n"
    doc = parse_document(text)
    assert [(r.key, r.in_section) for r in doc.entries] == [("a", False)]
    assert all("Jones" not in s.text for s in doc.sentences)


def test_no_reference_list() -> None:
    doc = parse_document("Just prose with a claim [1].")
    assert doc.entries == ()
    assert doc.references.section is None


def test_normalise_url() -> None:
    assert normalise_url("https://www.Example.com/a/#frag") == normalise_url("http://example.com/a")


def test_a_footnote_named_by_a_superscript_digit_is_read_not_a_crash() -> None:
    document = parse_document("Trees cool streets in summer.[^²]\n\n[^²]: Lee. Shade. https://example.org\n")
    assert [entry.key for entry in document.entries] == ["²"]  # "²".isdigit() is true, int("²") fails


def test_messages_write_a_footnote_citation_as_the_text_does() -> None:
    document = parse_document(
        "Shade cools streets.[^lee] Parks too.[2]\n\n[^lee]: Lee. Shade.\n\n## References\n\n[2] Park.\n"
    )
    assert document.label("lee") == "[^lee]"
    assert document.label("2") == "[2]"
