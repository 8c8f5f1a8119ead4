"""Word documents (.docx): the one door the rest of CiteDesk uses (`read_docx`, `write_docx`).

A .docx is read into a pandoc Markdown view (`core.word_read`: a front matter of the citation
fields' CSL-JSON items, one line per paragraph, each Zotero or Mendeley field a pandoc group), so
every check, judge and repair applies unchanged; the repair plan's edits of that view are written
back into the fields and runs of the .docx (`core.word_write`). Pure: bytes in, bytes out; the
package is checked before anything is parsed (`core.word_package`).
"""

from __future__ import annotations

import os

from citedesk.core.word_read import WordField, WordItem, WordView, read_docx
from citedesk.core.word_write import write_docx

__all__ = ["WORD_SUFFIXES", "WordField", "WordItem", "WordView", "is_word", "read_docx", "write_docx"]

WORD_SUFFIXES = (".docx", ".docm")
"""What is read as a Word package (a macro-enabled .docm is read only to be refused with why)."""


def is_word(path: str | os.PathLike[str] | None) -> bool:
    """Whether `path` names a Word document (by its suffix, any case)."""
    return path is not None and os.fspath(path).lower().endswith(WORD_SUFFIXES)
