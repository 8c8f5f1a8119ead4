"""Why a citation was not checked — a reference's source with no text to check against, no such
reference, no judge — in the words coverage reports use; and one verdict for every citation.

A source not had for a network reason says which, with its figure: gone (`source gone (HTTP
404)`), a server error (`server error (HTTP 500)`), a refusal (`refused by the server (HTTP
403)`), a timeout (`timed out after 20 s`), a connection reset, a connection not opened (`source
unreachable`), offline."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from citedesk.core.coverage import NotChecked
from citedesk.core.document.model import Document
from citedesk.core.findings import Verdict, VerdictLabel
from citedesk.sources.resolved import ResolvedSource, SourceStatus

_BY_STATUS = {
    SourceStatus.OFFLINE: NotChecked.OFFLINE,
    SourceStatus.DEAD: NotChecked.GONE,
    SourceStatus.SERVER_ERROR: NotChecked.SERVER_ERROR,
    SourceStatus.REFUSED: NotChecked.REFUSED,
    SourceStatus.TIMED_OUT: NotChecked.TIMED_OUT,
    SourceStatus.RESET: NotChecked.RESET,
    SourceStatus.UNREACHABLE: NotChecked.UNREACHABLE,
    SourceStatus.NOT_FOUND: NotChecked.NO_SUCH_WORK,
    SourceStatus.BLOCKED: NotChecked.BLOCKED,
    SourceStatus.UNLOCATED: NotChecked.NO_SOURCE,
    SourceStatus.INVALID_LINK: NotChecked.INVALID_LINK,
    SourceStatus.OUTSIDE: NotChecked.NOT_ALLOWED,
    SourceStatus.NOT_CHECKED: NotChecked.OUT_OF_TIME,
}


class Why(NamedTuple):
    """Why a citation is not checked, and the figure that goes with it (`HTTP 500`, `after 20 s`)."""

    reason: NotChecked
    detail: str = ""


def why_not_checked(source: ResolvedSource) -> NotChecked:
    """The reason a citation of this (unusable) source is not checked."""
    if source.status is SourceStatus.UNREADABLE:
        message = source.message.lower()
        if "no text layer" in message or ("scan" in message and "pdf" in message):
            return NotChecked.SCANNED
        if any(word in message for word in ("paywall", "login", "log in", "sign in", "web page")):
            return NotChecked.PAYWALL
        return NotChecked.UNREADABLE
    return _BY_STATUS.get(source.status, NotChecked.UNREADABLE)


_PDF = "unreadable PDF: "


def why_not_checked_in(
    document: Document, resolved: dict[str, ResolvedSource] | None, out_of_time: bool = False
) -> Callable[[str], Why]:
    """Why a citation of `key` got no verdict: no such reference, sources not looked at, a source
    with no text (and why, with its figure), or no judge."""
    entries = document.work_by_key

    def why(key: str) -> Why:
        if key not in entries:
            if document.dialect.works_in_text:
                return Why(NotChecked.NO_REFERENCE)
            return Why(NotChecked.NOT_IN_BIBLIOGRAPHY if document.works else NotChecked.NO_BIBLIOGRAPHY)
        if resolved is None:
            return Why(NotChecked.SOURCES_OFF)
        source = resolved.get(key)
        if source is not None and not source.usable:
            reason = why_not_checked(source)
            if reason is NotChecked.UNREADABLE and not source.detail and source.message.startswith(_PDF):
                return Why(reason, "PDF: " + source.message.removeprefix(_PDF))  # which PDF problem
            return Why(reason, source.detail)
        return Why(NotChecked.OUT_OF_TIME if out_of_time else NotChecked.NO_JUDGE)

    return why


def every_citation(
    document: Document, verdicts: dict[str, list[Verdict]], why: Callable[[str], Why]
) -> dict[str, list[Verdict]]:
    """One verdict per citation, in the order the sentence cites: a judged one, or an `unchecked`
    one that says why (so the report accounts for every citation)."""
    complete: dict[str, list[Verdict]] = {}
    for claim in document.claims:
        given = {v.reference: v for v in verdicts.get(claim.id, [])}
        keys = document.cited_keys(claim)
        if not keys:
            continue
        complete[claim.id] = [given.get(key) or _unchecked(key, why(key)) for key in keys]
    return complete


def _unchecked(key: str, why: Why) -> Verdict:
    return Verdict(key, VerdictLabel.UNCHECKED, 0.0, None, reason=why.reason.value, detail=why.detail or None)
