"""Done when (issue 39): a format CiteDesk does not have — a toy package (`NAME.cite.txt`, a zip
holding `body.txt`) read in a citation dialect it does not have (`{{cite:key}}`) — registered from
one module (`tests/helpers/toy_format.py`) gets an audit and a repair through the real command line,
and `batch` discovers it, with no module of `citedesk/` naming it. The window's Open filter is
checked in `tests/gui/test_toy_format_window.py`."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from citedesk.core.formats import DocumentFormat, format_for, format_of, open_filter
from citedesk.desk.corpus_files import discover
from citedesk.files import BACKUP_SUFFIX
from citedesk.main import main
from tests.helpers.toy_format import body_of, toy_format, toy_package

TEXT = (
    "# Heat\n\n"
    "Shade trees cool streets by 2 °C {{cite:lee2020}}. Parks cut deaths by 30% {{cite:ghost}}.\n\n"
    "Write `{{cite:key}}` to cite a work.\n"
)
BIBTEX = "@article{lee2020, title = {Cool streets}, author = {Lee, Ann}, year = {2020}}\n"
FLAGS = ["--offline", "--judge", "heuristic", "--no-dense", "--no-sources", "--bibliography", "refs.bib"]


@pytest.fixture
def toy() -> Iterator[DocumentFormat]:
    with toy_format() as fmt:
        yield fmt


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "refs.bib").write_text(BIBTEX, encoding="utf-8")
    path = tmp_path / "notes.cite.txt"
    path.write_bytes(toy_package(TEXT))
    return path


def test_the_cli_audits_it_in_its_dialect(
    toy: DocumentFormat, notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = notes.read_bytes()
    assert main(["audit", notes.name, *FLAGS, "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    fabricated = [f for f in report["findings"] if f["kind"] == "fabricated"]
    assert [(f["reference"], f["message"]) for f in fabricated] == [
        ("ghost", "{{cite:ghost}} cites a key that is in no bibliography.")
    ]
    assert notes.read_bytes() == before  # an audit changes nothing of the writer's files


def test_the_cli_fixes_it_inside_the_package(
    toy: DocumentFormat, notes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = notes.read_bytes()
    assert main(["fix", notes.name, "--kinds", "fabricated", *FLAGS]) == 0
    assert body_of(notes.read_bytes()) == TEXT.replace(" {{cite:ghost}}", "")
    with zipfile.ZipFile(notes) as package:
        assert package.read("meta.json") == b'{"made": "by the tests"}'  # the rest of it as it was
    assert notes.with_name(notes.name + BACKUP_SUFFIX).read_bytes() == before
    capsys.readouterr()
    assert main(["fix", notes.name, "--kinds", "fabricated", *FLAGS]) == 0  # nothing more to do
    assert body_of(notes.read_bytes()) == TEXT.replace(" {{cite:ghost}}", "")


def test_batch_discovers_it_and_the_window_offers_it(toy: DocumentFormat, notes: Path) -> None:
    (notes.parent / "draft.md").write_text("A text.\n", encoding="utf-8")
    found, left_out = discover([notes.parent], notes.parent / "out")
    assert [d.name for d in found] == ["draft.md", "notes.cite.txt"]
    assert not left_out
    assert "*.cite.txt" in open_filter().split(";;")[0]
    assert "Toy package (*.cite.txt)" in open_filter().split(";;")


def test_unregistered_it_is_gone(notes: Path) -> None:
    with toy_format() as fmt:
        assert format_for(notes) is fmt  # the longest ending wins over `.txt`
    assert format_of(notes).name == "markdown"
    assert "*.cite.txt" not in open_filter()
