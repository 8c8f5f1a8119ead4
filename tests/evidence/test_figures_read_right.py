"""Figures read as a writer means them (issue 38): a number inside a name is no figure, a figure
in words or an approximation is stated by the values it allows, and a figure the matched source
sentence gives differently for the same quantity is a number mismatch, small counts included."""

from __future__ import annotations

from pathlib import Path

import pytest

from citedesk.core.findings import Kind, Severity
from citedesk.evidence.numbers import figure_conflicts, missing_figures, quantities
from tests.evidence.test_direction import audit


@pytest.mark.parametrize(
    "sentence",
    [
        "Since COVID-19 reached the city, bus use fell.",
        "SARS-CoV-2 and H1N1 spread in different seasons.",
        "Offices moved to Windows 11 and Python 3 last year.",
        "Most labs follow ISO 9001 and print on A4 paper.",
        "Vitamin B12 levels were measured with GPT-4 summaries.",
        "The phase 3 trial is described in Table 2.",
    ],
)
def test_a_number_inside_a_name_is_no_figure(sentence: str) -> None:
    assert quantities(sentence) == []
    assert missing_figures(sentence, "Nothing with numbers.") == []


def test_figures_beside_names_are_still_figures() -> None:
    text = "In 2020, 45% of firms in March 2021 and mid-2019 paid $3bn; 12 of them were in Paris."
    assert [q.text for q in quantities(text)] == ["2020", "45%", "2021", "2019", "$3bn", "12"]


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("More than a hundred parks were surveyed.", "We surveyed 101 parks across the city."),
        ("Nearly half of the patients recovered.", "In all, 48% of the patients recovered."),
        ("Dozens of cities joined the scheme.", "By 2021, 40 cities had joined the scheme."),
        ("About 20% of trees died.", "19.8% of the trees planted died"),
        ("Some two hundred and twelve people came.", "212 people attended."),
        ("Fewer than 30 wells were tested.", "Only 27 wells were tested."),
    ],
)
def test_a_figure_in_words_or_an_approximation_is_stated_by_a_value_it_allows(
    claim: str, evidence: str
) -> None:
    assert missing_figures(claim, evidence) == []


@pytest.mark.parametrize(
    ("claim", "evidence", "missing"),
    [
        ("More than a hundred parks were surveyed.", "We surveyed 60 parks.", "a hundred"),
        ("Nearly half of the patients recovered.", "In all, 12% of the patients recovered.", "half"),
        ("Dozens of cities joined the scheme.", "Three cities joined the scheme.", "Dozens"),
    ],
)
def test_an_approximation_the_source_contradicts_is_still_missing(
    claim: str, evidence: str, missing: str
) -> None:
    assert [q.text for q in missing_figures(claim, evidence)] == [missing]


def test_a_small_count_with_its_unit_conflicts_with_the_same_quantity() -> None:
    conflicts = figure_conflicts(
        "The centre was 9 degrees warmer than the countryside.", "The centre was 3 degrees warmer at night."
    )
    assert [(a.text, b.text) for a, b in conflicts] == [("9", "3")]
    # another quantity (another word after it) is no conflict
    assert figure_conflicts("The centre was 9 degrees warmer.", "It has 3 parks.") == []


def test_an_audit_names_a_wrong_small_figure_against_the_matched_sentence(tmp_path: Path) -> None:
    text, findings = audit(
        tmp_path,
        "The city centre was 9 degrees warmer than the countryside on summer nights [1].",
        "Heat survey\n\nOn summer nights the city centre was 3 degrees warmer than the surrounding "
        "countryside.\n\nThe difference was smaller in winter.\n",
    )
    assert [(f.kind, text[f.start : f.end], f.message, f.severity) for f in findings] == [
        (Kind.NUMBER_MISMATCH, "9", "The cited source [1] says 3 degrees, not 9 degrees.", Severity.ERROR)
    ]
    # the error quotes the sentence it rests on
    assert findings[0].evidence is not None
    assert "3 degrees warmer" in findings[0].evidence.window


@pytest.mark.parametrize(
    ("prose", "source"),
    [
        (
            "Since COVID-19 reached the city, bus ridership fell by 12% [1].",
            "Transit report\n\nAfter the pandemic arrived, ridership on the city's buses fell by 12%.\n",
        ),
        (
            "More than a hundred parks were surveyed in the city [1].",
            "Park survey\n\nWe surveyed 101 parks in the city in 2021.\n\nMost were small.\n",
        ),
    ],
)
def test_an_audit_is_quiet_on_names_and_approximations_the_source_bears_out(
    tmp_path: Path, prose: str, source: str
) -> None:
    _, findings = audit(tmp_path, prose, source)
    assert [f.kind for f in findings if f.kind in (Kind.NUMBER_MISMATCH, Kind.UNSUPPORTED_NUMBER)] == []
