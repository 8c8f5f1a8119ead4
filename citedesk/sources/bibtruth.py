"""Reference truth for a pandoc document: findings about the bibliography entries it cites, placed
on its citations and told in the bibliography's terms.

A bibliography entry has no place in the document, and the bibliography file is never edited
(issues 19 and 20: "for a bibliography file, the fix is shown, not applied"). So each finding
stands on the citations of the entry's key, names the key as the document writes it (`@ding2014`),
and where a correction is known it is shown — the file, the entry's line, the field as that format
writes it (`year = {2014}`, `"DOI": "10.…"`, `PY  - 2014`) — never offered as a fix:

| check | finding | where | shown or offered |
|---|---|---|---|
| retracted or withdrawn | `retracted` (error): the notice's DOI, date and link | every citation of the key | — |
| expression of concern | `expression_of_concern` (warning), same detail | every citation of the key | — |
| correction | `correction` (info), same detail | the first citation | — |
| `metadata_error` | `metadata_error` (warning), one per field: both values | the first citation | the field corrected, in its file and line |
| `different_work` | `doi_mismatch` (error): the work the DOI names | the first citation | the DOI the title finds, when confident |
| `unregistered` | `fabricated_reference` (error): the DOI resolves nowhere | the first citation | the DOI the title finds; fix: remove every citation |
| `found_by_title` | `found_by_title` (info) | the first citation | `doi = {…}` to add to the entry |
| `possible_match` | `possible_match` (info) | the first citation | — (check the entry) |
| `not_found` | `not_found` (warning): check that it exists — never "fabricated" | the first citation | — |

The one fix offered edits the document, not the bibliography: a DOI registered nowhere may have
every citation of its key removed (as `checks.py` offers for a source that does not exist).
A citation is the cited item when its group cites several keys (`@b` of `[@a; @b]`), else the
whole group.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from citedesk.core.bibliography import BibFormat, format_for
from citedesk.core.document import Document
from citedesk.core.findings import Finding, Kind, make_finding
from citedesk.core.repair import remove_everywhere
from citedesk.core.works import BibReference
from citedesk.sources.matching import Difference
from citedesk.sources.refcheck import CheckStatus, ReferenceCheck
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

_FRONT_MATTER = "the document's front matter"


def bibliography_findings(document: Document, checks: dict[str, ReferenceCheck]) -> list[Finding]:
    """The findings the checks of a pandoc document's cited entries make (keys it does not cite,
    or that no bibliography has, make none)."""
    works = document.work_by_key
    findings: list[Finding] = []
    for key, check in checks.items():
        work = works.get(key)
        citing = document.markers_citing.get(key, ())
        if not isinstance(work, BibReference) or not citing:
            continue
        cited = _Cited(document, work, citing)
        findings.extend(_status_findings(cited, check))
        findings.extend(_notice_findings(cited, check))
    return findings


@dataclass(frozen=True)
class _Cited:
    """A cited bibliography entry: where its citations are, and where the writer corrects it."""

    document: Document
    work: BibReference
    citing: tuple[int, ...]
    """The markers (citation groups) citing its key, in document order."""

    @property
    def key(self) -> str:
        return self.work.key

    @property
    def label(self) -> str:
        return self.document.label(self.work.key)

    def span(self, index: int) -> tuple[int, int]:
        """The citation of the key in marker `index`: its item in a group citing several keys."""
        return self.document.markers[index].span_of(self.key)

    @property
    def first(self) -> tuple[int, int]:
        return self.span(self.citing[0])

    @property
    def in_front_matter(self) -> bool:
        """Whether the entry is in the document's own front matter (`references:`)."""
        source, path = self.work.source, self.document.path
        if source == _FRONT_MATTER:
            return True
        return source is not None and path is not None and os.path.realpath(source) == os.path.realpath(path)

    @property
    def format(self) -> BibFormat | None:
        if self.in_front_matter:
            return BibFormat.CSL_YAML
        return format_for(self.work.source) if self.work.source else None

    @property
    def file(self) -> str:
        """The bibliography as the writer knows it: its path from the document's folder when it
        lies there, else as it was named."""
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
        if line is None:
            return None
        return line + 1 if self.in_front_matter else line  # the block starts after its `---` line

    @property
    def place(self) -> str:
        """`refs.bib (line 12)`: where the entry is."""
        return f"{self.file} (line {self.line})" if self.line else self.file

    def where(self) -> dict[str, object]:
        return {"bibliography": self.file, "line": self.line}

    def written(self, field: str, value: str) -> str:
        """`value` in `field` as the bibliography's format writes it: what the writer should set."""
        return _written(self.format, field, value, self.work.entry.entry_type)


# findings ------------------------------------------------------------------------------------------
def _status_findings(cited: _Cited, check: ReferenceCheck) -> list[Finding]:
    label, index, status = cited.label, index_name(check), check.status
    details: dict[str, object] = {
        "status": status.value,
        "doi": check.doi,
        "index": check.source or None,
        **cited.where(),
    }
    if status is CheckStatus.METADATA_ERROR:
        return [_metadata_finding(cited, check, d, details) for d in check.differences]
    if status in (CheckStatus.DIFFERENT_WORK, CheckStatus.UNREGISTERED):
        shown = cited.written("doi", check.suggestion_doi) if check.suggestion_doi else None
        correct = (
            f" Correct it in {cited.place}: {shown}."
            if shown
            else f" Correct or remove the DOI of the entry in {cited.place}."
        )
        if status is CheckStatus.DIFFERENT_WORK:
            work = f"“{check.work.title}” ({byline(check.work)})" if check.work else "another work"
            return [
                make_finding(
                    Kind.DOI_MISMATCH,
                    cited.first,
                    f"The DOI of {label} (doi:{check.doi}) is {work} in {index}, not the work the entry "
                    f"describes{offer(check)}.{correct}",
                    reference=cited.key,
                    details={
                        **details,
                        "record": record(check.work),
                        "suggested_doi": check.suggestion_doi,
                        "correction": shown,
                    },
                )
            ]
        remove = remove_everywhere(cited.document, cited.key)
        return [
            make_finding(
                Kind.FABRICATED_REFERENCE,
                cited.first,
                f"The DOI of {label} (doi:{check.doi}) is registered nowhere: neither Crossref nor doi.org "
                f"knows it{offer(check)}.{correct}",
                reference=cited.key,
                fixes=(remove,) if remove else (),
                details={**details, "suggested_doi": check.suggestion_doi, "correction": shown},
            )
        ]
    if status is CheckStatus.FOUND_BY_TITLE and check.work is not None and check.suggestion_doi:
        shown = cited.written("doi", check.suggestion_doi)
        return [
            make_finding(
                Kind.FOUND_BY_TITLE,
                cited.first,
                f"{index} knows {label} as doi:{check.suggestion_doi} — “{check.work.title}” "
                f"({byline(check.work)}){also(check)}. Add {shown} to the entry in {cited.place} so that "
                "readers and checks find it.",
                reference=cited.key,
                details={
                    **details,
                    "record": record(check.work),
                    "suggested_doi": check.suggestion_doi,
                    "correction": shown,
                },
            )
        ]
    if status is CheckStatus.POSSIBLE_MATCH and check.work is not None:
        return [
            make_finding(
                Kind.POSSIBLE_MATCH,
                cited.first,
                f"{index} has a work with a similar title — “{check.work.title}” ({byline(check.work)}"
                f"{', doi:' + check.work.doi if check.work.doi else ''}) — but its authors or year do not "
                f"confirm that it is the work {label} describes; check the entry in {cited.place}.",
                reference=cited.key,
                details={**details, "record": record(check.work)},
            )
        ]
    if status is CheckStatus.NOT_FOUND:
        return [
            make_finding(
                Kind.NOT_FOUND,
                cited.first,
                f"No index knows {label}: {check.message}. This does not mean it is fabricated: books, "
                f"reports and very recent work are often missing. The entry is in {cited.place}.",
                reference=cited.key,
                details=details,
            )
        ]
    return []


def _metadata_finding(
    cited: _Cited, check: ReferenceCheck, difference: Difference, details: dict[str, object]
) -> Finding:
    where = f"doi:{check.doi}" if check.doi else "the work"
    if difference.field == "first_author":
        shown = (
            f"the first author in {_field_name(cited.format, 'first_author', cited.work.entry.entry_type)}"
        )
        shown += f" “{difference.actual}”"
    else:
        shown = cited.written(difference.field, difference.actual)
    return make_finding(
        Kind.METADATA_ERROR,
        cited.first,
        f"{cited.label} gives the {difference.label} as “{difference.cited}”, but {index_name(check)}'s "
        f"record of {where} says “{difference.actual}”. Correct it in {cited.place}: {shown}.",
        reference=cited.key,
        details={
            **details,
            "field": difference.field,
            "cited": difference.cited,
            "actual": difference.actual,
            "correction": shown,
        },
    )


def _notice_findings(cited: _Cited, check: ReferenceCheck) -> list[Finding]:
    notice = check.standing
    kind = notice_kind(notice) if notice is not None else None
    if notice is None or kind is None:
        return []
    told = notice_words(notice)
    details = {**notice_details(check, notice), **cited.where()}
    if kind is Kind.CORRECTION:
        return [
            make_finding(
                kind,
                cited.first,
                f"{cited.label} {standing_verb(notice)}: {told}.",
                reference=cited.key,
                details=details,
            )
        ]
    found = []
    for index in cited.citing:
        claim = cited.document.claim_by_marker.get(index)
        found.append(
            make_finding(
                kind,
                cited.span(index),
                f"This sentence cites {cited.label}, which {standing_verb(notice)}: {told}.",
                reference=cited.key,
                claim_id=claim.id if claim is not None else None,
                details=details,
            )
        )
    return found


# fields as each format writes them -------------------------------------------------------------------
_FIELDS: dict[BibFormat, dict[str, str]] = {
    BibFormat.BIBTEX: {
        "year": "year",
        "first_author": "author",
        "venue": "journal",
        "volume": "volume",
        "pages": "pages",
        "doi": "doi",
    },
    BibFormat.CSL_JSON: {
        "year": "issued",
        "first_author": "author",
        "venue": "container-title",
        "volume": "volume",
        "pages": "page",
        "doi": "DOI",
    },
    BibFormat.RIS: {
        "year": "PY",
        "first_author": "AU",
        "venue": "T2",
        "volume": "VL",
        "pages": "SP",
        "doi": "DO",
    },
}
_FIELDS[BibFormat.CSL_YAML] = _FIELDS[BibFormat.CSL_JSON]
_BOOKTITLE_TYPES = frozenset({"inproceedings", "conference", "incollection", "inbook"})


def _field_name(fmt: BibFormat | None, field: str, entry_type: str) -> str:
    if fmt is BibFormat.BIBTEX and field == "venue" and entry_type.lower() in _BOOKTITLE_TYPES:
        return "booktitle"
    return _FIELDS.get(fmt, {}).get(field, field) if fmt is not None else field


def _written(fmt: BibFormat | None, field: str, value: str, entry_type: str) -> str:
    """`year = {2014}` (BibTeX), `"issued": {"date-parts": [[2014]]}` (CSL-JSON), `issued: 2014`
    (CSL-YAML), `PY  - 2014` (RIS); `field: value` when the format is not known."""
    name = _field_name(fmt, field, entry_type)
    if fmt is BibFormat.BIBTEX:
        return f"{name} = {{{value.replace('-', '--') if field == 'pages' else value}}}"
    if fmt is BibFormat.CSL_JSON:
        if field == "year" and value.isdecimal():
            return f'"{name}": {{"date-parts": [[{value}]]}}'
        return f'"{name}": "{value}"'
    if fmt is BibFormat.RIS:
        if field == "pages" and "-" in value:
            first, last = value.split("-", 1)
            return f"SP  - {first} and EP  - {last}"
        return f"{name}  - {value}"
    return f"{name}: {value}"
