from __future__ import annotations

import pytest

from citedesk.core.findings import TextEdit
from citedesk.core.operations import AddCitation, RemoveCitation, RemoveReference, Renumber, RetargetCitation
from citedesk.core.reading import parse_document, parse_structure
from citedesk.core.repair import apply_checked, apply_edits, build_edits, prose_of
from citedesk.errors import RepairError

REFS = "\n\n## References\n\n[1] A. https://a.example\n[2] B. https://b.example\n[3] C. https://c.example\n[4] D. https://d.example\n"


def run(body: str, *ops: object) -> str:
    text = body + REFS
    doc = parse_structure(text)
    result = apply_checked(text, build_edits(doc, ops), like=doc)  # type: ignore[arg-type]
    return result[: result.index("\n\n## References")] if "## References" in result else result


@pytest.mark.parametrize(
    ("body", "index", "expected"),
    [
        ("Claim done [4].", 0, "Claim done."),
        ("Claim done.[4] Next one.", 0, "Claim done. Next one."),
        ("Claim done. [4] Next one.", 0, "Claim done. Next one."),
        ("[4] Starts the line.", 0, "Starts the line."),
        ("A claim [1][4] here.", 1, "A claim [1] here."),
        ("A claim [4][1] here.", 0, "A claim [1] here."),
        ("A claim [1] [4] here.", 1, "A claim [1] here."),
        ("word [4]word", 0, "word word"),
        # a line that is only the marker goes with its ending: the paragraph stays one paragraph
        ("Coffee lowers the risk\n[4]\nof diabetes.", 0, "Coffee lowers the risk\nof diabetes."),
        ("Coffee lowers the risk\r\n[4]\r\nof diabetes.", 0, "Coffee lowers the risk\r\nof diabetes."),
        ("Coffee lowers the risk\r[4]\nof diabetes.", 0, "Coffee lowers the risk\rof diabetes."),
    ],
)
def test_remove_marker_with_its_space(body: str, index: int, expected: str) -> None:
    doc = parse_structure(body + REFS)
    key = doc.markers[index].keys[0]
    assert run(body, RemoveCitation(index, key)) == expected


@pytest.mark.parametrize(
    ("body", "key", "expected"),
    [
        ("Claim [1, 4].", "4", "Claim [1]."),
        ("Claim [1, 4, 2].", "4", "Claim [1, 2]."),
        ("Claim [1;4].", "1", "Claim [4]."),
        ("Claim [1–4].", "3", "Claim [1, 2, 4]."),
        ("Claim [1-4].", "4", "Claim [1-3]."),
    ],
)
def test_remove_number_from_group(body: str, key: str, expected: str) -> None:
    assert run(body, RemoveCitation(0, key)) == expected


def test_prune_and_renumber_everything_consistently() -> None:
    text = "One [1]. Three [3]. Four [4]. Both [1, 3–4]. Foot [^3]." + REFS
    doc = parse_structure(text)
    result = apply_checked(text, build_edits(doc, [RemoveReference("2"), Renumber()]), like=doc)
    assert result.startswith("One [1]. Three [2]. Four [3]. Both [1–3]. Foot [^2].")
    assert result.endswith("[1] A. https://a.example\n[2] C. https://c.example\n[3] D. https://d.example\n")


def test_renumber_keeps_fabricated_markers_fabricated() -> None:
    text = "One [1]. Two [2]. Three [3]. Nine [9]." + REFS
    doc = parse_structure(text)
    result = apply_checked(
        text, build_edits(doc, [RemoveReference("2"), RemoveCitation(1, "2"), Renumber()]), like=doc
    )
    assert result.startswith("One [1]. Two. Three [2]. Nine [4].")


def test_retarget_and_add_citation() -> None:
    assert run("Claim [1].", RetargetCitation(0, "1", "3")) == "Claim [3]."
    text = "Claim one. Claim two [2]." + REFS
    doc = parse_document(text)
    first, second = doc.sentences
    assert (
        run("Claim one. Claim two [2].", AddCitation(first.end - 1, "3")) == "Claim one [3]. Claim two [2]."
    )
    assert (
        run("Claim one. Claim two [2].", AddCitation(doc.markers[0].end, "4"))
        == "Claim one. Claim two [2, 4]."
    )
    assert second.markers == (0,)


def test_a_change_to_prose_is_refused() -> None:
    text = "Claim one [1]." + REFS
    structure = parse_structure(text)
    with pytest.raises(RepairError, match="change the prose"):
        apply_checked(text, [TextEdit(0, 5, "Clams")], like=structure)
    edit = TextEdit(text.index("[1]"), text.index("[1]") + 3, "[1] and more")
    with pytest.raises(RepairError, match="change the prose"):
        apply_checked(text, [edit], like=structure)


def test_overlapping_edits_are_refused() -> None:
    with pytest.raises(RepairError):
        apply_edits("abcdef", [TextEdit(0, 3, "x"), TextEdit(2, 4, "y")])


def test_prose_ignores_markers_and_reference_list() -> None:
    a = parse_structure("Claim [1]. More.\n\n## References\n\n[1] A.\n")
    b = parse_structure("Claim. More.\n\n## References\n\n[1] B, renumbered and rewritten.\n[2] C.\n")
    assert prose_of(a) == prose_of(b) == "Claim. More.\n\n"


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_removing_a_footnote_removes_all_its_paragraphs(newline: str) -> None:
    text = newline.join(
        [
            "Tap water had fibres in 83 percent of samples.[^a]",
            "",
            "[^a]: Smith (2020). Tap water.",
            "[^orphan]: Koelmans (2017). A review of",
            "    microplastics in freshwater.",
            "",
            "    A second paragraph of the orphan note.",
            "[^b]: Jones (2019). Bottles.",
            "",
        ]
    )
    doc = parse_document(text)
    result = apply_checked(text, build_edits(doc, [RemoveReference("orphan")]), like=doc)
    assert "second paragraph" not in result  # not left behind as part of [^a]
    assert result == newline.join(
        [
            "Tap water had fibres in 83 percent of samples.[^a]",
            "",
            "[^a]: Smith (2020). Tap water.",
            "[^b]: Jones (2019). Bottles.",
            "",
        ]
    )
