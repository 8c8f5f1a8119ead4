"""Why a citation was not checked — a reference's source with no text to check against, no such
reference, no judge — in the words coverage reports use; and one verdict for every citation."""

from __future__ import annotations

from collections.abc import Callable

from citedesk.core.coverage import NotChecked
from citedesk.core.document import Document
from citedesk.core.findings import Verdict, VerdictLabel
from citedesk.sources.gather import ResolvedSource, SourceStatus

_BY_STATUS = {
    SourceStatus.OFFLINE: NotChecked.OFFLINE,
    SourceStatus.DEAD: NotChecked.UNREACHABLE,
    SourceStatus.NOT_FOUND: NotChecked.NO_SUCH_WORK,
    SourceStatus.BLOCKED: NotChecked.BLOCKED,
    SourceStatus.UNLOCATED: NotChecked.NO_SOURCE,
    SourceStatus.INVALID_LINK: NotChecked.INVALID_LINK,
    SourceStatus.OUTSIDE: NotChecked.NOT_ALLOWED,
    SourceStatus.NOT_CHECKED: NotChecked.OUT_OF_TIME,
}


def why_not_checked(source: ResolvedSource) -> NotChecked:
    """The reason a citation of this (unusable) source is not checked."""
    if source.status is SourceStatus.UNREADABLE:
        message = source.message.lower()
        if "no text layer" in message or ("scan" in message and "pdf" in message):
            return NotChecked.SCANNED
        if any(word in message for word in ("paywall", "login", "log in", "sign in", "web page")):
            return NotChecked.PAYWALL
        return NotChecked.UNREADABLE
    if source.status is SourceStatus.DEAD and (
        "took too long" in source.message or "timed out" in source.message
    ):
        return NotChecked.TIMED_OUT
    return _BY_STATUS.get(source.status, NotChecked.UNREADABLE)


def why_not_checked_in(
    document: Document, resolved: dict[str, ResolvedSource] | None, out_of_time: bool = False
) -> Callable[[str], NotChecked]:
    """Why a citation of `key` got no verdict: no such reference, sources not looked at, a source
    with no text (and why), or no judge."""
    entries = document.work_by_key

    def why(key: str) -> NotChecked:
        if key not in entries:
            if not document.pandoc:
                return NotChecked.NO_REFERENCE
            return NotChecked.NOT_IN_BIBLIOGRAPHY if document.works else NotChecked.NO_BIBLIOGRAPHY
        if resolved is None:
            return NotChecked.SOURCES_OFF
        source = resolved.get(key)
        if source is not None and not source.usable:
            return why_not_checked(source)
        return NotChecked.OUT_OF_TIME if out_of_time else NotChecked.NO_JUDGE

    return why


def every_citation(
    document: Document, verdicts: dict[str, list[Verdict]], why: Callable[[str], NotChecked]
) -> dict[str, list[Verdict]]:
    """One verdict per citation, in the order the sentence cites: a judged one, or an `unchecked`
    one that says why (so the report accounts for every citation)."""
    complete: dict[str, list[Verdict]] = {}
    for claim in document.claims:
        given = {v.reference: v for v in verdicts.get(claim.id, [])}
        keys = document.cited_keys(claim)
        if not keys:
            continue
        complete[claim.id] = [
            given.get(key) or Verdict(key, VerdictLabel.UNCHECKED, 0.0, None, reason=why(key).value)
            for key in keys
        ]
    return complete
