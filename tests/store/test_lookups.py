"""The store's look-up cache and retraction snapshot, on a real SQLite file."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from citedesk.sources.metadata import NoticeKind
from citedesk.sources.retractions import (
    SNAPSHOT_SOURCE,
    SnapshotError,
    StoredRetractions,
    import_into,
    snapshot_age_days,
)
from citedesk.store import SCHEMA_VERSION, RetractionRow, Store
from tests.helpers.indexes import SNAPSHOT_SAMPLE

WAKEFIELD = "10.1016/s0140-6736(97)11096-0"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "store.sqlite3")


def test_answers_are_kept_with_the_time_they_were_stored(store: Store) -> None:
    with store.lookups(clock=lambda: 1_000.0) as tables:
        assert tables.get("crossref:work:10.1/x") is None
        tables.put("crossref:work:10.1/x", {"status": "found", "works": [{"title": "Ünïcode"}]})
    with store.lookups(clock=lambda: 2_000.0) as tables:  # another connection, later
        assert tables.get("crossref:work:10.1/x") == (
            {"status": "found", "works": [{"title": "Ünïcode"}]},
            1_000.0,
        )
        tables.put("crossref:work:10.1/x", {"status": "missing", "works": []})
        assert tables.get("crossref:work:10.1/x") == ({"status": "missing", "works": []}, 2_000.0)
        assert tables.cached_answers() == 1
    store.close()


def test_any_thread_may_use_one_lookup_connection(store: Store) -> None:
    errors: list[BaseException] = []
    with store.lookups() as tables:

        def work(n: int) -> None:
            try:
                for i in range(20):
                    tables.put(f"k{n}:{i}", {"n": n, "i": i})
                    assert tables.get(f"k{n}:{i}") is not None
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert errors == []
        assert tables.cached_answers() == 80
    store.close()


def test_an_import_is_answered_by_doi_and_recorded(store: Store) -> None:
    with store.lookups(clock=lambda: 5_000.0) as tables:
        summary = import_into(tables, SNAPSHOT_SAMPLE, batch=4)
        assert (summary.rows, summary.imported, summary.newest) == (8, 6, "2024-02-14")
        index = StoredRetractions(tables)
        notices = index.notices_for("https://doi.org/10.1016/S0140-6736(97)11096-0")
        assert [(n.kind, n.doi, n.date, n.source, n.record_id) for n in notices] == [
            (NoticeKind.RETRACTION, "10.1016/s0140-6736(10)60175-4", "2010-02-06", SNAPSHOT_SOURCE, "4036")
        ]
        assert notices[0].reasons == (
            "Falsification/Fabrication of Data",
            "Investigation by Company/Institution",
            "Misconduct by Author",
        )
        both = {n.kind for n in index.notices_for("10.1016/J.MICPRO.2020.103053")}
        assert both == {NoticeKind.EXPRESSION_OF_CONCERN, NoticeKind.RETRACTION}
        assert index.notices_for("10.1016/j.micpro.2021.104304") == []  # a notice's DOI is not a work
        info = tables.snapshot()
        assert info is not None
        assert (info.path, info.imported_at, info.rows, info.imported, info.newest) == (
            str(SNAPSHOT_SAMPLE.resolve()),
            5_000.0,
            8,
            6,
            "2024-02-14",
        )
        assert tables.retraction_count() == 6
    store.close()


def test_a_second_import_replaces_the_first(store: Store, tmp_path: Path) -> None:
    header, *rows = SNAPSHOT_SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    smaller = tmp_path / "smaller.csv"
    smaller.write_text(header + "".join(r for r in rows if not r.startswith("4036,")), encoding="utf-8")
    with store.lookups() as tables:
        import_into(tables, SNAPSHOT_SAMPLE)
        import_into(tables, smaller)
        assert StoredRetractions(tables).notices_for(WAKEFIELD) == []
        assert tables.retraction_count() == 5
    store.close()


def test_a_damaged_file_rolls_the_whole_import_back(store: Store, tmp_path: Path) -> None:
    """A file whose first thousands of rows are fine and whose end is broken leaves the previous
    snapshot exactly as it was (the import is one transaction)."""
    header, *rows = SNAPSHOT_SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    good = [r for r in rows if r.strip(",\n")]
    broken = tmp_path / "broken.csv"
    broken.write_text(header + "".join(good * 700) + "5,damaged\x00\x00\x03,row\n", encoding="utf-8")
    with store.lookups() as tables:
        import_into(tables, SNAPSHOT_SAMPLE)
        before = tables.snapshot()
        with pytest.raises(SnapshotError):
            import_into(tables, broken, batch=100)
        assert tables.snapshot() == before
        assert tables.retraction_count() == 6
        assert [n.record_id for n in StoredRetractions(tables).notices_for(WAKEFIELD)] == ["4036"]
        # a snapshot with the right header and no usable row is refused too: it would empty the table
        empty = tmp_path / "empty.csv"
        empty.write_text(header, encoding="utf-8")
        with pytest.raises(SnapshotError, match="no usable row"):
            import_into(tables, empty)
        assert tables.retraction_count() == 6
    store.close()


def test_rows_of_an_unknown_kind_are_left_out(store: Store) -> None:
    with store.lookups() as tables:
        with tables.importing("by hand") as job:
            job.add([RetractionRow("1", "10.5555/a", "10.5555/n", "a_kind_from_the_future", "Future")])
            job.add([RetractionRow("2", "10.5555/a", "10.5555/m", "retraction", "Retraction", "2020-01-02")])
        assert [n.doi for n in StoredRetractions(tables).notices_for("10.5555/A")] == ["10.5555/m"]
    store.close()


def test_snapshot_age_counts_from_its_newest_notice(store: Store) -> None:
    with store.lookups(clock=lambda: 1_800_000_000.0) as tables:
        import_into(tables, SNAPSHOT_SAMPLE)
        info = tables.snapshot()
    assert info is not None
    age = snapshot_age_days(info, now=info.imported_at)
    assert age >= 1  # the newest notice (2024-02-14) is older than the import date
    assert abs(age - (1_800_000_000 - 1_707_868_800) / 86400) < 1.5
    store.close()


def test_an_older_store_gains_the_tables(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    store = Store(path)
    store.db.execute("DROP TABLE lookup_cache")
    store.db.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    store.close()
    again = Store(path)
    assert again.schema_version == SCHEMA_VERSION == 7
    with again.lookups() as tables:
        tables.put("k", {"a": 1})
        assert tables.get("k") is not None
    again.close()
