"""Containers: how a document's file holds its text (issue 39).

A container turns a file's bytes into a `View` — the text the dialects read, and what it needs to
write an edited text back — and an edited text back into bytes, checked before anything is
written. Plain text is the trivial container (decode; encode in the encoding it was read with); a
package such as a Word .docx (`containers.word`) reads into a pandoc Markdown view and writes back
only what the edit changed. ODT or another package would be one more container: a class with
these members, named by a row of `core.formats`. Pure: bytes in, bytes out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from citedesk.core.text import decode_document, encode_document

__all__ = ["TEXT", "Container", "TextContainer", "View"]


@dataclass(frozen=True)
class View:
    """What a container read: the text the dialects read, the encoding a text file was read in,
    the bytes it was read from, and the container's own state for writing back (a Word view's
    field map); `data` is empty for a document with no file yet."""

    text: str
    encoding: str = "utf-8"
    data: bytes = b""
    state: object = None


class Container(Protocol):
    """How a kind of file holds a document's text."""

    @property
    def name(self) -> str: ...

    @property
    def editable(self) -> bool:
        """Whether the text is edited and saved as text in place (a package's view is not: only
        fixes are written into it)."""
        ...

    def read(self, data: bytes, name: str) -> View:
        """The view of a file's bytes (`name`: how messages call the file); DocumentError, with
        why, for bytes it cannot read."""
        ...

    def check(self, view: View, text: str) -> None:
        """RepairError when `text`, an edit of `view`'s, cannot be written (cheap: what a plan's
        admission needs, nothing read back)."""
        ...

    def write(self, view: View, text: str, name: str) -> View:
        """The view whose `data` are the bytes that say `text`, checked before anything is
        written: RepairError when the container cannot say it or the result does not read back.
        Where nothing changed, the bytes are the bytes read."""
        ...


class TextContainer:
    """A plain text file: decoded as documents are (`core.text`), written in its encoding."""

    name = "text"
    editable = True

    def read(self, data: bytes, name: str) -> View:
        decoded = decode_document(data, max_bytes=len(data))  # its size was checked as it was read
        return View(decoded.text, decoded.encoding, data)

    def check(self, view: View, text: str) -> None:
        return None

    def write(self, view: View, text: str, name: str) -> View:
        return View(text, view.encoding, encode_document(text, view.encoding))


TEXT = TextContainer()
