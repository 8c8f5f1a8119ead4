"""What the window does for sources: fetch one again, open one, attach a file, a folder, or several
files matched to their references — always through the document's session, then audit again.

The Sources panel and the hover card ask; this does it and says what happened (`message`), and
asks for an audit (`audit_requested`) when something changed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from citedesk.core.report import Report
from citedesk.desk import DocumentSession
from citedesk.desk.attach import match_files
from citedesk.errors import CiteDeskError
from citedesk.gui.qt import QDesktopServices, QFileDialog, QObject, QUrl, QWidget, Signal
from citedesk.gui.sources_panel import SOURCE_SUFFIXES, SourcesPanel


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
        location = session.attachments().get(key) or (source.location if source else "") or ""
        url = source_url(location, session.path.parent if session.path else None)
        if url is None:
            self.message.emit(f"Reference [{key}] has nothing to open.")
            return
        QDesktopServices.openUrl(url)

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
        try:
            attached = self._session().attach(key, path)
        except CiteDeskError as exc:
            self.message.emit(f"Not attached: {exc.message}")
            return
        self.message.emit(f"Attached {attached.name} as reference [{key}]")
        self.audit_requested.emit(frozenset())

    def attach_folder(self, folder: str) -> None:
        """A folder of sources named by key or number (like `--sources DIR`), kept for the document."""
        try:
            attached = self._session().attach_folder(folder)
        except CiteDeskError as exc:
            self.message.emit(f"Not attached: {exc.message}")
            return
        self.panel.set_folder(str(attached))
        self.message.emit(f"Sources from {attached}: files named by reference key or number")
        self.audit_requested.emit(frozenset())

    def attach_files(self, paths: list[str]) -> None:
        """Several files dropped on the Sources list: each to the reference it matches."""
        report = self._report()
        if report is None:
            self.message.emit("Wait for the check to finish, then drop the files again.")
            return
        attached, missed = [], []
        for match in match_files([Path(p) for p in paths], report.document.references.entries):
            if match.key is None:
                missed.append(f"{match.path.name} ({match.how})")
                continue
            try:
                self._session().attach(match.key, match.path)
            except CiteDeskError as exc:
                missed.append(f"{match.path.name} ({exc.message})")
                continue
            attached.append(f"{match.path.name} → [{match.key}]")
        parts = [f"Attached {', '.join(attached)}"] if attached else []
        parts += [f"not matched: {', '.join(missed)}"] if missed else []
        self.message.emit("; ".join(parts) or "Nothing to attach.")
        if attached:
            self.audit_requested.emit(frozenset())


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
