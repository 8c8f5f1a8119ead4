"""The LaTeX project of the open file: its main file and the files it includes, in reading order,
and, once the whole project has been audited, each file's findings under it.

A thesis is one main file and a chapter per `\\include`; the writer works in a chapter but the
project is the unit LaTeX compiles and the bibliography belongs to. The list is shown only when
the open `.tex` belongs to a project of more than one file (the window adds the tab). It only shows
and says what the writer chose (`open_requested`); what is read and audited is the controller's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from citedesk.core.findings import Finding
from citedesk.gui.qt import (
    QLabel,
    QPushButton,
    Qt,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
    Signal,
)

PATH_ROLE = Qt.ItemDataRole.UserRole
LINE_ROLE = Qt.ItemDataRole.UserRole + 1


@dataclass(frozen=True)
class FileFindings:
    """One file's audit in the project: its findings with their lines, or why it was not audited."""

    path: Path
    findings: tuple[tuple[int, Finding], ...] = ()
    """(line, finding), in the order of the text."""
    failed: str = ""


class ProjectPanel(QWidget):
    open_requested = Signal(Path, int)
    """Open this file (at this line; 0: where it opens)."""
    audit_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setObjectName("project-files")
        self.tree.itemActivated.connect(self._activated)
        self.audit_button = QPushButton("Audit the whole project")
        self.audit_button.setToolTip(
            "Audit every file of the project with its bibliography; findings by file"
        )
        self.audit_button.clicked.connect(self.audit_requested)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.heading)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.audit_button)
        self.main: Path | None = None
        self.root: Path | None = None
        self._items: dict[Path, QTreeWidgetItem] = {}

    def show_files(
        self, main: Path, files: Sequence[Path], current: Path | None, notices: Sequence[str] = ()
    ) -> None:
        """List `files` (the main file first), the open one in bold. The same project shown again
        (the writer opened another of its files) keeps its list and the findings under it."""
        if main != self.main or list(files) != list(self._items):
            self.main, self.root = main, main.parent
            self.tree.clear()
            self._items = {}
            for path in files:
                item = QTreeWidgetItem([self.shown(path)])
                item.setData(0, PATH_ROLE, str(path))
                item.setData(0, LINE_ROLE, 0)
                item.setToolTip(0, str(path))
                self.tree.addTopLevelItem(item)
                self._items[path] = item
        for path, item in self._items.items():
            font = item.font(0)
            font.setBold(path == current)
            item.setFont(0, font)
        count = len(files)
        lines = [f"{main.name}: {count} file{'s' if count != 1 else ''}", *notices]
        self.heading.setText("\n".join(lines))

    def shown(self, path: Path) -> str:
        """A file as the project names it: relative to the main file's folder."""
        name = str(path)
        if self.root is not None and path.is_relative_to(self.root):
            name = path.relative_to(self.root).as_posix()
        return name + (" (main file)" if path == self.main else "")

    def files(self) -> list[str]:
        """The files listed, as shown (tests, and what the writer reads)."""
        return [item.text(0) for item in self._items.values()]

    def show_findings(self, audits: Sequence[FileFindings]) -> None:
        """Each file's findings under it (line and message); a file that could not be audited says why."""
        for audit in audits:
            item = self._items.get(audit.path)
            if item is None:
                continue
            item.takeChildren()
            label = self.shown(audit.path)
            if audit.failed:
                item.setText(0, f"{label} — not audited: {audit.failed}")
                continue
            count = len(audit.findings)
            item.setText(0, f"{label} — {count} finding{'s' if count != 1 else ''}" if count else label)
            for line, finding in audit.findings:
                child = QTreeWidgetItem([f"line {line}: {finding.message}"])
                child.setData(0, PATH_ROLE, str(audit.path))
                child.setData(0, LINE_ROLE, line)
                child.setToolTip(0, finding.message)
                item.addChild(child)
            item.setExpanded(True)

    def _activated(self, item: QTreeWidgetItem, _column: int) -> None:
        self.open_requested.emit(Path(str(item.data(0, PATH_ROLE))), int(item.data(0, LINE_ROLE) or 0))
