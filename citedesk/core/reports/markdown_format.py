"""The Markdown report (`--format markdown`, an export to `.md`)."""

from __future__ import annotations

from citedesk.core.findings import Finding
from citedesk.core.reports.base import register
from citedesk.core.reports.report import (
    Report,
    citations_count,
    coverage_line,
    grouped,
    headline,
    judge_line,
    not_checked,
    source_rows,
)


def render_markdown(report: Report) -> str:
    doc = report.document
    out = [f"# CiteDesk report: {doc.path or 'text'}", "", f"**{headline(report)}**", ""]
    coverage = report.coverage_or_count()
    covered = coverage_line(report)
    if covered:
        out += [covered + ".", ""]
    out += [f"Note: {notice}" for notice in report.notices]
    if report.judge:
        out += [f"Judge: {judge_line(report)}", ""]
    if report.retractions is not None:
        out += [f"Retractions: {report.retractions.note}.", ""]
    for kind, items in grouped(report.findings):
        out += [
            f"## {kind.label} ({len(items)})",
            "",
            "| where | severity | message | fixes | review |",
            "|---|---|---|---|---|",
        ]
        out += [_markdown_row(report, f) for f in items]
        out.append("")
    if report.dismissed:
        out += [
            f"## Dismissed as false alarms ({len(report.dismissed)})",
            "",
            "| where | severity | message | fixes | review |",
            "|---|---|---|---|---|",
        ]
        out += [_markdown_row(report, f) for f in report.dismissed]
        out.append("")
    unchecked = not_checked(report)
    if unchecked:
        out += [
            f"## Not checked ({citations_count(len(coverage.unchecked))})",
            "",
            "| reference | why | where |",
            "|---|---|---|",
            *(f"| {doc.label(key)} | {reason} | {where} |" for key, reason, where in unchecked),
            "",
        ]
    rows = source_rows(report)
    if rows:
        out += ["## Sources", "", "| reference | status | location | indexes |", "|---|---|---|---|"]
        out += ["| " + " | ".join(_cell(c) or "—" for c in row) + " |" for row in rows]
        out.append("")
    return "\n".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _markdown_row(report: Report, f: Finding) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    line, col = report.document.lines.line_col(f.start)
    fixes = "; ".join(fx.title for fx in f.fixes) or "—"
    review = report.review_of(f)
    decided = f"{review.decision.label}{': ' + review.note if review.note else ''}" if review else "—"
    return f"| {line}:{col} | {f.severity.value} | {cell(f.message)} | {cell(fixes)} | {cell(decided)} |"


class MarkdownFormat:
    name = "markdown"
    suffix = ".md"
    label = "Markdown"
    several = True
    finished = True

    def render(self, report: Report, *, colour: bool = False) -> str:
        return render_markdown(report)


register(MarkdownFormat())
