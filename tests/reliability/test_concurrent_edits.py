"""`fix` and saves never overwrite an edit made while CiteDesk worked, and a kill leaves nothing behind.

The probe (issue 32): text appended while `fix` ran survived only in the backup, which the message
called "the original" (3 of 3 trials); a file moved away mid-run was recreated, with a backup named
that did not exist; a kill during the backup's write left `.NAME.citedesk-backup.*.tmp`. Here the
writer's edit is made at the moment `fix` plans its repairs (between reading the file and writing
it), through the real CLI on real files.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.desk.session import DocumentSession
from citedesk.files import BACKUP_SUFFIX, FileChangedError, read_stamped, write_bytes_atomic, write_checked
from tests.conftest import REPO

DRAFT = (
    "Shaded streets were cooler in the afternoon [1].\n\n"
    "## References\n\n"
    "1. Moreau L. Street trees and heat. https://example.org/trees\n"
    "2. Unused entry. https://example.org/unused\n"
)
TYPED = "A sentence the writer typed while fix ran.\n"


def _fix_while(
    doc: Path, edit: Callable[[], object], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """Run `citedesk fix` on `doc`; `edit` happens after the file was read, before it is written."""
    planning = DocumentSession.plan_most
    edits = [edit]

    def edited_meanwhile(self: DocumentSession, *args: object, **kwargs: object) -> object:
        while edits:
            edits.pop()()
        return planning(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(DocumentSession, "plan_most", edited_meanwhile)
    capsys.readouterr()
    code = main(["fix", str(doc), "--kinds", "orphan_reference", "--store", str(doc.parent / "s.sqlite3")])
    return code, capsys.readouterr().err


def test_fix_never_overwrites_text_appended_while_it_ran(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "draft.md"
    doc.write_text(DRAFT, encoding="utf-8")

    def append() -> None:
        with doc.open("a", encoding="utf-8") as handle:
            handle.write(TYPED)

    code, err = _fix_while(doc, append, monkeypatch, capsys)
    assert code == 2
    assert "changed on disk while CiteDesk worked on it" in err
    assert "nothing was written" in err
    assert doc.read_text(encoding="utf-8") == DRAFT + TYPED  # the writer's edit is there
    assert not doc.with_name(doc.name + BACKUP_SUFFIX).exists()  # and no "original" that is not one


def test_fix_notices_an_edit_that_keeps_the_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "draft.md"
    doc.write_text(DRAFT, encoding="utf-8")
    info = doc.stat()

    def same_size_same_time() -> None:
        doc.write_text(DRAFT.replace("cooler", "warmer"), encoding="utf-8")
        os.utime(doc, ns=(info.st_atime_ns, info.st_mtime_ns))  # even the time put back: the hash tells

    code, err = _fix_while(doc, same_size_same_time, monkeypatch, capsys)
    assert code == 2
    assert "changed on disk" in err
    assert "warmer" in doc.read_text(encoding="utf-8")


def test_fix_on_a_file_moved_away_recreates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "draft.md"
    doc.write_text(DRAFT, encoding="utf-8")
    moved = tmp_path / "elsewhere.md"
    code, err = _fix_while(doc, lambda: doc.replace(moved), monkeypatch, capsys)
    assert code == 2
    assert "was moved or deleted while CiteDesk worked on it; nothing was written" in err
    assert not doc.exists()  # the probe: recreated, with a backup named that did not exist
    assert not doc.with_name(doc.name + BACKUP_SUFFIX).exists()
    assert "original is in" not in err
    assert moved.read_text(encoding="utf-8") == DRAFT


def test_an_unchanged_file_is_fixed_and_its_backup_is_what_was_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "draft.md"
    doc.write_text(DRAFT, encoding="utf-8")
    capsys.readouterr()
    assert main(["fix", str(doc), "--kinds", "orphan_reference", "--store", str(tmp_path / "s.sqlite3")]) == 0
    assert "Unused entry" not in doc.read_text(encoding="utf-8")
    assert doc.with_name(doc.name + BACKUP_SUFFIX).read_text(encoding="utf-8") == DRAFT
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_second_write_checks_against_the_first(tmp_path: Path) -> None:
    doc = tmp_path / "draft.md"
    doc.write_text(DRAFT, encoding="utf-8")
    decoded, stamp = read_stamped(doc)
    _, stamp = write_checked(doc, decoded.text + "one\n", decoded.encoding, stamp)
    _, stamp = write_checked(doc, decoded.text + "two\n", decoded.encoding, stamp)  # its own write is fine
    doc.write_text("someone else\n", encoding="utf-8")
    with pytest.raises(FileChangedError):
        write_checked(doc, "mine\n", "utf-8", stamp)
    assert doc.read_text(encoding="utf-8") == "someone else\n"


# --- kills leave no temporary files ------------------------------------------------------------------------

WRITER = """
import sys
from pathlib import Path
from citedesk.files import read_stamped, write_checked
doc = Path(sys.argv[1])
print("ready", flush=True)
while True:
    decoded, stamp = read_stamped(doc)
    text = decoded.text[:-2] + ("b" if decoded.text.endswith("a\\n") else "a") + "\\n"
    write_checked(doc, text, decoded.encoding, stamp, backup=True)
"""


def test_a_kill_during_a_save_with_backup_leaves_no_temporary_file(tmp_path: Path) -> None:
    doc = tmp_path / "thesis.md"
    doc.write_text(("Shaded streets were cooler in the afternoon. " * 200_000) + "a\n", encoding="utf-8")
    size = doc.stat().st_size  # about 9 MB: each round writes a backup and the document
    script = tmp_path / "writer.py"
    script.write_text(WRITER, encoding="utf-8")
    for delay in (0.05, 0.13, 0.21, 0.34, 0.55):
        child = subprocess.Popen(
            [sys.executable, str(script), str(doc)], cwd=REPO, stdout=subprocess.PIPE, text=True
        )
        try:
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "ready"
            time.sleep(delay)
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=30)
            if child.stdout is not None:
                child.stdout.close()
        assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []  # the probe: one left
        assert doc.stat().st_size == size  # one whole version, old or new
        backup = doc.with_name(doc.name + BACKUP_SUFFIX)
        assert not backup.exists() or backup.stat().st_size == size


def test_a_temporary_left_by_a_dead_writer_is_removed_by_the_next_save(tmp_path: Path) -> None:
    doc = tmp_path / "draft.md"
    doc.write_text(DRAFT, encoding="utf-8")
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(timeout=30)
    leftover = tmp_path / f".draft.md.{gone.pid}-0badc0de.tmp"  # a save killed between naming and renaming
    leftover.write_text("half", encoding="utf-8")
    alive = tmp_path / f".draft.md.{os.getppid()}-0badc0de.tmp"  # a save in progress elsewhere
    alive.write_text("busy", encoding="utf-8")
    write_bytes_atomic(doc, b"new\n")
    assert not leftover.exists()
    assert alive.exists()
    assert doc.read_bytes() == b"new\n"
