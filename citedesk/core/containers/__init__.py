"""Containers: how a document's file holds its text (issue 39).

A container turns a file's bytes into a `View` — the text the dialects read, and what it needs to
write an edited text back — and an edited text back into bytes, checked before anything is
written. Plain text is the trivial container (decode; encode in the encoding it was read with); a
package such as a Word .docx (`containers.word`) reads into a pandoc Markdown view and writes back
only what the edit changed. ODT or another package would be one more container: a class with
these members, registered (`register`) under the name a row of `core.formats` gives; a container
registers when its module is imported (the desk imports `containers.word`), so the table itself
imports none of them and the command line starts without the Word reader. Pure: bytes in, bytes out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from citedesk.core.origins import Registry
from citedesk.core.text import decode_document, encode_document

__all__ = [
    "TEXT",
    "Container",
    "TextContainer",
    "View",
    "container_named",
    "containers",
    "register",
    "unregister",
]


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

    def read(self, data: bytes, name: str) -> View:
        decoded = decode_document(data, max_bytes=len(data))  # its size was checked as it was read
        return View(decoded.text, decoded.encoding, data)

    def check(self, view: View, text: str) -> None:
        return None

    def write(self, view: View, text: str, name: str) -> View:
        return View(text, view.encoding, encode_document(text, view.encoding))


REGISTRY: Registry[Container] = Registry()
"""The table: its entries, and which module registered each (`core.origins`)."""


def register(container: Container) -> Container:
    """Make `container` known by its name (a second registration under a name replaces the first)."""
    return REGISTRY.add(container)


def unregister(name: str) -> None:
    """Forget the container called `name` (a test's own, once it is done)."""
    REGISTRY.remove(name)


def containers() -> tuple[Container, ...]:
    """Every registered container, in the order registered."""
    return REGISTRY.entries()


def container_named(name: str) -> Container:
    """The registered container called `name`; KeyError for one never registered (its module
    not imported)."""
    return REGISTRY[name]


TEXT = register(TextContainer())
