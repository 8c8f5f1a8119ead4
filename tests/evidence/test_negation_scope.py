"""Negation read in its clause: a negation in the source counts against a claim only when it negates
the claim's words, and a claim's "X, not Y" is a claim about X.

Users saw error-level "contradiction 0.90" on sentences their sources support: "X, not Y, is the
most common …" against a source ranking X first and Y third, and "The drug is safe" against "not
expensive, and it is safe". Each case is read by the real heuristic judge (words only, as it runs
by default without an embedding model), and through a whole audit once.
"""

from __future__ import annotations

from pathlib import Path

from citedesk.core.findings import Kind, Severity, VerdictLabel
from citedesk.evidence.judges.base import Pair
from citedesk.evidence.judges.heuristic import POLICY, HeuristicJudge
from citedesk.evidence.lexical import claim_negations, content_stems, negations_about, without_contrast
from citedesk.pipeline import AuditOptions, audit_text

CONTRAST_CLAIM = "Cars, not buses, are the most common way to commute in Aldport."
CONTRAST_SOURCE = (
    "Cars are the most common way to commute in Aldport, followed by walking.",
    "Buses come third, carrying one commuter in eight.",
)
SAFE_CLAIM = "Velorin is safe for children under five."
SAFE_SOURCE = ("Velorin is not expensive, and it is safe for children under five.",)


def label(claim: str, sentences: tuple[str, ...]) -> tuple[VerdictLabel, float]:
    judgement = HeuristicJudge().judge([Pair(claim, " ".join(sentences), sentences)])[0]
    return POLICY.label(judgement.support, judgement.contradiction), judgement.contradiction


def test_a_negated_alternative_is_not_the_claims_negation() -> None:
    assert (
        without_contrast(CONTRAST_CLAIM).replace("  ", " ")
        == "Cars are the most common way to commute in Aldport."
    )
    assert claim_negations(CONTRAST_CLAIM) == 0
    assert claim_negations("Not buses but cars are the most common way to commute.") == 0
    assert claim_negations("Buses are not the most common way to commute.") == 1
    verdict, contradiction = label(CONTRAST_CLAIM, CONTRAST_SOURCE)
    assert verdict is not VerdictLabel.CONTRADICTED
    assert contradiction < POLICY.contradicted


def test_a_negation_of_other_words_does_not_negate_the_claim() -> None:
    wanted = set(content_stems(SAFE_CLAIM))
    assert negations_about(SAFE_SOURCE[0], wanted) == 0  # "not expensive" is not about "safe"
    assert negations_about("Velorin is not safe for children under five.", wanted) == 1
    verdict, contradiction = label(SAFE_CLAIM, SAFE_SOURCE)
    assert verdict is not VerdictLabel.CONTRADICTED
    assert contradiction < POLICY.contradicted


def test_not_only_is_emphasis_not_negation() -> None:
    claim = "Pruning lowers the risk of storm damage."
    wanted = set(content_stems(claim))
    source = "Pruning not only lowers the risk of storm damage but also extends the life of the tree."
    assert negations_about(source, wanted) == 0


def test_a_negation_that_speaks_to_the_claim_still_contradicts_it() -> None:
    """What the change must not lose: the source denying the claim's own words."""
    verdict, _ = label(SAFE_CLAIM, ("Velorin is cheap, but it is not safe for children under five.",))
    assert verdict is VerdictLabel.CONTRADICTED
    verdict, _ = label(
        "Cars are the most common way to commute in Aldport.",
        ("Cars are not the most common way to commute in Aldport; buses are.",),
    )
    assert verdict is VerdictLabel.CONTRADICTED


def test_an_audit_raises_no_contradiction_on_the_supported_sentences(tmp_path: Path) -> None:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "commuting.txt").write_text(
        "Aldport commuting survey\n\n" + " ".join(CONTRAST_SOURCE) + "\n", encoding="utf-8"
    )
    (tmp_path / "sources" / "velorin.txt").write_text(
        "Velorin: a review\n\n" + SAFE_SOURCE[0] + " It is given as a syrup.\n", encoding="utf-8"
    )
    document = tmp_path / "commute.md"
    document.write_text(
        f"# Notes\n\n{CONTRAST_CLAIM} [1] {SAFE_CLAIM} [2]\n\n## References\n\n"
        "1. Aldport Council (2022). *Aldport commuting survey*. sources/commuting.txt\n"
        "2. Reyes, M. (2021). *Velorin: a review*. sources/velorin.txt\n",
        encoding="utf-8",
    )
    report = audit_text(
        document.read_text(encoding="utf-8"),
        str(document),
        AuditOptions(offline=True, dense=False, document_dir=tmp_path),
    )
    verdicts = [v for claim in report.verdicts.values() for v in claim]
    assert {v.reference for v in verdicts} == {"1", "2"}
    assert all(v.label is not VerdictLabel.CONTRADICTED for v in verdicts)
    assert not [f for f in report.findings if f.kind is Kind.MISATTRIBUTED and f.severity is Severity.ERROR]
