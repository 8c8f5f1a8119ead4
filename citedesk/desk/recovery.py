"""Recovery copies: unsaved text kept outside the document, and offered back after a crash.

The window writes a copy of unsaved text every few seconds into the user's data folder (never over
the document). Each copy starts with a one-line header naming the document it belongs to and when
it was written, so a copy can be offered back *for that document* — with its path, so its review
decisions and attachments apply — when the writer opens it again, or at a bare start. A copy that
was offered is set aside (renamed `*.seen`), not deleted: a writer who says no by mistake can
still find their text in the folder. Until the text is saved or discarded: then the copy and the
set-aside copy both go (`discard`), so a saved document leaves no side file behind and text the
writer chose to discard never comes back.

A copy keeps its document's suffix (`thesis.tex`'s copy is `….tex`), so a writer who finds the
folder opens it in the editor its kind wants, and the copy offered back is read as its kind; an
untitled document's copy is Markdown's, as it always was.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

from citedesk.core.formats import document_suffixes, format_of
from citedesk.files import write_atomic

HEADER = "<!-- citedesk recovery "
SUFFIX = format_of(None).suffixes[0]
"""An untitled document's copy, and that of a document whose suffix is not one of `SUFFIXES`."""
SUFFIXES = document_suffixes(editable=True)
"""The suffixes a copy may have: the documents the window edits (`core.formats`; older copies were
all `.md`)."""
SEEN = ".seen"
"""Added to a copy's name when it has been offered (`abc.md.seen`, `abc.tex.seen`)."""


@dataclass(frozen=True)
class RecoveryCopy:
    copy: Path
    document: Path | None
    """The file this is unsaved text of; None for a document never saved."""
    saved_at: float

    def text(self) -> str:
        raw = self.copy.read_text(encoding="utf-8")
        return raw.split("\n", 1)[1] if raw.startswith(HEADER) and "\n" in raw else raw

    def describe(self) -> str:
        what = str(self.document) if self.document else "an untitled document"
        return f"unsaved text of {what} from {time.ctime(self.saved_at)}"


def recovery_dir() -> Path:
    from platformdirs import user_data_dir  # noqa: PLC0415

    return Path(user_data_dir("citedesk", appauthor=False)) / "recovery"


def copy_path(
    document: Path | None, untitled_id: str, folder: Path | None = None, *, kind: str | None = None
) -> Path:
    """Where the copy of `document` (or of one untitled window) is written: one file per document.
    `kind` is the suffix of an untitled document's kind (a copy of a LaTeX sample: `.tex`)."""
    return _stem(document, untitled_id, folder).with_suffix(suffix_of(document, kind))


def _stem(document: Path | None, untitled_id: str, folder: Path | None) -> Path:
    key = str(document.resolve()) if document else f"untitled-{untitled_id}"
    return (folder or recovery_dir()) / hashlib.sha1(key.encode()).hexdigest()[:16]


def suffix_of(document: Path | None, kind: str | None = None) -> str:
    """The suffix of `document`'s copy: its own when the window opens that kind, else `SUFFIX`."""
    suffix = document.suffix.lower() if document is not None else (kind or "").lower()
    return suffix if suffix in SUFFIXES else SUFFIX


def write_copy(
    document: Path | None, text: str, untitled_id: str, folder: Path | None = None, *, kind: str | None = None
) -> Path:
    """Keep a copy of unsaved text, atomically (a copy is never torn either)."""
    target = copy_path(document, untitled_id, folder, kind=kind)
    target.parent.mkdir(parents=True, exist_ok=True)
    meta = {"document": str(document.resolve()) if document else None, "saved": time.time()}
    write_atomic(target, HEADER + json.dumps(meta) + " -->\n" + text)
    return target


def discard(document: Path | None, untitled_id: str, folder: Path | None = None) -> None:
    """The text was saved, or the writer discarded it: its copy, and the copy set aside when it
    was offered, are no longer wanted (whatever their suffix: an untitled document's kind may
    have changed with its name)."""
    stem = _stem(document, untitled_id, folder)
    for suffix in SUFFIXES:
        target = stem.with_suffix(suffix)
        target.unlink(missing_ok=True)
        seen_path(target).unlink(missing_ok=True)


def drop_copy(document: Path | None, untitled_id: str, folder: Path | None = None) -> None:
    """The text is back to the file's (a change undone): its copy goes, so it is never offered as
    unsaved; a copy set aside when it was offered stays, as the writer may still want it."""
    stem = _stem(document, untitled_id, folder)
    for suffix in SUFFIXES:
        stem.with_suffix(suffix).unlink(missing_ok=True)


def seen_path(copy: Path) -> Path:
    """Where a copy is set aside once it has been offered."""
    return copy.with_name(copy.name + SEEN)


def read_copy(path: Path) -> RecoveryCopy:
    """A copy with what its header says (older headers, `of PATH at TIME`, are read too)."""
    with path.open(encoding="utf-8") as handle:
        first = handle.readline()
    document: Path | None = None
    saved = path.stat().st_mtime
    if first.startswith(HEADER):
        body = first[len(HEADER) :].rsplit("-->", 1)[0].strip()
        try:
            meta = json.loads(body)
        except ValueError:
            meta = None
        if isinstance(meta, dict):
            document = Path(meta["document"]) if meta.get("document") else None
            saved = float(meta.get("saved") or saved)
        elif body.startswith("of ") and " at " in body:
            named = body[3:].rsplit(" at ", 1)[0]
            document = None if named == "an untitled document" else Path(named)
    return RecoveryCopy(path, document, saved)


def find_copies(folder: Path | None = None) -> list[RecoveryCopy]:
    """Every copy not yet offered, newest first."""
    folder = folder or recovery_dir()
    if not folder.is_dir():
        return []
    copies = []
    for path in sorted(p for suffix in SUFFIXES for p in folder.glob("[!.]*" + suffix)):
        try:
            copies.append(read_copy(path))
        except (OSError, UnicodeDecodeError):
            continue
    return sorted(copies, key=lambda c: c.saved_at, reverse=True)


def copy_for(document: Path, folder: Path | None = None) -> RecoveryCopy | None:
    """The copy of `document` that is newer than the file on disk (its text was never saved)."""
    target = document.resolve()
    try:
        on_disk = target.stat().st_mtime
    except OSError:
        on_disk = 0.0
    for copy in find_copies(folder):
        if copy.document is not None and copy.document == target and copy.saved_at > on_disk:
            return copy
    return None


def set_aside(copy: RecoveryCopy) -> Path:
    """The copy has been offered: rename it so it is not offered again (it is kept)."""
    kept = seen_path(copy.copy)
    copy.copy.replace(kept)
    return kept
