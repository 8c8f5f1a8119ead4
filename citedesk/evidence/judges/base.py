"""The judge interface: (claim, evidence) pairs in, support and contradiction probabilities out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from citedesk.evidence.policy import MODEL_POLICY, Policy

__all__ = ["MODEL_POLICY", "Judge", "Judgement", "Pair", "Policy"]


@dataclass(frozen=True)
class Judgement:
    support: float
    """P(the evidence entails the claim), 0…1."""
    contradiction: float
    """P(the evidence contradicts the claim), 0…1 (0 for judges with no such label)."""
    quote: str | None = None
    judge: str | None = None
    """Who decided, when not the judge that was asked: a remote judge's local stand-in for a pair
    it could not answer. Such judgements are shown with that name and never cached."""
    unchecked: tuple[str, str] | None = None
    """(a `core.coverage.NotChecked` value, its detail) when the judge gave no verdict (its server
    could not be reached, its answer was unreadable): the citation is not checked, never a finding.
    Such a judgement must carry `judge` too, so it is never cached."""


@dataclass(frozen=True)
class Pair:
    claim: str
    evidence: str
    """The evidence window's text."""
    sentences: tuple[str, ...] = ()
    """The window's sentences, when the judge wants them separately."""


class Judge(Protocol):
    name: str
    """Shown in reports next to every verdict: which judge (and model) decided."""

    @property
    def policy(self) -> Policy:
        """Its thresholds, and whether it reads the retrieved windows together or one by one."""
        ...

    def judge(
        self, pairs: Sequence[Pair], progress: Callable[[int, int], None] | None = None
    ) -> list[Judgement]: ...
