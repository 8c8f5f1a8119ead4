"""`@` completion: the bibliography's citation keys offered as the writer types a pandoc citation.

Typing `@` (or more after it: `[see @mor`) opens a list of the entries the typed word finds, each
shown as `key — Author (Year) Title`; choosing one completes the key, in braces where pandoc needs
them (`@{odd.key.}`). A writer remembers a work by its author, its year or a word of its title more
often than by its key, so all of those are searched (`ranked`): keys that start with the word
first, then entries by an author or of a year that does, then those with a title word that does,
then keys that merely contain it; accents and case do not count (`@lea` finds Léa). The entries
come from the desk (`DocumentSession.citation_works`: the front matter's bibliographies and the
document's own setting); the window refreshes them when a document opens, when its bibliography
changes (read off the GUI thread: the store, the bibliography files) and after each audit (from its
report) — never per keystroke; each keystroke only ranks them. A numbered document has no
bibliography, so nothing is offered.

`ask_bibliography` is the File menu's per-document bibliography setting, where the keys come from.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from citedesk.core.bibliographies.search import Candidate, ranked
from citedesk.core.document.citekeys import is_simple_key
from citedesk.core.document.works import BibReference
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
Work = BibReference | tuple[str, str]
"""What the completion offers: a bibliography's entry, or a bare (key, title)."""
_CHOOSE = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Tab)
BIBLIOGRAPHY_FILTER = "Bibliographies (*.bib *.bibtex *.json *.yaml *.yml *.ris)"
# what is being typed right before the cursor: `@` (not inside a word or an e-mail address), an
# optional `{`, and the start of a key
_TYPED_KEY = re.compile(r"(?<![\w.])-?@(\{?[\w:.#$%&\-+?<>~/]*)$")


class CitationCompleter(QObject):
    """A popup of citation keys on the editor; `completed` says which key was inserted.

    The popup shows only what `ranked` found for the word typed (the completer does no filtering of
    its own), so its order is the ranking's."""

    completed = Signal(str)

    def __init__(self, editor: QPlainTextEdit, look_up: Callable[[], Callable[[], Sequence[Work]]]) -> None:
        super().__init__(editor)
        self.editor = editor
        self._look_up = look_up
        """Reads what it needs from the widgets now and returns the job that reads the keys (run
        off the GUI thread)."""
        self._refreshes = 0
        self._inserting = False
        self.candidates: list[Candidate] = []
        self.model = QStandardItemModel(self)
        """What the popup shows now: the ranked entries for the word being typed."""
        self.completer = QCompleter(self.model, self)
        self.completer.setWidget(editor)
        self.completer.setCompletionRole(KEY_ROLE)
        self.completer.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)
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

    def refresh(self, works: Sequence[Work] | None = None) -> None:
        """Offer `works` (an audit's bibliography), or read them again off the GUI thread (a
        document opened, its bibliography changed): they are offered unless newer ones came
        meanwhile."""
        self._refreshes += 1
        if works is not None:
            self._keep(works)
            return
        refresh = self._refreshes
        run_op(
            self,
            self._look_up(),
            lambda found: self._keep(found) if refresh == self._refreshes else None,
            label="Reading the bibliography…",
        )

    def _keep(self, works: Sequence[Work]) -> None:
        self.candidates = [Candidate.of(work) for work in works]

    def _show(self, candidates: list[Candidate]) -> None:
        self.model.clear()
        for candidate in candidates:
            item = QStandardItem(candidate.shown)
            item.setData(candidate.key, KEY_ROLE)
            item.setEditable(False)
            self.model.appendRow(item)

    def typed_key(self) -> str | None:
        """The start of a key being typed right before the cursor (`mor` in `[see @mor`), or None."""
        cursor = self.editor.textCursor()
        before = cursor.block().text()[: cursor.positionInBlock()]
        match = _TYPED_KEY.search(before)
        return match.group(1) if match else None

    def _changed(self, position: int, removed: int, added: int) -> None:
        """One character typed at the cursor: offer the entries the typed word finds (`ranked`)."""
        popup = self.completer.popup()
        if popup is None:
            return
        typing = added == 1 and self.editor.textCursor().position() == position + added
        typed = self.typed_key() if typing and not self._inserting else None
        found = ranked(self.candidates, typed) if typed is not None else []
        if not found:
            popup.hide()
            return
        self._show(found)
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
