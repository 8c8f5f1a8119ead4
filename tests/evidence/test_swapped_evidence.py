"""The artefact guard on a small built example: a claim read against another claim's evidence is
never `supported`, while each claim against its own evidence is, for the shipped heuristic judge
with and without the embedding model. The evaluation harness measures the same on the labelled
sets (`tests/bench/eval_judges.py`); this keeps the property without them."""

from __future__ import annotations

import pytest

from citedesk.core.findings import VerdictLabel
from citedesk.evidence.judges import heuristic
from citedesk.evidence.judges.base import Pair
from tests.bench.eval_judges import swap_partners

CASES = [
    (
        "On calm summer nights, dense city centres can be up to 7 °C warmer than nearby rural land.",
        [
            "Urban heat islands are strongest at night.",
            "On calm summer nights, dense city centres can be up to 7 °C warmer than nearby rural land.",
        ],
    ),
    (
        "The Hoover Dam was completed in 1936 on the Colorado River.",
        [
            "Construction of the Hoover Dam on the Colorado River was completed in 1936, two years ahead of schedule.",
            "It is a concrete arch-gravity dam.",
        ],
    ),
    (
        "The band released its debut album, Northern Lights, in 2004 on an independent label.",
        [
            "In 2004 the band released its debut album, Northern Lights, on an independent label.",
            "The album was recorded in a converted barn.",
        ],
    ),
    (
        "Vitamin D supplementation reduced the rate of acute respiratory infections in the trial.",
        [
            "In the randomised trial, vitamin D supplementation reduced the rate of acute respiratory infections.",
            "The effect was largest among participants with low baseline levels.",
        ],
    ),
    (
        "The striker scored twice in the final, and the club won its first league title.",
        [
            "The striker scored twice in the final as the club won its first league title.",
            "Fans celebrated in the streets until morning.",
        ],
    ),
    (
        "Honey bees communicate the location of flowers to other workers through a waggle dance.",
        [
            "Worker honey bees communicate the location of flowers through the waggle dance.",
            "The angle of the dance encodes the direction of the food source.",
        ],
    ),
]


def _labels(judge: heuristic.HeuristicJudge, pairs: list[Pair]) -> list[VerdictLabel]:
    return [judge.policy.label(j.support, j.contradiction) for j in judge.judge(pairs)]


def _pair(claim: str, sentences: list[str]) -> Pair:
    return Pair(claim, " ".join(sentences), tuple(sentences))


@pytest.mark.parametrize("dense", [False, True], ids=["words", "minilm"])
def test_a_claim_with_another_claims_evidence_is_not_supported(dense: bool) -> None:
    embedder = None
    if dense:
        from citedesk.evidence.embed import Embedder

        embedder = Embedder()
    judge = heuristic.HeuristicJudge(embedder)
    own = _labels(judge, [_pair(claim, evidence) for claim, evidence in CASES])
    assert own == [VerdictLabel.SUPPORTED] * len(CASES)
    for shift in range(1, len(CASES)):
        swapped = [_pair(claim, CASES[(i + shift) % len(CASES)][1]) for i, (claim, _) in enumerate(CASES)]
        labels = _labels(judge, swapped)
        assert VerdictLabel.SUPPORTED not in labels, (shift, labels)


def test_shipped_weights_keep_to_their_directions() -> None:
    """More of the claim found never lowers support and a clash never raises it (the fit's rule)."""
    for weights in (heuristic.WEIGHTS, heuristic.WORDS_WEIGHTS):
        assert len(weights) == len(heuristic.FEATURES) == len(heuristic.DIRECTIONS)
        wrong = [
            name
            for name, w, d in zip(heuristic.FEATURES, weights, heuristic.DIRECTIONS, strict=True)
            if w * d < 0
        ]
        assert not wrong, wrong


def test_swap_partners_pair_every_claim_with_evidence_from_another_topic() -> None:
    rows = []
    for topic in range(6):
        for k in range(1 + topic % 3):  # groups of 1 to 3 rows sharing a question
            rows.append(
                {
                    "claim": f"claim {topic}.{k}",
                    "evidence": [f"evidence {topic}.{k}"],
                    "question": f"q{topic}",
                }
            )
    rows.append({"claim": "claim 0.0", "evidence": ["evidence 9"], "question": "q9"})  # same claim as row 0
    partners = swap_partners(rows, seed=15)
    assert sorted(partners) == list(range(len(rows)))  # each evidence used exactly once
    assert partners == swap_partners(rows, seed=15)  # deterministic

    def topic_of(i: int) -> str:
        return "q0" if rows[i]["claim"] == "claim 0.0" else str(rows[i]["question"])

    for i, j in enumerate(partners):
        assert topic_of(i) != topic_of(j), (rows[i], rows[j])
