"""Importing a full-size Retraction Watch snapshot, and looking retractions up in it (figures, not a test).

The real snapshot has about 60,000 rows (50 MB). This writes one of that size in the real format —
the sample's rows (tests/helpers/index_fixtures/retraction_watch_sample.csv) repeated with fresh
record ids and DOIs — imports it into a fresh store through the desk (as `citedesk retractions
import` does), then times `notices_for` over DOIs that are in it and DOIs that are not.

    .venv/bin/python -m tests.bench.snapshot_import [--rows 60000] [--lookups 2000]
"""

from __future__ import annotations

import argparse
import csv
import io
import tempfile
import time
from pathlib import Path

from citedesk.desk import AuditOptions, Desk
from citedesk.sources.retractions import NATURES, StoredRetractions
from citedesk.store import Store
from tests.helpers.indexes import SNAPSHOT_SAMPLE


def write_snapshot(path: Path, rows: int) -> list[str]:
    """A snapshot of `rows` rows; returns the original DOIs written."""
    header, *sample = list(csv.reader(io.StringIO(SNAPSHOT_SAMPLE.read_text(encoding="utf-8"))))
    doi_at, id_at = header.index("OriginalPaperDOI"), header.index("Record ID")
    nature_at = header.index("RetractionNature")
    usable = [r for r in sample if any(r) and r[doi_at].startswith("10.") and r[nature_at].lower() in NATURES]
    dois = []
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(header)
        for n in range(rows):
            row = list(usable[n % len(usable)])
            row[id_at] = str(100_000 + n)
            row[doi_at] = f"10.{5000 + n % 4000}/bench.{n}"
            dois.append(row[doi_at])
            writer.writerow(row)
    return dois


def run(rows: int, lookups: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        snapshot = Path(tmp) / "retraction_watch.csv"
        dois = write_snapshot(snapshot, rows)
        desk = Desk(AuditOptions(store_path=Path(tmp) / "store.sqlite3"))
        started = time.perf_counter()
        result = desk.import_retractions(snapshot)
        imported = time.perf_counter() - started
        size = snapshot.stat().st_size / 1e6
        print(f"snapshot: {rows:,} rows, {size:.1f} MB; {result.imported:,} imported")
        print(f"import (one transaction): {imported:.2f} s ({rows / imported:,.0f} rows/s)")
        started = time.perf_counter()
        desk.import_retractions(snapshot)
        print(f"import again (replacing it): {time.perf_counter() - started:.2f} s")
        store = Store(Path(tmp) / "store.sqlite3")
        try:
            with store.lookups() as tables:
                index = StoredRetractions(tables)
                step = max(1, len(dois) // lookups)
                wanted = dois[::step][:lookups]
                started = time.perf_counter()
                found = sum(1 for doi in wanted if index.notices_for(doi))
                hit = (time.perf_counter() - started) / len(wanted) * 1e6
                started = time.perf_counter()
                missed = sum(1 for n in range(lookups) if index.notices_for(f"10.9999/absent.{n}"))
                miss = (time.perf_counter() - started) / lookups * 1e6
        finally:
            store.close()
        print(
            f"look-up by DOI: {hit:.0f} µs when listed ({found}/{len(wanted)} found), {miss:.0f} µs when not ({missed} found)"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=60_000)
    parser.add_argument("--lookups", type=int, default=2000)
    options = parser.parse_args()
    run(options.rows, options.lookups)
