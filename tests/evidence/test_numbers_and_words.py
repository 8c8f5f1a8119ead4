from __future__ import annotations

import pytest

from citedesk.evidence.lexical import (
    antonym_clashes,
    content_stems,
    direction,
    negation_count,
    opposite_directions,
)
from citedesk.evidence.numbers import missing_figures, quantities, same_figure


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Prices rose 3.2% last year.", "Prices rose by 3.2 percent over the year."),
        ("Prices rose 3.2 per cent.", "an increase of 3.2%"),
        ("The fund holds 45 million dollars.", "It manages $45M in assets."),
        ("The fund holds $45m.", "assets of 45,000,000 dollars"),
        ("About 20% of trees died.", "19.8% of the trees planted died"),
        ("Two thirds of the difference.", "about 67% of the measured difference"),
        ("It reached 1.5 million users.", "1,523,000 users signed up"),
        ("The bridge opened in 1998.", "Opened to traffic in 1998, the bridge"),
    ],
)
def test_the_same_figure_is_found_however_written(claim: str, evidence: str) -> None:
    assert missing_figures(claim, evidence) == []


@pytest.mark.parametrize(
    ("claim", "evidence", "missing"),
    [
        ("Prices rose 3.2% last year.", "Prices rose by 2.3 percent.", "3.2%"),
        ("The fund holds $45 million.", "It manages $54M.", "$45 million"),
        ("Up to 12 °C warmer.", "up to 7 °C warmer than rural land", "12"),
        ("The bridge opened in 1998.", "It opened in 1999.", "1998"),
        ("Unemployment fell to 30%.", "30 people lost their jobs", "30%"),
    ],
)
def test_a_different_figure_is_missing(claim: str, evidence: str, missing: str) -> None:
    assert [q.text for q in missing_figures(claim, evidence)] == [missing]


def test_quantity_kinds_and_spans() -> None:
    text = "In 2020, 45% of 1,200 firms paid $3bn, a 2-fold rise."
    found = quantities(text)
    assert [(q.kind, q.value) for q in found] == [
        ("year", 2020),
        ("percent", 45),
        ("count", 1200),
        ("money", 3e9),
        ("ratio", 2),
    ]
    for q in found:
        assert text[q.start : q.end].strip() == q.text
    assert not same_figure(found[1], found[2])  # a percentage is not a count


def test_words_negations_and_antonyms() -> None:
    assert content_stems("The studies were increasing") == content_stems("study increase")
    assert negation_count("It did not work and wasn't safe") == 2
    assert antonym_clashes(set(content_stems("risk increased")), set(content_stems("risk decreased"))) == 1
    assert antonym_clashes(set(content_stems("risk increased")), set(content_stems("risk increased"))) == 0


def test_direction_reads_up_and_down_and_negation_turns_one_into_the_other() -> None:
    assert direction("Vitamin D raised survival and increased antibody levels") == (2, 0)
    assert direction("The drug reduced mortality") == (0, 1)
    assert direction("The drug did not reduce mortality") == (1, 0)
    assert direction("Birth weight is negatively associated with risk") == (0, 1)
    assert opposite_directions(
        "A high erythrocyte count raises vulnerability to anemia.",
        "The haematological profile reduces the risk of severe anemia.",
    )
    # same direction, or both directions in one sentence: no clash
    assert not opposite_directions("Masks reduce transmission.", "Masks reduced transmission by half.")
    assert not opposite_directions("Masks reduce transmission.", "Cases rose, then masks cut transmission.")
    assert not opposite_directions("Masks reduce transmission.", "Masks were studied in schools.")


def test_the_heuristic_judge_doubts_a_claim_whose_direction_or_hedging_differs() -> None:
    from citedesk.evidence.judges.base import Pair
    from citedesk.evidence.judges.heuristic import HeuristicJudge

    evidence = "In the trial, the antiviral reduced viral load in hospitalised patients within five days."
    same, opposite = HeuristicJudge().judge(
        [
            Pair("The antiviral reduced viral load in hospitalised patients.", evidence, (evidence,)),
            Pair("The antiviral increased viral load in hospitalised patients.", evidence, (evidence,)),
        ]
    )
    assert same.support > opposite.support + 0.15, (same, opposite)


def test_an_elliptical_negation_negates_nothing() -> None:
    assert negation_count("Watered trees were half as likely to die as trees that were not.") == 0
    assert negation_count("The trees were not watered, and most died.") == 1
    assert negation_count("No, the trees did not die.") == 1


@pytest.mark.parametrize(
    ("claim", "evidence", "contradicts"),
    [
        # a different figure for the same thing, in the sentence about the claim
        (
            "Dense city centres can be up to 12 °C warmer than rural land.",
            ["On calm nights, dense city centres can be up to 7 °C warmer than nearby rural land."],
            True,
        ),
        # the sentence about the claim negates it
        (
            "The vaccine reduced hospital admissions among older adults.",
            ["The vaccine did not reduce hospital admissions among older adults."],
            True,
        ),
        # an antonym in the sentence about the claim
        (
            "Afternoon temperatures increased in leafy neighbourhoods.",
            ["Afternoon temperatures decreased in leafy neighbourhoods."],
            True,
        ),
        # a figure the evidence simply lacks is missing support, not a contradiction
        (
            "He died at a hospital in Calgary, Alberta on May 7, 2018.",
            ["The naturalist died on May 7 in Calgary, Alberta, his family said."],
            False,
        ),
        # a negation in a sentence that is about something else
        (
            "Smith was hired to replace Stewart in the race at The Glen.",
            [
                "Smith was hired to replace Stewart in the race at The Glen.",
                "Stewart would not race again that year.",
            ],
            False,
        ),
        # the same figure written another way
        (
            "His final match took place on 1 February 1958.",
            ["His final match was played on Saturday, February 1, 1958."],
            False,
        ),
    ],
)
def test_the_heuristic_judge_calls_contradiction_only_where_the_evidence_says_otherwise(
    claim: str, evidence: list[str], contradicts: bool
) -> None:
    from citedesk.evidence.judges.base import Pair
    from citedesk.evidence.judges.heuristic import HeuristicJudge

    [judgement] = HeuristicJudge().judge([Pair(claim, " ".join(evidence), tuple(evidence))])
    assert (judgement.contradiction >= 0.5) is contradicts, judgement
