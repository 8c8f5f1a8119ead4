"""A corpus audit's overview page (`DIR/index.html` of `citedesk batch`): what an integrity desk
reads first — how many documents, what was found by kind, which documents have the most errors,
which retracted or fabricated works are cited most — with a link to each document's report.

One self-contained file: inline CSS and an inline-SVG bar chart, no script and nothing fetched,
so it opens from a shared folder or an e-mail attachment, offline, and shows nothing a reader's
browser would have to trust. Everything taken from documents is escaped.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from citedesk.core.reports.corpus_table import KIND_ORDER, NOT_CHECKED, DocumentOutcome

TOP = 20
"""How many documents and works each list shows."""
BAD_WORK_KINDS = frozenset({"retracted", "fabricated_reference", "not_found", "fabricated", "doi_mismatch"})
"""The findings that say a cited work is retracted, does not exist or is not the work named."""


@dataclass(frozen=True)
class Overview:
    """The counts the page shows (also what a test reads)."""

    documents: int
    failed: int
    citations: int
    checked: int
    by_kind: dict[str, int]
    worst: list[tuple[str, int, int]]
    """(document, errors, findings), most errors first."""
    bad_works: list[tuple[str, str, int]]
    """(work, kinds, documents citing it), cited by most documents first."""


def overview(outcomes: Sequence[DocumentOutcome]) -> Overview:
    by_kind: Counter[str] = Counter()
    worst = []
    citing: dict[str, set[str]] = {}
    kinds_of: dict[str, set[str]] = {}
    for outcome in outcomes:
        by_kind.update(kind for kind, _ in outcome.findings)
        by_kind[NOT_CHECKED] += sum(1 for row in outcome.rows if row.kind == NOT_CHECKED)
        errors = sum(1 for _, severity in outcome.findings if severity == "error")
        if outcome.findings:
            worst.append((outcome.document, errors, len(outcome.findings)))
        for row in outcome.rows:
            if row.kind in BAD_WORK_KINDS:
                # a work is the same across documents; a key that names none (`[7]`, `@ghost2020`)
                # is only this document's, and is listed as such, never merged with another's
                work = row.work or f"{row.citation} in {outcome.document}"
                citing.setdefault(work, set()).add(outcome.document)
                kinds_of.setdefault(work, set()).add(row.kind)
    worst.sort(key=lambda item: (-item[1], -item[2], item[0]))
    bad = sorted(
        ((work, ", ".join(sorted(kinds_of[work])), len(docs)) for work, docs in citing.items()),
        key=lambda item: (-item[2], item[0]),
    )
    ordered = dict(
        sorted(((k, n) for k, n in by_kind.items() if n), key=lambda kv: KIND_ORDER.get(kv[0], 99))
    )
    return Overview(
        documents=len(outcomes),
        failed=sum(1 for o in outcomes if o.error is not None),
        citations=sum(o.citations for o in outcomes),
        checked=sum(o.checked for o in outcomes),
        by_kind=ordered,
        worst=worst[:TOP],
        bad_works=bad[:TOP],
    )


def bar_chart(counts: Mapping[str, int], *, width: int = 640, bar: int = 18) -> str:
    """Horizontal bars, one per label, as inline SVG (labels left, counts at the bar's end)."""
    if not counts:
        return ""
    label_w, gap = 190, 6
    most = max(counts.values()) or 1
    height = len(counts) * (bar + gap) + gap
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
        f'aria-label="findings by kind">'
    ]
    for i, (label, count) in enumerate(counts.items()):
        y = gap + i * (bar + gap)
        length = max(1, round((width - label_w - 60) * count / most))
        colour = "#999" if label == NOT_CHECKED else "#c0392b" if label in BAD_WORK_KINDS else "#2e6da4"
        parts.append(
            f'<text x="{label_w - 8}" y="{y + bar - 5}" text-anchor="end">{html.escape(label)}</text>'
            f'<rect x="{label_w}" y="{y}" width="{length}" height="{bar}" fill="{colour}"/>'
            f'<text x="{label_w + length + 6}" y="{y + bar - 5}">{count}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


_STYLE = """body{font-family:system-ui,sans-serif;margin:2em;max-width:60em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border-bottom:1px solid #ddd;padding:.3em .8em;text-align:left}
td.n{text-align:right}svg text{font-size:13px;font-family:system-ui,sans-serif}.error{color:#c0392b}"""


def _findings(count: int) -> str:
    """'1 finding', '3 findings': the page is read by people, who notice '1 findings'."""
    return f"{count} finding{'' if count == 1 else 's'}"


def render_overview(outcomes: Sequence[DocumentOutcome], links: Mapping[str, str], *, title: str = "") -> str:
    """The page; `links` maps a document to its report's address, relative to the page."""
    seen = overview(outcomes)
    e = html.escape

    def linked(document: str) -> str:
        href = links.get(document)
        return f'<a href="{e(href, quote=True)}">{e(document)}</a>' if href else e(document)

    head = (
        f"<p>{seen.documents} documents ({seen.failed} not audited), {seen.citations} citations, "
        f"{seen.checked} checked, {sum(n for k, n in seen.by_kind.items() if k != NOT_CHECKED)} findings.</p>"
    )
    kinds = "".join(f'<tr><td>{e(k)}</td><td class="n">{n}</td></tr>' for k, n in seen.by_kind.items())
    worst = "".join(
        f'<tr><td>{linked(d)}</td><td class="n">{errors}</td><td class="n">{n}</td></tr>'
        for d, errors, n in seen.worst
    )
    works = "".join(
        f'<tr><td>{e(w)}</td><td>{e(k)}</td><td class="n">{n}</td></tr>' for w, k, n in seen.bad_works
    )
    failed = "".join(
        f'<tr><td>{linked(o.document)}</td><td class="error">{e(o.error or "")}</td></tr>'
        for o in outcomes
        if o.error is not None
    )
    every = "".join(
        f"<li>{linked(o.document)}{' — not audited' if o.error else f' — {_findings(len(o.findings))}'}</li>"
        for o in outcomes
    )
    name = e(title or "Corpus audit")
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{name}</title>'
        f"<style>{_STYLE}</style></head><body><h1>{name}</h1>{head}"
        f"<h2>Findings by kind</h2>{bar_chart(seen.by_kind)}"
        f"<table><tr><th>kind</th><th>count</th></tr>{kinds}</table>"
        f"<h2>Documents with the most errors</h2>"
        f"<table><tr><th>document</th><th>errors</th><th>findings</th></tr>{worst}</table>"
        f"<h2>Retracted, fabricated or wrong works cited most</h2>"
        f"<table><tr><th>work</th><th>found</th><th>documents</th></tr>{works}</table>"
        + (
            f"<h2>Not audited</h2><table><tr><th>document</th><th>why</th></tr>{failed}</table>"
            if failed
            else ""
        )
        + f"<h2>Every document</h2><ul>{every}</ul></body></html>\n"
    )
