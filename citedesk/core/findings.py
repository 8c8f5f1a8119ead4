"""Findings and fixes: plain data that the report prints and the window shows.

Everything here is typed: a finding's evidence (`Evidence`), the judgement it reports (`Verdict`) and
the better reference it offers (`Suggestion`) are dataclasses that the window reads by attribute.
JSON exists only at the report boundary (`to_json` here and in `core/reports/report.py`); `Finding.details`
holds only kind-specific facts that are printed, never read back (a figure, a list of reasons).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]


class Kind(StrEnum):
    FABRICATED = "fabricated"
    MALFORMED_MARKER = "malformed_marker"
    ORPHAN_REFERENCE = "orphan_reference"
    DUPLICATE_REFERENCE = "duplicate_reference"
    UNCITED = "uncited"
    DEAD_LINK = "dead_link"
    FABRICATED_REFERENCE = "fabricated_reference"
    DOI_MISMATCH = "doi_mismatch"
    UNREADABLE_SOURCE = "unreadable_source"
    UNCHECKED_SOURCE = "unchecked_source"
    MISATTRIBUTED = "misattributed"
    UNSUPPORTED_NUMBER = "unsupported_number"
    NUMBER_MISMATCH = "number_mismatch"
    UNSUPPORTED_PART = "unsupported_part"
    RETRACTED = "retracted"
    EXPRESSION_OF_CONCERN = "expression_of_concern"
    CORRECTION = "correction"
    METADATA_ERROR = "metadata_error"
    FOUND_BY_TITLE = "found_by_title"
    NOT_FOUND = "not_found"
    POSSIBLE_MATCH = "possible_match"
    DIRECTION_MISMATCH = "direction_mismatch"
    UNKNOWN_KEY = "unknown_key"
    REDUNDANT_CITATION = "redundant_citation"
    UNCONFIRMED = "unconfirmed"
    """A citation a judge that may only suggest (the word-level judge) could not confirm, without
    evidence a writer can see that it is wrong: something to read, not a warning
    (`evidence.policy.misattribution_severity`)."""

    @property
    def default_severity(self) -> Severity:
        return _SEVERITY[self]

    @property
    def label(self) -> str:
        return _LABELS[self]


_SEVERITY: dict[Kind, Severity] = {
    Kind.FABRICATED: Severity.ERROR,
    Kind.MALFORMED_MARKER: Severity.ERROR,
    Kind.ORPHAN_REFERENCE: Severity.WARNING,
    Kind.DUPLICATE_REFERENCE: Severity.WARNING,
    Kind.UNCITED: Severity.WARNING,
    Kind.DEAD_LINK: Severity.WARNING,
    Kind.FABRICATED_REFERENCE: Severity.ERROR,
    Kind.DOI_MISMATCH: Severity.ERROR,
    Kind.UNREADABLE_SOURCE: Severity.INFO,
    Kind.UNCHECKED_SOURCE: Severity.INFO,
    Kind.MISATTRIBUTED: Severity.ERROR,
    Kind.UNSUPPORTED_NUMBER: Severity.WARNING,
    Kind.NUMBER_MISMATCH: Severity.ERROR,
    Kind.UNSUPPORTED_PART: Severity.WARNING,
    Kind.RETRACTED: Severity.ERROR,
    Kind.EXPRESSION_OF_CONCERN: Severity.WARNING,
    Kind.CORRECTION: Severity.INFO,
    Kind.METADATA_ERROR: Severity.WARNING,
    Kind.FOUND_BY_TITLE: Severity.INFO,
    Kind.NOT_FOUND: Severity.WARNING,
    Kind.POSSIBLE_MATCH: Severity.INFO,
    Kind.DIRECTION_MISMATCH: Severity.ERROR,
    Kind.UNKNOWN_KEY: Severity.ERROR,
    Kind.REDUNDANT_CITATION: Severity.INFO,
    Kind.UNCONFIRMED: Severity.INFO,
}

_LABELS: dict[Kind, str] = {
    Kind.FABRICATED: "Fabricated citation",
    Kind.MALFORMED_MARKER: "Malformed marker",
    Kind.ORPHAN_REFERENCE: "Orphan reference",
    Kind.DUPLICATE_REFERENCE: "Duplicate reference",
    Kind.UNCITED: "Uncited claim",
    Kind.DEAD_LINK: "Dead link",
    Kind.FABRICATED_REFERENCE: "Reference does not exist",
    Kind.DOI_MISMATCH: "DOI points to another work",
    Kind.UNREADABLE_SOURCE: "Unreadable source",
    Kind.UNCHECKED_SOURCE: "Source not checked",
    Kind.MISATTRIBUTED: "Misattributed citation",
    Kind.UNSUPPORTED_NUMBER: "Number not in source",
    Kind.NUMBER_MISMATCH: "Number differs from the source",
    Kind.UNSUPPORTED_PART: "Part of the sentence unsupported",
    Kind.RETRACTED: "Retracted work",
    Kind.EXPRESSION_OF_CONCERN: "Expression of concern",
    Kind.CORRECTION: "Correction published",
    Kind.METADATA_ERROR: "Reference details differ from the record",
    Kind.FOUND_BY_TITLE: "DOI found by title",
    Kind.NOT_FOUND: "No index knows this work",
    Kind.POSSIBLE_MATCH: "Possible match in an index",
    Kind.DIRECTION_MISMATCH: "Direction differs from the source",
    Kind.UNKNOWN_KEY: "Not in the bibliography",
    Kind.REDUNDANT_CITATION: "Citation adds nothing here",
    Kind.UNCONFIRMED: "Citation not confirmed",
}


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace text[start:end] with `replacement`."""

    start: int
    end: int
    replacement: str

    def to_json(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "replacement": self.replacement}


class Applicability(StrEnum):
    """Whether a fix may be applied without the writer looking at it (as Ruff's fixes declare).

    `SAFE`: structural (the text says so exactly) or driven by a judge whose evidence passed the
    gate (`evidence.policy`): `fix`, `fix --kinds all` and **Fix all** apply it. `UNSAFE`: driven
    by a judge without that evidence (the word-level judge always): a suggestion to verify, applied
    only with `fix --unsafe-fixes` or a click on its own finding."""

    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True, slots=True)
class Fix:
    title: str
    edits: tuple[TextEdit, ...]
    operations: tuple[object, ...] = ()
    """The repair operations the edits were built from (see core.repair), for merging fixes."""
    changes_prose: bool = False
    applicability: Applicability = Applicability.SAFE

    @property
    def safe(self) -> bool:
        return self.applicability is Applicability.SAFE

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "applicability": self.applicability.value,
            "changes_prose": self.changes_prose,
            "edits": [e.to_json() for e in self.edits],
        }


@dataclass(frozen=True, slots=True)
class Evidence:
    """The passage of a reference's source that bears on a claim, and where it lies in that source."""

    source: str
    """The reference key whose source this is."""
    passage: str
    start: int
    end: int
    """Offsets of the passage in the source's text."""
    page: int | None = None
    window: str = ""
    """The passage with its neighbours (what the judge read)."""
    window_span: tuple[int, int] = (0, 0)
    title: str | None = None
    location: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "passage": self.passage,
            "start": self.start,
            "end": self.end,
            "page": self.page,
            "window": self.window,
            "window_span": list(self.window_span),
            "title": self.title,
            "location": self.location,
        }


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A reference that supports the claim (or the part) better: what a swap or an added citation
    offers, with the passage that shows it; for an uncited sentence, possibly only the clearly
    closest reference, to read (its finding's message says so, and no fix cites it)."""

    key: str
    score: float
    evidence: Evidence | None = None
    by: str = "local"
    """Who proposed it: `local` (the judge) or `claude` (checked by the local judge)."""


@dataclass(frozen=True, slots=True)
class Finding:
    kind: Kind
    start: int
    end: int
    message: str
    severity: Severity
    reference: str | None = None
    claim_id: str | None = None
    fixes: tuple[Fix, ...] = ()
    evidence: Evidence | None = None
    verdict: Verdict | None = None
    """The judgement this finding reports (misattributed, unsupported part)."""
    suggestion: Suggestion | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    """Kind-specific facts for the report (reasons, a figure, a duplicate's key): printed, never read."""
    confidence: float | None = None
    """For a judged finding: the judge's probability that what the finding says is so
    (`evidence.policy.confidence`); None for a structural one, which is exact."""
    judged_by: str | None = None
    """For a judged finding: `word-level` or `model` — who decided (the judge's name is on its
    verdict)."""


def make_finding(
    kind: Kind,
    span: tuple[int, int],
    message: str,
    *,
    reference: str | None = None,
    claim_id: str | None = None,
    fixes: tuple[Fix, ...] = (),
    evidence: Evidence | None = None,
    verdict: Verdict | None = None,
    suggestion: Suggestion | None = None,
    severity: Severity | None = None,
    details: Mapping[str, Any] | None = None,
    confidence: float | None = None,
    judged_by: str | None = None,
) -> Finding:
    return Finding(
        kind=kind,
        start=span[0],
        end=span[1],
        message=message,
        severity=severity or kind.default_severity,
        reference=reference,
        claim_id=claim_id,
        fixes=fixes,
        evidence=evidence,
        verdict=verdict,
        suggestion=suggestion,
        details=details or {},
        confidence=confidence,
        judged_by=judged_by,
    )


class VerdictLabel(StrEnum):
    SUPPORTED = "supported"
    PARTIALLY_SUPPORTED = "partially_supported"
    NOT_SUPPORTED = "not_supported"
    CONTRADICTED = "contradicted"
    UNCHECKED = "unchecked"


@dataclass(frozen=True, slots=True)
class Verdict:
    """How well one cited reference supports one claim."""

    reference: str
    label: VerdictLabel
    score: float = 0.0
    judge: str | None = None
    evidence: Evidence | None = None
    reason: str | None = None
    """Why the citation was not checked (an `unchecked` verdict): offline, no text, … (a
    `core.coverage.NotChecked` value)."""
    contradiction: float = 0.0
    """The judge's probability that the source says otherwise (0 for judges without one)."""
    detail: str | None = None
    """The figure that goes with `reason`, when it has one: `HTTP 500`, `after 20 s`."""

    def strength(self) -> str:
        """The number that goes with the label: `contradiction 0.80` for a contradicted verdict
        (never a high "support" beside "contradicts"), else `support 0.35`."""
        if self.label is VerdictLabel.CONTRADICTED:
            return f"contradiction {self.contradiction:.2f}"
        return f"support {self.score:.2f}"

    def to_json(self) -> dict[str, Any]:
        unchecked = {"reason": self.reason, **({"detail": self.detail} if self.detail else {})}
        evidence = self.evidence.to_json() if self.evidence else (unchecked if self.reason else None)
        return {
            "reference": self.reference,
            "label": self.label.value,
            "score": round(self.score, 4),
            "contradiction": round(self.contradiction, 4),
            "judge": self.judge,
            "evidence": evidence,
        }


def judged_line(finding: Finding) -> str:
    """The judgement under a judged finding: its strength, the judge, and who judged with how
    much confidence (`support 0.23 · heuristic · word-level, confidence 0.77`), as the window's card
    and the editor's hover show it."""
    if finding.verdict is None:
        return ""
    parts = [finding.verdict.strength()]
    if finding.verdict.judge:
        parts.append(finding.verdict.judge)
    if finding.judged_by is not None and finding.confidence is not None:
        parts.append(f"{finding.judged_by}, confidence {finding.confidence:.2f}")
    return " · ".join(parts)
