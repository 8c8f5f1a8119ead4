"""How much faster a second audit is when its sources come from the store (figures, not a test).

Serves a document's sources (HTML pages, a PDF, DOI metadata, an arXiv page) from a real HTTP server
on 127.0.0.1, audits the document twice against a fresh store and prints both times. A local server
has no network latency, so the figure is a floor: over a real network the first run is slower still.

    .venv/bin/python -m tests.bench.sources_cache [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from citedesk.pipeline import AuditOptions, audit_text
from tests.helpers.server import serve

PATHS = ["/article", "/r1", "/paper.pdf", "/octet.pdf", "/abs/2101.00001", "/abs/2101.00002"]


def document(base: str) -> str:
    sentences = [f"Claim number {n} is about trees and heat [{n}]." for n in range(1, 9)]
    refs = [f"[{n}] Source {n}. {base}{path}" for n, path in enumerate(PATHS, start=1)]
    refs.append('[7] Ding, M. (2014). "Caffeinated and decaffeinated coffee". doi:10.1234/good')
    refs.append('[8] Moreau, L. (2021). "Urban tree canopy and afternoon heat". doi:10.1234/cn-broken')
    return " ".join(sentences) + "\n\n## References\n\n" + "\n".join(refs) + "\n"


def run(rounds: int) -> None:
    first: list[float] = []
    second: list[float] = []
    with serve() as base:
        text = document(base)
        for _ in range(rounds):
            with tempfile.TemporaryDirectory() as tmp:
                options = AuditOptions(
                    allow_private_network=True,
                    store_path=Path(tmp) / "store.sqlite3",
                    doi_base=base + "/doi",
                    crossref_base=base + "/crossref",
                )
                for times in (first, second):
                    started = time.perf_counter()
                    report = audit_text(text, None, options)
                    times.append(time.perf_counter() - started)
                statuses = sorted({s.status for s in report.sources})
    cold, warm = statistics.median(first), statistics.median(second)
    print(f"sources: {len(PATHS) + 2} (HTML, redirect chain, PDF, PDF download, arXiv, DOI, Crossref)")
    print(f"second-run statuses: {', '.join(statuses)}")
    print(f"first audit (fetch + extract + store): {cold * 1000:8.1f} ms (median of {rounds})")
    print(f"second audit (from the store):         {warm * 1000:8.1f} ms")
    print(f"speed-up: {cold / warm:.1f}x, saving {(cold - warm) * 1000:.0f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    run(parser.parse_args().rounds)
