"""Index mirror speed (figures, not a test): importing a gzipped JSON-lines file of Crossref works,
and looking works up in it by DOI and by title, as the reference checks do.

The works are the Ding et al. Crossref record (tests/helpers/index_fixtures) made N distinct ones
(their own DOI, title, authors and year), written gzipped to a temporary folder and imported with
`citedesk index import` into a fresh store; then `StoredMirror.work` (DOI) and `.search` (title)
over a random sample of them, and over DOIs it does not hold. The last line is JSON.

    .venv/bin/python -m tests.bench.mirror_speed [N]
"""

from __future__ import annotations

import copy
import gzip
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from citedesk.cli import main
from citedesk.sources.mirror import StoredMirror
from citedesk.store import Store
from tests.helpers.indexes import fixture

WORDS = [
    "coffee",
    "diabetes",
    "risk",
    "cohort",
    "meta",
    "analysis",
    "trial",
    "protein",
    "signal",
    "neural",
    "network",
    "graph",
    "river",
    "climate",
    "soil",
    "carbon",
    "market",
    "labour",
    "policy",
    "vaccine",
    "immune",
    "cell",
    "model",
    "learning",
    "image",
    "residual",
]


def works(n: int, seed: int = 7) -> list[dict[str, object]]:
    base = fixture("crossref_ding2014.json")["message"]
    rng = random.Random(seed)
    made = []
    for i in range(n):
        item = copy.deepcopy(base)
        item["DOI"] = f"10.5555/bench.{i}"
        item["title"] = [" ".join(rng.choice(WORDS) for _ in range(9)) + f" {i}"]
        item["author"][0]["family"] = f"Author{i % 997}"
        item["issued"] = {"date-parts": [[1990 + i % 35]]}
        made.append(item)
    return made


def run(n: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        items = works(n)
        data = root / "works.jsonl.gz"
        with gzip.open(data, "wt", encoding="utf-8") as out:
            for item in items:
                out.write(json.dumps(item) + "\n")
        store_path = root / "store.sqlite3"
        Store(store_path).close()  # the store made (and migrated) outside the timing
        started = time.perf_counter()
        assert main(["index", "import", str(data), "--store", str(store_path)]) == 0
        seconds = time.perf_counter() - started
        rng = random.Random(3)
        sample = rng.sample(items, min(2000, n))
        store = Store(store_path)
        with store.lookups() as tables:
            mirror = StoredMirror.of(tables)
            assert mirror is not None
            started = time.perf_counter()
            for item in sample:
                assert mirror.work(str(item["DOI"])) is not None
            by_doi = len(sample) / (time.perf_counter() - started)
            started = time.perf_counter()
            for i in range(len(sample)):
                assert mirror.work(f"10.9999/absent.{i}") is None
            absent = len(sample) / (time.perf_counter() - started)
            started = time.perf_counter()
            for item in sample:
                title = item["title"]
                assert isinstance(title, list)
                assert mirror.search(str(title[0]).upper()).works
            by_title = len(sample) / (time.perf_counter() - started)
        store.close()
        size = data.stat().st_size
    return {
        "works": n,
        "file_mb": round(size / 1e6, 2),
        "import_s": round(seconds, 2),
        "import_works_per_s": round(n / seconds),
        "doi_lookups_per_s": round(by_doi),
        "absent_doi_lookups_per_s": round(absent),
        "title_lookups_per_s": round(by_title),
    }


if __name__ == "__main__":
    figures = run(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
    for name, value in figures.items():
        print(f"{name}: {value}", file=sys.stderr)
    print(json.dumps(figures))
