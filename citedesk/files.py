"""Reading files from disk and writing documents back atomically, never losing the writer's text.

Every file CiteDesk opens on the writer's behalf — a document, a bibliography, a source, an
attachment, a snapshot — is read here, bounded: only regular files are opened (a named pipe would
block, a device such as /dev/zero never ends), and no more than the limit plus one byte is read.
`read_text_file` decodes as documents are decoded and says, in `encoding_notice`, when a file was
not UTF-8.

Writes keep what the file was: its encoding and byte-order mark, its owner, group and mode, its
symbolic and hard links. A write over a file that was read first is checked against what was read
(`FileStamp`: size, modification time and a hash), so an edit made by someone else while CiteDesk
worked is never overwritten (`FileChangedError`). New content is written into an unnamed file
(Linux's O_TMPFILE) that gets a name only once it is whole, so a killed save leaves nothing behind;
where that is not available, the named temporary carries the writer's process id, and the next save
of the file removes those whose process is gone.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import hashlib
import os
import secrets
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from citedesk.core.formats import MAX_LATEX_BYTES, format_for
from citedesk.core.text import (
    MAX_DOCUMENT_BYTES,
    DecodedText,
    DocumentError,
    decode_document,
    encode_document,
    too_large,
)
from citedesk.errors import DocumentChangedError, InputError

BACKUP_SUFFIX = ".citedesk-backup"
STALE_AFTER_S = 600
"""A temporary file of ours this old is left from a save that was killed; no save takes this long."""


class _UnreadableFile(OSError, InputError):
    """A file CiteDesk refuses to read; still an `OSError` (with errno, strerror and filename) for
    callers that handle every way a read can fail together."""

    @property
    def message(self) -> str:
        return f"{self.filename} {self.strerror}"


class NotRegularFileError(_UnreadableFile):
    """The path is a pipe, a device, a socket or a folder: it is not read. `file_kind` says which
    ("a named pipe"); `kind` is the error's, as for every CiteDeskError."""

    kind = "not_a_file"

    def __init__(self, path: Path, file_kind: str) -> None:
        super().__init__(errno.EINVAL, f"is {file_kind}, not a file", str(path))
        self.file_kind = file_kind


class FileTooLargeError(_UnreadableFile):
    """The file holds more than the limit; `size` is its size, or limit + 1 when it grew while read."""

    kind = "too_large"

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


def not_a_file(path: str | os.PathLike[str]) -> str | None:
    """What the path is when it is not a regular file ("a device", "a named pipe", "a folder" …),
    links followed; None for a regular file or nothing at all. Nothing is opened."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_regular_file(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """The bytes of a regular file (symbolic links followed) of at most `max_bytes`.

    The kind is checked before opening (opening a named pipe waits for a writer) and again on the
    open descriptor (the path may have changed in between); a file larger than `max_bytes` is
    refused from its size before any read, and at most `max_bytes` + 1 bytes are ever read, so a
    file that grows while read cannot exhaust memory. Raises NotRegularFileError,
    FileTooLargeError, or the OSError of the failing call.
    """
    return _read_regular(Path(path), max_bytes)[0]


_READ_FLAGS = (
    os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
)
"""Opening never waits: a pipe that became one between the check and the open does not block."""


def hash_regular_file(path: str | os.PathLike[str]) -> str:
    """The SHA-256 (hex) of a regular file's bytes, read in blocks, links followed; a pipe, device
    or socket is refused (NotRegularFileError) before it is opened, and again on the descriptor."""
    p = Path(path)
    _check_regular(p, os.stat(p).st_mode)
    digest = hashlib.sha256()
    with open(os.open(p, _READ_FLAGS), "rb", closefd=True) as handle:
        _check_regular(p, os.fstat(handle.fileno()).st_mode)
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _read_regular(p: Path, max_bytes: int) -> tuple[bytes, os.stat_result]:
    _check_regular(p, os.stat(p).st_mode)
    fd = os.open(p, _READ_FLAGS)
    with open(fd, "rb", closefd=True) as handle:
        info = os.fstat(handle.fileno())
        _check_regular(p, info.st_mode)
        if info.st_size > max_bytes:
            raise FileTooLargeError(p, info.st_size)
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileTooLargeError(p, len(data), at_least=True)
    return data, info


@dataclass(frozen=True, slots=True)
class FileStamp:
    """What a file was when it was read: a write over it first checks that it still is."""

    size: int
    mtime_ns: int
    sha256: str

    @classmethod
    def of(cls, data: bytes, info: os.stat_result) -> FileStamp:
        return cls(len(data), info.st_mtime_ns, hashlib.sha256(data).hexdigest())


class FileChangedError(DocumentChangedError):
    """The file is no longer what was read (edited, replaced, moved or deleted): nothing was written."""


def read_text_file(path: str | os.PathLike[str], max_bytes: int) -> DecodedText:
    """A regular file's text, bounded and decoded as documents are (`decode_document`). Raises the
    errors of `read_regular_file`, and DocumentError for binary or undecodable content."""
    return decode_document(read_regular_file(path, max_bytes), max_bytes=max_bytes)


_UTF = ("utf-8", "utf-8-sig", "ascii", "utf-16-le-sig", "utf-16-be-sig", "utf-32-le-sig", "utf-32-be-sig")


def encoding_notice(shown: str, encoding: str) -> str | None:
    """What to tell the writer about a file that was not UTF-8 (None when it was): the encoding it
    was read as, since a guess can be wrong about accented names."""
    if encoding.lower() in _UTF:
        return None
    return (
        f"{shown} is not UTF-8; it was read as {encoding}. If accented letters look wrong, save it as UTF-8."
    )


def document_limit(path: str | os.PathLike[str]) -> int:
    """The most bytes a document at `path` may have: its format's limit (`MAX_LATEX_BYTES` for a
    LaTeX file, `core.formats`), else `MAX_DOCUMENT_BYTES`."""
    fmt = format_for(path)
    return fmt.max_bytes if fmt is not None and fmt.max_bytes is not None else MAX_DOCUMENT_BYTES


def latex_too_large(path: str | os.PathLike[str], size: int, *, at_least: bool = False) -> str:
    """Why a LaTeX file over `MAX_LATEX_BYTES` is not read, naming it."""
    what = "more than " if at_least else ""
    return (
        f"{path} is {what}{size / 1e6:.1f} MB; CiteDesk reads LaTeX files up to {MAX_LATEX_BYTES / 1e6:.0f} MB "
        "each (reading LaTeX takes far more time and memory than Markdown): split it into files "
        "the main file includes with \\input or \\include"
    )


def read_document(path: str | os.PathLike[str], *, max_bytes: int | None = None) -> DecodedText:
    """Read and decode a document (at most `max_bytes`, by default its kind's `document_limit`);
    every failure is a DocumentError with a plain message."""
    return read_stamped(path, max_bytes=max_bytes)[0]


def read_stamped(
    path: str | os.PathLike[str], *, max_bytes: int | None = None
) -> tuple[DecodedText, FileStamp]:
    """`read_document`, with the stamp a later `write_checked` compares the file against."""
    limit = document_limit(path) if max_bytes is None else max_bytes
    data, stamp = read_stamped_bytes(path, max_bytes=limit)
    return decode_document(data, max_bytes=limit), stamp


def read_stamped_bytes(
    path: str | os.PathLike[str], *, max_bytes: int | None = None
) -> tuple[bytes, FileStamp]:
    """A document's bytes, undecoded (a Word file is a zip package, read by `core.word`), with its
    stamp; every failure is a DocumentError with a plain message, as `read_document`'s."""
    p = Path(path)
    limit = document_limit(p) if max_bytes is None else max_bytes
    try:
        data, info = _read_regular(p, limit)
    except FileTooLargeError as exc:
        if limit == MAX_LATEX_BYTES:
            raise DocumentError(latex_too_large(p, exc.size, at_least=exc.at_least)) from exc
        raise too_large(exc.size, limit, at_least=exc.at_least) from exc
    except NotRegularFileError as exc:
        raise DocumentError(f"{p} is {exc.file_kind}, not a document.") from exc
    except IsADirectoryError as exc:
        raise DocumentError(f"{p} is a folder, not a document.") from exc
    except FileNotFoundError as exc:
        raise DocumentError(f"{p} does not exist.") from exc
    except PermissionError as exc:
        raise DocumentError(f"{p} cannot be read: permission denied.") from exc
    except OSError as exc:
        raise DocumentError(f"{p} cannot be read: {exc.strerror or exc}.") from exc
    return data, FileStamp.of(data, info)


def write_checked(
    path: str | os.PathLike[str],
    text: str,
    encoding: str,
    stamp: FileStamp | None,
    *,
    backup: bool = False,
) -> tuple[Path | None, FileStamp]:
    """Write `text` over a file that was read with `stamp`, only if it is still what was read.

    The file is read again and compared (size, modification time, hash) before anything is
    written, and its size and time once more just before the new version takes its place; if it
    changed, was moved or deleted, FileChangedError says so and nothing is written (the backup
    included). With `backup`, the bytes that were read are kept as `NAME.citedesk-backup` first.
    `stamp` None writes without a check (a new file, or a write the writer chose to make over
    whatever is there, which the backup then keeps). Returns the backup's path, if one was made,
    and the stamp of what is now on disk.
    """
    return write_bytes_checked(path, encode_document(text, encoding), stamp, backup=backup)


def write_bytes_checked(
    path: str | os.PathLike[str], data: bytes, stamp: FileStamp | None, *, backup: bool = False
) -> tuple[Path | None, FileStamp]:
    """`write_checked` for bytes already made (a Word package): the same check against `stamp`,
    the same backup, the same atomic write."""
    p = Path(path)
    target = p.resolve() if p.is_symlink() else p
    original: bytes | None = None
    if stamp is not None:
        original = _still_as_read(p, stamp)
    elif backup and p.exists():  # no stamp: what is there now is what the backup keeps
        original = read_regular_file(p, MAX_DOCUMENT_BYTES)

    def unchanged() -> None:
        if stamp is None:
            return
        try:
            now = os.stat(target)
        except FileNotFoundError:
            raise FileChangedError(_changed_message(p, gone=True)) from None
        if (now.st_size, now.st_mtime_ns) != (stamp.size, stamp.mtime_ns):
            raise FileChangedError(_changed_message(p, gone=False))

    made: Path | None = None
    if backup and original is not None:
        made = p.with_name(p.name + BACKUP_SUFFIX)
        write_bytes_atomic(made, original)
    write_bytes_atomic(p, data, before_replace=unchanged)
    info = os.stat(target)
    return made, FileStamp.of(data, info)


def _still_as_read(p: Path, stamp: FileStamp) -> bytes:
    try:
        data, info = _read_regular(p, max(stamp.size, MAX_DOCUMENT_BYTES))
    except FileNotFoundError:
        raise FileChangedError(_changed_message(p, gone=True)) from None
    if FileStamp.of(data, info) != stamp:
        raise FileChangedError(_changed_message(p, gone=False))
    return data


def _changed_message(p: Path, *, gone: bool) -> str:
    if gone:
        return f"{p} was moved or deleted while CiteDesk worked on it; nothing was written."
    return (
        f"{p} changed on disk while CiteDesk worked on it (another program or you edited it); "
        "nothing was written. Run it again on the new version."
    )


def write_atomic(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Encode `text` as the document was read (`DecodedText.encoding`, byte-order mark included)
    and write it atomically (see write_bytes_atomic)."""
    write_bytes_atomic(path, encode_document(text, encoding))


def write_bytes_atomic(
    path: str | os.PathLike[str], data: bytes, *, before_replace: Callable[[], None] | None = None
) -> None:
    """Write to a temporary file beside `path`, flush it to disk, then rename it over `path`.

    A crash at any moment leaves either the old file or the new one, never a torn mix, and no
    temporary file: the new version is written into an unnamed file that is given a name only
    once it is whole (see the module's docstring). The new file gets the old one's owner, group
    and mode. A symbolic link is followed (the file it points to is replaced, the link stays);
    something that is not a regular file — /dev/null, a pipe — is written to in place, never
    replaced by a file. `before_replace`, when given, runs just before the new version takes the
    file's place and may raise to stop the write (the temporary is removed).

    Two cases cannot be renamed over without changing what the file is, and are written in place
    instead, after a complete, checked copy of the new version is on disk beside it: a file with
    other hard links (a rename would give this name a new file and leave the other names on the
    old text), and a file whose owner or group cannot be given to the new file (another user's
    file that we may write but not chown). If that in-place write is interrupted, the copy
    (`.NAME.*.tmp`) holds the whole new version, and `write_checked` has kept the old one as the backup.
    """
    p = Path(path)
    if p.is_symlink():
        p = p.resolve()
    _remove_stale_temporaries(p)
    try:
        old: os.stat_result | None = p.stat()
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):
        if stat.S_ISDIR(old.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder", str(p))
        if before_replace is not None:
            before_replace()
        with open(p, "wb") as handle:
            handle.write(data)
        return
    tmp, in_place = _write_temporary(p, data, old)
    try:
        if before_replace is not None:
            before_replace()
        if in_place:
            _check_copy(tmp, data)
            _write_in_place(p, data)
            os.unlink(tmp)
        else:
            os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(p.parent)


def _write_temporary(p: Path, data: bytes, old: os.stat_result | None) -> tuple[str, bool]:
    """The new version, whole and on disk, under a temporary name beside `p` (owner, group and mode
    as the old file's); and whether it must be copied in place rather than renamed over `p`."""
    mode = stat.S_IMODE(old.st_mode) if old is not None else 0o644
    fd, unnamed, fallback = _open_temporary(p)
    name = ""
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            in_place = old is not None and (old.st_nlink > 1 or not _give_owner(handle.fileno(), old))
            if not in_place:
                with contextlib.suppress(OSError):
                    os.fchmod(handle.fileno(), mode)
            if unnamed:
                name = _temporary_name(p)
                _link_unnamed(handle.fileno(), name)
            else:
                name = fallback
    except BaseException:
        for leftover in (name, fallback):
            if leftover:
                with contextlib.suppress(OSError):
                    os.unlink(leftover)
        raise
    return name, in_place


def _open_temporary(p: Path) -> tuple[int, bool, str]:
    """An unnamed file in `p`'s folder (True, ""), or, where the system has none, a new named one
    (False, its name)."""
    tmpfile = getattr(os, "O_TMPFILE", 0)
    cloexec = getattr(os, "O_CLOEXEC", 0)
    if tmpfile and os.path.isdir("/proc/self/fd"):
        try:
            return os.open(p.parent, tmpfile | os.O_WRONLY | cloexec, 0o600), True, ""
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT):
                raise
    name = _temporary_name(p)
    return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | cloexec, 0o600), False, name


def _link_unnamed(fd: int, name: str) -> None:
    """Give the unnamed file `fd` the name `name`. linkat(AT_SYMLINK_FOLLOW) on its /proc link, as
    open(2) describes for O_TMPFILE: Python calls plain link() unless a folder descriptor is
    given, and link() would try to link the /proc entry itself."""
    folder = os.open(os.path.dirname(name) or ".", os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        os.link(f"/proc/self/fd/{fd}", os.path.basename(name), dst_dir_fd=folder, follow_symlinks=True)
    finally:
        os.close(folder)


def _temporary_name(p: Path) -> str:
    return str(p.parent / f"{_temporary_prefix(p)}{os.getpid()}-{secrets.token_hex(4)}.tmp")


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
    """Delete what earlier, killed saves of this file left beside it: hidden `.NAME.PID-….tmp`
    files whose process is gone, and any `.NAME.*.tmp` older than `STALE_AFTER_S` (no save takes
    that long). A save in progress in a live process is left alone."""
    cutoff = time.time() - STALE_AFTER_S
    prefix = _temporary_prefix(path)
    with contextlib.suppress(OSError):
        for leftover in path.parent.glob(f"{glob.escape(prefix)}*.tmp"):
            with contextlib.suppress(OSError):
                if not leftover.is_file() or leftover.is_symlink():
                    continue
                writer = leftover.name[len(prefix) :].split("-", 1)[0]
                dead = writer.isdecimal() and not _alive(int(writer))
                if dead or leftover.stat().st_mtime < cutoff:
                    leftover.unlink()


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: alive
    return True


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
