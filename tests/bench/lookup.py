"""Look-up time per reference with a cold and a warm cache (figures, not a test).

Serves doi.org, Crossref and OpenAlex from one local server (real response shapes, see
tests/helpers/indexes.py) and checks a reference list three times against a fresh store (the real SQLite look-up cache):

- cold, with the default per-host rate limits (5 records/s, 1 search/s): what a first audit pays in
  politeness;
- cold, with the limit lifted: the engine's own cost (fetch, parse, match, cache writes);
- warm: the same list again, every answer from the cache (no request at all).

Locally the three indexes share one host:port, so the rate limit applies to all of them together (on
the real services each host has its own bucket, so a real first audit is paced per service). The
server answers instantly unless `--latency` adds a delay per request, so the cold figures are floors.

    .venv/bin/python -m tests.bench.lookup [--references 40] [--latency 0.15] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from citedesk.core.document.references import Reference
from citedesk.sources.indexes import LookupConfig
from citedesk.sources.refcheck import check_references
from citedesk.store import LookupTables, Store
from tests.helpers.indexes import DING, POLICY, UNKNOWN, WAKEFIELD, ZHOU, IndexServer, entry, serve_indexes

KNOWN = [
    DING.format(year="2014", doi="10.2337/dc13-1203"),
    DING.format(year="2016", doi="10.2337/dc13-1203"),
    WAKEFIELD,
    DING.format(year="2014", doi="10.1109/cvpr.2016.90"),
    ZHOU,
]


def references(count: int) -> list[Reference]:
    """The five fixture works, then distinct unregistered DOIs and unknown titles up to `count`."""
    texts = list(KNOWN)
    n = 0
    while len(texts) < count:
        n += 1
        if n % 2:
            texts.append(f"Smith, J. ({2000 + n % 20}). Study number {n}. doi:10.9999/bench.{n}")
        else:
            texts.append(UNKNOWN.replace("tardigrades", f"tardigrades {n}"))
    return [entry(text, str(i)) for i, text in enumerate(texts[:count], start=1)]


def timed(
    refs: list[Reference], config: LookupConfig, cache: LookupTables, server: IndexServer
) -> tuple[float, int]:
    """Seconds to check `refs`, and how many requests reached the server."""
    before = len(server.state.hits)
    started = time.perf_counter()
    check_references(refs, config, cache=cache, fetch_policy=POLICY)
    return time.perf_counter() - started, len(server.state.hits) - before


def run(count: int, latency: float, rounds: int) -> None:
    refs = references(count)
    figures: dict[str, list[float]] = {"paced": [], "unpaced": [], "warm": []}
    requests: dict[str, int] = {}
    with serve_indexes() as server:
        server.state.delay = latency
        for _ in range(rounds):
            for label, config in (
                ("paced", server.config()),
                (
                    "unpaced",
                    server.config(
                        crossref_rate=1e3,
                        openalex_rate=1e3,
                        doi_rate=1e3,
                        crossref_search_rate=1e3,
                        openalex_search_rate=1e3,
                    ),
                ),
            ):
                with tempfile.TemporaryDirectory() as tmp:
                    store = Store(Path(tmp) / "store.sqlite3")
                    try:
                        with store.lookups() as cache:
                            cold, requests[label] = timed(refs, config, cache, server)
                        figures[label].append(cold)
                        if label == "unpaced":
                            with store.lookups() as cache:  # a later audit: a new connection
                                warm, requests["warm"] = timed(refs, config, cache, server)
                            figures["warm"].append(warm)
                    finally:
                        store.close()
    per = {k: statistics.median(v) / count * 1000 for k, v in figures.items()}
    print(f"references: {count} (5 known works, the rest unregistered DOIs and unknown titles)")
    print(f"server latency: {latency * 1000:.0f} ms per request; median of {rounds} rounds")
    print(f"cold, rate-limited:         {per['paced']:8.1f} ms per reference ({requests['paced']} requests)")
    print(
        f"cold, no rate limit:        {per['unpaced']:8.1f} ms per reference ({requests['unpaced']} requests)"
    )
    print(f"warm (every answer cached): {per['warm']:8.2f} ms per reference ({requests['warm']} requests)")
    print(f"warm vs cold (no limit): {per['unpaced'] / per['warm']:.0f}x faster")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--references", type=int, default=40)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds each answer takes")
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    run(options.references, options.latency, options.rounds)
