"""A Word document (.docx) as the desk holds it: the package's bytes and the text audited for it.

A .docx is never edited as text. `core.word` reads the package into a `WordView`, whose text is a
pandoc Markdown view of it (the citation fields' CSL items as its front matter's `references:`,
each field as `[@key; …]`), and that text is audited and repaired like any pandoc document. A repair
goes back into the package through `write_docx`, which changes only the citation fields the new
text changed, and refuses (RepairError) what it cannot express in a field (an added citation, a
new paragraph) and a result that does not read back as planned. `rewrite` reads what it made: the
text after a write is the new package's view.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from citedesk.core.text import MAX_DOCUMENT_BYTES
from citedesk.core.word import WORD_SUFFIXES, WordView, is_word, read_docx, write_docx
from citedesk.errors import DocumentError, RepairError
from citedesk.files import FileStamp, read_stamped_bytes

__all__ = ["READ_ONLY_NOTE", "WORD_SUFFIXES", "WordFile", "is_word"]

READ_ONLY_NOTE = "Word document: read-only here; fixes are written into the .docx"


@dataclass(frozen=True)
class WordFile:
    """The package as read (or last written) and its view: what a repair is written against."""

    data: bytes
    view: WordView

    @property
    def text(self) -> str:
        return self.view.text

    @classmethod
    def of(cls, data: bytes, name: str) -> WordFile:
        """Read a package's bytes (DocumentError, with the reader's message, for a bad one)."""
        return cls(data, read_docx(data, name))

    @classmethod
    def read(cls, path: Path) -> tuple[WordFile, FileStamp]:
        """The file's package and the stamp a later write is checked against."""
        data, stamp = read_stamped_bytes(path, max_bytes=MAX_DOCUMENT_BYTES)
        return cls.of(data, path.name), stamp

    def rewrite(self, text: str, name: str) -> WordFile:
        """The package whose view is `text`: only the fields and runs that differ are changed.
        RepairError when the package cannot say it (`write_docx`, which also refuses a result that
        does not read back as planned, work for work). The new view is the package read again:
        its keys are derived afresh and its front matter follows the fields, so it may differ
        from `text` in those (a swapped-in work cited earlier is listed earlier)."""
        if text == self.view.text:
            return self
        try:
            return WordFile.of(self.package(text), name)
        except DocumentError as exc:
            raise RepairError(f"the repaired Word document would not read back: {exc.message}") from exc

    def package(self, text: str) -> bytes:
        """The package's bytes for `text` (RepairError as in `rewrite`), not read again: what a
        plan's check needs."""
        return self.data if text == self.view.text else write_docx(self.data, self.view, text)
