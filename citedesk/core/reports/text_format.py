"""The text report: what `citedesk audit` prints on a terminal (`--format text`, the default)."""

from __future__ import annotations

from citedesk.core.findings import Severity
from citedesk.core.reports.base import register
from citedesk.core.reports.report import (
    Report,
    citations_count,
    clip,
    context_of,
    coverage_line,
    grouped,
    headline,
    judge_line,
    not_checked,
    source_rows,
)

_COLOURS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.INFO: "\033[36m"}


def render_text(report: Report, *, colour: bool = False) -> str:
    doc = report.document

    def paint(text: str, code: str) -> str:
        return f"{code}{text}\033[0m" if colour else text

    out = [f"{doc.path or '<text>'}: {headline(report)}"]
    coverage = report.coverage_or_count()
    covered = coverage_line(report)
    if covered:
        out.append(covered)
    out.extend(f"note: {notice}" for notice in report.notices)
    if report.judge:
        out.append(f"judge: {judge_line(report)}")
    if report.retractions is not None:
        out.append(f"retractions: {report.retractions.note}")
    if report.assist is not None:
        out.append(f"Claude assistance ({report.assist.model}): {report.assist.usage}")
        out.extend(f"  rejected: {reason}" for reason in report.assist.rejected)
    for kind, items in grouped(report.findings):
        out.append("")
        out.append(paint(f"{kind.label} ({len(items)})", "\033[1m"))
        for f in items:
            line, col = doc.lines.line_col(f.start)
            out.append(f"  {line}:{col}  {paint(f.severity.value, _COLOURS[f.severity])}  {f.message}")
            raw = context_of(report, f)  # a sentence of 50,000 citations: only its start is shown
            context = " ".join(raw[:2000].split())
            if len(context) > 200 or len(raw) > 2000:
                context = context[:197] + "…"
            out.append(f"      │ {context}")
            if f.evidence is not None:
                out.append(f"      evidence {doc.label(f.evidence.source)}: {clip(f.evidence.passage, 200)}")
            for fx in f.fixes:
                out.append(f"      fix: {fx.title}")
            review = report.review_of(f)
            if review:
                out.append(
                    f"      review: {review.decision.label}" + (f" — {review.note}" if review.note else "")
                )
    unchecked = not_checked(report)
    if unchecked:
        out.append("")
        out.append(paint(f"Not checked ({citations_count(len(coverage.unchecked))})", "\033[1m"))
        out.extend(f"  {doc.label(key)} {reason} — {where}" for key, reason, where in unchecked)
    rows = source_rows(report)
    if rows:
        out += ["", paint("Sources", "\033[1m")]
        out.extend(
            f"  {label} {status}  {location}" + (f"  ({truth})" if truth else "")
            for label, status, location, truth in rows
        )
    return "\n".join(out) + "\n"


class TextFormat:
    name = "text"
    suffix = ".txt"
    label = "Text"
    several = True
    finished = True

    def render(self, report: Report, *, colour: bool = False) -> str:
        return render_text(report, colour=colour)


register(TextFormat())
