"""Direction words compared between a sentence and its source, and a range against a range.

A user's "ridership rose by 12%" passed against a source saying it fell by 12%: the sentence keeps
every word of the source but one. These tests read the direction words the way an audit does
(`direction.flips` on the claim and the passage the judge used) and then through whole audits of
small documents with local sources, offline.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citedesk.core.findings import Finding, Kind, Severity
from citedesk.evidence.direction import corrected, flips, mentions
from citedesk.evidence.numbers import figure_conflicts, ranges
from citedesk.pipeline import AuditOptions, audit_text

TRANSIT = (
    "City transit report 2023\n\n"
    "Ridership on the city's buses fell by 12% in 2023, the transport authority reported, as fares "
    "went up and two routes closed.\n\n"
    "The number of night routes halved over the same period. Fewer people cycled to work than in 2019.\n\n"
    "Operating costs rose by 8% while fare revenue fell.\n"
)


def words_of(claim: str, evidence: str) -> list[tuple[str, str, bool]]:
    return [(f.claim.word, f.evidence.word, f.explicit) for f in flips(claim, evidence)]


@pytest.mark.parametrize(
    ("claim", "evidence", "said", "stated"),
    [
        (
            "Ridership rose by 12% in 2023.",
            "In 2023, ridership on the buses fell by 12 percent.",
            "rose",
            "fell",
        ),
        (
            "The number of clinics doubled.",
            "Over the decade the number of rural clinics halved.",
            "doubled",
            "halved",
        ),
        (
            "More people cycled to work in 2022.",
            "Fewer people cycled to work in 2022 than in 2019.",
            "More",
            "Fewer",
        ),
        (
            "Prices were higher in the north.",
            "Prices were lower in the north than in the south.",
            "higher",
            "lower",
        ),
        (
            "The club gained members in 2021.",
            "In 2021 the club lost members to the new gym.",
            "gained",
            "lost",
        ),
        (
            "Emissions increased sharply.",
            "Emissions decreased sharply after the ban.",
            "increased",
            "decreased",
        ),
    ],
)
def test_a_flip_about_the_same_quantity_is_found_with_both_words(
    claim: str, evidence: str, said: str, stated: str
) -> None:
    assert words_of(claim, evidence) == [(said, stated, True)]


def test_the_sentence_put_right_takes_the_sources_word() -> None:
    claim = "Ridership rose by 12% in 2023."
    assert (
        corrected(claim, flips(claim, "Ridership fell by 12% in 2023.")) == "Ridership fell by 12% in 2023."
    )
    claim = "More people cycled."
    assert corrected(claim, flips(claim, "Fewer people cycled.")) == "Fewer people cycled."


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Ridership fell last year.", "Costs rose while ridership fell last year."),
        ("Costs rose while ridership fell.", "Ridership fell sharply."),
        ("Costs rose by 12%.", "Ridership fell by 12%."),  # the same figure, another quantity
        ("Ridership did not rise in 2023.", "Ridership fell in 2023."),  # a negated word is not its opposite
        ("More than 20% of riders were students.", "Less than 30% of riders were students."),  # bounds
        ("Ridership rose in 2023.", "Ridership fell in 2020 and rose in 2023."),  # said the claim's way too
        (
            "The school opened in fall 2016 with 400 students.",
            "Enrolment increased to 400 students.",
        ),  # a season
    ],
)
def test_no_flip_when_the_quantities_differ_or_nothing_is_turned(claim: str, evidence: str) -> None:
    assert flips(claim, evidence) == []


def test_a_flip_shared_only_through_the_clause_is_a_warning_not_an_error() -> None:
    # the subject stands far from the word in the source: likely the same quantity, not stated beside it
    far = "Ridership on the buses across the whole of the city's network of routes in the pandemic year fell."
    assert words_of("Ridership rose.", far) == [("rose", "fell", False)]
    near = "On weekdays, bus ridership across the whole network of routes fell."
    assert words_of("Bus ridership on weekdays rose.", near) == [("rose", "fell", True)]
    assert [m.word for m in mentions("Costs rose while ridership fell.")] == ["rose", "fell"]


def test_a_range_against_a_range_is_one_conflict() -> None:
    assert [r.text for r in ranges("In 2021, 10-20% of homes and between 5% and 8% of shops.")] == [
        "10-20%",
        "between 5% and 8%",
    ]
    conflicts = figure_conflicts("10-20% of households visit weekly.", "15-25% of households visit weekly.")
    assert [(a.text, b.text) for a, b in conflicts] == [("10-20%", "15-25%")]
    # a figure inside the source's range is not a different figure; one outside it differs from the range
    assert figure_conflicts("20% of households visit weekly.", "15-25% of households visit weekly.") == []
    conflicts = figure_conflicts("30% of households visit weekly.", "15-25% of households visit weekly.")
    assert [(a.text, b.text) for a, b in conflicts] == [("30%", "15-25%")]


def audit(folder: Path, prose: str, source: str) -> tuple[str, list[Finding]]:
    (folder / "sources").mkdir()
    (folder / "sources" / "report.txt").write_text(source, encoding="utf-8")
    document = folder / "notes.md"
    text = (
        f"# Notes\n\n{prose}\n\n## References\n\n"
        "1. City Transport Authority (2023). *City report 2023*. sources/report.txt\n"
    )
    document.write_text(text, encoding="utf-8")
    report = audit_text(text, str(document), AuditOptions(offline=True, dense=False, document_dir=folder))
    return text, report.findings


def test_an_audit_reports_a_flip_naming_both_words(tmp_path: Path) -> None:
    text, findings = audit(
        tmp_path,
        "Ridership on the city's buses rose by 12% in 2023 [1]. The number of night routes doubled over "
        "the same period [1]. Operating costs rose by 8% [1].",
        TRANSIT,
    )
    turned = [f for f in findings if f.kind is Kind.DIRECTION_MISMATCH]
    assert [(text[f.start : f.end], f.message, f.severity) for f in turned] == [
        ("rose", "The cited source [1] says fell, not rose.", Severity.ERROR),
        ("doubled", "The cited source [1] says halved, not doubled.", Severity.ERROR),
    ]
    assert turned[0].details == {"word": "rose", "source_word": "fell", "explicit": True}
    # the citation is right and the word is wrong: no misattribution beside it; costs did rise
    assert not [f for f in findings if f.kind is Kind.MISATTRIBUTED]


def test_an_audit_gives_one_finding_for_a_range_against_a_range(tmp_path: Path) -> None:
    text, findings = audit(
        tmp_path,
        "In the district, 10-20% of households visited a park every week [1].",
        "Park use survey\n\nBetween 2019 and 2022, 15-25% of households in the district visited a park "
        "every week.\n\nVisits were highest in the summer months.\n",
    )
    assert [(f.kind, text[f.start : f.end], f.message) for f in findings] == [
        (Kind.NUMBER_MISMATCH, "10-20%", "The cited source [1] says 15-25%, not 10-20%.")
    ]
    assert findings[0].details["high"] == 20.0
    assert findings[0].details["source_high"] == 25.0


def test_a_wrong_figure_and_a_wrong_direction_are_two_findings(tmp_path: Path) -> None:
    text, findings = audit(tmp_path, "Ridership on the city's buses rose by 10% in 2023 [1].", TRANSIT)
    assert sorted((text[f.start : f.end], f.kind, f.message) for f in findings) == [
        ("10%", Kind.NUMBER_MISMATCH, "The cited source [1] says 12%, not 10%."),
        ("rose", Kind.DIRECTION_MISMATCH, "The cited source [1] says fell, not rose."),
    ]


def test_a_direction_word_about_another_quantity_of_the_same_organ_is_no_flip() -> None:
    # "reduces" speaks of kidney damage; the claim's "increased risk of acute kidney failure" is
    # what the source's other clause states ("associated with acute kidney failure"): one shared
    # modifier ("kidney") does not make the two the same quantity (SciFact: ACE inhibitors)
    claim = "Diuretics are associated with increased risk of acute kidney failure in older patients."
    evidence = (
        "Although diuretic treatment usually eases swelling and reduces the rate of chronic kidney"
        " damage, its use can also be associated with acute kidney failure in older patients."
    )
    assert flips(claim, evidence) == []
    # the same flip stays a flip where the source's opposite word is about the claim's quantity
    turned = "Diuretic treatment reduces the risk of acute kidney failure in older patients."
    assert words_of(claim, turned) == [("increased", "reduces", True)]
