"""Many documents audited together — a thesis or a book, chapter by chapter — and one summary.

`citedesk audit chapters/*.md --bibliography refs.bib` audits each file on its own (they share the
bibliography, parsed once) and ends with one table: per file, its citations, how many were
checked, and its findings by kind, with a total row. A file that could not be audited (unreadable,
a bibliography of its own that cannot be read) has a row saying why; the others are still audited.

Formats: `text` and `markdown` give each file's report, then the table; `json` gives one object,
`{"version": 1, "files": [report, …], "summary": {"files": [row, …], "total": row}}`, each report
exactly what `--format json` gives for that file alone (a file that failed is
`{"document": PATH, "error": MESSAGE}`), each row `{"document", "citations", "checked",
"unchecked", "unchecked_reasons", "nothing_checked", "findings", "by_kind", "by_severity"}` (the
single-file summary's counts) and `summary.notices` what every file's report said, once
(`core.reports.corpus`: the text and Markdown output say those once, before the files).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from citedesk.core.findings import Kind
from citedesk.core.reports.base import report_format
from citedesk.core.reports.corpus import file_summary, for_corpus, render_said_once, said_once, total_summary
from citedesk.core.reports.report import REPORT_VERSION, Report, summary, to_json


@dataclass(frozen=True)
class FileAudit:
    """One file's audit: its report, or why there is none."""

    path: str
    report: Report | None
    error: str | None = None


@dataclass(frozen=True)
class Row:
    document: str
    citations: int
    checked: int
    by_kind: dict[str, int]
    error: str | None = None

    @property
    def findings(self) -> int:
        return sum(self.by_kind.values())

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "document": self.document,
            "citations": self.citations,
            "checked": self.checked,
            "findings": self.findings,
            "by_kind": self.by_kind,
        }
        if self.error is not None:
            out["error"] = self.error
        return out


def rows(audits: Sequence[FileAudit]) -> list[Row]:
    """One row per file, in the order given."""
    found = []
    for audit in audits:
        if audit.report is None:
            found.append(Row(audit.path, 0, 0, {}, audit.error or "not audited"))
            continue
        coverage = audit.report.coverage_or_count()
        by_kind = summary(audit.report.findings)["by_kind"]
        found.append(Row(audit.path, coverage.citations, coverage.checked, by_kind))
    return found


def total(table: Sequence[Row]) -> Row:
    by_kind: dict[str, int] = {}
    for row in table:
        for kind, count in row.by_kind.items():
            by_kind[kind] = by_kind.get(kind, 0) + count
    return Row("total", sum(r.citations for r in table), sum(r.checked for r in table), by_kind)


def _kinds(table: Sequence[Row]) -> list[str]:
    """The kinds found in any file, in the order reports list kinds (the table stays narrow)."""
    seen = {kind for row in table for kind in row.by_kind}
    return [kind.value for kind in Kind if kind.value in seen]


def summary_table(audits: Sequence[FileAudit], *, markdown: bool = False) -> str:
    """The table: file, citations, checked, findings, then one column per kind found."""
    table = rows(audits)
    kinds = _kinds(table)
    header = ["file", "citations", "checked", "findings", *kinds]
    body = [
        [row.document, "—", "—", "—", f"error: {row.error}"]
        if row.error is not None
        else [
            row.document,
            str(row.citations),
            str(row.checked),
            str(row.findings),
            *(str(row.by_kind.get(k, 0) or "") for k in kinds),
        ]
        for row in [*table, total(table)]
    ]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in body]
        return "\n".join(lines) + "\n"
    measured = [header, *(cells for cells in body if not cells[-1].startswith("error:"))]
    widths = [max(len(cells[i]) for cells in measured) for i in range(len(header))]
    widths[0] = max(widths[0], *(len(cells[0]) for cells in body))
    lines = []
    for cells in [header, *body]:
        if cells[-1].startswith("error:"):  # after the counts, as long as it needs to be
            padded = [
                cells[0].ljust(widths[0]),
                *(c.rjust(w) for c, w in zip(cells[1:4], widths[1:4], strict=True)),
            ]
            lines.append("  ".join([*padded, cells[-1]]))
            continue
        padded = [cell.ljust(widths[0]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(cells)]
        lines.append("  ".join(padded).rstrip())
    return "\n".join(lines) + "\n"


def render_batch(audits: Sequence[FileAudit], fmt: str, *, colour: bool = False) -> str:
    """Every file's report in `fmt` (a format that holds several: `several_formats`), with the
    summary table; JSON as one document (`batch_json`)."""
    if fmt == "json":
        return json.dumps(batch_json(audits), indent=2, ensure_ascii=False) + "\n"
    form = report_format(fmt)
    shared = said_once([a.report for a in audits if a.report is not None])
    parts = [said] if (said := render_said_once(shared, markdown=fmt == "markdown")) else []
    for audit in audits:  # a file not audited: its error is said once, in its row of the table
        if audit.report is not None:
            parts.append(form.render(for_corpus(audit.report, shared), colour=colour))
    heading = "## Summary\n\n" if fmt == "markdown" else "Summary\n"
    return "\n".join([*parts, heading + summary_table(audits, markdown=fmt == "markdown")])


def batch_json(audits: Sequence[FileAudit]) -> dict[str, Any]:
    """Each file's JSON report whole; the summary's rows count as the single-file `summary` does
    (`core.reports.corpus.file_summary`), and the corpus-wide notices are in `summary.notices`, once."""
    table = [file_summary(a.path, a.report, a.error) for a in audits]
    shared = said_once([a.report for a in audits if a.report is not None])
    return {
        "version": REPORT_VERSION,
        "files": [
            to_json(a.report) if a.report is not None else {"document": a.path, "error": a.error}
            for a in audits
        ],
        "summary": {"files": table, "total": total_summary(table), "notices": shared.to_json()},
    }
