"""The writer's review of findings: confirmed, false alarm, or needs a source.

A decision is keyed by what the finding is *about*, never by where it is: its kind, the words of its
sentence (or the text it points at), the reference it names, and that reference's source content.
So a decision survives edits elsewhere in the document and reopening the file, and a false alarm
comes back as soon as its sentence or its source changes. Pure functions; the store keeps them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from citedesk.core.document.claims import fingerprint
from citedesk.core.document.model import Document
from citedesk.core.findings import Finding
from citedesk.errors import UsageError


class Decision(StrEnum):
    CONFIRMED = "confirmed"
    FALSE_ALARM = "false_alarm"
    NEEDS_SOURCE = "needs_source"

    @property
    def label(self) -> str:
        return {"confirmed": "Confirmed", "false_alarm": "False alarm", "needs_source": "Needs a source"}[
            self.value
        ]

    @classmethod
    def parse(cls, text: str) -> Decision:
        name = text.strip().lower().replace("-", "_").replace(" ", "_")
        aliases = {
            "ignore": "false_alarm",
            "ignored": "false_alarm",
            "false": "false_alarm",
            "ok": "confirmed",
        }
        name = aliases.get(name, name)
        try:
            return cls(name)
        except ValueError:
            raise UsageError(
                f"unknown decision {text!r}; choose confirmed, false_alarm or needs_source"
            ) from None


@dataclass(frozen=True, slots=True)
class Review:
    decision: Decision
    note: str = ""
    at: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"decision": self.decision.value, "note": self.note, "at": self.at}


def review_key(document: Document, finding: Finding, source_hashes: Mapping[str, str] | None = None) -> str:
    """A stable key for `finding`: kind + its sentence's words (or its own text) + reference + source."""
    if finding.claim_id and finding.claim_id in document.claim_by_id:
        anchor = document.claim_by_id[finding.claim_id].fingerprint
    else:
        anchor = fingerprint(document.text[finding.start : finding.end])
    source = (source_hashes or {}).get(finding.reference or "", "")
    parts = (finding.kind.value, anchor, finding.reference or "", source)
    return hashlib.blake2b("\x1f".join(parts).encode("utf-8"), digest_size=12).hexdigest()


def document_key(path: str | None) -> str:
    """Reviews belong to a document by its absolute path; an unsaved text shares one slot."""
    from pathlib import Path  # noqa: PLC0415

    return str(Path(path).resolve()) if path else "<untitled>"


def apply_reviews(
    findings: list[Finding], keys: list[str], reviews: Mapping[str, Review]
) -> tuple[list[Finding], list[Finding]]:
    """Split findings into (shown, dismissed): false alarms are dismissed, the others stay."""
    shown: list[Finding] = []
    dismissed: list[Finding] = []
    for finding, key in zip(findings, keys, strict=True):
        review = reviews.get(key)
        (dismissed if review and review.decision is Decision.FALSE_ALARM else shown).append(finding)
    return shown, dismissed
