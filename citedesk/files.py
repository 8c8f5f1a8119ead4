"""Reading documents from disk and writing them back atomically, never losing the writer's text.

Reads are bounded: only regular files are opened (a named pipe would block, a device such as
/dev/zero never ends), and no more than the limit plus one byte is read. Writes keep what the file
was: its encoding and byte-order mark, its owner, group and mode, its symbolic and hard links.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import stat
import tempfile
import time
from pathlib import Path

from citedesk.core.text import (
    MAX_DOCUMENT_BYTES,
    DecodedText,
    DocumentError,
    decode_document,
    encode_document,
    too_large,
)

BACKUP_SUFFIX = ".citedesk-backup"
STALE_AFTER_S = 600
"""A temporary file of ours this old is left from a save that was killed; no save takes this long."""


class NotRegularFileError(OSError):
    """The path is a pipe, a device, a socket or a folder: it is not read."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(errno.EINVAL, f"is {kind}, not a file", str(path))
        self.kind = kind


class FileTooLargeError(OSError):
    """The file holds more than the limit; `size` is its size, or limit + 1 when it grew while read."""

    def __init__(self, path: Path, size: int, *, at_least: bool = False) -> None:
        super().__init__(errno.EFBIG, f"is {size} bytes", str(path))
        self.size = size
        self.at_least = at_least


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)


def _check_regular(path: Path, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    if kind == "a folder":
        raise IsADirectoryError(errno.EISDIR, "is a folder", str(path))
    raise NotRegularFileError(path, kind)


def read_regular_file(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """The bytes of a regular file (symbolic links followed) of at most `max_bytes`.

    The kind is checked before opening (opening a named pipe waits for a writer) and again on the
    open descriptor (the path may have changed in between); a file larger than `max_bytes` is
    refused from its size before any read, and at most `max_bytes` + 1 bytes are ever read, so a
    file that grows while read cannot exhaust memory. Raises NotRegularFileError,
    FileTooLargeError, or the OSError of the failing call.
    """
    p = Path(path)
    _check_regular(p, os.stat(p).st_mode)
    flags = (
        os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    )
    fd = os.open(p, flags)
    with open(fd, "rb", closefd=True) as handle:
        info = os.fstat(handle.fileno())
        _check_regular(p, info.st_mode)
        if info.st_size > max_bytes:
            raise FileTooLargeError(p, info.st_size)
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileTooLargeError(p, len(data), at_least=True)
    return data


def read_document(path: str | os.PathLike[str], *, max_bytes: int = MAX_DOCUMENT_BYTES) -> DecodedText:
    """Read and decode a document; every failure is a DocumentError with a plain message."""
    p = Path(path)
    try:
        data = read_regular_file(p, max_bytes)
    except FileTooLargeError as exc:
        raise too_large(exc.size, max_bytes, at_least=exc.at_least) from exc
    except NotRegularFileError as exc:
        raise DocumentError(f"{p} is {exc.kind}, not a document.") from exc
    except IsADirectoryError as exc:
        raise DocumentError(f"{p} is a folder, not a document.") from exc
    except FileNotFoundError as exc:
        raise DocumentError(f"{p} does not exist.") from exc
    except PermissionError as exc:
        raise DocumentError(f"{p} cannot be read: permission denied.") from exc
    except OSError as exc:
        raise DocumentError(f"{p} cannot be read: {exc.strerror or exc}.") from exc
    return decode_document(data, max_bytes=max_bytes)


def write_atomic(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Encode `text` as the document was read (`DecodedText.encoding`, byte-order mark included)
    and write it atomically (see write_bytes_atomic)."""
    write_bytes_atomic(path, encode_document(text, encoding))


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write to a temporary file beside `path`, flush it to disk, then rename it over `path`.

    A crash at any moment leaves either the old file or the new one, never a torn mix. The new
    file gets the old one's owner, group and mode. A symbolic link is followed (the file it points
    to is replaced, the link stays); something that is not a regular file — /dev/null, a pipe — is
    written to in place, never replaced by a file.

    Two cases cannot be renamed over without changing what the file is, and are written in place
    instead, after a complete, checked copy of the new version is on disk beside it: a file with
    other hard links (a rename would give this name a new file and leave the other names on the
    old text), and a file whose owner or group cannot be given to the new file (another user's
    file that we may write but not chown). If that in-place write is interrupted, the copy
    (`.NAME.*.tmp`) holds the whole new version, and `write_with_backup` has kept the old one.
    """
    p = Path(path)
    if p.is_symlink():
        p = p.resolve()
    try:
        old: os.stat_result | None = p.stat()
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):
        if stat.S_ISDIR(old.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder", str(p))
        with open(p, "wb") as handle:
            handle.write(data)
        return
    fd, tmp = tempfile.mkstemp(prefix=_temporary_prefix(p), suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            in_place = old is not None and (old.st_nlink > 1 or not _give_owner(handle.fileno(), old))
        if in_place:
            _check_copy(tmp, data)
            _write_in_place(p, data)
            os.unlink(tmp)
        else:
            with contextlib.suppress(OSError):
                os.chmod(tmp, stat.S_IMODE(old.st_mode) if old is not None else 0o644)
            os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(p.parent)
    _remove_stale_temporaries(p)


def _give_owner(fd: int, old: os.stat_result) -> bool:
    """Give the new file the old one's owner and group; False when that is not permitted."""
    new = os.fstat(fd)
    if (new.st_uid, new.st_gid) == (old.st_uid, old.st_gid):
        return True
    try:
        os.fchown(fd, old.st_uid, old.st_gid)
    except PermissionError:
        return False
    return True


def _check_copy(tmp: str, data: bytes) -> None:
    """The copy on disk must be the new version, byte for byte, before the file itself is touched."""
    with open(tmp, "rb") as handle:
        if handle.read(len(data) + 1) != data:
            raise OSError(errno.EIO, "the temporary copy does not read back as written", tmp)


def _write_in_place(path: Path, data: bytes) -> None:
    """Overwrite the file's content (same inode: links, owner and mode stay), then cut it to size."""
    fd = os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
    with open(fd, "wb", closefd=True) as handle:
        handle.write(data)
        handle.truncate(len(data))
        handle.flush()
        os.fsync(handle.fileno())


def _temporary_prefix(path: Path) -> str:
    return f".{path.name}."


def _remove_stale_temporaries(path: Path) -> None:
    """Delete what earlier, killed saves of this file left beside it (hidden `.NAME.*.tmp` files
    older than `STALE_AFTER_S`); a save in progress elsewhere is younger and is left alone."""
    cutoff = time.time() - STALE_AFTER_S
    with contextlib.suppress(OSError):
        for leftover in path.parent.glob(f"{glob.escape(_temporary_prefix(path))}*.tmp"):
            with contextlib.suppress(OSError):
                if leftover.is_file() and not leftover.is_symlink() and leftover.stat().st_mtime < cutoff:
                    leftover.unlink()


def write_with_backup(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
    """Keep the current file as `<name>.citedesk-backup`, then write the new text atomically."""
    p = Path(path)
    backup = p.with_name(p.name + BACKUP_SUFFIX)
    if p.exists():
        write_bytes_atomic(backup, p.read_bytes())
    write_atomic(p, text, encoding)
    return backup


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def why_not_written(exc: BaseException) -> str:
    """Why a write failed, in words ("it is a folder", "permission denied", "No space left …")."""
    if isinstance(exc, IsADirectoryError):
        return "it is a folder"
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)
