"""Retractions, withdrawals, expressions of concern and corrections: notices from every source, merged.

Three sources, each turned into `metadata.Notice`:

- Crossref's update relations (`metadata.crossref_notices`: `updated-by`, including entries Crossref
  takes from Retraction Watch, and `update-to` deposited on the work's own DOI);
- OpenAlex's `is_retracted` flag (no notice DOI or date: it is reported as such);
- a local **Retraction Watch snapshot**, the CSV Crossref publishes (about 60,000 rows, 50 MB),
  read here as a stream (`read_snapshot`) and stored by the caller, so audits see retractions with or
  without a network. The store keeps it (`import_into` writes a file into `store.LookupTables` in one
transaction) and `StoredRetractions` answers `RetractionIndex.notices_for(doi)` from it.

The CSV's columns (as published; recent exports end every line with a comma, so the header has a
21st, empty, column): Record ID, Title, Subject, Institution, Journal, Publisher, Country, Author,
URLS, ArticleType, RetractionDate, RetractionDOI, RetractionPubMedID, OriginalPaperDate,
OriginalPaperDOI, OriginalPaperPubMedID, RetractionNature, Reason, Paywalled, Notes. Dates are
written `8/16/2023 0:00`; a missing DOI is `unavailable`, a missing PubMed id `0`; reasons are
`;`-separated, older exports prefixing each with `+`; DOIs are sometimes %-escaped.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import IO, Protocol

from citedesk.errors import InputError
from citedesk.sources.metadata import Notice, NoticeKind, normalise_doi
from citedesk.store import LookupTables, RetractionRow, SnapshotInfo

REQUIRED_COLUMNS = (
    "Record ID",
    "RetractionDate",
    "RetractionDOI",
    "OriginalPaperDOI",
    "RetractionNature",
    "Reason",
)
KNOWN_COLUMNS = (
    "Record ID",
    "Title",
    "Subject",
    "Institution",
    "Journal",
    "Publisher",
    "Country",
    "Author",
    "URLS",
    "ArticleType",
    "RetractionDate",
    "RetractionDOI",
    "RetractionPubMedID",
    "OriginalPaperDate",
    "OriginalPaperDOI",
    "OriginalPaperPubMedID",
    "RetractionNature",
    "Reason",
    "Paywalled",
    "Notes",
)
NATURES = {
    "retraction": NoticeKind.RETRACTION,
    "expression of concern": NoticeKind.EXPRESSION_OF_CONCERN,
    "correction": NoticeKind.CORRECTION,
    "reinstatement": NoticeKind.REINSTATEMENT,
}
SNAPSHOT_SOURCE = "retraction-watch-snapshot"
_DATE_FORMATS = ("%m/%d/%Y %H:%M", "%m/%d/%Y", "%Y-%m-%d", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S")


class SnapshotError(InputError):
    """The file is not a Retraction Watch CSV (or is damaged); the message says why, with the line."""


@dataclass(frozen=True)
class RetractionRecord:
    """One row of the snapshot, normalised: DOIs lower case or None, ISO dates, reasons split."""

    record_id: str
    original_doi: str | None
    notice_doi: str | None
    kind: NoticeKind
    date: str | None
    nature: str
    reasons: tuple[str, ...] = ()
    original_date: str | None = None
    original_pmid: str | None = None
    notice_pmid: str | None = None
    title: str = ""
    journal: str = ""
    publisher: str = ""
    urls: tuple[str, ...] = ()

    def notice(self) -> Notice:
        return Notice(
            kind=self.kind,
            doi=self.notice_doi,
            date=self.date,
            source=SNAPSHOT_SOURCE,
            label=self.nature,
            reasons=self.reasons,
            record_id=self.record_id,
        )


@dataclass
class SnapshotSummary:
    """What an import read: rows, rows kept, rows skipped and why, and the newest notice's date."""

    rows: int = 0
    imported: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    newest: str | None = None
    """The newest RetractionDate in the file: how current the snapshot is."""


class RetractionIndex(Protocol):
    """Notices about a work by its DOI (the lead's store implements it over the imported snapshot)."""

    def notices_for(self, doi: str) -> list[Notice]: ...


class MemoryRetractionIndex:
    """A `RetractionIndex` held in memory (tests, or a snapshot read without a store)."""

    def __init__(self, records: Iterable[RetractionRecord] = ()) -> None:
        self._by_doi: dict[str, list[Notice]] = {}
        for record in records:
            self.add(record)

    def add(self, record: RetractionRecord) -> None:
        if record.original_doi:
            self._by_doi.setdefault(record.original_doi, []).append(record.notice())

    def notices_for(self, doi: str) -> list[Notice]:
        key = normalise_doi(doi)
        return list(self._by_doi.get(key, ())) if key else []


def parse_date(value: str | None) -> str | None:
    """`8/16/2023 0:00` or `2023-08-16` → `2023-08-16`; None for empty or unreadable dates."""
    text = (value or "").strip()
    if not text:
        return None
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def split_reasons(value: str | None) -> tuple[str, ...]:
    """`+Concerns/Issues About Data;+Plagiarism;` → ("Concerns/Issues About Data", "Plagiarism")."""
    return tuple(r for r in (part.strip().lstrip("+").strip() for part in (value or "").split(";")) if r)


def _pmid(value: str | None) -> str | None:
    text = (value or "").strip()
    return text if text.isdecimal() and int(text) > 0 else None


def read_snapshot(path: str | Path, *, summary: SnapshotSummary | None = None) -> Iterator[RetractionRecord]:
    """Stream the records of a Retraction Watch CSV file, one row at a time.

    Rows with no original DOI, an unknown RetractionNature or too few cells are skipped and counted
    in `summary`. Raises SnapshotError for a file that is not such a CSV (binary, empty, or a header
    without the snapshot's columns), that turns binary further on (a damaged file), or that cannot
    be read.
    """
    summary = summary if summary is not None else SnapshotSummary()
    path = Path(path)
    try:
        with path.open("rb") as raw:
            if b"\x00" in raw.peek(4096)[:4096]:  # peek: works on pipes too, nothing is consumed
                raise SnapshotError(f"{path} is not a Retraction Watch CSV: it is a binary file")
            with io.TextIOWrapper(raw, encoding="utf-8-sig", errors="replace", newline="") as text:
                yield from _read(text, str(path), summary)
    except OSError as exc:
        raise SnapshotError(f"{path} cannot be read: {exc.strerror or exc}") from exc


def _read(stream: IO[str], name: str, summary: SnapshotSummary) -> Iterator[RetractionRecord]:
    reader = csv.reader(stream)
    try:
        header = next(reader, None)
        if not header:
            raise SnapshotError(f"{name} is not a Retraction Watch CSV: it is empty")
        columns = [h.strip() for h in header]
        missing = [c for c in REQUIRED_COLUMNS if c not in columns]
        if missing:
            shown = ", ".join(c for c in columns[:6] if c) or "no named columns"
            raise SnapshotError(
                f"{name} is not a Retraction Watch CSV: its header lacks {', '.join(missing)} (it has {shown[:200]}…)"
            )
        index = {c: i for i, c in enumerate(columns) if c}
        needed = max(index[c] for c in REQUIRED_COLUMNS) + 1
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            if any("\x00" in cell for cell in row):
                raise SnapshotError(f"{name}, line {reader.line_num}: binary data — the file is damaged")
            summary.rows += 1
            record = _record(row, index) if len(row) >= needed else "malformed row"
            if isinstance(record, str):
                summary.skipped[record] += 1
                continue
            summary.imported += 1
            if record.date and (summary.newest is None or record.date > summary.newest):
                summary.newest = record.date
            yield record
    except csv.Error as exc:
        raise SnapshotError(f"{name}, line {reader.line_num}: {exc}") from exc


def _record(row: list[str], index: dict[str, int]) -> RetractionRecord | str:
    """The row's record, or why it was skipped."""

    def cell(name: str) -> str:
        at = index.get(name)
        return row[at].strip() if at is not None and at < len(row) else ""

    nature = cell("RetractionNature")
    kind = NATURES.get(nature.lower())
    if kind is None:
        return "unknown nature"
    original = normalise_doi(cell("OriginalPaperDOI"))
    if original is None:
        return "no original DOI"
    return RetractionRecord(
        record_id=cell("Record ID"),
        original_doi=original,
        notice_doi=normalise_doi(cell("RetractionDOI")),
        kind=kind,
        date=parse_date(cell("RetractionDate")),
        nature=nature,
        reasons=split_reasons(cell("Reason")),
        original_date=parse_date(cell("OriginalPaperDate")),
        original_pmid=_pmid(cell("OriginalPaperPubMedID")),
        notice_pmid=_pmid(cell("RetractionPubMedID")),
        title=cell("Title"),
        journal=cell("Journal"),
        publisher=cell("Publisher"),
        urls=tuple(u.strip() for u in cell("URLS").split(";") if u.strip()),
    )


def import_snapshot(
    path: str | Path, sink: Callable[[list[RetractionRecord]], None], *, batch: int = 2000
) -> SnapshotSummary:
    """Read a snapshot and hand its records to `sink` in batches (the store writes each in one go).

    The whole file is validated as it streams; on SnapshotError the caller should roll back what
    the sink wrote (the store does the import in one transaction).
    """
    summary = SnapshotSummary()
    pending: list[RetractionRecord] = []
    for record in read_snapshot(path, summary=summary):
        pending.append(record)
        if len(pending) >= batch:
            sink(pending)
            pending = []
    if pending:
        sink(pending)
    return summary


# the snapshot in the store ----------------------------------------------------------------------
class StoredRetractions:
    """The `RetractionIndex` over the snapshot imported into the store."""

    def __init__(self, tables: LookupTables) -> None:
        self.tables = tables

    def notices_for(self, doi: str) -> list[Notice]:
        key = normalise_doi(doi)
        if key is None:
            return []
        notices = []
        for row in self.tables.retractions_for(key):
            try:
                kind = NoticeKind(row.kind)
            except ValueError:
                continue  # a kind a later CiteDesk wrote
            notices.append(
                Notice(
                    kind, row.notice_doi, row.date, SNAPSHOT_SOURCE, row.nature, row.reasons, row.record_id
                )
            )
        return notices


def _row(record: RetractionRecord) -> RetractionRow:
    assert record.original_doi is not None  # rows without one are skipped while reading
    return RetractionRow(
        record_id=record.record_id,
        original_doi=record.original_doi,
        notice_doi=record.notice_doi,
        kind=record.kind.value,
        nature=record.nature,
        date=record.date,
        reasons=record.reasons,
        original_date=record.original_date,
        title=record.title,
        journal=record.journal,
    )


def import_into(tables: LookupTables, path: str | Path, *, batch: int = 2000) -> SnapshotSummary:
    """Replace the store's snapshot with the file at `path`, in one transaction: a file that is
    not a snapshot, or is damaged halfway, raises SnapshotError and leaves the old one in place."""
    shown = str(Path(path).resolve())
    with tables.importing(shown) as job:
        summary = import_snapshot(path, lambda records: job.add([_row(r) for r in records]), batch=batch)
        if summary.imported == 0:
            raise SnapshotError(
                f"{path} has no usable row (read {summary.rows}); the snapshot in the store was kept"
            )
        job.rows_read, job.newest = summary.rows, summary.newest
    return summary


def snapshot_age_days(info: SnapshotInfo, now: float) -> float:
    """How old the snapshot's newest notice is, in days (its import date when it has no dates)."""
    if info.newest:
        try:
            newest = datetime.fromisoformat(info.newest).timestamp()
        except ValueError:
            newest = info.imported_at
    else:
        newest = info.imported_at
    return max(0.0, (now - newest) / 86400.0)


# merging notices --------------------------------------------------------------------------------
_RANK = {kind: rank for rank, kind in enumerate(NoticeKind)}
_SOURCE_RANK = {SNAPSHOT_SOURCE: 0, "retraction-watch": 1, "crossref": 2, "openalex": 3, "title": 4}


def merge_notices(*groups: Iterable[Notice]) -> tuple[Notice, ...]:
    """One notice per (kind, notice DOI): details filled from every source, most serious first.

    A notice with no DOI (OpenAlex's flag, a title prefix) is dropped when a notice of the same kind
    with a DOI is known, since it says the same thing with less detail.
    """
    merged: dict[tuple[NoticeKind, str | None], Notice] = {}
    for notice in sorted((n for group in groups for n in group), key=lambda n: _SOURCE_RANK.get(n.source, 9)):
        key = (notice.kind, notice.doi)
        known = merged.get(key)
        if known is None:
            merged[key] = notice
            continue
        merged[key] = replace(
            known,
            date=known.date or notice.date,
            label=known.label or notice.label,
            reasons=known.reasons or notice.reasons,
            record_id=known.record_id or notice.record_id,
        )
    with_doi = {kind for kind, doi in merged if doi}
    kept = [n for (kind, doi), n in merged.items() if doi or kind not in with_doi]
    return tuple(sorted(kept, key=lambda n: (_RANK[n.kind], n.date or "")))


def standing(notices: Iterable[Notice]) -> Notice | None:
    """The notice that sets the work's standing now: the latest retraction or withdrawal unless a later
    reinstatement lifts it, else the latest expression of concern, else the latest correction."""
    ordered = sorted(notices, key=lambda n: n.date or "")
    withdrawn = [n for n in ordered if n.kind.withdraws]
    if withdrawn:
        last = withdrawn[-1]
        lifted = any(
            n.kind is NoticeKind.REINSTATEMENT and n.date and last.date and n.date > last.date
            for n in ordered
        )
        if not lifted:
            return last
    for kind in (NoticeKind.EXPRESSION_OF_CONCERN, NoticeKind.CORRECTION):
        found = [n for n in ordered if n.kind is kind]
        if found:
            return found[-1]
    return None
