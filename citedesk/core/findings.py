"""Findings and fixes: plain data that the report prints and the window shows."""

from __future__ import annotations

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
    UNSUPPORTED_PART = "unsupported_part"

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
    Kind.UNSUPPORTED_PART: Severity.WARNING,
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
    Kind.UNSUPPORTED_PART: "Part of the sentence unsupported",
}


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace text[start:end] with `replacement`."""

    start: int
    end: int
    replacement: str

    def to_json(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "replacement": self.replacement}


@dataclass(frozen=True, slots=True)
class Fix:
    title: str
    edits: tuple[TextEdit, ...]
    operations: tuple[object, ...] = ()
    """The repair operations the edits were built from (see core.repair), for merging fixes."""
    changes_prose: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "changes_prose": self.changes_prose,
            "edits": [e.to_json() for e in self.edits],
        }


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
    evidence: dict[str, Any] | None = None
    details: dict[str, Any] = field(default_factory=dict)


def make_finding(
    kind: Kind,
    span: tuple[int, int],
    message: str,
    *,
    reference: str | None = None,
    claim_id: str | None = None,
    fixes: tuple[Fix, ...] = (),
    evidence: dict[str, Any] | None = None,
    severity: Severity | None = None,
    details: dict[str, Any] | None = None,
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
        details=details or {},
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
    evidence: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "reference": self.reference,
            "label": self.label.value,
            "score": round(self.score, 4),
            "judge": self.judge,
            "evidence": self.evidence,
        }
