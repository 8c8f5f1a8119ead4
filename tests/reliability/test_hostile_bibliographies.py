"""Hostile bibliographies and the folders CiteDesk may read, end to end through `citedesk` (issue 32).

A bibliography goes through the one bounded reader: a device, an endless file or a named pipe is
refused before a byte is read (a child under an address-space limit shows memory stays bounded);
a file that is not UTF-8 is read with a notice. What may be read is the writer's choice: a
bibliography the document names is read only inside the document's folder or a folder the writer
allowed, and its `file` fields never widen that (the probe read `~/.ssh/id_rsa` through one).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from citedesk.cli import main
from tests.reliability.test_hostile_files import _refused

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- hunter2hunter2"
EVIDENCE = (
    "Street trees planted in wide pits survived far better than those in narrow pits, and the "
    "survival gap held for the whole five years of the survey across every district. "
) * 3


def _pandoc_doc(folder: Path, bibliography: str, text: str = "Trees in wide pits survive [@tree].\n") -> Path:
    doc = folder / "chapter.md"
    doc.write_text(f"---\nbibliography: {bibliography}\n---\n\n{text}", encoding="utf-8")
    return doc


def _audit(args: list[str], capsys: pytest.CaptureFixture[str], store: Path) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([*args, "--store", str(store), "--judge", "heuristic", "--no-dense", "--offline"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- 1. bounded reads -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "target"), [("refs.bib", "/dev/zero"), ("refs.json", "/dev/urandom")])
def test_a_bibliography_linked_to_an_endless_device_is_refused_unread(
    tmp_path: Path, name: str, target: str
) -> None:
    (tmp_path / name).symlink_to(target)
    doc = _pandoc_doc(tmp_path, name)
    message, _ = _refused(["audit", str(doc), "--no-sources"])
    assert f"{name}: it is a device, not a file" in message  # said as such, never "--allow-folder /dev"
    assert "--allow-folder" not in message
    # allowed everywhere, the reader itself refuses it (memory-limited child, exit 2)
    message, elapsed = _refused(["audit", str(doc), "--no-sources", "--allow-local-path"])
    assert f"{name}: it is a device, not a file" in message
    assert elapsed < 60  # the probe: /dev/zero grew to 23.8 GB before the OOM killer came


def test_a_bibliography_that_is_a_named_pipe_is_refused_without_waiting(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "refs.bib")
    doc = _pandoc_doc(tmp_path, "refs.bib")
    message, elapsed = _refused(["audit", str(doc), "--no-sources"], timeout=60)  # it blocked forever
    assert "refs.bib: it is a named pipe, not a file" in message
    assert elapsed < 60


def test_a_latin1_bibliography_is_read_with_a_notice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bib = "@article{tree, title={Überleben von Straßenbäumen}, author={Müller, Jörg and Lefèvre, Irène}, year={2020}}\n"
    (tmp_path / "refs.bib").write_bytes(bib.encode("latin-1"))
    doc = _pandoc_doc(tmp_path, "refs.bib")
    code, out, _ = _audit(["audit", str(doc), "--format", "json"], capsys, tmp_path / "s.sqlite3")
    assert code in (0, 1)
    report = json.loads(out)
    notices = " ".join(report["notices"])
    assert "refs.bib is not UTF-8; it was read as cp1252" in notices  # the probe: mojibake, no word said
    source = {s["key"]: s for s in report["sources"]}["tree"]
    assert source["title"] == "Überleben von Straßenbäumen"
    assert source["authors"] == "Müller, Jörg; Lefèvre, Irène"  # not cp1250's "Lefčvre, Irčne"


# --- 2. the folders CiteDesk may read ----------------------------------------------------------------------


@pytest.fixture
def homes(tmp_path: Path) -> tuple[Path, Path]:
    """A writer's project folder, and a neighbouring folder with a private key in it."""
    project, other = tmp_path / "home" / "thesis", tmp_path / "home2"
    project.mkdir(parents=True)
    (other / ".ssh").mkdir(parents=True)
    (other / ".ssh" / "id_rsa").write_text(SECRET, encoding="utf-8")
    return project, other


def test_a_bibliography_the_document_names_outside_its_folder_is_not_read(
    homes: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    project, other = homes
    (other / "notes.bib").write_text("@misc{tree, title={Junk}, file={.ssh/id_rsa}}\n", encoding="utf-8")
    doc = _pandoc_doc(project, "../../home2/notes.bib")
    code, out, err = _audit(["audit", str(doc), "--format", "json"], capsys, tmp_path / "s.sqlite3")
    assert code == 2
    assert SECRET not in out + err
    assert "notes.bib: it is outside the document's folder" in err
    assert f"--allow-folder {other}" in err  # says how to allow it


def test_a_home_folder_bibliography_is_not_read_unless_allowed(
    homes: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project, other = homes
    monkeypatch.setenv("HOME", str(other))
    (other / "notes.bib").write_text(
        "@misc{tree, title={Street trees}, file={.ssh/id_rsa}}\n", encoding="utf-8"
    )
    doc = _pandoc_doc(project, "~/notes.bib")
    code, _, err = _audit(["audit", str(doc)], capsys, tmp_path / "s.sqlite3")
    assert code == 2
    assert "outside the document's folder" in err


def test_an_attachment_outside_the_allowed_folders_is_refused_and_never_quoted(
    homes: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    project, other = homes
    (project / "refs.bib").write_text(
        "@misc{tree, title={Street tree survival}, file={../../home2/.ssh/id_rsa}}\n", encoding="utf-8"
    )
    doc = _pandoc_doc(project, "refs.bib")
    code, out, err = _audit(["audit", str(doc), "--format", "json"], capsys, tmp_path / "s.sqlite3")
    assert code in (0, 1)
    assert "hunter2" not in out + err
    source = {s["key"]: s for s in json.loads(out)["sources"]}["tree"]
    assert source["status"] == "outside"
    # the writer allows the folder: now it is theirs to read
    code, out, _ = _audit(
        ["audit", str(doc), "--format", "json", "--allow-folder", str(other)], capsys, tmp_path / "s.sqlite3"
    )
    assert {s["key"]: s for s in json.loads(out)["sources"]}["tree"]["status"] != "outside"


def test_the_writers_own_bibliography_allows_its_attachments(
    homes: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    project, other = homes
    (other / "paper.txt").write_text(EVIDENCE, encoding="utf-8")
    (other / "library.bib").write_text(
        "@article{tree, title={Street tree survival}, file={paper.txt}}\n", encoding="utf-8"
    )
    doc = project / "chapter.md"
    doc.write_text("Trees in wide pits survive [@tree].\n", encoding="utf-8")
    code, out, _ = _audit(
        ["audit", str(doc), "--format", "json", "--bibliography", str(other / "library.bib")],
        capsys,
        tmp_path / "s.sqlite3",
    )
    assert code in (0, 1)
    assert {s["key"]: s for s in json.loads(out)["sources"]}["tree"]["status"] == "local"


@pytest.mark.parametrize(
    ("value", "said"),
    [("42", "not int '42'"), ("{a: b}", "not dict"), ("", "not nothing"), ("[refs.bib, 7]", "not int '7'")],
)
def test_a_bibliography_value_that_names_no_file_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, said: str
) -> None:
    (tmp_path / "refs.bib").write_text("@misc{tree, title={Street trees}}\n", encoding="utf-8")
    doc = _pandoc_doc(tmp_path, value)
    code, _, err = _audit(["audit", str(doc)], capsys, tmp_path / "s.sqlite3")
    assert code == 2  # the probe: exit 0, "names no bibliography"
    assert "`bibliography:` in the front matter must name a file" in err
    assert said in err
