"""What a report says about things other than findings: each source (and what the scholarly
indexes say about its work), and Claude's assistance.

Typed records the engine fills and the front ends read by attribute; `to_json` is the report's
JSON contract (unchanged since version 1, fields only added).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from citedesk.core.document.claims import Atom

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
class NoticeSummary:
    """An editorial notice about a cited work: a retraction, withdrawal, expression of concern,
    correction or reinstatement, with its own DOI and date where the source gives them."""

    kind: str
    """retraction, withdrawal, expression_of_concern, correction, reinstatement."""
    doi: str | None = None
    date: str | None = None
    source: str = ""
    """Who says so: crossref, retraction-watch, openalex, retraction-watch-snapshot, title."""
    label: str = ""
    reasons: tuple[str, ...] = ()

    @property
    def url(self) -> str | None:
        return f"https://doi.org/{self.doi}" if self.doi else None

    @property
    def words(self) -> str:
        """`retraction`, `expression of concern`, … as a sentence says it."""
        return self.kind.replace("_", " ")

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "doi": self.doi,
            "date": self.date,
            "url": self.url,
            "source": self.source,
            "label": self.label,
            "reasons": list(self.reasons),
        }


@dataclass(frozen=True)
class FieldDifference:
    """One field where a reference entry and the index's record of the same work disagree."""

    field: str
    label: str
    cited: str
    actual: str

    def to_json(self) -> dict[str, str]:
        return {"field": self.field, "label": self.label, "cited": self.cited, "actual": self.actual}


@dataclass(frozen=True)
class ReferenceTruth:
    """What Crossref, OpenAlex, doi.org and the retraction snapshot say about a reference's work."""

    status: str
    """ok, metadata_error, different_work, unregistered, found_by_title, possible_match, not_found,
    not_checked."""
    message: str = ""
    doi: str | None = None
    """The DOI that was checked (the entry's)."""
    suggested_doi: str | None = None
    """A DOI to add (found by title) or to use instead (another work's, or an unregistered one)."""
    index: str = ""
    """The index whose record decided: crossref, openalex, doi.org."""
    checked_at: float | None = None
    cached: bool = False
    standing: NoticeSummary | None = None
    """The notice that sets the work's standing now (the latest retraction, unless reinstated, …)."""
    notices: tuple[NoticeSummary, ...] = ()
    differences: tuple[FieldDifference, ...] = ()
    unreachable: bool = False
    """Not checked because no index could be reached (or the audit was offline)."""
    offline: bool = False
    """The audit was offline: no index was asked (unlike one asked that did not answer)."""

    @property
    def retracted(self) -> bool:
        return self.standing is not None and self.standing.kind in ("retraction", "withdrawal")

    @property
    def words(self) -> str:
        """A few words for a list of sources: the work's standing, then what the check found
        (`retracted 2010-02-06`, `year differs`, `found by title; corrected 2020-11-17`, `verified`)."""
        parts = []
        if self.standing is not None and self.standing.kind != "reinstatement":
            when = f" {self.standing.date}" if self.standing.date else ""
            parts.append(_STANDING_WORDS.get(self.standing.kind, self.standing.words) + when)
        if self.status == "metadata_error":
            labels = [d.label for d in self.differences]
            parts.append(", ".join(labels) + (" differs" if len(labels) == 1 else " differ"))
        elif self.status == "not_checked" and not parts:
            parts.append(self._not_looked_up())
        elif self.status not in ("ok", "not_checked") or not parts:
            parts.append(_TRUTH_WORDS.get(self.status, self.status))
        return "; ".join(parts)

    def _not_looked_up(self) -> str:
        """Why the indexes say nothing: the audit was offline, or no index could be reached, or
        the entry had no title, or the audit ran out of time, or an index failed to answer (an
        error, a slow-down). "Offline" only when the audit was: a local file read while the
        indexes were out of reach is not an offline source (issue 28)."""
        if self.unreachable:
            return "offline: not looked up" if self.offline else "no index reachable: not looked up"
        if "no title" in self.message:
            return "not looked up: no title"
        if "time budget" in self.message or "cancelled" in self.message:
            return "not looked up: out of time"
        return "index look-up failed"

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "message": self.message,
            "doi": self.doi,
            "suggested_doi": self.suggested_doi,
            "index": self.index or None,
            "checked_at": self.checked_at,
            "cached": self.cached,
            "standing": self.standing.to_json() if self.standing else None,
            "notices": [n.to_json() for n in self.notices],
            "differences": [d.to_json() for d in self.differences],
            "unreachable": self.unreachable,
        }


_STANDING_WORDS = {
    "retraction": "retracted",
    "withdrawal": "withdrawn",
    "expression_of_concern": "expression of concern",
    "correction": "corrected",
}
_TRUTH_WORDS = {
    "ok": "verified",
    "different_work": "DOI of another work",
    "unregistered": "DOI registered nowhere",
    "found_by_title": "found by title",
    "possible_match": "possible match",
    "not_found": "in no index",
}


@dataclass(frozen=True)
class RetractionSummary:
    """Where an audit's knowledge of retractions came from, and how current it is: the imported
    Retraction Watch snapshot (its age), and whether Crossref and OpenAlex were asked."""

    offline: bool
    snapshot_imported_at: float | None = None
    snapshot_newest: str | None = None
    """The newest notice's date in the snapshot: how current it is."""
    snapshot_age_days: float | None = None
    """How old that newest notice is, in days."""

    @property
    def note(self) -> str:
        """One sentence for the report."""
        if self.snapshot_imported_at is None:
            if self.offline:
                return (
                    "offline, and no Retraction Watch snapshot has been imported: only retractions known "
                    "from earlier look-ups can be flagged (`citedesk retractions import FILE`)"
                )
            return "from Crossref and OpenAlex (no Retraction Watch snapshot imported)"
        age = round(self.snapshot_age_days or 0.0)
        newest = f"newest notice {self.snapshot_newest}" if self.snapshot_newest else "no dated notice"
        later = (
            "retractions published since then are not known to this offline audit"
            if self.offline
            else "Crossref and OpenAlex are asked about later ones"
        )
        return f"the Retraction Watch snapshot is {age} day{'s' if age != 1 else ''} old ({newest}); {later}"

    def to_json(self) -> dict[str, Any]:
        return {
            "offline": self.offline,
            "snapshot": None
            if self.snapshot_imported_at is None
            else {
                "imported_at": self.snapshot_imported_at,
                "newest": self.snapshot_newest,
                "age_days": None if self.snapshot_age_days is None else round(self.snapshot_age_days, 1),
            },
            "note": self.note,
        }


@dataclass(frozen=True)
class SourceSummary:
    """One reference's source as the audit found it."""

    key: str
    status: str
    """local, fetched, cached, dead (gone), not_found, mismatch, unreadable, offline, blocked,
    unlocated, invalid_link, outside, not_checked, and the network's: server_error, refused,
    timed_out, reset, unreachable."""
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
    check: ReferenceTruth | None = None
    """What the scholarly indexes say about the work (entries with a DOI or no identifier)."""
    detail: str = ""
    """The figure that goes with a network status: `HTTP 500`, `after 20 s`, `host not found`."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "key": self.key,
            "status": self.status,
            "location": self.location,
            "title": self.title,
            "passages": self.passages,
            "cached": self.cached,
            "message": self.message,
            "detail": self.detail or None,
            "quality": self.quality.to_json() if self.quality else None,
            "check": self.check.to_json() if self.check else None,
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
