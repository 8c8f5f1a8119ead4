"""Reference truth in an audit: each entry checked against the indexes, and what that means for it.

`check_entries` runs `refcheck.check_references` with the store as its cache and its retraction
snapshot (`store.lookups()`); `truth_findings` turns the checks into findings;
`truthwords.truth_summary` into the typed record each source's summary carries
(`SourceSummary.check`).

| check | finding | where | fix |
|---|---|---|---|
| retracted or withdrawn (its standing notice) | `retracted` (error): the notice's DOI, date and link | the entry and every marker citing it | — |
| expression of concern | `expression_of_concern` (warning), same detail | the entry and every marker citing it | — |
| correction | `correction` (info), same detail | the entry | — |
| `metadata_error` | `metadata_error` (warning), one per field: both values | the wrong value in the entry | correct it in the entry |
| `different_work` | `doi_mismatch` (error): the work the DOI names | the entry | the DOI the title finds, when confident |
| `unregistered` | `fabricated_reference` (error): the DOI resolves nowhere | the entry | the DOI the title finds; remove it |
| `found_by_title` | `found_by_title` (info) | the entry | add its DOI |
| `possible_match` | `possible_match` (info): which work, and why it is not confirmed | the entry | — |
| `not_found` | `not_found` (warning): check that it exists — never "fabricated" | the entry | — |
| `not_checked` | none (offline, unreachable, out of time: never a finding) | | |

Every fix edits the reference entry only (`repair.EditReference`), so the prose stays identical;
fixes go through the checked plan like every other.

A pandoc document has no reference list: what is checked are the bibliography entries it cites
(`entries_to_check`: uncited entries of a reference manager's library are not the writer's
problem, and would cost look-ups), their parsed fields compared with the records; the findings
are placed on the citations and told in the bibliography's terms by `bibtruth.py`, where a
correction is shown — the file, the line, the field — and never applied to the bibliography.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from citedesk.core.document import Document
from citedesk.core.entries import entry_body_start
from citedesk.core.findings import Finding, Fix, Kind, make_finding
from citedesk.core.references import Reference
from citedesk.core.repair import (
    EditReference,
    make_fix,
    remove_everywhere,
)
from citedesk.core.summaries import RetractionSummary
from citedesk.core.works import CitedEntry
from citedesk.sources.bibtruth import bibliography_findings
from citedesk.sources.fetch import FetchPolicy
from citedesk.sources.indexes import LookupConfig
from citedesk.sources.matching import Difference
from citedesk.sources.refcheck import (
    CheckStatus,
    EntryEdit,
    ReferenceCheck,
    check_references,
    doi_edit,
    field_edit,
)
from citedesk.sources.retractions import StoredRetractions, snapshot_age_days
from citedesk.sources.truthwords import (
    also,
    byline,
    index_name,
    notice_details,
    notice_kind,
    notice_words,
    offer,
    record,
    standing_verb,
)
from citedesk.store import SnapshotInfo, Store

OUT_OF_TIME = "not checked: the time budget ran out"


@dataclass(frozen=True)
class TruthResult:
    checks: dict[str, ReferenceCheck]
    snapshot: SnapshotInfo | None
    """The retraction snapshot in the store (None: none was ever imported)."""

    def ran_out(self) -> TruthResult:
        """The same, the look-ups the time budget cut short saying so (not "cancelled")."""
        checks = {
            key: replace(check, message=OUT_OF_TIME)
            if check.status is CheckStatus.NOT_CHECKED and "cancelled" in check.message
            else check
            for key, check in self.checks.items()
        }
        return TruthResult(checks, self.snapshot)

    def reached_no_index(self) -> bool:
        """Some look-up was tried, and no index could be reached for any entry, nor answered from
        the store: the machine seems to be offline, so Crossref and OpenAlex were not asked."""
        checks = list(self.checks.values())
        return any(c.unreachable for c in checks) and all(
            c.unreachable or (c.status is CheckStatus.NOT_CHECKED and not c.from_cache) for c in checks
        )


def retraction_summary(
    truth: TruthResult, *, offline: bool, now: float | None = None
) -> RetractionSummary | None:
    """Where the audit's retraction knowledge came from and how old the snapshot is, when the
    document cites DOIs (None otherwise)."""
    if not any(check.doi for check in truth.checks.values()):
        return None
    info = truth.snapshot
    if info is None:
        return RetractionSummary(offline)
    return RetractionSummary(
        offline,
        info.imported_at,
        info.newest,
        snapshot_age_days(info, time.time() if now is None else now),
    )


def entries_to_check(document: Document) -> list[CitedEntry]:
    """The entries whose truth an audit checks: every entry of a numbered document's reference
    list; of a pandoc document's bibliography, the entries its citations cite (in citation order)."""
    if document.dialect.works_in_text:
        return list(document.entries)
    works = document.work_by_key
    return [works[key] for key in document.markers_citing if key in works]


def check_entries(
    references: Sequence[CitedEntry],
    config: LookupConfig,
    store: Store,
    *,
    fetch_policy: FetchPolicy,
    cancelled: Callable[[], bool] = lambda: False,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> TruthResult:
    """Check every entry with a DOI or no identifier; answers are cached in the store."""
    with store.lookups() as tables:
        checks = check_references(
            references,
            config,
            cache=tables,
            retractions=StoredRetractions(tables),
            fetch_policy=fetch_policy,
            cancelled=cancelled,
            progress=progress,
        )
        return TruthResult(checks, tables.snapshot())


# findings ----------------------------------------------------------------------------------------
def truth_findings(document: Document, checks: dict[str, ReferenceCheck]) -> list[Finding]:
    if not document.dialect.works_in_text:
        return bibliography_findings(document, checks)
    entries = document.references.by_key()
    findings: list[Finding] = []
    for key, check in checks.items():
        entry = entries.get(key)
        if entry is None:
            continue
        findings.extend(_status_findings(document, entry, check))
        findings.extend(_notice_findings(document, entry, check))
    return findings


def _status_findings(document: Document, entry: Reference, check: ReferenceCheck) -> list[Finding]:
    key, span, name = entry.key, (entry.start, entry.end), document.label(entry.key)
    index = index_name(check)
    details = {"status": check.status.value, "doi": check.doi, "index": check.source or None}
    status = check.status
    if status is CheckStatus.METADATA_ERROR:
        return [_metadata_finding(document, entry, check, d) for d in check.differences]
    if status is CheckStatus.DIFFERENT_WORK:
        work = f"“{check.work.title}” ({byline(check.work)})" if check.work else "another work"
        return [
            make_finding(
                Kind.DOI_MISMATCH,
                span,
                f"The DOI of {name} (doi:{check.doi}) is {work} in {index}, not the work the entry "
                f"describes{offer(check)}.",
                reference=key,
                fixes=_fixes(document, entry, check, remove=False),
                details={**details, "record": record(check.work), "suggested_doi": check.suggestion_doi},
            )
        ]
    if status is CheckStatus.UNREGISTERED:
        return [
            make_finding(
                Kind.FABRICATED_REFERENCE,
                span,
                f"The DOI of {name} (doi:{check.doi}) is registered nowhere: neither Crossref nor doi.org "
                f"knows it{offer(check)}.",
                reference=key,
                fixes=_fixes(document, entry, check, remove=True),
                details={**details, "suggested_doi": check.suggestion_doi},
            )
        ]
    if status is CheckStatus.FOUND_BY_TITLE and check.work is not None and check.suggestion_doi:
        fix = make_fix(
            f"Add doi:{check.suggestion_doi}",
            document,
            [_edit(doi_edit(document.text, entry, check.suggestion_doi))],
        )
        return [
            make_finding(
                Kind.FOUND_BY_TITLE,
                span,
                f"{index} knows {name} as doi:{check.suggestion_doi} — “{check.work.title}” "
                f"({byline(check.work)}){also(check)}. Adding the DOI lets readers and checks find it.",
                reference=key,
                fixes=(fix,) if fix else (),
                details={**details, "record": record(check.work), "suggested_doi": check.suggestion_doi},
            )
        ]
    if status is CheckStatus.POSSIBLE_MATCH and check.work is not None:
        return [
            make_finding(
                Kind.POSSIBLE_MATCH,
                span,
                f"{index} has a work with a similar title — “{check.work.title}” ({byline(check.work)}"
                f"{', doi:' + check.work.doi if check.work.doi else ''}) — but its authors or year do not "
                f"confirm that it is the work {name} describes; check the entry.",
                reference=key,
                details={**details, "record": record(check.work)},
            )
        ]
    if status is CheckStatus.NOT_FOUND:
        return [
            make_finding(
                Kind.NOT_FOUND,
                span,
                f"No index knows {name}: {check.message}. This does not mean it is fabricated: books, "
                "reports and very recent work are often missing.",
                reference=key,
                details=details,
            )
        ]
    return []


def _metadata_finding(
    document: Document, entry: Reference, check: ReferenceCheck, difference: Difference
) -> Finding:
    body = replace(entry, start=entry_body_start(document.text, entry))
    placed = field_edit(document.text, body, difference)
    fix = make_fix(placed.title, document, [_edit(placed)]) if placed is not None else None
    index = index_name(check)
    where = f"doi:{check.doi}" if check.doi else "the work"
    return make_finding(
        Kind.METADATA_ERROR,
        (placed.start, placed.end)
        if placed is not None and placed.end > placed.start
        else (entry.start, entry.end),
        f"{document.label(entry.key)} gives the {difference.label} as “{difference.cited}”, but {index}'s record of "
        f"{where} says “{difference.actual}”.",
        reference=entry.key,
        fixes=(fix,) if fix else (),
        details={
            "status": check.status.value,
            "doi": check.doi,
            "index": check.source or None,
            "field": difference.field,
            "cited": difference.cited,
            "actual": difference.actual,
        },
    )


def _fixes(document: Document, entry: Reference, check: ReferenceCheck, *, remove: bool) -> tuple[Fix, ...]:
    """ "Use doi:…" when the entry's title finds its work (first: the least change), then, for a DOI
    that resolves nowhere, removing the reference and its citations."""
    fixes: list[Fix] = []
    if check.suggestion_doi and check.doi:
        edit = _doi_swap(document.text, entry, check.doi, check.suggestion_doi)
        if edit is not None:
            fix = make_fix(f"Use doi:{check.suggestion_doi} (found by the entry's title)", document, [edit])
            if fix is not None:
                fixes.append(fix)
    if remove:
        fix = remove_everywhere(document, entry.key)
        if fix is not None:
            fixes.append(fix)
    return tuple(fixes)


def _doi_swap(text: str, entry: Reference, old: str, new: str) -> EditReference | None:
    """Replace the entry's DOI (in a doi.org link, `doi:` or bare) with `new`."""
    body_start = entry_body_start(text, entry)
    found = re.search(re.escape(old), text[body_start : entry.end], re.IGNORECASE)
    if found is None:
        return None
    return EditReference(body_start + found.start(), body_start + found.end(), new)


def _edit(edit: EntryEdit) -> EditReference:
    return EditReference(edit.start, edit.end, edit.replacement)


def _notice_findings(document: Document, entry: Reference, check: ReferenceCheck) -> list[Finding]:
    notice = check.standing
    kind = notice_kind(notice) if notice is not None else None
    if notice is None or kind is None:
        return []
    name = document.label(entry.key)
    told = notice_words(notice)
    details = notice_details(check, notice)
    found = [
        make_finding(
            kind,
            (entry.start, entry.end),
            f"{name} {standing_verb(notice)}: {told}.",
            reference=entry.key,
            details=details,
        )
    ]
    if kind is Kind.CORRECTION:
        return found
    for index in document.markers_citing.get(entry.key, ()):
        marker = document.markers[index]
        claim = document.claim_by_marker.get(index)
        found.append(
            make_finding(
                kind,
                (marker.start, marker.end),
                f"This sentence cites {name}, which {standing_verb(notice)}: {told}.",
                reference=entry.key,
                claim_id=claim.id if claim is not None else None,
                details=details,
            )
        )
    return found


# words ---------------------------------------------------------------------------------------------------
