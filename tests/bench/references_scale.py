"""How structural checks and repairs scale with the number of references (not a test).

For documents of 1,000 to 10,000 references — half cited, half orphans, every tenth a duplicate —
prints the time to parse, to find the structural findings with their fixes, and to plan and apply
"fix all" (orphans and duplicates, renumbered), and the time per reference: flat per-reference
figures mean linear growth.

    .venv/bin/python -m tests.bench.references_scale            # 1k, 2.5k, 5k, 10k
    .venv/bin/python -m tests.bench.references_scale 500 1000   # other sizes
"""

from __future__ import annotations

import sys
import time

from citedesk.core.checks import structural_findings
from citedesk.core.plan import plan_repairs
from citedesk.core.reading import parse_document


def document(n: int) -> str:
    sentences = [f"Finding number {i} was reported in study {i} [{i}]." for i in range(1, n + 1, 2)]
    entries = [
        f"[{i}] Author {i}. Study {i}. https://example.org/{i if i % 10 else i - 1}" for i in range(1, n + 1)
    ]
    paragraphs = [" ".join(sentences[i : i + 20]) for i in range(0, len(sentences), 20)]
    return "\n\n".join(paragraphs) + "\n\n## References\n\n" + "\n".join(entries) + "\n"


def measure(n: int) -> None:
    text = document(n)
    started = time.perf_counter()
    doc = parse_document(text)
    parsed = time.perf_counter()
    findings = structural_findings(doc)
    checked = time.perf_counter()
    fixes = [
        f.fixes[0]
        for f in findings
        if f.fixes and f.kind.value in ("orphan_reference", "duplicate_reference")
    ]
    plan = plan_repairs(doc, fixes, renumber=True)
    planned = time.perf_counter()
    assert plan.changed
    total = planned - started
    print(
        f"{n:6} references: parse {parsed - started:6.2f} s · checks {checked - parsed:6.2f} s "
        f"({len(findings)} findings) · plan + verify {planned - checked:6.2f} s · "
        f"total {total:6.2f} s = {total / n * 1000:.2f} ms per reference"
    )


if __name__ == "__main__":
    for size in [int(a) for a in sys.argv[1:]] or [1000, 2500, 5000, 10000]:
        measure(size)
