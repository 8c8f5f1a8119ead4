from __future__ import annotations

import pytest

from citedesk.core.reading import parse_document


def sentence_texts(text: str) -> list[str]:
    return [s.text for s in parse_document(text).sentences]


def test_front_matter_code_headings_comments_are_not_prose() -> None:
    text = (
        "---\ntitle: A claim that 50% of people agree.\n---\n"
        "# A heading with 30% in it\n\n"
        "Real prose says 40% of cats purr.\n\n"
        "```python\nx = 'a sentence with 60% in code.'\n```\n\n"
        "<!-- 70% of comments are hidden. -->\n\n"
        "| a | b |\n|---|---|\n| Cell text here | 2 |\n"
    )
    texts = sentence_texts(text)
    assert "Real prose says 40% of cats purr." in texts
    assert not any("50%" in t or "30%" in t or "60%" in t or "70%" in t for t in texts)
    assert "Cell text here" in texts
    assert not any("---" in t for t in texts)


def test_sentence_spans_are_exact() -> None:
    text = "Intro.\n\nDr. Smith et al. reported a 3.5% rise in the U.S. in 2020 [1]. Second sentence, e.g. this one."
    doc = parse_document(text)
    spans = [text[s.start : s.end] for s in doc.sentences]
    assert spans == [
        "Intro.",
        "Dr. Smith et al. reported a 3.5% rise in the U.S. in 2020 [1].",
        "Second sentence, e.g. this one.",
    ]
    assert doc.sentences[1].text == "Dr. Smith et al. reported a 3.5% rise in the U.S. in 2020."


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("The value was 3.14 on average. It rose to 4.2 later.", 2),
        ("Smith et al. found this in 2019. Jones disagreed.", 2),
        ("Use tools, i.e. hammers. Then stop.", 2),
        ("Prices rose [1]. Wages fell [2, 3]. Rents held.[4] Taxes too.", 4),
    ],
)
def test_sentence_counts(text: str, count: int) -> None:
    assert len(sentence_texts(text)) == count


def test_links_keep_their_words_and_lose_their_targets() -> None:
    (sentence,) = parse_document(
        "Read [the full report](https://x.example/r.pdf) on `pandas` today."
    ).sentences
    assert sentence.text == "Read the full report on pandas today."


def test_list_items_and_quotes_are_separate_blocks() -> None:
    text = "- First item is here\n- Second item is here\n\n> A quoted line that goes on\n"
    assert sentence_texts(text) == ["First item is here", "Second item is here", "A quoted line that goes on"]


def test_unclosed_fence_hides_the_rest_like_commonmark() -> None:
    assert sentence_texts("Before the fence.\n\n```\nnever closed. [1]\nstill code.") == ["Before the fence."]


def test_crlf_documents_keep_offsets() -> None:
    text = "First claim here [1].\r\nSecond line continues.\r\n\r\n## References\r\n\r\n[1] A. https://a.example\r\n"
    doc = parse_document(text)
    assert text[doc.markers[0].start : doc.markers[0].end] == "[1]"
    assert doc.entries[0].url == "https://a.example"
    assert text[doc.entries[0].start : doc.entries[0].end] == "[1] A. https://a.example"


def test_control_characters_do_not_crash_sentence_splitting() -> None:
    # found by Hypothesis: pysbd's list-item rules raise on "0\x1f0. "
    from citedesk.core.reading import parse_document

    document = parse_document("0\x1f0. The survey found 40% gains [1].\n\n## References\n\n[1] A.\n")
    assert [s.text for s in document.sentences][-1] == "The survey found 40% gains."


def test_backslash_escapes_read_as_the_character_they_escape() -> None:
    """CommonMark's backslash escapes (what a Word document's view and pandoc's own writer put before
    `@ * [ ]`): the claim reads the character, not the backslash; `\\\\` is one backslash; inside code
    nothing is an escape."""
    document = parse_document(
        "Write to a\\@b.org, compute 5 \\* 3 \\\\ and \\[draft\\] with `a\\*b` now [1].\n\n"
        "## References\n\n1. Foo. Bar.\n"
    )
    assert [s.text for s in document.sentences] == [
        "Write to a@b.org, compute 5 * 3 \\ and [draft] with a\\*b now."
    ]
