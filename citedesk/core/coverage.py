"""An honest account of what was checked: every citation ends checked, or not checked with why.

A *citation* is one sentence citing one reference (`[2, 3]` is two citations). It is checked when
a judge read its sentence against that reference's source and gave a verdict; otherwise it is not
checked, for a reason the writer can act on — the machine was offline, the link answers nothing
readable, the entry names no source (attach a file), there is no such reference. Reports say
"N of M citations checked" and list the rest, so "5 findings" never reads as "everything else is
fine" when most citations could not be read.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from citedesk.core.document import Document
from citedesk.core.findings import Verdict, VerdictLabel


class NotChecked(StrEnum):
    """Why a citation was not checked (the words reports use)."""

    OFFLINE = "offline"
    UNREACHABLE = "source unreachable"
    TIMED_OUT = "timed out"
    OUT_OF_TIME = "time budget ran out"
    PAYWALL = "paywall or login page"
    SCANNED = "scanned PDF (no text)"
    UNREADABLE = "unreadable source"
    NO_SOURCE = "no source: attach a file"
    INVALID_LINK = "invalid link"
    NOT_ALLOWED = "file outside the allowed folders"
    BLOCKED = "private-network link (blocked)"
    NO_SUCH_WORK = "identifier does not exist"
    NO_REFERENCE = "no such reference"
    NOT_IN_BIBLIOGRAPHY = "key not in the bibliography"
    NO_BIBLIOGRAPHY = "no bibliography to look the key up in"
    SOURCES_OFF = "sources not checked"
    NO_JUDGE = "not judged"

    @property
    def attachable(self) -> bool:
        """Whether attaching a local copy of the source would let the citation be checked."""
        return self not in (
            NotChecked.NO_REFERENCE,
            NotChecked.NOT_IN_BIBLIOGRAPHY,
            NotChecked.NO_BIBLIOGRAPHY,
            NotChecked.SOURCES_OFF,
            NotChecked.NO_JUDGE,
        )


@dataclass(frozen=True)
class UncheckedCitation:
    claim_id: str
    key: str
    reason: NotChecked
    start: int
    end: int
    """The span of the marker that cites `key` in the claim's sentence."""


@dataclass(frozen=True)
class Coverage:
    citations: int
    checked: int
    unchecked: tuple[UncheckedCitation, ...] = ()
    offline: bool = False
    """The machine could reach no host at all (said once, instead of a dead link per source)."""

    @property
    def reasons(self) -> dict[str, int]:
        counted = Counter(u.reason.value for u in self.unchecked)
        return dict(sorted(counted.items(), key=lambda item: (-item[1], item[0])))

    def headline(self) -> str:
        """`9 of 12 citations checked; 3 not checked (offline 2, paywall or login page 1)`."""
        if not self.citations:
            return "no citations"
        noun = "citation" if self.citations == 1 else "citations"
        line = f"{self.checked} of {self.citations} {noun} checked"
        if self.unchecked:
            why = ", ".join(f"{reason} {n}" for reason, n in self.reasons.items())
            line += f"; {len(self.unchecked)} not checked ({why})"
        return line

    def to_json(self) -> dict[str, Any]:
        return {
            "citations": self.citations,
            "checked": self.checked,
            "unchecked": len(self.unchecked),
            "unchecked_reasons": self.reasons,
            "offline": self.offline,
        }


def coverage_of(document: Document, verdicts: dict[str, list[Verdict]], *, offline: bool = False) -> Coverage:
    """Count the document's citations and sort them into checked and not checked. Every citation
    must have a verdict (an `unchecked` one says why); one without is counted as not judged."""
    citations = 0
    checked = 0
    unchecked: list[UncheckedCitation] = []
    for claim in document.claims:
        given = {v.reference: v for v in verdicts.get(claim.id, [])}
        for key in document.cited_keys(claim):
            citations += 1
            verdict = given.get(key)
            if verdict is not None and verdict.label is not VerdictLabel.UNCHECKED:
                checked += 1
                continue
            reason = _reason(verdict)
            marker = next(
                document.markers[i] for i in claim.sentence.markers if key in document.markers[i].keys
            )
            unchecked.append(UncheckedCitation(claim.id, key, reason, marker.start, marker.end))
    return Coverage(citations, checked, tuple(unchecked), offline)


def _reason(verdict: Verdict | None) -> NotChecked:
    if verdict is None or verdict.reason is None:
        return NotChecked.NO_JUDGE
    try:
        return NotChecked(verdict.reason)
    except ValueError:
        return NotChecked.UNREADABLE
