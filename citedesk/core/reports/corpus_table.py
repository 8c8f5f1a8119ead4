"""A corpus audit's table: one row per finding and per citation not checked, for every document.

`citedesk batch` (issue 31) writes `corpus.csv` and `corpus.parquet` from these rows, and the HTML
overview counts them. They are read from each document's JSON report (exactly `--format json`'s)
and its text, never from the `Report` object: a document left alone by a resumed run has only its
report on disk, and its rows must come out the same as when it was audited.

A document that could not be audited is one row with its `error` (and no kind), so a spreadsheet
filtered on errors lists them; it never stops the corpus.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

from citedesk.core.findings import Kind, Severity
from citedesk.core.reports.report import FailPolicy

NOT_CHECKED = "not_checked"
"""The `kind` of a row for a citation that could not be checked (no finding says so)."""
MAX_CITATION_CHARS = 300
"""A row's `citation` text is cut here: a spreadsheet cell, not the document."""


@dataclass(frozen=True)
class CorpusRow:
    """One finding, one citation not checked, or one document not audited."""

    document: str
    line: int | None
    citation: str
    """The text the finding is on (its marker, sentence or reference entry); for a citation not
    checked, its sentence."""
    reference: str | None
    work: str | None
    """The cited work, the same in every document that cites it: `doi:…`, `arxiv:…`, its link or
    its title (what "the works cited most" counts)."""
    kind: str
    """A finding kind (`core.findings.Kind`), `not_checked`, or "" for a document not audited."""
    severity: str
    judge: str | None
    """The judge whose verdict on (sentence, reference) the finding rests on; None: structural."""
    confidence: float | None
    """That verdict's score."""
    source_status: str | None
    """How the reference's source was had (`fetched`, `cached`, `dead`, `offline`, …)."""
    message: str
    error: str | None = None


COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(CorpusRow))


@dataclass(frozen=True)
class DocumentOutcome:
    """What a corpus needs of one document's audit: its rows and the counts that decide the exit
    code and the overview (the findings' kinds and severities, the citations checked)."""

    document: str
    rows: tuple[CorpusRow, ...]
    findings: tuple[tuple[str, str], ...] = ()
    """(kind, severity) of each finding."""
    citations: int = 0
    checked: int = 0
    error: str | None = None

    def fails(self, policy: FailPolicy) -> bool:
        """Whether this document fails `--fail-on` as `citedesk audit` would exit on it alone."""
        for kind, severity in self.findings:
            if kind in {k.value for k in policy.kinds}:
                return True
            if policy.min_severity is not None and Severity(severity).rank >= policy.min_severity.rank:
                return True
        return policy.unchecked and self.checked < self.citations


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_CITATION_CHARS else text[: MAX_CITATION_CHARS - 1] + "…"


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, max(0, offset)) + 1


def outcome_of(document: str, report: Mapping[str, Any], text: str) -> DocumentOutcome:
    """The rows of one document's JSON report (`text` is the document the report's spans are in)."""
    statuses = {s["key"]: s.get("status") for s in report.get("sources") or ()}
    works = {r["key"]: work_of(r) for r in report.get("references") or ()}
    claims = {c["id"]: c for c in report.get("claims") or ()}
    rows: list[CorpusRow] = []
    for finding in report.get("findings") or ():
        start, end = finding["span"]
        verdict = next(
            (
                v
                for v in (claims.get(finding.get("claim")) or {}).get("verdicts", ())
                if v.get("reference") == finding.get("reference") and v.get("judge")
            ),
            None,
        )
        rows.append(
            CorpusRow(
                document,
                finding.get("line") or _line(text, start),
                _cut(text[start:end]),
                finding.get("reference"),
                works.get(finding.get("reference")),
                finding["kind"],
                finding["severity"],
                verdict.get("judge") if verdict else None,
                verdict.get("score") if verdict else None,
                statuses.get(finding.get("reference")),
                finding.get("message") or "",
            )
        )
    for claim in claims.values():
        for verdict in claim.get("verdicts") or ():
            if verdict.get("label") != "unchecked":
                continue
            reason = (verdict.get("evidence") or {}).get("reason") or "not checked"
            rows.append(
                CorpusRow(
                    document,
                    _line(text, claim["span"][0]),
                    _cut(claim.get("text") or ""),
                    verdict.get("reference"),
                    works.get(verdict.get("reference")),
                    NOT_CHECKED,
                    "",
                    None,
                    None,
                    statuses.get(verdict.get("reference")),
                    reason,
                )
            )
    summary = report.get("summary") or {}
    return DocumentOutcome(
        document,
        tuple(rows),
        tuple((f["kind"], f["severity"]) for f in report.get("findings") or ()),
        int(summary.get("citations", 0)),
        int(summary.get("checked", 0)),
    )


def work_of(reference: Mapping[str, Any]) -> str | None:
    """How a work is known across documents: its DOI, arXiv id, link or title (lower-cased)."""
    if reference.get("doi"):
        return f"doi:{str(reference['doi']).lower()}"
    if reference.get("arxiv"):
        return f"arxiv:{reference['arxiv']}"
    if reference.get("url"):
        return str(reference["url"])
    title = " ".join(str(reference.get("title") or "").lower().split())
    return title or None


def failed_outcome(document: str, error: str) -> DocumentOutcome:
    """A document that could not be audited: one row, its error."""
    row = CorpusRow(document, None, "", None, None, "", "", None, None, None, error, error)
    return DocumentOutcome(document, (row,), error=error)


def to_csv(rows: Iterable[CorpusRow]) -> str:
    """The rows as CSV, a header first (RFC 4180 quoting; empty cells for None)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow(["" if value is None else value for value in asdict(row).values()])
    return out.getvalue()


def columns(rows: Sequence[CorpusRow]) -> dict[str, list[Any]]:
    """The rows by column (what a columnar file, Parquet, is written from)."""
    return {name: [getattr(row, name) for row in rows] for name in COLUMNS}


KIND_ORDER = {kind.value: i for i, kind in enumerate(Kind)}
"""Kinds in the order reports list them; `not_checked` after them all."""
