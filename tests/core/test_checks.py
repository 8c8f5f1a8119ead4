from __future__ import annotations

from citedesk.core.checks import structural_findings
from citedesk.core.dialects.numbered.checks import fabricated_markers
from citedesk.core.findings import Kind, Severity
from citedesk.core.plan import plan_repairs
from citedesk.core.reading import parse_document
from citedesk.core.repair import apply_checked

REFS = "\n\n## References\n\n[1] Alpha (2020). https://a.example/one\n[2] Beta (2021). https://b.example/two\n[3] Gamma (2022). https://c.example/three\n"


def kinds(text: str) -> list[tuple[Kind, str]]:
    doc = parse_document(text)
    return [(f.kind, text[f.start : f.end]) for f in structural_findings(doc)]


def test_fabricated_is_a_bounds_check() -> None:
    text = (
        "Sea levels rose 20 cm since 1900 [1]. Ice melt doubled in 2019 [2]. Glaciers lost 30% [3, 4]." + REFS
    )
    found = kinds(text)
    assert (Kind.FABRICATED, "4") in found
    assert [k for k, _ in found].count(Kind.FABRICATED) == 1


def test_fabricated_without_reference_list_says_so() -> None:
    doc = parse_document("Sea levels rose 20 cm since 1900 [1].")
    (finding,) = structural_findings(doc)
    assert finding.kind is Kind.FABRICATED
    assert finding.severity is Severity.ERROR
    assert "no reference list" in finding.message
    assert apply_checked(doc.text, finding.fixes[0].edits, like=doc) == "Sea levels rose 20 cm since 1900."


def test_orphan_and_its_fixes() -> None:
    text = "Sea levels rose 20 cm since 1900 [1]. Ice melt doubled in 2019 [3]." + REFS
    doc = parse_document(text)
    (orphan,) = [f for f in structural_findings(doc) if f.kind is Kind.ORPHAN_REFERENCE]
    assert orphan.reference == "2"
    removed = apply_checked(text, orphan.fixes[0].edits, like=doc)
    assert "Beta" not in removed
    assert "[3] Gamma" in removed
    assert "in 2019 [3]." in removed
    renumbered = plan_repairs(doc, [orphan.fixes[0]], renumber=True).result  # renumbering: one action
    assert "[2] Gamma" in renumbered
    assert "in 2019 [2]." in renumbered
    assert "[3]" not in renumbered


def test_duplicate_by_doi_and_url_and_merge() -> None:
    text = (
        "Coffee lowers diabetes risk [1]. Another cohort agrees [2]. Tea too [3].\n\n## References\n\n"
        "[1] Ding (2014). doi:10.2337/dc13-1203\n[2] Ding (2014). https://doi.org/10.2337/DC13-1203\n"
        "[3] Tea. https://www.tea.example/a/\n[4] Tea again. http://tea.example/a\n"
    )
    doc = parse_document(text)
    dups = [f for f in structural_findings(doc) if f.kind is Kind.DUPLICATE_REFERENCE]
    assert [(f.reference, f.details["duplicate_of"]) for f in dups] == [("2", "1"), ("4", "3")]
    merged = plan_repairs(doc, [dups[0].fixes[0]], renumber=True).result
    assert "Another cohort agrees [1]." in merged
    assert "[2] Tea." in merged
    assert "Tea too [2]." in merged


def test_uncited_needs_a_factual_signal() -> None:
    text = "What is a heat island? Cities are 7 °C warmer at night. This guide explains why [1]." + REFS
    uncited = [s for k, s in kinds(text) if k is Kind.UNCITED]
    assert uncited == ["Cities are 7 °C warmer at night."]


def test_malformed_marker_fixes() -> None:
    text = "Rates rose in 2020 [1,,2]. Rates fell in 2021 [3-1]. See also [^foo now." + REFS
    doc = parse_document(text)
    found = {text[f.start : f.end]: f for f in structural_findings(doc) if f.kind is Kind.MALFORMED_MARKER}
    assert set(found) == {"[1,,2]", "[3-1]", "[^foo"}
    assert apply_checked(text, found["[1,,2]"].fixes[0].edits, like=doc).startswith(
        "Rates rose in 2020 [1, 2]."
    )
    assert "in 2021 [1-3]." in apply_checked(text, found["[3-1]"].fixes[0].edits, like=doc)


def test_clean_sample_has_no_findings(samples: object) -> None:
    from pathlib import Path

    assert isinstance(samples, Path)
    doc = parse_document((samples / "clean.md").read_text(encoding="utf-8"))
    assert structural_findings(doc) == []


def test_problem_sample_shows_every_structural_kind(samples: object) -> None:
    from pathlib import Path

    assert isinstance(samples, Path)
    doc = parse_document((samples / "problems.md").read_text(encoding="utf-8"))
    assert {f.kind for f in structural_findings(doc)} == {
        Kind.FABRICATED,
        Kind.MALFORMED_MARKER,
        Kind.ORPHAN_REFERENCE,
        Kind.DUPLICATE_REFERENCE,
        Kind.UNCITED,
    }


def test_a_missing_entry_is_named_with_the_entries_there_are() -> None:
    text = "Shade cools [10]. Parks cool [3].\n\n## References\n\n" + "".join(
        f"[{n}] Author {n}. Title {n}.\n" for n in (1, 2, 3, 4, 5, 6, 7, 8, 9, 11)
    )
    [finding] = fabricated_markers(parse_document(text))
    assert finding.message.endswith("the reference list has no entry 10 (its entries: 1–9, 11).")
