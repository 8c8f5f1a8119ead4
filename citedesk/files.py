"""Reading documents from disk and writing them back atomically, never losing the writer's text."""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import tempfile
import time
from pathlib import Path

from citedesk.core.text import DecodedText, DocumentError, decode_document

BACKUP_SUFFIX = ".citedesk-backup"
STALE_AFTER_S = 600
"""A temporary file of ours this old is left from a save that was killed; no save takes this long."""


def read_document(path: str | os.PathLike[str]) -> DecodedText:
    """Read and decode a document; every failure is a DocumentError with a plain message."""
    p = Path(path)
    try:
        if p.is_dir():
            raise DocumentError(f"{p} is a folder, not a document.")
        data = p.read_bytes()
    except FileNotFoundError as exc:
        raise DocumentError(f"{p} does not exist.") from exc
    except PermissionError as exc:
        raise DocumentError(f"{p} cannot be read: permission denied.") from exc
    except OSError as exc:
        raise DocumentError(f"{p} cannot be read: {exc.strerror or exc}.") from exc
    return decode_document(data)


def write_atomic(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Encode and write `text` atomically (see write_bytes_atomic)."""
    write_bytes_atomic(path, text.encode(encoding))


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write to a temporary file beside `path`, flush it to disk, then rename it over `path`.

    A crash at any moment leaves either the old file or the new one, never a torn mix. A symbolic
    link is followed (the file it points to is replaced, the link stays); something that is not a
    regular file — /dev/null, a pipe — is written to in place, never replaced by a file.
    """
    p = Path(path)
    if p.is_symlink():
        p = p.resolve()
    if p.exists() and not p.is_file():
        if p.is_dir():
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
        with contextlib.suppress(OSError):
            os.chmod(tmp, p.stat().st_mode & 0o777 if p.exists() else 0o644)
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(p.parent)
    _remove_stale_temporaries(p)


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
