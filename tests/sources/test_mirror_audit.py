"""Reference truth from the offline index mirror, end to end through the commands: `citedesk index
import` of JSON-lines files (Crossref items and an OpenAlex work, in their real shapes), then
`citedesk audit` of a pandoc document — offline, the mirror alone decides; online, the local index
servers (tests/helpers/indexes.py) are asked only about what the mirror does not hold."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.desk import AuditOptions, Desk
from citedesk.desk.corpus_run import run_corpus
from tests.helpers.indexes import DING, IndexServer, fixture, serve_indexes
from tests.helpers.truth_cli import audit, by_reference
from tests.sources.test_bibliography_truth import MISMATCH, UNKNOWN, ZHOU, ding, project

FLAGGED = """@article{flagged2020,
  author = {Kumar, Ravi},
  title = {An improved method for hardware task scheduling on reconfigurable systems},
  year = {2020},
  doi = {10.5555/openalex-flagged.2020}
}
"""
ELSEWHERE = """@article{elsewhere,
  author = {Wakefield, Andrew J.},
  title = {Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive developmental disorder in children},
  journal = {The Lancet},
  year = {1998},
  doi = {10.1016/S0140-6736(97)11096-0}
}
"""
BODY = """# Coffee, vaccines and bats

Coffee drinkers had a lower risk of type 2 diabetes [@ding2014].
Decaffeinated coffee helped too [@mismatch].
The new coronavirus probably came from bats [@zhou2020].
Tardigrades of the ice shelves glow [see @ramirez2019, p. 3].
Scheduling on reconfigurable systems improved [@flagged2020].
The vaccine caused the disorder [@elsewhere].
"""
SOURCES = {
    "flagged2020": "Scheduling on reconfigurable systems improved",
    "elsewhere": "The vaccine caused it",
}


@pytest.fixture(scope="module")
def indexes() -> Iterator[IndexServer]:
    with serve_indexes() as server:
        yield server


@pytest.fixture(autouse=True)
def _local_indexes(indexes: IndexServer, monkeypatch: pytest.MonkeyPatch) -> None:
    indexes.serve_the_app(monkeypatch)


def mirrored(root: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The document, and a mirror in its store: Crossref's Ding, He and Zhou records (not
    Wakefield's), and OpenAlex's flagged work, gzipped."""
    doc, _ = project(
        root, ding("ding2014", year="2016") + MISMATCH + ZHOU + UNKNOWN + FLAGGED + ELSEWHERE, BODY
    )
    for key, claim in SOURCES.items():
        (root / "sources" / f"{key}.txt").write_text(f"{claim}, the study found. " * 4, encoding="utf-8")
    crossref = [
        fixture("crossref_ding2014.json")["message"],
        fixture("crossref_he2016.json")["message"],
        *fixture("crossref_search_zhou2020.json")["message"]["items"],
    ]
    (root / "crossref.jsonl").write_text("".join(json.dumps(r) + "\n" for r in crossref) + "{cut sho\n")
    (root / "openalex.jsonl.gz").write_bytes(
        gzip.compress(json.dumps(fixture("openalex_flagged2020.json")).encode())
    )
    store = ["--store", str(root / "store.sqlite3")]
    assert (
        main(["index", "import", str(root / "crossref.jsonl"), str(root / "openalex.jsonl.gz"), *store]) == 0
    )
    said = capsys.readouterr().out.splitlines()
    assert said[0].startswith(
        f"{root / 'crossref.jsonl'}: Crossref works: 4 records, 4 kept, 0 skipped, 1 bad lines"
    )
    assert said[1].startswith(f"{root / 'openalex.jsonl.gz'}: OpenAlex works: 1 records, 1 kept")
    assert main(["index", "status", *store]) == 0
    assert "the local Crossref and OpenAlex mirror (imported " in capsys.readouterr().out
    return doc


def test_offline_the_mirror_alone_finds_metadata_errors_wrong_dois_and_retractions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], indexes: IndexServer
) -> None:
    doc = mirrored(tmp_path, capsys)
    before = len(indexes.state.hits)
    report = audit(doc, capsys, "--offline")
    assert len(indexes.state.hits) == before
    checks = {s["key"]: s["check"] for s in report["sources"]}
    assert {key: c["status"] for key, c in checks.items()} == {
        "ding2014": "metadata_error",
        "mismatch": "different_work",
        "zhou2020": "found_by_title",
        "ramirez2019": "not_checked",
        "flagged2020": "ok",
        "elsewhere": "not_checked",
    }
    assert checks["ding2014"]["index"] == "crossref-mirror"
    assert checks["flagged2020"]["index"] == "openalex-mirror"
    found = by_reference(report)
    [year] = found["ding2014"]
    assert (year["kind"], year["details"]["field"], year["details"]["actual"]) == (
        "metadata_error",
        "year",
        "2014",
    )
    assert "the local Crossref mirror's record" in year["message"]
    [wrong] = found["mismatch"]
    assert wrong["kind"] == "doi_mismatch"
    assert "Deep Residual Learning for Image Recognition" in wrong["message"]
    zhou = {f["kind"]: f for f in found["zhou2020"]}
    assert set(zhou) == {"found_by_title", "correction"}  # the record's own correction notice, as online
    assert zhou["found_by_title"]["details"]["suggested_doi"] == "10.1038/s41586-020-2012-7"
    assert zhou["found_by_title"]["message"].startswith("The local Crossref mirror knows @zhou2020")
    assert [f["kind"] for f in found["flagged2020"]] == ["retracted"]  # OpenAlex's flag, from its snapshot
    # what the mirror does not hold is not looked up offline — never "not found"
    assert "ramirez2019" not in found
    assert "elsewhere" not in found
    assert checks["elsewhere"]["message"].startswith("not looked up: the local Crossref and OpenAlex mirror")
    assert "does not hold doi:10.1016/S0140-6736(97)11096-0" in checks["elsewhere"]["message"]
    assert "has no work with this title" in checks["ramirez2019"]["message"]
    assert (
        "checked against the local Crossref and OpenAlex mirror (imported " in checks["ding2014"]["message"]
    )
    assert any(
        n.startswith("4 of 6 references were checked against the local Crossref and OpenAlex mirror")
        and "not looked up (offline" in n
        for n in report["notices"]
    )


def test_online_the_network_is_asked_only_about_what_the_mirror_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], indexes: IndexServer
) -> None:
    doc = mirrored(tmp_path, capsys)
    before = len(indexes.state.hits)
    report = audit(doc, capsys)
    asked = [path.lower() for path, _ in indexes.state.hits[before:]]
    for doi in ("dc13-1203", "cvpr.2016.90", "openalex-flagged.2020"):
        assert not any(doi in path for path in asked), doi
    assert not any("pneumonia" in path for path in asked)  # found by title in the mirror
    assert any("s0140-6736(97)11096-0" in path for path in asked)  # Wakefield's: not in the mirror
    checks = {s["key"]: s["check"] for s in report["sources"]}
    assert checks["elsewhere"]["status"] == "ok"
    assert checks["elsewhere"]["index"] == "crossref"
    assert checks["ramirez2019"]["status"] == "not_found"  # the mirror and both indexes were asked
    assert [f["kind"] for f in by_reference(report)["elsewhere"]] == [
        "retracted",
    ]
    assert any("the others were asked of the indexes" in n for n in report["notices"])


def test_the_command_refuses_a_bad_file_imports_the_rest_and_says_when_none_is_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = ["--store", str(tmp_path / "store.sqlite3")]
    assert main(["index", "status", *store]) == 1
    assert "no index mirror imported" in capsys.readouterr().out
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(gzip.compress(b'{"DOI": "10.1/x", "title": ["A work"]}\n' * 50)[:-12])  # cut short
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps(fixture("crossref_he2016.json")["message"]) + "\n")
    assert main(["index", "import", str(bad), str(good), *store]) == 2
    out, err = capsys.readouterr()
    assert "the gzip stream is damaged" in err
    assert out.startswith(f"{good}: Crossref works: 1 records, 1 kept")
    assert main(["index", "status", *store]) == 0
    assert "1 works from 1 file\n" in capsys.readouterr().out


def test_a_batch_offline_takes_its_reference_truth_from_the_mirror(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], indexes: IndexServer
) -> None:
    store = tmp_path / "store.sqlite3"
    mirror_file = tmp_path / "crossref.jsonl"
    mirror_file.write_text(json.dumps(fixture("crossref_ding2014.json")["message"]) + "\n")
    assert main(["index", "import", str(mirror_file), "--store", str(store)]) == 0
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i in range(3):
        (corpus / f"doc{i}.md").write_text(
            f"# Note {i}\n\nCoffee drinkers had a lower risk of type 2 diabetes [1].\n\n## References\n\n"
            f"1. {DING.format(year=2016, doi='10.2337/dc13-1203')}\n",
            encoding="utf-8",
        )
    options = AuditOptions(
        judge="none", dense=False, offline=True, allow_private_network=True, store_path=store,
        doi_base=indexes.base + "/doi", crossref_base=indexes.base + "/crossref",
        openalex_base=indexes.base + "/openalex",
    )  # fmt: skip
    before = len(indexes.state.hits)
    result = run_corpus(Desk(options), [corpus], tmp_path / "out", workers=1)
    assert len(indexes.state.hits) == before
    assert [o.error for o in result.outcomes] == [None] * 3
    for i in range(3):
        report = json.loads((tmp_path / "out" / "reports" / f"doc{i}.md.json").read_text(encoding="utf-8"))
        assert [
            (f["kind"], f["details"]["index"]) for f in report["findings"] if f["kind"] == "metadata_error"
        ] == [("metadata_error", "crossref-mirror")]
