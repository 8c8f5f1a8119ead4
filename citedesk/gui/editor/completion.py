"""`@` completion: the bibliography's citation keys offered as the writer types a pandoc citation.

Typing `@` (or more of a key after it: `[see @mor`) opens a list of the keys that start with what
was typed, each shown with its title; choosing one completes the key, in braces where pandoc needs
them (`@{odd.key.}`). The keys come from the desk (`DocumentSession.citation_keys`: the front
matter's bibliographies and the document's own setting); the window refreshes them when a
document opens, when its bibliography changes (read off the GUI thread: the store, the bibliography
files) and after each audit (from its report) — never per keystroke. A numbered document has no
keys, so nothing is offered.

`ask_bibliography` is the File menu's per-document bibliography setting, where the keys come from.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from citedesk.core.citekeys import is_simple_key
from citedesk.desk import DocumentSession
from citedesk.gui.ops import run_op
from citedesk.gui.qt import (
    QCompleter,
    QEvent,
    QFileDialog,
    QKeyEvent,
    QObject,
    QPlainTextEdit,
    QStandardItem,
    QStandardItemModel,
    Qt,
    QTextCursor,
    QWidget,
    Signal,
)

KEY_ROLE = Qt.ItemDataRole.UserRole + 1
_CHOOSE = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Tab)
BIBLIOGRAPHY_FILTER = "Bibliographies (*.bib *.bibtex *.json *.yaml *.yml *.ris)"
# what is being typed right before the cursor: `@` (not inside a word or an e-mail address), an
# optional `{`, and the start of a key
_TYPED_KEY = re.compile(r"(?<![\w.])-?@(\{?[\w:.#$%&\-+?<>~/]*)$")


class CitationCompleter(QObject):
    """A popup of citation keys on the editor; `completed` says which key was inserted."""

    completed = Signal(str)

    def __init__(
        self, editor: QPlainTextEdit, look_up: Callable[[], Callable[[], list[tuple[str, str]]]]
    ) -> None:
        super().__init__(editor)
        self.editor = editor
        self._look_up = look_up
        """Reads what it needs from the widgets now and returns the job that reads the keys (run
        off the GUI thread)."""
        self._refreshes = 0
        self._inserting = False
        self.model = QStandardItemModel(self)
        self.completer = QCompleter(self.model, self)
        self.completer.setWidget(editor)
        self.completer.setCompletionRole(KEY_ROLE)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.completer.setMaxVisibleItems(12)
        self.completer.activated.connect(self._chosen)  # a row clicked: its key (the completion role)
        popup = self.completer.popup()
        if popup is not None:
            # Enter and Tab must choose before QCompleter hands them to the editor (a new line)
            popup.installEventFilter(self)
        editor.document().contentsChange.connect(self._changed)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        popup = self.completer.popup()
        if (
            watched is popup
            and popup is not None
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() in _CHOOSE
        ):
            index = popup.currentIndex()
            popup.hide()
            if index.isValid():
                self._chosen(str(index.data(KEY_ROLE)))
            return True
        return super().eventFilter(watched, event)

    def refresh(self, keys: list[tuple[str, str]] | None = None) -> None:
        """Show `keys` (an audit's), or read them again off the GUI thread (a document opened, its
        bibliography changed): they are shown unless newer keys came meanwhile."""
        self._refreshes += 1
        if keys is not None:
            self._show(keys)
            return
        refresh = self._refreshes
        run_op(
            self,
            self._look_up(),
            lambda found: self._show(found) if refresh == self._refreshes else None,
            label="Reading the bibliography…",
        )

    def _show(self, keys: list[tuple[str, str]]) -> None:
        self.model.clear()
        for key, title in keys:
            item = QStandardItem(f"{key} — {title}" if title else key)
            item.setData(key, KEY_ROLE)
            item.setEditable(False)
            self.model.appendRow(item)

    def typed_key(self) -> str | None:
        """The start of a key being typed right before the cursor (`mor` in `[see @mor`), or None."""
        cursor = self.editor.textCursor()
        before = cursor.block().text()[: cursor.positionInBlock()]
        match = _TYPED_KEY.search(before)
        return match.group(1) if match else None

    def _changed(self, position: int, removed: int, added: int) -> None:
        """One character typed at the cursor: offer the keys that start with what is typed."""
        popup = self.completer.popup()
        if popup is None:
            return
        typing = added == 1 and self.editor.textCursor().position() == position + added
        typed = self.typed_key() if typing and not self._inserting else None
        if typed is None or not self.model.rowCount():
            popup.hide()
            return
        self.completer.setCompletionPrefix(typed.lstrip("{"))
        if self.completer.completionCount() == 0:
            popup.hide()
            return
        area = self.editor.cursorRect()
        area.setWidth(max(320, popup.sizeHintForColumn(0) + 24))
        self.completer.complete(area)
        popup.setCurrentIndex(self.completer.completionModel().index(0, 0))  # Enter takes the first

    def _chosen(self, key: str) -> None:
        typed = self.typed_key()
        if typed is None:
            return
        cursor = self.editor.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.Left, QTextCursor.MoveMode.KeepAnchor, len(typed))
        self._inserting = True
        try:
            cursor.insertText(key if is_simple_key(key) and "://" not in key else "{" + key + "}")
        finally:
            self._inserting = False
        self.editor.setTextCursor(cursor)
        self.completed.emit(key)


def ask_bibliography(parent: QWidget, session: DocumentSession, current: Path | None) -> str | None:
    """File ▸ Bibliography…: ask for this document's bibliography (kept with the document, used
    besides any its front matter names; never modified), starting where the `current` one is.
    Returns the file chosen, or None."""
    start = current.parent if current else (session.path.parent if session.path else session.folder)
    name, _ = QFileDialog.getOpenFileName(
        parent, "The document's bibliography", str(start or ""), BIBLIOGRAPHY_FILTER
    )
    return name or None
