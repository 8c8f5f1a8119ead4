"""What a report says about things other than findings: each source, and Claude's assistance.

Typed records the engine fills and the front ends read by attribute; `to_json` is the report's
JSON contract (unchanged since version 1, fields only added).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from citedesk.core.claims import Atom

QUALITY_WEIGHTS = {"authority": 0.4, "recency": 0.15, "relevance": 0.3, "density": 0.15}


@dataclass(frozen=True)
class Quality:
    """A source's quality components, each 0…1, and their weighted score."""

    authority: float
    recency: float
    relevance: float
    density: float

    @property
    def score(self) -> float:
        return float(sum(float(getattr(self, name)) * weight for name, weight in QUALITY_WEIGHTS.items()))

    def components(self) -> dict[str, float]:
        return {name: float(getattr(self, name)) for name in QUALITY_WEIGHTS}

    def to_json(self) -> dict[str, float]:
        return {"score": round(self.score, 3), **{k: round(v, 3) for k, v in self.components().items()}}


@dataclass(frozen=True)
class SourceSummary:
    """One reference's source as the audit found it."""

    key: str
    status: str
    """local, fetched, cached, dead, not_found, mismatch, unreadable, offline, blocked, unlocated."""
    location: str | None = None
    title: str | None = None
    passages: int = 0
    cached: bool = False
    """The text came from the store (a dead link's last good copy counts)."""
    message: str = ""
    quality: Quality | None = None
    authors: str | None = None
    """The bibliography entry's authors ("Family, Given; …"): set for pandoc documents, whose
    entries name them exactly."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "key": self.key,
            "status": self.status,
            "location": self.location,
            "title": self.title,
            "passages": self.passages,
            "cached": self.cached,
            "message": self.message,
            "quality": self.quality.to_json() if self.quality else None,
        }
        if self.authors is not None:
            out["authors"] = self.authors
        return out


@dataclass
class AssistSummary:
    """What Claude assistance did in one audit: with whose model, what it proposed and what was
    refused (and why), and what it cost."""

    model: str
    suggested: dict[str, list[str]] = field(default_factory=dict)
    """Claim id → the reference keys Claude proposed and the local judge confirmed."""
    rejected: list[str] = field(default_factory=list)
    facts: dict[str, list[Atom]] = field(default_factory=dict)
    """Claim id → the checked atomic facts of that sentence."""
    passes: int | None = None
    """Rounds of citation insertion (None when insertion did not run)."""
    usage: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "model": self.model,
            "suggested": self.suggested,
            "rejected": self.rejected,
            "facts": {
                claim: [{"text": f.text, "span": [f.start, f.end]} for f in facts]
                for claim, facts in self.facts.items()
            },
        }
        if self.passes is not None:
            out["passes"] = self.passes
        out["usage"] = self.usage
        return out
