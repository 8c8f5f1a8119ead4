"""A Word document in the window: its text shown read-only, its fixes written into the .docx.

The editor shows a .docx's view (`core.containers.word`: a pandoc Markdown text of its paragraphs, with
each citation field as `[@key; …]`), marked, carded and listed like any document, but the writer
cannot type in it: the .docx is the writer's, edited in Word. A banner above the editor says so.

A fix is planned as every fix is (`FixController`: the desk's checked plan, which for a Word
document is admitted only when the package can say it). The editor shows the result at once, as
for a text document, and the desk writes the package off the GUI thread (`gui.ops`, in order with
the store's work): the same check that the file is still what was read, the same backup beside it,
the same atomic rename. The text is then the package's view as read back, audited again; when the
write is refused (the file changed on disk, the folder is read-only), the editor goes back to the
text of the file as it is, and the message says why.
"""

from __future__ import annotations

from citedesk.core.plan import RepairPlan
from citedesk.errors import CiteDeskError, DocumentChangedError
from citedesk.gui.controllers.fix_controller import FixController
from citedesk.gui.ops import run_op
from citedesk.gui.qt import QLabel, QPlainTextEdit, Qt, QTextCursor

BANNER_NAME = "wordBanner"
READ_ONLY_NOTE = "Word document: read-only here; fixes are written into the .docx"


def show_read_only(editor: QPlainTextEdit, read_only: bool) -> None:
    """Make the editor read-only (or not) and show (or hide) the banner above it. The banner is
    made the first time, in the editor's own column (the window lays it out after the controllers
    are made, so it is found here, not given)."""
    editor.setReadOnly(read_only)
    banner = _banner(editor, create=read_only)
    if banner is not None:
        banner.setVisible(read_only)


def show_body(editor: QPlainTextEdit) -> None:
    """Put the cursor, and the top of the editor, on the view's first line after its front matter:
    the writer's text, not the list of works the fields carry (still there, above)."""
    text = editor.toPlainText()
    if not text.startswith("---\n"):
        return
    end = text.find("\n---\n", 3)
    if end < 0:
        return
    first = text.count("\n", 0, end + 5) + 1  # the block after the closing `---`
    block = editor.document().findBlockByNumber(first)
    if not block.isValid():
        return
    cursor = editor.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    editor.setTextCursor(cursor)  # from the end, so that going back up puts the block at the top
    cursor.setPosition(block.position())
    editor.setTextCursor(cursor)
    editor.ensureCursorVisible()


def _banner(editor: QPlainTextEdit, *, create: bool) -> QLabel | None:
    column = editor.parentWidget()
    if column is None:
        return None
    found = column.findChild(QLabel, BANNER_NAME)
    if found is not None or not create:
        return found
    layout = column.layout()
    if layout is None or not hasattr(layout, "insertWidget"):
        return None
    banner = QLabel(f"{READ_ONLY_NOTE}. Save as… exports its text as Markdown.")
    banner.setObjectName(BANNER_NAME)
    banner.setWordWrap(True)
    banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    banner.setStyleSheet(  # the theme's colours, so it reads in the dark too
        "QLabel { padding: 6px 8px; font-weight: bold; background: palette(midlight);"
        " border-bottom: 1px solid palette(mid); }"
    )
    layout.insertWidget(0, banner)
    return banner


class WordFixController(FixController):
    """`FixController`, whose edits of a Word document's view are also written into its .docx."""

    def _edit(self, plan: RepairPlan) -> bool:
        session = self._session()
        if not session.read_only:
            return super()._edit(plan)
        if not super()._edit(plan):  # the result shown at once; the file is written next
            return False
        path = session.path

        def written(backup: object) -> None:
            if self._session() is not session:
                return  # another document was opened meanwhile
            self._settle(session.text)
            kept = f" (the original is in {backup})" if backup is not None else ""
            self.message.emit(f"Written into {session.name}{kept}")

        def refused(exc: CiteDeskError) -> None:
            if self._session() is not session:
                return
            self._settle(session.text)  # the file's text as it is
            why = exc.message.split(";")[0] if isinstance(exc, DocumentChangedError) else exc.message
            self.message.emit(
                f"Not written into {session.name}: {why}. Open it again to see it as it is now."
            )

        result = plan.result
        run_op(
            self,
            lambda: session.write(result, backup=True),
            written,
            refused,
            label=f"Writing {path.name if path else 'the document'}…",
        )
        return True

    def _settle(self, text: str) -> None:
        """Show the document's text as the desk now has it (re-read after a write): replaced only
        where it differs (a change audits it again), never an undo step or unsaved text."""
        if self.editor.toPlainText() != text:
            self.editor.setPlainText(text)
        self.editor.document().clearUndoRedoStacks()
        self.editor.document().setModified(False)
