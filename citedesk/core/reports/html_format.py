"""The HTML report: the document with its findings marked, then the findings (`--format html`, an export to `.html`)."""

from __future__ import annotations

import html

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

_HTML_STYLE = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
pre.doc{white-space:pre-wrap;font-family:ui-monospace,monospace;background:#fafafa;padding:1rem;border:1px solid #ddd}
mark{background:none;text-decoration-line:underline;text-decoration-thickness:2px}
mark.error{text-decoration-style:wavy;text-decoration-color:#c62828;background:#fdecea}
mark.warning{text-decoration-style:dashed;text-decoration-color:#b26a00;background:#fff4e5}
mark.info{text-decoration-style:dotted;text-decoration-color:#01579b;background:#e1f5fe}
li{margin:.4rem 0} .sev{font-weight:bold;text-transform:uppercase;font-size:.8em}
"""


def render_html(report: Report) -> str:
    doc = report.document
    text = doc.text
    # non-overlapping highlights: the most severe finding wins where spans overlap
    marks: list[tuple[int, int, Finding]] = []
    for f in sorted(report.findings, key=lambda f: (-f.severity.rank, f.start)):
        if f.end > f.start and all(f.end <= s or f.start >= e for s, e, _ in marks):
            marks.append((f.start, f.end, f))
    marks.sort(key=lambda m: m[0])
    body: list[str] = []
    cursor = 0
    for start, end, f in marks:
        body.append(html.escape(text[cursor:start]))
        title = html.escape(f"{f.kind.label}: {f.message}", quote=True)
        body.append(
            f'<mark class="{f.severity.value} {f.kind.value}" title="{title}">{html.escape(text[start:end])}</mark>'
        )
        cursor = end
    body.append(html.escape(text[cursor:]))
    items = []
    for kind, group in grouped(report.findings):
        items.append(f"<h2>{html.escape(kind.label)} ({len(group)})</h2><ul>")
        for f in group:
            line, col = doc.lines.line_col(f.start)
            fixes = "".join(f"<li>fix: {html.escape(fx.title)}</li>" for fx in f.fixes)
            review = report.review_of(f)
            if review:
                note = f": {review.note}" if review.note else ""
                fixes += f"<li>review: {html.escape(review.decision.label + note)}</li>"
            evidence = ""
            if f.evidence is not None:
                evidence = f"<blockquote>{html.escape(f.evidence.passage)}</blockquote>"
            items.append(
                f'<li><span class="sev">{f.severity.value}</span> {line}:{col} — {html.escape(f.message)}'
                f"{evidence}<ul>{fixes}</ul></li>"
            )
        items.append("</ul>")
    unchecked = not_checked(report)
    coverage = report.coverage_or_count()
    if unchecked:
        items.append(f"<h2>Not checked ({citations_count(len(coverage.unchecked))})</h2><ul>")
        items.extend(
            f"<li>{html.escape(doc.label(key))} {html.escape(reason)} — {html.escape(where)}</li>"
            for key, reason, where in unchecked
        )
        items.append("</ul>")
    rows = source_rows(report)
    if rows:
        items.append("<h2>Sources</h2><ul>")
        items.extend(
            f"<li>{html.escape(label)} {html.escape(status)} {html.escape(location)}"
            + (f" ({html.escape(truth)})" if truth else "")
            + "</li>"
            for label, status, location, truth in rows
        )
        items.append("</ul>")
    covered = coverage_line(report)
    facts = [covered] if covered else []
    facts += list(report.notices)
    if report.judge:
        facts.append(f"Judge: {judge_line(report)}")
    if report.retractions is not None:
        facts.append(f"Retractions: {report.retractions.note}.")
    name = html.escape(doc.path or "text")
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>CiteDesk report: {name}</title>"
        f"<style>{_HTML_STYLE}</style></head><body><h1>CiteDesk report: {name}</h1>"
        f"<p><strong>{html.escape(headline(report))}</strong></p>"
        + "".join(f"<p>{html.escape(fact)}</p>" for fact in facts)
        + f"{''.join(items)}<h2>Document</h2><pre class='doc'>{''.join(body)}</pre></body></html>\n"
    )


class HtmlFormat:
    name = "html"
    suffix = ".html"
    label = "HTML"
    several = False
    finished = True

    def render(self, report: Report, *, colour: bool = False) -> str:
        return render_html(report)


register(HtmlFormat())
