"""The open document's life in the window: open, save, save as, export, and never losing text.

`DocumentController` holds the desk's `DocumentSession` for the file in the editor. Saves are
atomic and keep the file's encoding and line endings. Unsaved text is copied to the recovery folder
every `AUTOSAVE_MS`; opening a file whose recovery copy is newer offers that copy back, for that
file (so its path, decisions and attachments apply). Saving, or answering **Discard** to "Save your
changes first?", removes the copies (the one set aside when it was offered too): saved text leaves
no side file, discarded text never comes back at the next start. Opening a bundled sample opens an
untitled copy, so Ctrl+S can never overwrite the installed sample.

A document's kind is its format (`core.formats`: Markdown or text, Quarto, LaTeX, Word …, by its
suffix): the Open dialog offers every format, Save as keeps the kind the document has (a `.tex` is
saved as a `.tex`), the editor colours it as its format says (`latex_syntax` for LaTeX), recovery
copies keep the suffix, and the title names a kind of fixed syntax ("LaTeX"). An untitled copy of
a sample keeps the kind of the sample it copies.

A Word document (`.docx`) opens read-only (`word_document`): its text is the view the desk audits,
fixes are written into the .docx, Save has nothing to save, Save as exports the text as Markdown,
and no recovery copy is made (there is no unsaved text to lose).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

from citedesk.core.formats import (
    DocumentFormat,
    format_of,
    format_of_filter,
    formats,
    is_format,
    matches,
    open_filter,
    save_filters,
)
from citedesk.core.reports import export_filters, export_path
from citedesk.core.reports.report import Report
from citedesk.desk import Desk, DocumentSession, models
from citedesk.desk import recovery as copies
from citedesk.errors import CiteDeskError, DocumentChangedError
from citedesk.gui.controllers.word_document import READ_ONLY_NOTE, show_body, show_read_only
from citedesk.gui.editor.editor import Editor
from citedesk.gui.ops import run_op
from citedesk.gui.qt import (
    QFileDialog,
    QMessageBox,
    QObject,
    QSettings,
    QTimer,
    QWidget,
    Signal,
)

AUTOSAVE_MS = 20_000


def editable_formats() -> tuple[DocumentFormat, ...]:
    """What the editor's text is saved as (never a .docx: a Word document is written by its fixes)."""
    return tuple(f for f in formats() if f.editable)


class DocumentController(QObject):
    opened = Signal()
    """A document (or an untitled copy) is now in the editor."""
    recovered = Signal()
    """Unsaved text was taken back into the editor after the document was opened: audit it."""
    saved = Signal(Path)
    message = Signal(str)
    title_changed = Signal(str)

    def __init__(self, desk: Desk, editor: Editor, settings: QSettings, parent: QWidget) -> None:
        super().__init__(parent)
        self.desk = desk
        self.editor = editor
        self.settings = settings
        self.window = parent
        self.session: DocumentSession = desk.untitled()
        self.untitled_id = uuid.uuid4().hex[:12]
        self.copied_from: Path | None = None
        """The sample an untitled copy was made of: its kind is the copy's kind."""
        self.recovery_folder: Path | None = None
        """Where recovery copies go (None: the user's data folder)."""
        self.samples_folder: Path | None = None
        """Where a folder sample's copy is made (None: the user's data folder, `Desk.copy_sample`)."""
        self.confirm_discard: Callable[[], bool] = self._ask_discard
        """May the editor's text be replaced or the window closed (unsaved text saved or discarded)?"""
        self.ask_unsaved: Callable[[], str] = self._ask_unsaved
        """Asked by `confirm_discard` when the text is unsaved: "save", "discard" or "cancel"."""
        self.recovered_from: Path | None = None
        """The set-aside copy whose text the editor took back: removed once saved or discarded."""
        self._saved_text: str | None = None
        """The text as the file has it (read or saved); None for a document with no file."""
        self.store_ready = False
        """The store has been opened once, off the GUI thread (`when_store_ready`)."""
        self.confirm_recovery: Callable[[str], bool] = self._ask_recovery
        self.confirm_changed: Callable[[str], str] = self._ask_changed
        """Asked when the file changed on disk since it was read: "overwrite", "reload" or "cancel"."""
        self.autosave = QTimer(self)
        self.autosave.setInterval(AUTOSAVE_MS)
        self.autosave.timeout.connect(self.write_recovery)
        self.autosave.start()
        self.editor.document().modificationChanged.connect(lambda _modified: self._title())

    # where it is ---------------------------------------------------------------------------------------
    @property
    def path(self) -> Path | None:
        return self.session.path

    @property
    def format(self) -> DocumentFormat:
        """The document's format (its file's suffix; an untitled copy: its sample's)."""
        return format_of(self.path if self.path is not None else self.copied_from)

    @property
    def named_kind(self) -> bool:
        """Whether the title and messages name the document's kind: one of a fixed syntax (LaTeX)."""
        return self.format.dialect.is_fixed

    def text(self) -> str:
        """The editor's text as the file has it (line endings as they were)."""
        text = self.editor.toPlainText()
        return text.replace("\n", "\r\n") if self.session.crlf else text

    # opening -----------------------------------------------------------------------------------------
    def load_file(self, path: str | Path, *, offer_recovery: bool = True) -> bool:
        try:
            session = self.desk.open(path)
        except CiteDeskError as exc:
            self.message.emit(f"Could not open {path}: {exc.message}")
            return False
        self.session = session
        self.copied_from = None
        self.recovered_from = None
        self._show(session.text)
        self._remember_recent(session.path)
        if self.named_kind:
            self.message.emit(f"Opened {session.name} as {self.format.label}")
        if session.read_only:
            show_body(self.editor)
            self.message.emit(f"Opened {session.name}. {READ_ONLY_NOTE}.")
        elif offer_recovery and session.path is not None:
            copy = copies.copy_for(session.path, self.recovery_folder)
            if copy is not None:
                self._offer(copy)
        self.opened.emit()
        return True

    def open_copy(self, path: Path) -> bool:
        """Open `path` as a new untitled document with its text (the samples: never overwritten)."""
        try:
            source = self.desk.open(path)
        except CiteDeskError as exc:
            self.message.emit(f"Could not open {path}: {exc.message}")
            return False
        self.session = self.desk.untitled(source.text, folder=path.parent)  # its bibliography, its sources
        self.untitled_id = uuid.uuid4().hex[:12]
        self.copied_from = path
        self.recovered_from = None
        self._show(source.text)
        self.editor.document().setModified(True)
        self.message.emit(f"Opened a copy of {path.name}: save it somewhere of yours to keep it")
        self.opened.emit()
        return True

    def open_sample(self, path: Path, attach_folder: Callable[[str], None]) -> bool:
        """Open a sample: a Markdown one as an untitled copy (`open_copy`); a folder sample (the
        LaTeX thesis, the Word paper) as a fresh copy of its whole folder, opened from its main
        file there, so that its project, bibliography and fixes work on files of the writer's. A
        Word sample's `sources/` (texts named by citation key) is attached as its sources folder."""
        if is_format(path, "markdown"):
            return self.open_copy(path)
        try:
            copy = self.desk.copy_sample(path, self.samples_folder)
        except CiteDeskError as exc:
            self.message.emit(f"Could not open the sample {path.parent.name}: {exc.message}")
            return False
        if not self.load_file(copy, offer_recovery=False):
            return False
        if is_format(copy, "word") and (copy.parent / "sources").is_dir():
            attach_folder(str(copy.parent / "sources"))
        self.message.emit(f"Opened a copy of the {path.parent.name} sample in {copy.parent}: fix it freely")
        return True

    def open_dialog(self) -> None:
        if not self.confirm_discard():
            return
        name, _ = QFileDialog.getOpenFileName(self.window, "Open a document", "", open_filter())
        if name:
            self.load_file(name)

    def offer_recovery_at_start(self) -> copies.RecoveryCopy | None:
        """At a bare start: offer the newest copy of unsaved text back (for its file, if it had one)."""
        found = copies.find_copies(self.recovery_folder)
        if not found:
            return None
        copy = found[0]
        if (
            copy.document is not None
            and copy.document.is_file()
            and not self.load_file(copy.document, offer_recovery=False)
        ):
            return None
        if copy.document is None and format_of(copy.copy) is not format_of(None):
            self.copied_from = copy.copy  # unsaved LaTeX with no file yet: still LaTeX
            self.editor.highlighter.set_syntax(self.format.syntax, repaint=False)  # _offer sets the text
        if not self._offer(copy):
            if copy.document is None:
                self.copied_from = None
                self.editor.highlighter.set_syntax(self.format.syntax)
            return None
        self.when_store_ready(self.recovered.emit)  # the file's own text was opened (and audited) first
        return copy

    def when_store_ready(self, then: Callable[[], object]) -> None:
        """Call `then` on the GUI thread once the store has been opened off it. An audit reads the
        document's attachments from the store as it starts, and asks the judge registry whether
        its judge sends text, on the GUI thread; the first time, that imports the store and the
        judge's module and creates or migrates the store's file, which held the window 0.3–0.5 s
        at the first open (tests/bench/first_open.py). Later calls find both quick."""
        if self.store_ready:
            then()
            return
        session, judge = self.session, self.desk.options.judge

        def first_time() -> None:
            models.judge_sends_text(judge)  # imports the judge's module
            session.attachments_split()

        def ready(_result: object = None) -> None:
            self.store_ready = True
            then()

        run_op(self, first_time, ready, ready, label="Opening the store…")

    def _offer(self, copy: copies.RecoveryCopy) -> bool:
        """Ask whether to take the copy's text; the copy is set aside (kept) either way."""
        question = f"CiteDesk found {copy.describe()}. Open it? (It stays in {copy.copy.parent} either way.)"
        accepted = self.confirm_recovery(question)
        text = copy.text()
        kept = copies.set_aside(copy)
        if accepted:
            self.recovered_from = kept
            self.editor.setPlainText(text.replace("\r\n", "\n"))
            self.editor.document().setModified(True)
            self.message.emit(f"Recovered {copy.describe()}")
        return accepted

    def _show(self, text: str) -> None:
        self.editor.highlighter.set_syntax(self.format.syntax, repaint=False)  # setPlainText paints it all
        show_read_only(self.editor, self.session.read_only)
        self.editor.setPlainText(text.replace("\r\n", "\n"))
        self.editor.document().setModified(False)
        self._saved_text = self.text() if self.path is not None else None
        self._title()

    # saving ------------------------------------------------------------------------------------------
    def save(self) -> bool:
        if self.session.read_only:  # nothing unsaved: its fixes were written into it
            self.message.emit(f"{READ_ONLY_NOTE}. Save as… exports its text as Markdown.")
            return True
        if self.path is None:
            return self.save_as_dialog()
        return self.save_to(self.path)

    def save_as_dialog(self) -> bool:
        if self.session.read_only:
            return self.export_text_dialog()
        name, chosen = QFileDialog.getSaveFileName(
            self.window, "Save as", str(self.path or ""), save_filters(self.format)
        )
        return self.save_to(self.named(name, chosen)) if name else False

    @staticmethod
    def named(name: str, chosen_filter: str) -> Path:
        """The path typed in Save as, with the chosen kind's suffix when it has none of ours
        (`thesis` saved as LaTeX is `thesis.tex`)."""
        path = Path(name)
        if matches(path, editable_formats()):
            return path
        return path.with_name(path.name + format_of_filter(chosen_filter).suffixes[0])

    def save_to(self, path: Path) -> bool:
        old = self.path
        try:
            if old is not None and path.resolve() == old:
                if not self._write_over(path):
                    return False
            else:
                self.session.save_as(self.text(), path)
        except CiteDeskError as exc:
            self.message.emit(
                f"Could not save {path}: {exc.message}. Your text is still here and in the recovery copy."
            )
            self.write_recovery()
            return False
        copies.discard(old, self.untitled_id, self.recovery_folder)
        self.forget_copies()
        self.copied_from = None
        self.editor.highlighter.set_syntax(self.format.syntax)  # saved as another kind: coloured so
        self.editor.document().setModified(False)
        self._saved_text = self.text()
        self._remember_recent(self.path)
        self._title()
        self.message.emit(f"Saved {path.name}")
        self.saved.emit(path)
        return True

    def _write_over(self, path: Path) -> bool:
        """Save over the file, unless it changed on disk since it was read: then the writer chooses
        to overwrite that version, to reload it (their text kept in a recovery copy), or neither."""
        try:
            self.session.write(self.text())
        except DocumentChangedError as exc:
            self.write_recovery()
            choice = self.confirm_changed(
                f"{exc.message.split(';')[0]}. Overwrite it with your text, or reload it from disk? "
                "(Your text is kept in a recovery copy either way.)"
            )
            if choice == "overwrite":
                self.session.write(self.text(), overwrite=True)
                return True
            if choice == "reload" and path.exists():
                self.load_file(path, offer_recovery=False)
                self.message.emit(f"Reloaded {path.name} from disk; your text is in the recovery copy")
            return False
        return True

    def export_text_dialog(self) -> bool:
        """Save as, for a Word document: its text written as Markdown to another file (the .docx
        unchanged, still the document open here)."""
        markdown = format_of(None)
        suggested = (self.path or Path("document")).with_suffix(markdown.suffixes[0])
        name, chosen = QFileDialog.getSaveFileName(
            self.window, "Export the text as Markdown", str(suggested), save_filters(markdown)
        )
        return self.export_text(self.named(name, chosen)) if name else False

    def export_text(self, path: Path) -> bool:
        try:
            self.session.export_text(path)
        except CiteDeskError as exc:
            self.message.emit(exc.message)
            return False
        self.message.emit(f"Exported the text of {self.session.name} to {path.name}; the .docx is unchanged")
        return True

    def export_dialog(self, report: Report | None) -> None:
        if report is None:
            self.message.emit("Nothing to export yet: the audit has not finished.")
            return
        name, chosen = QFileDialog.getSaveFileName(self.window, "Export the report", "", export_filters())
        if name:  # a name without a format's suffix takes the filter's
            self.export_report(report, export_path(name, chosen))

    def export_report(self, report: Report, path: Path) -> None:
        """Render and write the report off the GUI thread (`gui.ops`); `message` says when it is done."""
        session = self.session
        run_op(
            self,
            lambda: session.export(report, path),
            lambda _: self.message.emit(f"Report written to {path}"),
            lambda exc: self.message.emit(exc.message),
            store=False,
            label="Writing the report…",
        )

    # never losing text ----------------------------------------------------------------------------------
    def recovery_path(self) -> Path:
        kind = self.format.suffixes[0]
        return copies.copy_path(self.path, self.untitled_id, self.recovery_folder, kind=kind)

    def unsaved(self) -> bool:
        """Whether the text differs from the file: modified since it was read or saved, and not
        back to the file's text (a fix then its undo, or a word typed and deleted, is nothing unsaved)."""
        if not self.editor.document().isModified() or self.session.read_only:
            return False
        return self._saved_text is None or self.text() != self._saved_text

    def write_recovery(self) -> None:
        """Keep a copy of unsaved text outside the document (never over it); text back to the file's
        drops the copy, so an undone change is never offered back. A Word document has none: a fix
        shown before it is written is the file's, or is taken back."""
        if self.unsaved():
            kind = self.format.suffixes[0]  # an untitled LaTeX copy's copy is .tex too
            copies.write_copy(self.path, self.text(), self.untitled_id, self.recovery_folder, kind=kind)
        elif not self.session.read_only:
            copies.drop_copy(self.path, self.untitled_id, self.recovery_folder)

    def forget_copies(self) -> None:
        """The text was saved or discarded: no recovery copy of it is kept, nor the set-aside copy
        it was recovered from (which may be another window's, an untitled document's)."""
        copies.discard(self.path, self.untitled_id, self.recovery_folder)
        if self.recovered_from is not None:
            self.recovered_from.unlink(missing_ok=True)
            self.recovered_from = None

    def _ask_discard(self) -> bool:
        if not self.unsaved():
            self.write_recovery()  # nothing unsaved: no copy is left to be offered back
            return True
        answer = self.ask_unsaved()
        if answer == "save":
            return self.save()
        if answer == "discard":
            self.forget_copies()
            return True
        return False

    def _ask_unsaved(self) -> str:
        answer = QMessageBox.question(
            self.window,
            "Unsaved changes",
            "Save your changes first?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Save:
            return "save"
        return "discard" if answer == QMessageBox.StandardButton.Discard else "cancel"

    def _ask_changed(self, question: str) -> str:
        box = QMessageBox(QMessageBox.Icon.Warning, "Changed on disk", question, parent=self.window)
        overwrite = box.addButton("Overwrite", QMessageBox.ButtonRole.AcceptRole)
        reload = box.addButton("Reload", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        clicked = box.clickedButton()
        return "overwrite" if clicked is overwrite else "reload" if clicked is reload else "cancel"

    def _ask_recovery(self, question: str) -> bool:
        box = QMessageBox.question(self.window, "Recover unsaved text?", question)
        return box == QMessageBox.StandardButton.Yes

    # the title and recent files -------------------------------------------------------------------------
    def _title(self) -> None:
        star = "*" if self.editor.document().isModified() else ""
        fmt = self.format
        kind = f" ({fmt.label}, read-only)" if self.session.read_only else ""
        kind = f" ({fmt.label})" if self.named_kind and not kind else kind
        self.title_changed.emit(f"{star}{self.session.name}{kind} — CiteDesk")

    def recent(self) -> list[str]:
        stored = self.settings.value("recent", []) or []
        return [str(p) for p in (stored if isinstance(stored, list) else [stored])]

    def _remember_recent(self, path: Path | None) -> None:
        if path is not None:
            others = [p for p in self.recent() if p != str(path)]
            self.settings.setValue("recent", [str(path), *others][:10])
