"""The LaTeX project of the open file, in its own tab: the files of the thesis, opened from there,
and the whole project audited, findings by file.

When the open document is a `.tex` that belongs to a project of several files (a main file and
the chapters it `\\include`s; a chapter finds its main file), the desk reads that project
(`desk.projects.document_project`) off the GUI thread — it reads every included file — and the
"Project" tab lists them. Opening one opens it as any document is opened: its audit uses the
project's bibliography because the desk's session of a chapter finds its project, not because
the window passes anything. "Audit the whole project" audits every file through the desk
(`Desk.audit_files`, off the GUI thread, in the store's worker, as the window's other store work
is) and lists each file's findings under it; activating one opens that file at that line.

A project that cannot be read (a file outside its folder, a missing bibliography) hides the tab
and says why in the status bar: the document itself is still audited, and its audit says more.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from citedesk.core.formats import is_format
from citedesk.core.reports.multi_file import FileAudit
from citedesk.core.text import LineIndex
from citedesk.desk.projects import Project, document_project, latex_build_notices
from citedesk.errors import CiteDeskError
from citedesk.gui.controllers.document_session import DocumentController
from citedesk.gui.ops import run_op
from citedesk.gui.panels.project_panel import FileFindings, ProjectPanel
from citedesk.gui.qt import QObject, QTabWidget, QTextCursor, QWidget, Signal

TAB = "Project"


class ProjectController(QObject):
    message = Signal(str)
    shown = Signal()
    """The project tab was filled (or taken away) for the open document."""
    audited = Signal()
    """The whole project's findings are listed."""

    def __init__(
        self,
        document: DocumentController,
        tabs: QTabWidget,
        allowed: Callable[[], Sequence[Path]],
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.tabs = tabs
        self.allowed = allowed
        """The folders the writer allowed beyond the project's own (`--allow-folder`, Allow)."""
        self.panel = ProjectPanel()
        self.project: Project | None = None
        self._asked: Path | None = None
        """The document the last reading was for: a reply for another is stale and ignored."""
        self.panel.open_requested.connect(self.open_file)
        self.panel.audit_requested.connect(self.audit_project)
        document.opened.connect(self.refresh)
        document.saved.connect(lambda _path: self.refresh())

    def refresh(self) -> None:
        """Read the open document's project, if it is a `.tex` with a file, and show it."""
        path = self.document.path
        self._asked = path
        if path is None or not is_format(path, "latex"):
            self._show(None, None)
            return
        allowed = tuple(self.allowed())

        def shown(project: Project | None) -> None:
            if self._asked == path:
                self._show(project, path)

        def failed(exc: CiteDeskError) -> None:
            if self._asked == path:
                self._show(None, None)
                self.message.emit(f"The LaTeX project of {path.name} could not be read: {exc.message}")

        run_op(
            self,
            lambda: _with_build(document_project(path, allowed)),
            shown,
            failed,
            store=False,
            label="Reading the LaTeX project…",
        )

    def _show(self, project: Project | None, current: Path | None) -> None:
        if project is not None and len(project.documents) <= 1 and project.notices:
            self.message.emit(" · ".join(project.notices))  # a one-file paper's build: no tab to say it
        self.project = project if project is not None and len(project.documents) > 1 else None
        index = self.tabs.indexOf(self.panel)
        if self.project is None:
            if index >= 0:
                self.tabs.removeTab(index)
        else:
            self.panel.show_files(self.project.file, self.project.documents, current, self.project.notices)
            if index < 0:
                self.tabs.addTab(self.panel, TAB)
        self.shown.emit()

    def open_file(self, path: Path, line: int = 0) -> None:
        """Open a file of the project (unless it is the one open), then go to `line` (1-based)."""
        elsewhere = path != self.document.path
        if elsewhere and not (self.document.confirm_discard() and self.document.load_file(path)):
            return
        if line > 0:
            editor = self.document.editor
            block = editor.document().findBlockByNumber(line - 1)
            if block.isValid():
                cursor = editor.textCursor()
                cursor.setPosition(block.position())
                cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
                editor.setTextCursor(cursor)
                editor.centerCursor()
        self.document.editor.setFocus()

    def audit_project(self) -> None:
        """Audit every file of the project as saved, through the desk, off the GUI thread."""
        project = self.project
        if project is None:
            return
        desk = self.document.desk
        self.panel.audit_button.setEnabled(False)

        def done(audits: list[FileFindings]) -> None:
            self.panel.audit_button.setEnabled(True)
            if self.project is project:
                self.panel.show_findings(audits)
                total = sum(len(a.findings) for a in audits)
                self.message.emit(f"{project.file.name}: {total} findings in {len(audits)} files")
                self.audited.emit()

        def failed(exc: CiteDeskError) -> None:
            self.panel.audit_button.setEnabled(True)
            self.message.emit(f"The project could not be audited: {exc.message}")

        run_op(
            self,
            lambda: [_by_line(a) for a in desk.audit_files(project.documents)],
            done,
            failed,
            label=f"Auditing {project.file.name} and its {len(project.documents) - 1} files…",
        )


def _with_build(project: Project | None) -> Project | None:
    """The project with what LaTeX's last run beside its main file says (`.aux`, `.bbl`, logs:
    keys left undefined, a stale build) among its notices, as `citedesk audit` says them."""
    if project is None:
        return None
    return replace(project, notices=(*project.notices, *latex_build_notices(project)))


def _by_line(audit: FileAudit) -> FileFindings:
    """One file's findings with the line each starts on."""
    path = Path(audit.path)
    if audit.report is None:
        return FileFindings(path, failed=audit.error or "it could not be read")
    lines = LineIndex(audit.report.document.text)
    return FileFindings(path, tuple((lines.line_col(f.start)[0], f) for f in audit.report.findings))
