"""Findings about the sources themselves: dead links, identifiers that do not exist, sources with no
readable text, and sources that were not checked (a malformed link, a file outside the allowed
folders, the time budget run out, a server error, a refusal, a timeout, a connection reset or a
connection not opened) — each on its own reference, never stopping the rest.

Only a source that is gone (404/410, a soft 404, a host that does not exist) is a `dead_link`; a
network failure that says nothing about whether the page exists is an `unchecked_source` that
names what happened, and says when the last good copy is used instead. Offline, nothing is said
per source (the report says it once).

Whether a DOI exists and names the entry's work is the reference checks' to say (`truth.py`): a DOI
that doi.org does not know is reported here only when those checks could not decide."""

from __future__ import annotations

from datetime import UTC, datetime

from citedesk.core.document.model import Document
from citedesk.core.findings import Finding, Kind, Severity, make_finding
from citedesk.core.repair import remove_everywhere
from citedesk.sources.refcheck import CheckStatus, ReferenceCheck
from citedesk.sources.resolved import ResolvedSource, SourceStatus

_NOT_REACHED_NOW = (
    SourceStatus.SERVER_ERROR,
    SourceStatus.REFUSED,
    SourceStatus.TIMED_OUT,
    SourceStatus.RESET,
    SourceStatus.UNREACHABLE,
)
"""Sources not had now for a reason that says nothing about whether they exist."""


def source_findings(
    document: Document,
    sources: dict[str, ResolvedSource],
    checks: dict[str, ReferenceCheck] | None = None,
) -> list[Finding]:
    findings: list[Finding] = []
    decided = {k for k, c in (checks or {}).items() if c.status is not CheckStatus.NOT_CHECKED}
    for key, source in sources.items():
        span = _where(document, key)
        if span is None:
            continue
        name = document.label(key)
        where = source.location or "the source"
        details = {"location": source.location, "status": source.status.value}
        if source.status is SourceStatus.DEAD:
            fallback = _fallback(source)
            findings.append(
                make_finding(
                    Kind.DEAD_LINK,
                    span,
                    f"The source of {name} is gone ({source.message}); it may have moved or been taken "
                    f"down — this does not mean the citation is fabricated.{fallback}",
                    reference=key,
                    details={**details, "url": source.location},
                )
            )
        elif source.status is SourceStatus.NOT_FOUND and not (_has_doi(document, key) and key in decided):
            removal = remove_everywhere(document, key)
            findings.append(
                make_finding(
                    Kind.FABRICATED_REFERENCE,
                    span,
                    f"Reference {name} names {where}, which does not exist: {source.message}.",
                    reference=key,
                    fixes=(removal,) if removal else (),
                    details=details,
                )
            )
        elif source.status is SourceStatus.INVALID_LINK:
            findings.append(
                make_finding(
                    Kind.UNCHECKED_SOURCE,
                    span,
                    f"The link of {name} is not a valid web address: {source.message}. Its source could "
                    "not be checked; correct the link.",
                    reference=key,
                    severity=Severity.WARNING,
                    details=details,
                )
            )
        elif source.status is SourceStatus.OUTSIDE:
            findings.append(
                make_finding(
                    Kind.UNCHECKED_SOURCE,
                    span,
                    f"The source of {name} was not read: {source.message}.",
                    reference=key,
                    details=details,
                )
            )
        elif source.status in _NOT_REACHED_NOW:
            findings.append(
                make_finding(
                    Kind.UNCHECKED_SOURCE,
                    span,
                    _not_reached_now(name, source),
                    reference=key,
                    details={**details, "url": source.location, "detail": source.detail or None},
                )
            )
        elif source.status is SourceStatus.NOT_CHECKED:
            findings.append(
                make_finding(
                    Kind.UNCHECKED_SOURCE,
                    span,
                    f"The source of {name} was not checked: the time budget for sources ran out before "
                    f"it was.{_fallback(source)}",
                    reference=key,
                    details=details,
                )
            )
        if source.status is SourceStatus.UNREADABLE:
            findings.append(
                make_finding(
                    Kind.UNREADABLE_SOURCE,
                    span,
                    f"The source of {name} was reached but has no text CiteDesk can check: {source.message}. "
                    "Attach a copy (a PDF or text file) to check it.",
                    reference=key,
                    details=details,
                )
            )
    return findings


def _not_reached_now(name: str, source: ResolvedSource) -> str:
    """`The source of [1] was not checked: server error (HTTP 500). This says nothing about whether
    the page exists; …`, or, with a saved copy, that it could not be fetched again and which copy
    is used. The fetch's message names what happened (and the limit that fired)."""
    if source.from_cache and source.fetched_at:
        return (
            f"The source of {name} could not be fetched again: {source.message}. This says nothing "
            f"about whether the page still exists.{_fallback(source)}"
        )
    return (
        f"The source of {name} was not checked: {source.message}. This says nothing about whether the "
        "page exists; try again later, or attach a copy."
    )


def waits_for_truth(document: Document, key: str, source: ResolvedSource) -> bool:
    """Whether this source's finding waits for the reference checks: a DOI doi.org does not know is
    theirs to report (a fabricated reference only when they could not decide). The audit publishes
    every other source finding before those checks run."""
    return source.status is SourceStatus.NOT_FOUND and _has_doi(document, key)


def _has_doi(document: Document, key: str) -> bool:
    work = document.work_by_key.get(key)
    return work is not None and bool(work.doi)


def _fallback(source: ResolvedSource) -> str:
    """The sentence saying which saved copy is used in place of a source not reached now."""
    if not (source.from_cache and source.fetched_at):
        return ""
    day = datetime.fromtimestamp(source.fetched_at, UTC).strftime("%Y-%m-%d")
    return f" CiteDesk is using the copy it saved on {day}."


def _where(document: Document, key: str) -> tuple[int, int] | None:
    """Where a finding about `key`'s source goes: its entry in the reference list, or — for a
    bibliography entry, which is not in the text — its first citation."""
    if document.dialect.works_in_text:
        entry = document.entry_by_key.get(key)
        return (entry.start, entry.end) if entry is not None else None
    citing = document.markers_citing.get(key)
    if not citing:
        return None
    return document.markers[citing[0]].span_of(key)
