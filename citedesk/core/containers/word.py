"""The Word container: a .docx package read into a pandoc Markdown view, fixes written back.

`core.word` reads the package into a `WordView` (the citation fields' CSL items as the front
matter's `references:`, each field as `[@key; …]`), which is audited and repaired like any pandoc
document. An edited view goes back through `write_docx`, which changes only the citation fields the
new text changed and refuses (RepairError) what it cannot express in a field (an added citation, a
new paragraph). `write` reads what it made: the view after a write is the new package's, so its
keys are derived afresh and its front matter follows the fields (a swapped-in work cited earlier is
listed earlier). A view written unchanged is the package's bytes as read.
"""

from __future__ import annotations

from typing import cast

from citedesk.core.containers import View, register
from citedesk.core.text import DocumentError
from citedesk.core.word import WordView, read_docx, write_docx
from citedesk.errors import RepairError

__all__ = ["WORD", "WordContainer"]


class WordContainer:
    """A Word package (.docx): never edited as text; fixes are written into its fields."""

    name = "docx"

    def read(self, data: bytes, name: str) -> View:
        view = read_docx(data, name)
        return View(view.text, data=data, state=view)

    def check(self, view: View, text: str) -> None:
        self._package(view, text)

    def write(self, view: View, text: str, name: str) -> View:
        if text == view.text:
            return view
        try:
            return self.read(self._package(view, text), name)
        except DocumentError as exc:
            raise RepairError(f"the repaired Word document would not read back: {exc.message}") from exc

    @staticmethod
    def _package(view: View, text: str) -> bytes:
        """The package's bytes for `text`, not read again (RepairError as `write_docx` says)."""
        return view.data if text == view.text else write_docx(view.data, cast(WordView, view.state), text)


WORD = register(WordContainer())
