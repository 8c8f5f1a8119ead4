"""Edits inside reference entries (a corrected year, name or DOI) through the checked plan."""

from __future__ import annotations

import pytest

from citedesk.core.findings import Fix, TextEdit
from citedesk.core.operations import EditReference, RemoveReference
from citedesk.core.plan import plan_repairs
from citedesk.core.reading import parse_structure
from citedesk.core.repair import make_fix, prose_of
from citedesk.errors import RepairError

TEXT = (
    "Coffee lowers the risk [1]. Trees cool streets [2].\n\n"
    "## References\n\n"
    "[1] Ding, M. (2016). Coffee and type 2 diabetes. Diabetes Care, 37(2). doi:10.2337/dc13-1203\n"
    "[2] Moreau, L. (2021). Tree canopy and heat. https://example.org/canopy\n"
    "[3] Nobody, A. (2019). An orphan entry. Some Journal.\n"
)


def edit(text: str, old: str, new: str, *, after: str = "## References") -> EditReference:
    start = text.index(old, text.index(after))
    return EditReference(start, start + len(old), new)


def test_a_corrected_year_is_applied_and_the_prose_stays_identical() -> None:
    structure = parse_structure(TEXT)
    fix = make_fix("Correct the year: 2016 → 2014", structure, [edit(TEXT, "2016", "2014")])
    assert fix is not None
    plan = plan_repairs(structure, [fix])
    assert plan.result == TEXT.replace("(2016)", "(2014)")
    assert prose_of(parse_structure(plan.result)) == prose_of(structure)
    assert plan.describe() == ["Correct the year: 2016 → 2014"]


def test_an_added_doi_and_a_corrected_name_together_with_renumbering() -> None:
    text = TEXT.replace("[3] Nobody", "[4] Nobody").replace("[2]", "[3]")
    structure = parse_structure(text)
    end = text.index("https://example.org/canopy") + len("https://example.org/canopy")
    fixes = [
        make_fix("Correct the first author", structure, [edit(text, "Ding", "Dingo")]),
        make_fix("Add doi:10.5555/canopy", structure, [EditReference(end, end, " doi:10.5555/canopy")]),
        make_fix("Remove [4]", structure, [RemoveReference("4")]),
    ]
    plan = plan_repairs(structure, [f for f in fixes if f is not None], renumber=True)
    after = parse_structure(plan.result)
    entries = {e.key: e for e in after.references.entries}
    assert sorted(entries) == ["1", "2"]
    assert entries["1"].text.startswith("Dingo, M. (2016)")
    assert entries["2"].text.startswith("Moreau")
    assert entries["2"].doi == "10.5555/canopy"
    assert plan.result.startswith("Coffee lowers the risk [1]. Trees cool streets [2].")  # each on its work


def test_an_orphan_entry_can_be_corrected() -> None:
    structure = parse_structure(TEXT)
    fix = make_fix("Correct the year", structure, [edit(TEXT, "2019", "2018")])
    assert fix is not None
    assert plan_repairs(structure, [fix]).result == TEXT.replace("(2019)", "(2018)")


def test_an_entry_that_is_removed_is_not_corrected_too() -> None:
    structure = parse_structure(TEXT)
    fixes = [
        make_fix("Correct the year", structure, [edit(TEXT, "2019", "2018")]),
        make_fix("Remove [3]", structure, [RemoveReference("3")]),
    ]
    plan = plan_repairs(structure, [f for f in fixes if f is not None])
    assert "An orphan entry" not in plan.result


@pytest.mark.parametrize(
    ("old", "new", "after"),
    [
        ("Coffee lowers", "Tea lowers", "Coffee"),  # prose
        ("[1] Ding", "[4] Ding", "## References"),  # the label
        ("1]", "2]", "## References"),
        ("2016", "2014\n## Heading", "## References"),  # a line break
        ("## References", "## Sources", "Trees"),  # the heading is not an entry
    ],
)
def test_edits_outside_an_entrys_text_are_refused(old: str, new: str, after: str) -> None:
    structure = parse_structure(TEXT)
    op = edit(TEXT, old, new, after=after)
    assert make_fix("Edit", structure, [op]) is None
    with pytest.raises(RepairError):
        plan_repairs(structure, [make_fix_unchecked(op)])


def make_fix_unchecked(op: EditReference) -> Fix:
    """A fix built by hand, as a buggy caller might: the plan must still refuse it."""
    return Fix("Edit", (TextEdit(op.start, op.end, op.replacement),), (op,))


def test_a_footnote_definition_in_the_prose_can_be_corrected() -> None:
    text = "A claim [^d].\n\n[^d]: Ding, M. (2016). Coffee and type 2 diabetes. doi:10.2337/dc13-1203\n\nMore prose.\n"
    structure = parse_structure(text)
    fix = make_fix("Correct the year", structure, [edit(text, "2016", "2014", after="[^d]:")])
    assert fix is not None
    assert plan_repairs(structure, [fix]).result == text.replace("2016", "2014")
