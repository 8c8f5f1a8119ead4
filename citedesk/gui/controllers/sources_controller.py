"""What the window does for sources: fetch one again, open one, attach a file, a folder, or several
files matched to their references — always through the document's session, then audit again.

The Sources panel and the hover card ask; this does it — what touches the store off the GUI thread,
on the window's store worker (`gui.ops`) — and says what happened (`message`), and asks for an
audit (`audit_requested`) when something changed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from citedesk.core.formats import SOURCE_SUFFIXES
from citedesk.core.reports.report import Report
from citedesk.desk import DocumentSession
from citedesk.desk.attach import match_files
from citedesk.errors import CiteDeskError
from citedesk.gui.ops import run_op
from citedesk.gui.panels.sources_panel import SourcesPanel
from citedesk.gui.qt import QDesktopServices, QFileDialog, QObject, QUrl, QWidget, Signal


class SourcesController(QObject):
    message = Signal(str)
    audit_requested = Signal(frozenset)  # reference keys to fetch again (empty: none)

    def __init__(
        self,
        panel: SourcesPanel,
        session: Callable[[], DocumentSession],
        report: Callable[[], Report | None],
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.panel = panel
        self._session = session
        self._report = report
        self.window = parent
        self.choose_file: Callable[[str], str] = self._file_dialog
        """Asks for a source file for a reference (replaced in tests)."""
        panel.refresh_requested.connect(self.refresh)
        panel.open_requested.connect(self.open)
        panel.attach_requested.connect(self.attach)
        panel.folder_requested.connect(self.attach_folder)
        panel.files_dropped.connect(self.attach_files)

    def refresh(self, key: str) -> None:
        """Fetch one reference again (the cached copy stays if the fetch fails), then re-audit."""
        self.message.emit(f"Fetching [{key}] again…")
        self.audit_requested.emit(frozenset({key}))

    def open(self, key: str) -> None:
        session = self._session()
        source = self.panel.source(key)
        listed = (source.location if source else "") or ""
        folder = session.path.parent if session.path else None

        def found(attached: dict[str, str]) -> None:
            url = source_url(attached.get(key) or listed, folder)
            if url is None:
                self.message.emit(f"Reference [{key}] has nothing to open.")
                return
            QDesktopServices.openUrl(url)

        run_op(self, session.attachments, found, label="Reading the attachments…")

    def ask_file(self, key: str) -> None:
        """ "Attach a file…" on an unchecked citation: ask for the file, attach it, audit again."""
        name = self.choose_file(key)
        if name:
            self.attach(key, name)

    def _file_dialog(self, key: str) -> str:
        patterns = " ".join(f"*{s}" for s in SOURCE_SUFFIXES)
        name, _ = QFileDialog.getOpenFileName(
            self.window, f"Attach a file as reference [{key}]", "", f"Sources ({patterns})"
        )
        return name

    def attach(self, key: str, path: str) -> None:
        """Use a local file as reference [key]'s content (for this document, kept in the store)."""
        session = self._session()

        def attached(made: Path) -> None:
            self.message.emit(f"Attached {made.name} as reference [{key}]")
            self.audit_requested.emit(frozenset())

        run_op(self, lambda: session.attach(key, path), attached, self._not_attached, label="Attaching…")

    def attach_folder(self, folder: str) -> None:
        """A folder of sources named by key or number (like `--sources DIR`), kept for the document."""
        session = self._session()

        def attached(made: Path) -> None:
            self.panel.set_folder(str(made))
            self.message.emit(f"Sources from {made}: files named by reference key or number")
            self.audit_requested.emit(frozenset())

        run_op(self, lambda: session.attach_folder(folder), attached, self._not_attached, label="Attaching…")

    def attach_files(self, paths: list[str]) -> None:
        """Several files dropped on the Sources list: each to the reference it matches."""
        report = self._report()
        if report is None:
            self.message.emit("Wait for the check to finish, then drop the files again.")
            return
        matches = match_files([Path(p) for p in paths], report.document.references.entries)
        session = self._session()

        def attach_all() -> tuple[list[str], list[str]]:
            attached, missed = [], []
            for match in matches:
                if match.key is None:
                    missed.append(f"{match.path.name} ({match.how})")
                    continue
                try:
                    session.attach(match.key, match.path)
                except CiteDeskError as exc:
                    missed.append(f"{match.path.name} ({exc.message})")
                    continue
                attached.append(f"{match.path.name} → [{match.key}]")
            return attached, missed

        def done(outcome: tuple[list[str], list[str]]) -> None:
            attached, missed = outcome
            parts = [f"Attached {', '.join(attached)}"] if attached else []
            parts += [f"not matched: {', '.join(missed)}"] if missed else []
            self.message.emit("; ".join(parts) or "Nothing to attach.")
            if attached:
                self.audit_requested.emit(frozenset())

        run_op(self, attach_all, done, label="Attaching…")

    def _not_attached(self, exc: CiteDeskError) -> None:
        self.message.emit(f"Not attached: {exc.message}")


def source_url(location: str, document_dir: Path | None) -> QUrl | None:
    """What "Open" opens for a reference: its link, its DOI or arXiv page, or its local file."""
    if location.startswith(("http://", "https://")):
        return QUrl(location)
    if location.lower().startswith("doi:"):
        return QUrl("https://doi.org/" + location[4:])
    if location.lower().startswith("arxiv:"):
        return QUrl("https://arxiv.org/abs/" + location[6:])
    if location:
        path = Path(location)
        if not path.is_absolute() and document_dir is not None:
            path = document_dir / path
        if path.is_file():
            return QUrl.fromLocalFile(str(path.resolve()))
    return None
