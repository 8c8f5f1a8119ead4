from __future__ import annotations

import pytest

from citedesk.core.document.markers import MarkerStyle
from citedesk.core.reading import parse_document
from tests.helpers.docs import marker_texts


@pytest.mark.parametrize(
    ("body", "expected_keys"),
    [
        ("Water boils at 100 °C [1].", [("1",)]),
        ("Water boils at 100 °C [1, 2].", [("1", "2")]),
        ("Water boils at 100 °C [1,2; 4].", [("1", "2", "4")]),
        ("Water boils at 100 °C [1–3].", [("1", "2", "3")]),
        ("Water boils at 100 °C [1-3, 5].", [("1", "2", "3", "5")]),
        ("Water boils at 100 °C [2—4].", [("2", "3", "4")]),
        ("Water boils at 100 °C [^1].", [("1",)]),
        ("Water boils at 100 °C [^note-a].", [("note-a",)]),
        ("Water boils at 100 °C [1][2].", [("1",), ("2",)]),
        ("Water boils at 100 °C.[4] It freezes at 0 °C.", [("4",)]),
    ],
)
def test_marker_forms_and_keys(body: str, expected_keys: list[tuple[str, ...]]) -> None:
    doc = parse_document(body)
    assert [m.keys for m in doc.markers] == expected_keys
    for marker in doc.markers:
        raw = doc.text[marker.start : marker.end]
        assert raw.startswith("[")
        assert raw.endswith("]")


def test_offsets_are_exact_string_indices() -> None:
    text = "Ünïcödé first [1]. Then 😀 emoji [2, 3] and [^x]."
    doc = parse_document(text)
    assert marker_texts(doc) == ["[1]", "[2, 3]", "[^x]"]
    assert doc.markers[1].start == text.index("[2, 3]")
    group = doc.markers[1]
    assert [text[i.start : i.end] for i in group.items] == ["2", "3"]
    assert doc.markers[2].style is MarkerStyle.FOOTNOTE


@pytest.mark.parametrize(
    "body",
    [
        "Use `x[1]` in code.",
        "```\nvalue = data[1]\n```",
        "See [1](https://example.com) for more.",
        "A link https://example.com/page[1] here.",
        "<!-- a comment [1] -->",
        "# Heading [1]",
        "![chart [1]](img.png)",
        "- [ ] a task list item",
        "- [x] a done item",
        "Some [text] in brackets.",
    ],
)
def test_things_that_are_not_markers(body: str) -> None:
    assert parse_document(body).markers == ()


@pytest.mark.parametrize(
    ("body", "reason_fragment"),
    [
        ("Claim [1,,2].", "two separators"),
        ("Claim [3-1].", "backwards"),
        ("Claim [1, ].", "ends with a separator"),
        ("Claim [^foo and more", "never closed"),
        ("Claim [1-].", "range"),
        ("Claim [1 2].", "commas"),
        ("Claim [1-100000].", "implausibly wide"),
    ],
)
def test_malformed_markers(body: str, reason_fragment: str) -> None:
    doc = parse_document(body)
    assert doc.markers == ()
    assert len(doc.malformed) == 1
    assert reason_fragment in doc.malformed[0].reason


def test_marker_after_full_stop_belongs_to_that_sentence() -> None:
    doc = parse_document("First claim is true.[4] Second claim is here. [5] Third one.")
    keys = [[k for m in s.markers for k in doc.markers[m].keys] for s in doc.sentences]
    assert keys == [["4"], ["5"], []]
    assert doc.text[doc.sentences[0].start : doc.sentences[0].span_end] == "First claim is true.[4]"
