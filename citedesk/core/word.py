"""Word documents (.docx): the one door the rest of CiteDesk uses (`read_docx`, `write_docx`).

A .docx is read into a pandoc Markdown view (`core.containers.word_read`: a front matter of the citation
fields' CSL-JSON items, one line per paragraph, each Zotero or Mendeley field a pandoc group), so
every check, judge and repair applies unchanged; the repair plan's edits of that view are written
back into the fields and runs of the .docx (`core.containers.word_write`). Pure: bytes in, bytes out; the
package is checked before anything is parsed (`core.containers.word_package`). The desk holds it as a
container (`core.containers.word`); which files are Word documents is `core.formats`'s to say.
"""

from __future__ import annotations

from citedesk.core.containers.word_read import WordField, WordItem, WordView, read_docx
from citedesk.core.containers.word_write import write_docx

__all__ = ["WordField", "WordItem", "WordView", "read_docx", "write_docx"]
