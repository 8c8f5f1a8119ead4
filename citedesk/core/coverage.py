"""An honest account of what was checked: every citation ends checked, or not checked with why.

A *citation* is one sentence citing one reference (`[2, 3]` is two citations); a heading's citation
counts too, never checked ("in a heading: no sentence to judge"). It is checked when
a judge read its sentence against that reference's source and gave a verdict; otherwise it is not
checked, for a reason the writer can act on — the machine was offline, the link answers nothing
readable, the entry names no source (attach a file), there is no such reference. Reports say
"N of M citations checked" and list the rest, so "5 findings" never reads as "everything else is
fine" when most citations could not be read.

A reason is one of a fixed set of words (`NotChecked`, the JSON's stable values); a citation may
add the figure that goes with it (`detail`: `HTTP 500`, `after 20 s`), which the reports print
beside it (`server error (HTTP 500)`, `timed out after 20 s`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from citedesk.core.document.markers import Marker
from citedesk.core.document.model import Document
from citedesk.core.findings import Verdict, VerdictLabel
from citedesk.core.spans import SpanSet


class NotChecked(StrEnum):
    """Why a citation was not checked (the words reports use)."""

    OFFLINE = "offline"
    GONE = "source gone"
    """404/410, a soft 404, a host that does not exist (a `dead_link`)."""
    SERVER_ERROR = "server error"
    REFUSED = "refused by the server"
    TIMED_OUT = "timed out"
    RESET = "connection reset"
    UNREACHABLE = "source unreachable"
    """The connection could not be opened (refused, a TLS failure) while other hosts answered."""
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
    JUDGE_UNREACHABLE = "judge server unreachable"
    """The judge's server (`--judge server:MODEL`) could not be reached or gave no readable answer."""
    IN_HEADING = "in a heading: no sentence to judge"
    """A citation in a heading's title: its key is checked (it exists), but no sentence says what
    the source should support."""

    @property
    def attachable(self) -> bool:
        """Whether attaching a local copy of the source would let the citation be checked."""
        return self not in (
            NotChecked.NO_REFERENCE,
            NotChecked.NOT_IN_BIBLIOGRAPHY,
            NotChecked.NO_BIBLIOGRAPHY,
            NotChecked.SOURCES_OFF,
            NotChecked.NO_JUDGE,
            NotChecked.JUDGE_UNREACHABLE,
            NotChecked.IN_HEADING,
        )


def reason_words(reason: str, detail: str | None) -> str:
    """A reason with its figure, as the reports say it: `server error (HTTP 500)`, `timed out after
    20 s`, `source gone (host not found)`; the reason alone without one."""
    if not detail:
        return reason
    return f"{reason} {detail}" if detail.startswith("after ") else f"{reason} ({detail})"


@dataclass(frozen=True)
class UncheckedCitation:
    claim_id: str
    key: str
    reason: NotChecked
    start: int
    end: int
    """The span of the marker that cites `key` in the claim's sentence."""
    detail: str = ""
    """The figure that goes with the reason (`HTTP 500`, `after 20 s`), if any."""

    @property
    def words(self) -> str:
        """The reason as the reports print it, with its figure (`server error (HTTP 500)`)."""
        return reason_words(self.reason.value, self.detail)


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

    @property
    def nothing_checked(self) -> bool:
        """The text cites something and not one citation could be checked: then "no findings"
        means nothing, and every summary leads with that instead (issue 28)."""
        return self.citations > 0 and self.checked == 0

    def why(self) -> str:
        """The reasons with their counts: `offline 2, paywall or login page 1`."""
        return ", ".join(f"{reason} {n}" for reason, n in self.reasons.items())

    def headline(self) -> str:
        """`9 of 12 citations checked; 3 not checked (offline 2, paywall or login page 1)`; with
        none checked, `nothing could be checked: 0 of 60 citations checked (offline 40, …)`.

        The one sentence every summary of the coverage says — the text, Markdown and HTML reports
        and the window's status bar — so they never disagree about what was checked."""
        if not self.citations:
            return "no citations"
        noun = "citation" if self.citations == 1 else "citations"
        line = f"{self.checked} of {self.citations} {noun} checked"
        if self.nothing_checked:
            return f"nothing could be checked: {line}" + (f" ({self.why()})" if self.unchecked else "")
        if self.unchecked:
            line += f"; {len(self.unchecked)} not checked ({self.why()})"
        return line

    def to_json(self) -> dict[str, Any]:
        return {
            "citations": self.citations,
            "checked": self.checked,
            "unchecked": len(self.unchecked),
            "unchecked_reasons": self.reasons,
            "offline": self.offline,
            "nothing_checked": self.nothing_checked,
        }


def coverage_of(document: Document, verdicts: dict[str, list[Verdict]], *, offline: bool = False) -> Coverage:
    """Count the document's citations and sort them into checked and not checked. Every citation
    must have a verdict (an `unchecked` one says why); one without is counted as not judged."""
    citations = 0
    checked = 0
    unchecked: list[UncheckedCitation] = []
    for claim in document.claims:
        given = {v.reference: v for v in verdicts.get(claim.id, [])}
        first_citing: dict[str, Marker] = {}  # the claim's markers by key, found once
        for key in document.cited_keys(claim):
            citations += 1
            verdict = given.get(key)
            if verdict is not None and verdict.label is not VerdictLabel.UNCHECKED:
                checked += 1
                continue
            reason = _reason(verdict)
            if not first_citing:
                for i in claim.sentence.markers:
                    for cited in document.markers[i].keys:
                        first_citing.setdefault(cited, document.markers[i])
            marker = first_citing[key]
            detail = (verdict.detail or "") if verdict is not None else ""
            unchecked.append(UncheckedCitation(claim.id, key, reason, marker.start, marker.end, detail))
    for marker in _in_headings(document):  # counted too, so the numbers add up (issue 38)
        for key in dict.fromkeys(marker.keys):
            citations += 1
            unchecked.append(
                UncheckedCitation("", key, _heading_reason(document, key), marker.start, marker.end)
            )
    return Coverage(citations, checked, tuple(unchecked), offline)


def _in_headings(document: Document) -> list[Marker]:
    """The citation markers inside headings' titles (no sentence's)."""
    titles = SpanSet.of(document.layout.titles)
    return [m for m in document.markers if titles.overlaps(m.start, m.end)]


def _heading_reason(document: Document, key: str) -> NotChecked:
    """A heading's citation is never judged: for want of a sentence, or of its entry."""
    if key in document.work_by_key:
        return NotChecked.IN_HEADING
    if document.dialect.works_in_text:
        return NotChecked.NO_REFERENCE
    return NotChecked.NOT_IN_BIBLIOGRAPHY if document.works else NotChecked.NO_BIBLIOGRAPHY


def _reason(verdict: Verdict | None) -> NotChecked:
    if verdict is None or verdict.reason is None:
        return NotChecked.NO_JUDGE
    try:
        return NotChecked(verdict.reason)
    except ValueError:
        return NotChecked.UNREADABLE
