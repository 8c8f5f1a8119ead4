"""Writing the writer's files: atomic for documents, and never replacing what is not a plain file."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from citedesk.files import write_atomic, write_with_backup


def test_a_symlinked_document_keeps_its_link(tmp_path: Path) -> None:
    real = tmp_path / "synced" / "draft.md"
    real.parent.mkdir()
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "draft.md"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink()  # the link is not replaced by a copy
    assert real.read_text(encoding="utf-8") == "new"
    backup = write_with_backup(link, "newer")
    assert link.is_symlink()
    assert real.read_text(encoding="utf-8") == "newer"
    assert backup.read_text(encoding="utf-8") == "new"


def test_a_pipe_is_written_to_not_replaced(tmp_path: Path) -> None:
    """`--out /dev/stdout` or a named pipe: the report goes into it; the pipe stays a pipe."""
    pipe = tmp_path / "report.pipe"
    os.mkfifo(pipe)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()))
    reader.start()
    write_atomic(pipe, "report")
    reader.join(timeout=10)
    assert received == [b"report"]
    assert stat.S_ISFIFO(pipe.stat().st_mode)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        write_atomic(tmp_path, "text")


def test_permissions_are_kept(tmp_path: Path) -> None:
    document = tmp_path / "private.md"
    document.write_text("old", encoding="utf-8")
    document.chmod(0o600)
    write_atomic(document, "new")
    assert stat.S_IMODE(document.stat().st_mode) == 0o600


def test_a_save_clears_what_killed_saves_of_the_same_file_left_behind(tmp_path: Path) -> None:
    doc = tmp_path / "draft.md"
    doc.write_text("old", encoding="utf-8")
    stale = tmp_path / ".draft.md.k1ll3d.tmp"  # a save killed an hour ago
    stale.write_text("half a version", encoding="utf-8")
    os.utime(stale, (stale.stat().st_atime - 3600, stale.stat().st_mtime - 3600))
    in_progress = tmp_path / ".draft.md.w0rk1n.tmp"  # another process saving right now
    in_progress.write_text("being written", encoding="utf-8")
    other = tmp_path / ".notes.md.k1ll3d.tmp"  # another document's: not ours to judge
    other.write_text("x", encoding="utf-8")
    os.utime(other, (other.stat().st_atime - 3600, other.stat().st_mtime - 3600))

    write_atomic(doc, "new")

    assert doc.read_text(encoding="utf-8") == "new"
    assert not stale.exists()
    assert in_progress.exists()
    assert other.exists()
