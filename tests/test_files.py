"""Writing the writer's files: atomic for documents, and never replacing what is not a plain file."""

from __future__ import annotations

import codecs
import os
import stat
import threading
from pathlib import Path

import pytest

from citedesk.core.text import DocumentError
from citedesk.files import (
    FileTooLargeError,
    read_document,
    read_regular_file,
    write_atomic,
    write_checked,
)


def test_a_symlinked_document_keeps_its_link(tmp_path: Path) -> None:
    real = tmp_path / "synced" / "draft.md"
    real.parent.mkdir()
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "draft.md"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink()  # the link is not replaced by a copy
    assert real.read_text(encoding="utf-8") == "new"
    backup, _ = write_checked(link, "newer", "utf-8", None, backup=True)
    assert backup is not None
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


# --- bounded reads -----------------------------------------------------------------------------------


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    pipe = tmp_path / "draft.md"
    os.mkfifo(pipe)
    # opening a FIFO for reading blocks until someone writes: the refusal must come before that
    with pytest.raises(DocumentError, match="is a named pipe, not a document"):
        read_document(pipe)


def test_a_device_is_refused_before_reading() -> None:
    with pytest.raises(DocumentError, match="is a device, not a document"):
        read_document("/dev/zero")


def test_a_link_to_a_device_is_refused_too(tmp_path: Path) -> None:
    link = tmp_path / "draft.md"
    link.symlink_to("/dev/zero")
    with pytest.raises(DocumentError, match="is a device"):
        read_document(link)


def test_a_file_over_the_limit_is_refused_from_its_size(tmp_path: Path) -> None:
    doc = tmp_path / "big.md"
    doc.write_bytes(b"a" * 2_500_001)
    with pytest.raises(DocumentError, match=r"The file is 2\.5 MB; CiteDesk reads documents up to 2 MB"):
        read_document(doc, max_bytes=2_000_000)
    assert read_document(doc, max_bytes=2_500_001).text == "a" * 2_500_001


def test_at_most_the_limit_plus_one_byte_is_read(tmp_path: Path) -> None:
    # /proc files say they are empty and are not: the read itself must stop at the limit
    with pytest.raises(FileTooLargeError) as refused:
        read_regular_file("/proc/self/maps", 10)
    assert refused.value.size == 11
    assert refused.value.at_least
    doc = tmp_path / "notes.md"
    doc.write_bytes(b"0123456789")
    assert read_regular_file(doc, 10) == b"0123456789"


def test_unreadable_and_missing_files_say_so(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="does not exist"):
        read_document(tmp_path / "nowhere.md")
    with pytest.raises(DocumentError, match="is a folder"):
        read_document(tmp_path)


# --- what a write keeps ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("encoding", "bom"),
    [
        ("utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-16-le", codecs.BOM_UTF16_LE),
        ("utf-32-be", codecs.BOM_UTF32_BE),
        ("utf-32-le", codecs.BOM_UTF32_LE),
        ("utf-8", codecs.BOM_UTF8),
    ],
)
def test_a_fix_keeps_the_byte_order_and_its_mark(tmp_path: Path, encoding: str, bom: bytes) -> None:
    doc = tmp_path / "draft.md"
    doc.write_bytes(bom + "Café prices rose [1] [7].\r\n".encode(encoding))
    decoded = read_document(doc)
    assert decoded.text == "Café prices rose [1] [7].\r\n"
    backup, _ = write_checked(doc, decoded.text.replace(" [7]", ""), decoded.encoding, None, backup=True)
    assert backup is not None
    assert doc.read_bytes() == bom + "Café prices rose [1].\r\n".encode(encoding)
    assert backup.read_bytes() == bom + "Café prices rose [1] [7].\r\n".encode(encoding)


def test_hard_links_are_kept(tmp_path: Path) -> None:
    doc = tmp_path / "draft.md"
    doc.write_text("old text, a little longer than the new one", encoding="utf-8")
    other = tmp_path / "linked-copy.md"
    os.link(doc, other)
    inode = doc.stat().st_ino
    write_checked(doc, "new text", "utf-8", None, backup=True)
    assert doc.stat().st_ino == inode  # the same file, so every name sees the fix
    assert other.read_text(encoding="utf-8") == "new text"
    assert doc.read_text(encoding="utf-8") == "new text"
    assert doc.stat().st_nlink == 2
    assert not list(tmp_path.glob(".draft.md.*.tmp"))  # the checked copy is gone once written


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_owner_group_and_mode_are_kept_when_root_fixes_a_users_file(tmp_path: Path) -> None:
    doc = tmp_path / "draft.md"
    doc.write_text("old", encoding="utf-8")
    os.chown(doc, 4321, 8765)
    doc.chmod(0o640)
    write_checked(doc, "new", "utf-8", None, backup=True)
    info = doc.stat()
    assert (info.st_uid, info.st_gid) == (4321, 8765)
    assert stat.S_IMODE(info.st_mode) == 0o640
    assert doc.read_text(encoding="utf-8") == "new"
