"""Policy: how a judge's numbers become verdicts, and when another reference is worth offering.

Each judge carries its own `Policy` (its thresholds, whether it reads the retrieved windows
together or one by one, and whether its verdicts may act or only suggest), the one its entry in the
judge registry (`judges/registry.py`) declares, so nothing downstream looks a judge up by name. The document-level
constants decide when a better reference is offered: a partly supporting citation is flagged only
when another reference scores `CLEARLY_BETTER` higher, and an uncited sentence is offered its best
reference on partial support only when that reference `STANDS_OUT` from the rest. Both were chosen
on WiCE documents (`tests/bench/eval_documents.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from citedesk.core.findings import Finding, Severity, Verdict, VerdictLabel

CLEARLY_BETTER = 0.05
"""A partly supporting citation is misattributed when another reference scores this much higher."""
STANDS_OUT = 0.04
"""An uncited claim's best reference is suggested on partial support when it leads every other
reference by this much."""


@dataclass(frozen=True)
class Policy:
    """A judge's thresholds and how it reads evidence."""

    supported: float = 0.5
    partial: float = 0.25
    contradicted: float = 0.5
    reads_together: bool = False
    """True: the top evidence windows are read together, as one text (claim level: how the
    heuristic judge was calibrated). False: each of the best windows is read on its own and the
    best one decides (max aggregation: how sentence-pair models are meant to be used)."""
    note: str = ""
    """What a verdict of this judge is worth, said beside its name in every report and the window."""
    fingerprint: str = ""
    """What produced the judge's numbers (its weights, for the heuristic judge): judgements cached
    under another fingerprint are not reused."""
    acts: bool = True
    """True: its verdicts may raise errors and carry fixes (which `fix` applies). False: it may only
    suggest — its findings are at most warnings, and name the better reference without a fix
    (`restrained`)."""

    def label(self, support: float, contradiction: float) -> VerdictLabel:
        if contradiction >= self.contradicted and contradiction > support:
            return VerdictLabel.CONTRADICTED
        if support >= self.supported:
            return VerdictLabel.SUPPORTED
        if support >= self.partial:
            return VerdictLabel.PARTIALLY_SUPPORTED
        return VerdictLabel.NOT_SUPPORTED


HEURISTIC_NOTE = "word-level judge, limited accuracy: install an NLI model (see citedesk models list)"
MODEL_POLICY = Policy()
"""Sentence-pair models (NLI and grounding models, Claude): probabilities, max over windows."""


def restrained(findings: Sequence[Finding], policy: Policy) -> list[Finding]:
    """The findings a judge's verdicts produced, as its policy allows: unchanged for a judge that
    may act; for one that may only suggest, no error (a warning instead) and no fix (the suggested
    reference stays, with its passage)."""
    if policy.acts:
        return list(findings)
    return [
        replace(f, severity=Severity.WARNING if f.severity is Severity.ERROR else f.severity, fixes=())
        for f in findings
    ]


def clearly_better(best: tuple[str, Verdict] | None, than: Verdict) -> tuple[str, Verdict] | None:
    """`best` when it scores `CLEARLY_BETTER` above `than`: the reference a fix may offer."""
    return best if best is not None and best[1].score >= than.score + CLEARLY_BETTER else None


def suggestion(ranked: list[tuple[str, Verdict]]) -> tuple[str, Verdict] | None:
    """The reference to suggest for an uncited claim, from the references ranked best first: the
    best one when it supports the claim, or when it supports it in part and stands clearly above
    every other reference (`STANDS_OUT`)."""
    if not ranked:
        return None
    key, best = ranked[0]
    if best.label is VerdictLabel.SUPPORTED:
        return key, best
    runner_up = ranked[1][1].score if len(ranked) > 1 else 0.0
    if best.label is VerdictLabel.PARTIALLY_SUPPORTED and best.score - runner_up >= STANDS_OUT:
        return key, best
    return None
