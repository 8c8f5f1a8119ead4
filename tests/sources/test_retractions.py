"""The Retraction Watch snapshot: streaming import, normalisation, errors; notices merged from every source."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

import pytest

from citedesk.sources.metadata import Notice, NoticeKind, crossref_notices
from citedesk.sources.retractions import (
    SNAPSHOT_SOURCE,
    MemoryRetractionIndex,
    RetractionRecord,
    SnapshotError,
    SnapshotSummary,
    StoredRetractions,
    import_into,
    import_snapshot,
    merge_notices,
    parse_date,
    read_snapshot,
    split_reasons,
    standing,
)
from citedesk.store import Store
from tests.helpers.indexes import SNAPSHOT_SAMPLE, fixture

WAKEFIELD = "10.1016/s0140-6736(97)11096-0"


def test_a_real_format_snapshot_is_read_into_normalised_records() -> None:
    summary = SnapshotSummary()
    records = {r.record_id: r for r in read_snapshot(SNAPSHOT_SAMPLE, summary=summary)}
    wakefield = records["4036"]
    assert wakefield.original_doi == WAKEFIELD  # lower-cased
    assert wakefield.notice_doi == "10.1016/s0140-6736(10)60175-4"
    assert (wakefield.kind, wakefield.date, wakefield.original_date) == (
        NoticeKind.RETRACTION,
        "2010-02-06",
        "1998-02-28",
    )
    assert wakefield.reasons == (
        "Falsification/Fabrication of Data",
        "Investigation by Company/Institution",
        "Misconduct by Author",
    )
    assert (wakefield.original_pmid, wakefield.notice_pmid) == ("9500320", "20137807")
    assert records["72867"].kind is NoticeKind.EXPRESSION_OF_CONCERN
    assert records["67291"].kind is NoticeKind.CORRECTION
    assert records["49720"].kind is NoticeKind.REINSTATEMENT
    assert records["72867"].notice_pmid is None  # `0` is no PubMed id
    assert (
        records["40040"].original_doi == "10.1002/1096-9098(200007)74:3<201::aid-jso8>3.0.co;2-5"
    )  # %-escapes decoded
    assert "70548" not in records  # `unavailable` DOI: nothing to match a citation against
    assert "999000002" not in records  # an unknown nature is not guessed
    assert summary.rows == 8  # the blank row is not a row
    assert summary.imported == 6
    assert summary.skipped == {"no original DOI": 1, "unknown nature": 1}
    assert summary.newest == "2024-02-14"


@pytest.mark.parametrize(
    ("raw", "iso"),
    [
        ("8/16/2023 0:00", "2023-08-16"),
        ("2023-08-16", "2023-08-16"),
        ("12/1/1999", "1999-12-01"),
        ("", None),
        ("soon", None),
    ],
)
def test_dates(raw: str, iso: str | None) -> None:
    assert parse_date(raw) == iso


def test_reasons_old_and_new_style() -> None:
    assert split_reasons("+Plagiarism of Article;+Duplication of Image;") == (
        "Plagiarism of Article",
        "Duplication of Image",
    )
    assert split_reasons("Rogue Editor;") == ("Rogue Editor",)
    assert split_reasons("") == ()


def test_a_file_that_is_not_a_snapshot_is_refused_clearly(tmp_path: Path) -> None:
    notes = tmp_path / "notes.csv"
    notes.write_text("name,email\nPat,pat@example.org\n", encoding="utf-8")
    with pytest.raises(SnapshotError, match=r"not a Retraction Watch CSV.*lacks Record ID, RetractionDate"):
        list(read_snapshot(notes))
    binary = tmp_path / "snapshot.csv"
    binary.write_bytes(b"PK\x03\x04\x00\x00zip")
    with pytest.raises(SnapshotError, match="binary"):
        list(read_snapshot(binary))
    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(SnapshotError, match="empty"):
        list(read_snapshot(empty))
    with pytest.raises(SnapshotError, match="cannot be read"):
        list(read_snapshot(tmp_path / "missing.csv"))


def test_the_snapshot_is_streamed_not_loaded_whole(tmp_path: Path) -> None:
    """The first record comes out while the rest of the file has not been written yet (a FIFO)."""
    pipe = tmp_path / "snapshot.fifo"
    os.mkfifo(pipe)
    header, first_row, *rest = SNAPSHOT_SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    release = threading.Event()

    def write() -> None:
        with contextlib.suppress(BrokenPipeError), pipe.open("w", encoding="utf-8") as out:
            out.write(header + first_row)
            out.flush()
            release.wait(timeout=30)
            out.writelines(rest)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        records = read_snapshot(pipe)
        first = next(records)
        assert first.record_id == "4036"
        release.set()
        assert len(list(records)) == 5
    finally:
        release.set()
        writer.join(timeout=30)


def test_import_hands_batches_to_the_store_and_the_store_answers_by_doi(tmp_path: Path) -> None:
    store = Store(tmp_path / "store.sqlite3")
    try:
        batches: list[list[RetractionRecord]] = []
        summary = import_snapshot(SNAPSHOT_SAMPLE, batches.append, batch=4)
        assert [len(b) for b in batches] == [4, 2]
        assert summary.imported == 6
        with store.lookups() as tables:
            import_into(tables, SNAPSHOT_SAMPLE, batch=4)
            notices = StoredRetractions(tables).notices_for("https://doi.org/10.1016/S0140-6736(97)11096-0")
        assert [(n.kind, n.doi, n.date, n.source) for n in notices] == [
            (NoticeKind.RETRACTION, "10.1016/s0140-6736(10)60175-4", "2010-02-06", SNAPSHOT_SOURCE)
        ]
    finally:
        store.close()


def test_crossref_update_relations_become_notices() -> None:
    message = fixture("crossref_wakefield1998.json")["message"]
    notices = crossref_notices(message)
    assert [(n.kind, n.doi, n.date, n.source, n.record_id) for n in notices] == [
        (NoticeKind.CORRECTION, "10.1016/s0140-6736(04)15715-2", "2004-03-06", "retraction-watch", "17269"),
        (NoticeKind.RETRACTION, "10.1016/s0140-6736(10)60175-4", "2010-02-06", "retraction-watch", "4036"),
    ]
    # a notice deposited on the work's own DOI (`update-to` pointing at itself) counts too
    in_place = {
        "DOI": "10.5555/x",
        "title": ["A paper"],
        "update-to": [{"DOI": "10.5555/X", "type": "withdrawal", "updated": {"date-parts": [[2021, 5, 1]]}}],
    }
    assert [(n.kind, n.doi) for n in crossref_notices(in_place)] == [(NoticeKind.WITHDRAWAL, "10.5555/x")]
    # a notice record's `update-to` points at another work: it says nothing about the notice itself
    notice_record = {
        "DOI": "10.5555/notice",
        "title": ["Retraction"],
        "update-to": [{"DOI": "10.5555/other", "type": "retraction"}],
    }
    assert crossref_notices(notice_record) == ()
    # the title prefix is a last resort
    assert [n.source for n in crossref_notices({"DOI": "10.5555/y", "title": ["RETRACTED: A paper"]})] == [
        "title"
    ]


def test_notices_from_every_source_are_merged_into_one_per_notice() -> None:
    crossref = crossref_notices(fixture("crossref_wakefield1998.json")["message"])
    snapshot = MemoryRetractionIndex(read_snapshot(SNAPSHOT_SAMPLE)).notices_for(WAKEFIELD)
    openalex = [Notice(NoticeKind.RETRACTION, source="openalex")]
    merged = merge_notices(openalex, crossref, snapshot)
    assert [(n.kind, n.doi) for n in merged] == [
        (NoticeKind.RETRACTION, "10.1016/s0140-6736(10)60175-4"),
        (NoticeKind.CORRECTION, "10.1016/s0140-6736(04)15715-2"),
    ]
    retraction = merged[0]
    assert retraction.source == SNAPSHOT_SOURCE
    assert retraction.reasons  # the snapshot's reasons fill in what Crossref's relation lacks
    assert retraction.record_id == "4036"
    assert merge_notices(openalex) == tuple(openalex)  # alone, the flag stands


def test_standing_follows_the_latest_notice() -> None:
    retraction = Notice(NoticeKind.RETRACTION, "10.1/r", "2020-01-01")
    reinstated = Notice(NoticeKind.REINSTATEMENT, "10.1/s", "2021-06-01")
    concern = Notice(NoticeKind.EXPRESSION_OF_CONCERN, "10.1/c", "2019-03-01")
    assert standing([concern, retraction]) == retraction
    assert standing([concern, retraction, reinstated]) == concern
    assert standing([Notice(NoticeKind.CORRECTION, "10.1/k", "2018-01-01")]) is not None
    assert standing([]) is None
