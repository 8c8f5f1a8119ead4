"""Reference truth in an audit: each cited work checked against the indexes, and what that means for it.

`check_entries` runs `refcheck.check_references` with the store as its cache and its retraction
snapshot (`store.lookups()`); `truth_findings` turns the checks into findings (`check_findings`:
one check); `truthwords.truth_summary` into the typed record each source's summary carries
(`SourceSummary.check`).

One model for every cited work, whether it is an entry of the document's own reference list or of
a bibliography kept elsewhere: the same check makes the same finding, told by the same message
(`truthwords`). The document's dialect says which it is (`works_in_text`) and how its key is
written (`[3]`, `@ding2014`); that decides only where a finding goes and how the writer corrects
the work (`_Cited`):

| check | finding | where | fix (a list entry) / shown (a bibliography entry) |
|---|---|---|---|
| retracted or withdrawn (its standing notice) | `retracted` (error): the notice's DOI, date and link | the list entry; every citation | — |
| expression of concern | `expression_of_concern` (warning), same detail | the list entry; every citation | — |
| correction | `correction` (info), same detail | the list entry, else the first citation | — |
| `metadata_error` | `metadata_error` (warning), one per field: both values | the wrong value in the entry / the first citation | correct it in the entry / the field corrected, in its file and line |
| `different_work` | `doi_mismatch` (error): the work the DOI names | the entry / the first citation | the DOI the title finds, when confident |
| `unregistered` | `fabricated_reference` (error): the DOI resolves nowhere | the entry / the first citation | the DOI the title finds; remove it (every citation) |
| `found_by_title` | `found_by_title` (info) | the entry / the first citation | add its DOI / `doi = {…}` to add to the entry |
| `possible_match` | `possible_match` (info): which work, and why it is not confirmed | the entry / the first citation | — (check the entry) |
| `not_found` | `not_found` (warning): check that it exists — never "fabricated" | the entry / the first citation | — |
| `not_checked` | none (offline, unreachable, out of time: never a finding) | | |

Every fix to a list entry edits the entry only (`operations.EditReference`), so the prose stays
identical; fixes go through the checked plan like every other.

A pandoc document has no reference list: what is checked are the bibliography entries it cites
(`entries_to_check`: uncited entries of a reference manager's library are not the writer's
problem, and would cost look-ups), their parsed fields compared with the records. A bibliography
entry has no place in the document, and the bibliography file is never edited (issues 19 and 20:
"for a bibliography file, the fix is shown, not applied"): its findings stand on the citations of
its key, and where a correction is known it is shown — the file, the entry's line, the field as
that format writes it (`year = {2014}`, `"DOI": "10.…"`, `PY  - 2014`). The one fix offered edits
the document: a DOI registered nowhere may have every citation of its key removed. A citation is
the cited item when its group cites several keys (`@b` of `[@a; @b]`), else the whole group.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from citedesk.core.bibliographies.model import BibFormat, field_name, format_for, written_field
from citedesk.core.document.entries import entry_body_start
from citedesk.core.document.model import Document
from citedesk.core.document.references import Reference
from citedesk.core.document.works import BibReference, CitedEntry
from citedesk.core.findings import Finding, Fix, Kind, make_finding
from citedesk.core.formats import format_of
from citedesk.core.operations import EditReference
from citedesk.core.repair import make_fix, remove_everywhere
from citedesk.core.reports.summaries import RetractionSummary
from citedesk.sources.fetch import FetchPolicy
from citedesk.sources.indexes import LookupConfig
from citedesk.sources.matching import Difference
from citedesk.sources.mirror import MIRROR_NAMES, StoredMirror
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
    citing_words,
    found_by_title_words,
    metadata_words,
    not_found_words,
    notice_details,
    notice_kind,
    possible_match_words,
    record,
    standing_words,
    wrong_doi_words,
)
from citedesk.store import SnapshotInfo, Store

OUT_OF_TIME = "not checked: the time budget ran out"


@dataclass(frozen=True)
class TruthResult:
    checks: dict[str, ReferenceCheck]
    snapshot: SnapshotInfo | None
    """The retraction snapshot in the store (None: none was ever imported)."""
    mirror: str | None = None
    """The local index mirror the checks asked first (`the local Crossref mirror (imported …)`),
    None when no snapshot of works was imported."""
    offline: bool = False

    def mirror_notice(self) -> str | None:
        """What the report says when the mirror decided some checks (None when it decided none):
        how many, and that what it does not hold was asked of the network, or, offline, not looked up."""
        decided = sum(1 for c in self.checks.values() if c.source in MIRROR_NAMES)
        if self.mirror is None or not decided:
            return None
        rest = (
            "the others were not looked up (offline; the mirror is a subset, so they are not called missing)"
            if self.offline
            else "the others were asked of the indexes"
        )
        return (
            f"{decided} of {len(self.checks)} references were checked against {self.mirror}, without "
            f"asking the network; {rest}."
            if decided < len(self.checks)
            else f"Every reference ({decided}) was checked against {self.mirror}, without asking the network."
        )

    def ran_out(self) -> TruthResult:
        """The same, the look-ups the time budget cut short saying so (not "cancelled")."""
        checks = {
            key: replace(check, message=OUT_OF_TIME)
            if check.status is CheckStatus.NOT_CHECKED and "cancelled" in check.message
            else check
            for key, check in self.checks.items()
        }
        return replace(self, checks=checks)

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
    list; of a pandoc or LaTeX document's bibliography, the entries its citations cite (in citation
    order), then those it lists without citing (`nocite`): they are printed in its bibliography."""
    if document.dialect.works_in_text:
        return list(document.entries)
    works = document.work_by_key
    keys = dict.fromkeys([*document.markers_citing, *document.dialect.listed(document)])
    return [works[key] for key in keys if key in works]


def check_entries(
    references: Sequence[CitedEntry],
    config: LookupConfig,
    store: Store,
    *,
    fetch_policy: FetchPolicy,
    cancelled: Callable[[], bool] = lambda: False,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> TruthResult:
    """Check every entry with a DOI or no identifier; answers are cached in the store, whose index
    mirror (works imported from a Crossref or OpenAlex snapshot), if any, is asked first."""
    with store.lookups() as tables:
        mirror = StoredMirror.of(tables)
        checks = check_references(
            references,
            config,
            cache=tables,
            retractions=StoredRetractions(tables),
            mirror=mirror,
            fetch_policy=fetch_policy,
            cancelled=cancelled,
            progress=progress,
        )
        described = mirror.describe() if mirror is not None else None
        return TruthResult(checks, tables.snapshot(), described, config.offline)


# findings: one model for every cited work ---------------------------------------------------------
def truth_findings(document: Document, checks: dict[str, ReferenceCheck]) -> list[Finding]:
    """The findings the checks make, key by key (`check_findings`)."""
    return [finding for key, check in checks.items() for finding in check_findings(document, key, check)]


def check_findings(document: Document, key: str, check: ReferenceCheck) -> list[Finding]:
    """The findings one index check makes about the work `key` names, whichever kind of work it
    is (an entry of the document's list; a bibliography entry it cites): those of its status, then
    those of its standing notice. A key the document has no such work for makes none."""
    cited = _cited(document, key)
    if cited is None:
        return []
    return [*_status_findings(cited, check), *_notice_findings(cited, check)]


def _cited(document: Document, key: str) -> _Cited | None:
    citing = document.markers_citing.get(key, ())
    if document.dialect.works_in_text:
        entry = document.references.by_key().get(key)
        return _InList(document, key, citing, entry) if entry is not None else None
    work = document.work_by_key.get(key)
    if not isinstance(work, BibReference):
        return None
    if citing:
        return _InBibliography(document, key, citing, work)
    listed = document.dialect.listed(document).get(key)  # nocite: told on the key where it is listed
    return _InBibliography(document, key, (), work, listed) if listed is not None else None


def _status_findings(cited: _Cited, check: ReferenceCheck) -> list[Finding]:
    name, status, place = cited.label, check.status, cited.place
    details: dict[str, object] = {
        "status": status.value,
        "doi": check.doi,
        "index": check.source or None,
        **cited.where(),
    }
    if status is CheckStatus.METADATA_ERROR:
        return [_metadata_finding(cited, check, d, details) for d in check.differences]
    if status in (CheckStatus.DIFFERENT_WORK, CheckStatus.UNREGISTERED):
        shown = cited.shown("doi", check.suggestion_doi) if check.suggestion_doi else None
        unregistered = status is CheckStatus.UNREGISTERED
        return [
            make_finding(
                Kind.FABRICATED_REFERENCE if unregistered else Kind.DOI_MISMATCH,
                cited.span,
                wrong_doi_words(name, check, place, shown),
                reference=cited.key,
                fixes=cited.doi_fixes(check, remove=unregistered),
                details={
                    **details,
                    **({} if unregistered else {"record": record(check.work)}),
                    "suggested_doi": check.suggestion_doi,
                    **cited.correction(shown),
                },
            )
        ]
    if status is CheckStatus.FOUND_BY_TITLE and check.work is not None and check.suggestion_doi:
        shown = cited.shown("doi", check.suggestion_doi)
        return [
            make_finding(
                Kind.FOUND_BY_TITLE,
                cited.span,
                found_by_title_words(name, check, check.work, place, shown),
                reference=cited.key,
                fixes=cited.add_doi(check.suggestion_doi),
                details={
                    **details,
                    "record": record(check.work),
                    "suggested_doi": check.suggestion_doi,
                    **cited.correction(shown),
                },
            )
        ]
    if status is CheckStatus.POSSIBLE_MATCH and check.work is not None:
        return [
            make_finding(
                Kind.POSSIBLE_MATCH,
                cited.span,
                possible_match_words(name, check, check.work, place),
                reference=cited.key,
                details={**details, "record": record(check.work)},
            )
        ]
    if status is CheckStatus.NOT_FOUND:
        return [
            make_finding(
                Kind.NOT_FOUND,
                cited.span,
                not_found_words(name, check, place),
                reference=cited.key,
                details=details,
            )
        ]
    return []


def _metadata_finding(
    cited: _Cited, check: ReferenceCheck, difference: Difference, details: dict[str, object]
) -> Finding:
    span, fixes = cited.field_fix(difference)
    shown = cited.shown(difference.field, difference.actual)
    return make_finding(
        Kind.METADATA_ERROR,
        span,
        metadata_words(cited.label, check, difference, cited.place, shown),
        reference=cited.key,
        fixes=fixes,
        details={
            **details,
            "field": difference.field,
            "cited": difference.cited,
            "actual": difference.actual,
            **cited.correction(shown),
        },
    )


def _notice_findings(cited: _Cited, check: ReferenceCheck) -> list[Finding]:
    """A notice is told on the entry where the document has it, and on every citation of the work
    — but a correction, told once: on the entry, else on the first citation."""
    notice = check.standing
    kind = notice_kind(notice) if notice is not None else None
    if notice is None or kind is None:
        return []
    details = {**notice_details(check, notice), **cited.where()}
    found: list[Finding] = []
    if cited.entry_in_text or kind is Kind.CORRECTION or not cited.citing:
        found.append(
            make_finding(
                kind, cited.span, standing_words(cited.label, notice), reference=cited.key, details=details
            )
        )
    if kind is Kind.CORRECTION:
        return found
    for index in cited.citing:
        claim = cited.document.claim_by_marker.get(index)
        found.append(
            make_finding(
                kind,
                cited.citation(index),
                citing_words(cited.label, notice),
                reference=cited.key,
                claim_id=claim.id if claim is not None else None,
                details=details,
            )
        )
    return found


# where a cited work is, and how the writer corrects it ----------------------------------------------
@dataclass(frozen=True)
class _Cited:
    """A cited work as its findings need it: where they go, how its key is written, and how the
    writer corrects it — by a fix to the document (a list entry), or a correction shown in the
    bibliography file (`place`), which is never edited."""

    document: Document
    key: str
    citing: tuple[int, ...]
    """The markers (citation groups) citing its key, in document order."""

    entry_in_text: ClassVar[bool] = False

    @property
    def label(self) -> str:
        return self.document.label(self.key)

    @property
    def span(self) -> tuple[int, int]:
        """Where a finding about the work goes: its entry, else its first citation."""
        return self.citation(self.citing[0])

    def citation(self, index: int) -> tuple[int, int]:
        """The citation of the key in marker `index`: its item in a group citing several keys."""
        return self.document.markers[index].span_of(self.key)

    @property
    def place(self) -> str | None:
        """Where the writer corrects the entry when that is not in the document (`refs.bib (line 12)`)."""
        return None

    def where(self) -> dict[str, object]:
        return {}

    def shown(self, field: str, value: str) -> str | None:
        """`value` in `field` as the writer should set it where `place` says (None: a fix is offered)."""
        return None

    def correction(self, shown: str | None) -> dict[str, object]:
        return {"correction": shown} if self.place is not None else {}

    def doi_fixes(self, check: ReferenceCheck, *, remove: bool) -> tuple[Fix, ...]:
        """For a DOI that names another work or none, the fixes to the document: for one that
        resolves nowhere, removing the work and every citation of it."""
        fix = remove_everywhere(self.document, self.key) if remove else None
        return (fix,) if fix else ()

    def add_doi(self, doi: str) -> tuple[Fix, ...]:
        return ()

    def field_fix(self, difference: Difference) -> tuple[tuple[int, int], tuple[Fix, ...]]:
        """Where a wrong field is found, and the fix correcting it."""
        return self.span, ()


@dataclass(frozen=True)
class _InList(_Cited):
    """An entry of the document's own reference list: findings stand on it, fixes edit it only."""

    entry: Reference
    entry_in_text: ClassVar[bool] = True

    @property
    def span(self) -> tuple[int, int]:
        return self.entry.start, self.entry.end

    def citation(self, index: int) -> tuple[int, int]:
        marker = self.document.markers[index]
        return marker.start, marker.end

    def doi_fixes(self, check: ReferenceCheck, *, remove: bool) -> tuple[Fix, ...]:
        """ "Use doi:…" when the entry's title finds its work (first: the least change), then the
        removal."""
        fixes: list[Fix] = []
        if check.suggestion_doi and check.doi:
            edit = _doi_swap(self.document.text, self.entry, check.doi, check.suggestion_doi)
            if edit is not None:
                fix = make_fix(
                    f"Use doi:{check.suggestion_doi} (found by the entry's title)", self.document, [edit]
                )
                if fix is not None:
                    fixes.append(fix)
        return (*fixes, *super().doi_fixes(check, remove=remove))

    def add_doi(self, doi: str) -> tuple[Fix, ...]:
        fix = make_fix(
            f"Add doi:{doi}", self.document, [_edit(doi_edit(self.document.text, self.entry, doi))]
        )
        return (fix,) if fix else ()

    def field_fix(self, difference: Difference) -> tuple[tuple[int, int], tuple[Fix, ...]]:
        body = replace(self.entry, start=entry_body_start(self.document.text, self.entry))
        placed = field_edit(self.document.text, body, difference)
        if placed is None:
            return self.span, ()
        fix = make_fix(placed.title, self.document, [_edit(placed)])
        span = (placed.start, placed.end) if placed.end > placed.start else self.span
        return span, (fix,) if fix else ()


def _doi_swap(text: str, entry: Reference, old: str, new: str) -> EditReference | None:
    """Replace the entry's DOI (in a doi.org link, `doi:` or bare) with `new`."""
    body_start = entry_body_start(text, entry)
    found = re.search(re.escape(old), text[body_start : entry.end], re.IGNORECASE)
    if found is None:
        return None
    return EditReference(body_start + found.start(), body_start + found.end(), new)


def _edit(edit: EntryEdit) -> EditReference:
    return EditReference(edit.start, edit.end, edit.replacement)


_FRONT_MATTER = "the document's front matter"
_WORD_FIELDS = "Zotero or Mendeley (then refresh the document's citations in Word)"
"""Where a Word document's reference is corrected: its fields hold a copy of the reference
manager's item, which the next refresh writes over."""


@dataclass(frozen=True)
class _InBibliography(_Cited):
    """An entry of a bibliography kept elsewhere: findings stand on its citations, corrections are
    shown in its file."""

    work: BibReference
    listed_at: tuple[int, int] | None = None
    """Where the document lists the work without citing it (its `nocite` key), when it does not cite it."""

    @property
    def span(self) -> tuple[int, int]:
        if not self.citing and self.listed_at is not None:
            return self.listed_at
        return super().span

    @property
    def in_front_matter(self) -> bool:
        """Whether the entry is in the document's own front matter (`references:`)."""
        source, path = self.work.source, self.document.path
        if source == _FRONT_MATTER:
            return True
        return source is not None and path is not None and os.path.realpath(source) == os.path.realpath(path)

    @property
    def in_word_fields(self) -> bool:
        """Whether the entry is an item of a Word document's citation fields (its view's front matter):
        the writer corrects it in the reference manager, not in the document."""
        return self.in_front_matter and not format_of(self.document.path).editable

    @property
    def format(self) -> BibFormat | None:
        if self.in_front_matter:
            return BibFormat.CSL_YAML
        return format_for(self.work.source) if self.work.source else None

    @property
    def file(self) -> str:
        """The bibliography as the writer knows it: its path from the document's folder when it
        lies there, else as it was named."""
        if self.in_word_fields:
            return _WORD_FIELDS
        if self.in_front_matter:
            return _FRONT_MATTER
        source = self.work.source
        if not source:
            return "the bibliography"
        if self.document.path:
            folder = os.path.dirname(os.path.abspath(self.document.path))
            try:
                relative = os.path.relpath(os.path.abspath(source), folder)
            except ValueError:  # another drive (Windows)
                return source
            if not relative.startswith(os.pardir + os.sep) and relative != os.pardir:
                return relative
        return source

    @property
    def line(self) -> int | None:
        line = self.work.entry.line
        if line is None or self.in_word_fields:  # a line of the view, which the writer never sees
            return None
        return line + 1 if self.in_front_matter else line  # the block starts after its `---` line

    @property
    def place(self) -> str:
        """`refs.bib (line 12)`: where the entry is."""
        return f"{self.file} (line {self.line})" if self.line else self.file

    def where(self) -> dict[str, object]:
        return {"bibliography": self.file, "line": self.line}

    def shown(self, field: str, value: str) -> str:
        entry_type = self.work.entry.entry_type
        if field == "first_author":
            return f"the first author in {field_name(self.format, field, entry_type)} “{value}”"
        return written_field(self.format, field, value, entry_type)
