"""The offline index mirror's import: JSON lines of Crossref items and OpenAlex works (their real
shapes, from tests/helpers/index_fixtures), plain or gzipped, into a real store file; what is kept,
skipped and refused, and what the mirror then answers."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citedesk.sources.indexes import AnswerStatus
from citedesk.sources.mirror import ImportCaps, MirrorError, StoredMirror, detect_source, import_file
from citedesk.store import Store
from tests.helpers.indexes import fixture

CROSSREF = [
    fixture("crossref_ding2014.json")["message"],
    fixture("crossref_he2016.json")["message"],
    fixture("crossref_wakefield1998.json")["message"],
]
OPENALEX = [fixture("openalex_flagged2020.json"), fixture("openalex_ding2014.json")]


def jsonl(path: Path, records: list[Any], *, extra: tuple[str, ...] = ()) -> Path:
    lines = [json.dumps(r) for r in records] + list(extra)
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    return path


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "store.sqlite3")
    yield opened
    opened.close()


def test_the_records_say_whose_they_are() -> None:
    assert [detect_source(r) for r in CROSSREF] == ["crossref"] * 3
    assert [detect_source(r) for r in OPENALEX] == ["openalex"] * 2
    assert detect_source({"name": "a page"}) is None


def test_a_crossref_file_imports_its_works_and_counts_what_it_skipped(store: Store, tmp_path: Path) -> None:
    no_doi = {**CROSSREF[0], "DOI": ""}
    path = jsonl(
        tmp_path / "crossref.jsonl",
        [*CROSSREF, no_doi, OPENALEX[0]],
        extra=("{not json", "", '"a string"', json.dumps({"status": "ok", "message": CROSSREF[0]})),
    )
    with store.lookups() as tables:
        summary = import_file(tables, path)
        assert (summary.source, summary.kept, summary.bad_lines) == ("crossref", 4, 2)
        assert summary.skipped == {"no DOI": 1, "an openalex record, not crossref": 1}
        assert tables.mirror_count() == 3  # the API answer's work is Ding's again: one row
        [file] = tables.mirror_files()
        assert (file.source, file.kept, file.skipped, file.bad_lines) == ("crossref", 4, 2, 2)
        mirror = StoredMirror.of(tables)
        assert mirror is not None
        answer = mirror.work("10.2337/dc13-1203")
        assert answer is not None
        assert answer.status is AnswerStatus.FOUND
        assert answer.index == "crossref-mirror"
        assert answer.work is not None
        assert answer.work.year == 2014
        assert answer.work.volume == "37"
        assert mirror.work("10.9999/not-there") is None
        # a title finds its work with or without its subtitle, whatever the case and punctuation
        found = mirror.search("caffeinated and decaffeinated coffee consumption and risk of type 2 diabetes")
        assert found.work is not None
        assert found.work.doi == "10.2337/dc13-1203"
        assert mirror.search("Deep residual learning for image recognition!").status is AnswerStatus.FOUND
        assert mirror.search("Luminous tardigrades of the ice").status is AnswerStatus.MISSING
        assert mirror.describe().startswith("the local Crossref mirror (imported ")


def test_a_gzipped_openalex_snapshot_keeps_its_retraction_flag(store: Store, tmp_path: Path) -> None:
    path = jsonl(tmp_path / "works.jsonl.gz", OPENALEX)
    with store.lookups() as tables:
        summary = import_file(tables, path)
        assert (summary.source, summary.kept, summary.bad_lines) == ("openalex", 2, 0)
        mirror = StoredMirror.of(tables)
        assert mirror is not None
        answer = mirror.work("10.5555/openalex-flagged.2020")
        assert answer is not None
        assert answer.work is not None
        assert answer.index == "openalex-mirror"
        assert answer.work.is_retracted is True
        assert [n.kind.value for n in answer.work.notices] == ["retraction"]


def test_a_reimport_replaces_the_files_rows_and_leaves_other_files(store: Store, tmp_path: Path) -> None:
    first = jsonl(tmp_path / "a.jsonl", CROSSREF)
    other = jsonl(tmp_path / "b.jsonl.gz", OPENALEX[:1])
    with store.lookups() as tables:
        import_file(tables, first)
        import_file(tables, other)
        assert tables.mirror_count() == 4
        jsonl(first, CROSSREF[1:2])
        import_file(tables, first)
        assert tables.mirror_count() == 2
        assert tables.mirror_works("10.2337/dc13-1203") == []
        assert len(tables.mirror_files()) == 2


def test_a_damaged_or_useless_file_is_refused_and_the_mirror_kept(store: Store, tmp_path: Path) -> None:
    path = jsonl(tmp_path / "a.jsonl.gz", CROSSREF)
    with store.lookups() as tables:
        import_file(tables, path)
        whole = path.read_bytes()
        path.write_bytes(whole[: len(whole) // 2])  # a download cut short
        with pytest.raises(MirrorError, match="gzip stream is damaged"):
            import_file(tables, path)
        jsonl(path, [{"name": "not a work"}], extra=("{broken",))
        with pytest.raises(MirrorError, match="no usable work"):
            import_file(tables, path)
        binary = tmp_path / "b.jsonl"
        binary.write_bytes(b"\x00\x01\x02binary\n")
        with pytest.raises(MirrorError, match="binary"):
            import_file(tables, binary)
        assert tables.mirror_count() == 3
        assert [f.kept for f in tables.mirror_files()] == [3]


def test_caps_a_line_too_long_is_a_bad_line_and_max_works_stops_early(store: Store, tmp_path: Path) -> None:
    huge = {**CROSSREF[2], "abstract": "x" * 5000}
    path = jsonl(tmp_path / "a.jsonl", [CROSSREF[0], huge, CROSSREF[1]])
    with store.lookups() as tables:
        summary = import_file(tables, path, caps=ImportCaps(max_line_bytes=4000))
        assert (summary.kept, summary.bad_lines) == (2, 1)
        assert tables.mirror_works("10.1109/cvpr.2016.90") != []  # the line after the long one is read whole
        summary = import_file(tables, path, caps=ImportCaps(max_works=1))
        assert summary.kept == 1
        assert "max-works" in summary.stopped
        assert tables.mirror_count() == 1


def test_a_source_given_keeps_only_its_records(store: Store, tmp_path: Path) -> None:
    path = jsonl(tmp_path / "mixed.jsonl", [OPENALEX[0], *CROSSREF[:1]])
    with store.lookups() as tables:
        summary = import_file(tables, path, source="crossref")
        assert (summary.source, summary.kept) == ("crossref", 1)
        assert summary.skipped == {"an openalex record, not crossref": 1}
        with pytest.raises(MirrorError, match="unknown source"):
            import_file(tables, path, source="scopus")
