from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citedesk.cli import main
from citedesk.sources.passages import split_passages
from citedesk.store import SCHEMA_VERSION, SourceRecord, Store
from tests.conftest import REPO
from tests.helpers.server import serve


def test_store_roundtrip_and_reopen_after_crash(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    store = Store(path)
    text = "Trees cool streets through shade. About 20% of young trees die within five years of planting."
    store.save_source(
        SourceRecord("url:https://a.example", "html", "ok", time.time(), text=text), split_passages(text)
    )
    assert store.schema_version == SCHEMA_VERSION
    assert store.passages("url:https://a.example")[1].text.startswith("About 20%")
    store.close()
    # a process killed in the middle of a write transaction
    crash = (
        "import os, time; from citedesk.store import Store, SourceRecord\n"
        f"s = Store({str(path)!r})\n"
        "with s.transaction() as db:\n"
        "    db['sources'].upsert({'locator': 'url:https://b.example', 'kind': 'html', 'status': 'ok', "
        "'fetched_at': time.time(), 'text': 'half written'}, pk='locator')\n"
        "    os._exit(9)\n"
    )
    proc = subprocess.run([sys.executable, "-c", crash], cwd=REPO, check=False, timeout=60)
    assert proc.returncode == 9
    reopened = Store(path)
    assert [r.locator for r in reopened.sources()] == ["url:https://a.example"]
    assert len(reopened.passages("url:https://a.example")) == 2
    assert reopened.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serve() as url:
        yield url


def write_doc(folder: Path, base: str) -> Path:
    (folder / "notes.txt").write_text(
        "Street tree survival after planting. About 20% of newly planted trees died within five years. "
        "Drought was the most common cause of death, followed by vandalism and vehicle damage. " * 3,
        encoding="utf-8",
    )
    doc = folder / "doc.md"
    doc.write_text(
        "Shaded streets were 1.5 degrees cooler [1]. A dead page says so too [2]. The PDF agrees [3].\n"
        "Coffee lowers diabetes risk [4]. A wrong DOI [5]. A made-up DOI [6]. A paywalled page [7].\n"
        "An arXiv preprint [8]. A missing preprint [9]. Local notes [10]. A soft 404 [11]. Crossref knows it [12]. A download [13].\n\n"
        "## References\n\n"
        f"[1] Moreau (2021). Tree canopy. {base}/r1\n"
        f"[2] Gone. {base}/missing\n"
        f"[3] Survival report. {base}/paper.pdf\n"
        '[4] Ding, M. (2014). "Caffeinated and decaffeinated coffee consumption and risk of type 2 diabetes". doi:10.1234/good\n'
        '[5] Ding, M. (2014). "Coffee and diabetes in women". doi:10.1234/other\n'
        '[6] Nobody (2020). "Invented". doi:10.1234/invented\n'
        f"[7] Paywall. {base}/paywall\n"
        "[8] Moreau (2021). Canopy preprint. arXiv:2101.00001\n"
        "[9] Ghost (2021). Missing preprint. arXiv:9999.00001\n"
        "[10] My notes, notes.txt\n"
        f"[11] Soft. {base}/soft\n"
        '[12] Moreau, L. (2021). "Urban tree canopy and afternoon heat". doi:10.1234/cn-broken\n'
        f"[13] Survival report as a download. {base}/octet.pdf\n",
        encoding="utf-8",
    )
    return doc


def audit_json(doc: Path, store: Path, base: str, capsys: pytest.CaptureFixture[str], *extra: str) -> Any:
    main(["audit", str(doc), "--format", "json", "--store", str(store), "--allow-private-network", *extra])
    return json.loads(capsys.readouterr().out)


def test_audit_reports_every_source_status(
    tmp_path: Path, base: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEDESK_DOI_BASE", base + "/doi")
    monkeypatch.setenv("CITEDESK_ARXIV_BASE", base)
    monkeypatch.setenv("CITEDESK_CROSSREF_BASE", base + "/crossref")
    doc = write_doc(tmp_path, base)
    store = tmp_path / "store.sqlite3"
    started = time.perf_counter()
    report = audit_json(doc, store, base, capsys)
    first_run = time.perf_counter() - started
    status = {s["key"]: s["status"] for s in report["sources"]}
    assert status == {
        "1": "fetched",
        "2": "dead",
        "3": "fetched",
        "4": "fetched",
        "5": "fetched",  # the source is had; that its DOI names another work is the check's to say
        "6": "not_found",
        "7": "unreadable",
        "8": "fetched",
        "9": "not_found",
        "10": "local",
        "11": "dead",
        "12": "fetched",  # doi.org failed, the Crossref works API answered
        "13": "fetched",  # a .pdf link served as application/octet-stream
    }
    checks = {s["key"]: s["check"]["status"] for s in report["sources"] if s["check"]}
    assert checks == {"4": "ok", "5": "different_work", "6": "unregistered", "12": "ok"}
    kinds = {(f["kind"], f["reference"]) for f in report["findings"]}
    assert [k for k, ref in kinds if ref == "6"] == ["fabricated_reference"]  # once, from the check
    assert {
        ("dead_link", "2"),
        ("dead_link", "11"),
        ("doi_mismatch", "5"),
        ("fabricated_reference", "6"),
        ("fabricated_reference", "9"),
        ("unreadable_source", "7"),
    } <= kinds
    dead = next(f for f in report["findings"] if f["kind"] == "dead_link")
    assert "does not mean the citation is fabricated" in dead["message"]
    invented = next(f for f in report["findings"] if f["reference"] == "6")
    assert invented["fixes"][0]["title"] == "Remove reference [6] and every citation of it"
    good = next(s for s in report["sources"] if s["key"] == "1")
    assert good["quality"]["relevance"] >= 0.4
    assert good["passages"] >= 3

    started = time.perf_counter()
    again = audit_json(doc, store, base, capsys)
    second_run = time.perf_counter() - started
    status2 = {s["key"]: s["status"] for s in again["sources"]}
    assert status2["1"] == "cached"
    assert status2["4"] == "cached"
    assert status2["10"] == "local"
    assert second_run < first_run

    offline = audit_json(doc, store, base, capsys, "--offline")
    status3 = {s["key"]: s["status"] for s in offline["sources"]}
    assert status3["1"] == "cached"
    assert status3["2"] == "offline"
    assert status3["10"] == "local"


def test_sources_dir_supplies_content_by_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sources = tmp_path / "src"
    sources.mkdir()
    (sources / "1.txt").write_text(
        "The river flooded the valley in 1953 after three days of rain. " * 5, encoding="utf-8"
    )
    (sources / "smith2020.html").write_text(
        "<html><body><article><p>"
        + "Flood defences were rebuilt in 1960 and raised again in 1985. " * 5
        + "</p></article></body></html>",
        encoding="utf-8",
    )
    doc = tmp_path / "d.md"
    doc.write_text(
        "The valley flooded in 1953 [1]. Defences followed [^smith2020].\n\n## References\n\n"
        "[1] River report. https://unreachable.invalid/x\n[^smith2020]: Smith (2020). Floods.\n",
        encoding="utf-8",
    )
    main(
        [
            "audit",
            str(doc),
            "--format",
            "json",
            "--offline",
            "--sources",
            str(sources),
            "--store",
            str(tmp_path / "s.db"),
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert {s["key"]: (s["status"], s["location"]) for s in report["sources"]} == {
        "1": ("local", "1.txt"),
        "smith2020": ("local", "smith2020.html"),
    }


def test_a_cached_doi_record_is_compared_with_each_citing_entry(
    tmp_path: Path, base: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEDESK_DOI_BASE", base + "/doi")
    store = tmp_path / "store.sqlite3"
    right, wrong = tmp_path / "right.md", tmp_path / "wrong.md"
    body = "Coffee lowers diabetes risk [1].\n\n## References\n\n"
    right.write_text(
        body + '[1] Ding, M. (2014). "Caffeinated and decaffeinated coffee consumption and risk of '
        'type 2 diabetes". doi:10.1234/good\n',
        encoding="utf-8",
    )
    wrong.write_text(
        body + '[1] He, K. (2016). "Deep residual learning". doi:10.1234/good\n', encoding="utf-8"
    )
    first = audit_json(right, store, base, capsys)
    assert first["sources"][0]["status"] == "fetched"
    assert not [f for f in first["findings"] if f["kind"] == "doi_mismatch"]
    # the same DOI, now cached, cited by an entry that describes another work
    second = audit_json(wrong, store, base, capsys)
    assert second["sources"][0]["status"] == "cached"
    assert second["sources"][0]["cached"] is True
    assert second["sources"][0]["check"]["status"] == "different_work"
    assert second["sources"][0]["check"]["cached"] is True  # the record's answer, compared afresh
    mismatch = next(f for f in second["findings"] if f["kind"] == "doi_mismatch")
    assert mismatch["details"]["record"]["title"].startswith("Caffeinated and decaffeinated coffee")
    assert "not the work the entry describes" in mismatch["message"]


def test_sources_refresh_resolves_again_and_keeps_the_copy_on_failure(
    tmp_path: Path, base: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "store.sqlite3"
    doc = tmp_path / "d.md"
    doc.write_text(
        f"Shaded streets were cooler [1].\n\n## References\n\n[1] Canopy. {base}/article\n",
        encoding="utf-8",
    )
    audit_json(doc, store, base, capsys)
    locator = f"url:{base}/article"
    args = ["sources", "refresh", locator, "--store", str(store), "--allow-private-network"]
    assert main(args) == 0
    assert "fetched again (" in capsys.readouterr().out
    assert main(["sources", "refresh", locator, "--store", str(store)]) == 1  # the guard applies here too
    assert "the cached copy is kept" in capsys.readouterr().err
    opened = Store(store)
    record = opened.source(locator)
    assert record is not None
    assert record.status == "ok"
    assert opened.passages(locator)
    opened.close()
    assert main(["sources", "refresh", "file:/tmp/x", "--store", str(store)]) == 2
