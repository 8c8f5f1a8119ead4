"""A Word document through the command, end to end (issue 30), on a copy of the bundled sample
(`resources/samples/word`, made by tests/fixtures/make_word_sample.py): `citedesk audit paper.docx` finds what the
sample plants, in every format; `citedesk fix` writes the repaired fields into the .docx itself,
the original kept beside it, every other part of the package and every other paragraph byte for
byte as it was, and the result read back; an edit made meanwhile is never overwritten; a file that
is no Word document stops with the reader's words (exit 2), and nothing is written."""

from __future__ import annotations

import io
import json
import os
import runpy
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lxml import etree  # type: ignore[import-untyped]

from citedesk.assets import sample_word_documents
from citedesk.cli import main
from citedesk.core.findings import Kind
from citedesk.core.word import read_docx
from citedesk.desk import Desk
from citedesk.errors import DocumentChangedError
from citedesk.files import BACKUP_SUFFIX
from citedesk.pipeline import AuditOptions
from tests.conftest import MAKE_SAMPLE
from tests.helpers.indexes import IndexServer, serve_indexes

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
FLAGS = ["--offline", "--judge", "heuristic", "--no-dense", "--sources", "sources"]
SWAP_AND_REMOVE = ["--kinds", "misattributed,redundant_citation", "--unsafe-fixes"]
"""The word-level judge's fixes are suggestions to verify: applied only when asked."""


@pytest.fixture
def paper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "word"
    shutil.copytree(sample_word_documents()["word"].parent, folder)
    monkeypatch.chdir(folder)
    return folder / "paper.docx"


def audit(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any, str]:
    code = main(["audit", *args, *FLAGS, "--format", "json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out else None, captured.err


def found(report: dict[str, Any]) -> set[tuple[str, int, str]]:
    return {(f["kind"], f["line"], f.get("reference") or "") for f in report["findings"]}


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        return {info.filename: package.read(info) for info in package.infolist()}


def paragraphs(data: bytes) -> list[bytes]:
    """Each body paragraph of the package's document part, serialised as it is."""
    root = etree.fromstring(members(data)["word/document.xml"])
    return [etree.tostring(p) for p in root.iter(f"{W}p")]


def test_the_sample_is_listed_with_its_sources(capsys: pytest.CaptureFixture[str]) -> None:
    sample = sample_word_documents()["word"]
    assert sample.name == "paper.docx"
    assert main(["samples"]) == 0
    assert f"word\t{sample}" in capsys.readouterr().out
    for key in ("regionalclimateoffice2020.txt", "moreau2021.txt", "municipalforestrynetwork2019.md"):
        assert (sample.parent / "sources" / key).is_file()


def test_the_sample_is_what_its_script_makes() -> None:
    """The .docx in the repository is the script's, so a change to one is made to both."""
    sample = sample_word_documents()["word"]
    made = runpy.run_path(str(MAKE_SAMPLE))["build"]()
    assert made == sample.read_bytes()


def test_audit_finds_what_the_sample_plants(paper: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report, _ = audit(capsys, "paper.docx")
    assert code == 1
    assert report["document"] == "paper.docx"
    assert {
        ("number_mismatch", 11, "regionalclimateoffice2020"),
        ("misattributed", 13, "municipalforestrynetwork2019"),
        ("redundant_citation", 15, "regionalclimateoffice2020"),
    } <= found(report)
    view = read_docx(paper.read_bytes(), "paper.docx").text.splitlines()
    assert "12 °C" in view[10]  # lines of the view
    assert "[@municipalforestrynetwork2019]" in view[12]


@pytest.mark.parametrize(("form", "expected"), [("text", "12 °C"), ("markdown", "12 °C"), ("html", "<html")])
def test_every_report_format(
    paper: Path, capsys: pytest.CaptureFixture[str], form: str, expected: str
) -> None:
    assert main(["audit", "paper.docx", *FLAGS, "--format", form]) == 1
    assert expected in capsys.readouterr().out


@pytest.fixture(scope="module")
def indexes() -> Iterator[IndexServer]:
    with serve_indexes() as server:
        yield server


def test_the_fabricated_item_is_found_online(
    paper: Path, indexes: IndexServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    indexes.serve_the_app(monkeypatch)
    flags = ["--judge", "none", "--sources", "sources", "--allow-private-network", "--store", "store.sqlite3"]
    main(["audit", "paper.docx", *flags, "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert ("fabricated_reference", 17, "hartley2022") in found(report)
    # a Word document has no front matter: the item is corrected where it lives (issue 43 #4)
    [fabricated] = [f for f in report["findings"] if f["kind"] == "fabricated_reference"]
    assert "front matter" not in fabricated["message"]
    assert "in Zotero or Mendeley (then refresh the document's citations in Word)" in fabricated["message"]
    assert all("front matter" not in f["message"] for f in report["findings"])


def test_fix_writes_only_the_repaired_fields_into_the_docx(
    paper: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = paper.read_bytes()
    code = main(["fix", "paper.docx", *FLAGS, *SWAP_AND_REMOVE])
    err = capsys.readouterr().err
    assert code == 1, err  # the number mismatch is left: it has no fix
    backup = paper.with_name(paper.name + BACKUP_SUFFIX)
    assert f"written; the original is in {backup}" in err
    assert backup.read_bytes() == before
    after = paper.read_bytes()
    old, new = members(before), members(after)
    assert list(old) == list(new)
    assert {name for name in old if old[name] != new[name]} == {"word/document.xml"}
    changed = [
        i for i, (a, b) in enumerate(zip(paragraphs(before), paragraphs(after), strict=True)) if a != b
    ]
    assert len(changed) == 2  # the swapped citation's paragraph and the group's
    was, now = (
        read_docx(before, "paper.docx").text.splitlines(),
        read_docx(after, "paper.docx").text.splitlines(),
    )
    body = was.index("---", 1) + 1  # the front matter lists the same works (in order of first citation)
    assert sorted(was[:body]) == sorted(now[:body])
    assert [i + 1 for i, (a, b) in enumerate(zip(was, now, strict=True)) if a != b and i >= body] == [13, 15]
    instructions = "".join(
        t.text or "" for t in etree.fromstring(new["word/document.xml"]).iter(f"{W}instrText")
    )
    swapped = json.loads(instructions.split("CSL_CITATION", 3)[3].split(" ADDIN")[0])
    assert swapped["citationID"] == "c3"  # the same field, so Zotero refreshes it
    assert swapped["citationItems"][0]["uris"] == ["http://zotero.org/users/local/Q1w2E3r4/items/Z9D4MB2C"]
    assert swapped["properties"]["plainCitation"] != "(Municipal Forestry Network, 2019)"
    assert "less than 10% canopy [@moreau2021]. The cooling" in now[12]
    assert now[14].endswith("most often from drought [@municipalforestrynetwork2019].")
    assert main(["fix", "paper.docx", *FLAGS, *SWAP_AND_REMOVE]) == 1  # again: nothing more to do
    assert "nothing to fix" in capsys.readouterr().err
    assert paper.read_bytes() == after


def test_fix_never_overwrites_an_edit_made_meanwhile(paper: Path) -> None:
    options = AuditOptions(offline=True, judge="heuristic", dense=False, sources_dir=paper.parent / "sources")
    session = Desk(options).open(paper)
    edited = paper.read_bytes()  # the same package, saved again by Word a moment later
    paper.write_bytes(edited)
    os.utime(paper, ns=(0, 0))
    with pytest.raises(DocumentChangedError):
        session.fix(frozenset({Kind.MISATTRIBUTED}), unsafe=True)
    assert paper.read_bytes() == edited
    assert not paper.with_name(paper.name + BACKUP_SUFFIX).exists()


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"this is no Word document at all", "paper.docx"),
        (
            b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + "EncryptedPackage".encode("utf-16-le") + bytes(64),
            "password",
        ),
    ],
)
@pytest.mark.parametrize("command", ["audit", "fix"])
def test_a_file_that_is_no_docx_stops_with_the_readers_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, said: str, command: str
) -> None:
    bad = tmp_path / "paper.docx"
    bad.write_bytes(content)
    extra = ["--kinds", "all"] if command == "fix" else []
    assert main([command, str(bad), "--offline", "--no-sources", *extra]) == 2
    captured = capsys.readouterr()
    assert said in captured.err
    assert "Traceback" not in captured.err
    assert bad.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["paper.docx"]


def test_review_lists_and_records_decisions_on_the_view(
    paper: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = ["--store", "store.sqlite3"]
    before = paper.read_bytes()
    assert main(["review", "paper.docx", *FLAGS, *store]) == 0
    listed = capsys.readouterr().out
    assert "13:" in listed
    assert "misattributed" in listed
    assert main(["review", "paper.docx", *FLAGS, *store, "--mark", "1", "false-alarm"]) == 0
    capsys.readouterr()
    assert main(["review", "paper.docx", *FLAGS, *store]) == 0
    assert "1 dismissed" in capsys.readouterr().out
    assert paper.read_bytes() == before  # review only reads
