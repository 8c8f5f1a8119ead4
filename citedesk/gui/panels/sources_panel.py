"""The sources panel: each reference with its status and quality, and what can be done about it.

The status says how the source was had (fetched, cached, local …) or why not, with its figure
("server error (HTTP 500)", "timed out after 20 s", "connection reset", "dead link (HTTP 404)"),
and whether the last good copy is used instead; then what the scholarly indexes
say about the work (retracted, year differs, DOI of another work, verified …), with an icon for a
retraction or an expression of concern and the notice (its DOI, date and link) on hover.

A thin view over the report's `sources` list (typed summaries from the engine). It decides nothing: it
emits `refresh_requested`, `open_requested`, `attach_requested`, `folder_requested` and
`files_dropped`, and the window acts on them. Dropping one PDF, HTML, Markdown or text file onto a
reference attaches it as that reference's content; dropping several (or one anywhere else on the
list) lets the window match each to its reference by key, number or title. "Attach a folder…" takes a
folder of sources named by key or number, like `--sources DIR`, kept for the document.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from citedesk.core.coverage import reason_words
from citedesk.core.formats import SOURCE_SUFFIXES
from citedesk.core.reports.summaries import ReferenceTruth, SourceSummary
from citedesk.gui.qt import (
    QAbstractItemView,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStyle,
    Qt,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
    Signal,
    SignalInstance,
)

COLUMNS = ("Ref", "Status", "Quality", "Source")
STATUS_WORDS = {
    "local": "local file",
    "fetched": "fetched",
    "cached": "cached",
    "dead": "dead link",
    "not_found": "does not exist",
    "mismatch": "DOI mismatch",
    "unreadable": "no readable text",
    "offline": "not fetched (offline)",
    "blocked": "blocked (private network)",
    "unlocated": "no link, DOI or file",
    "invalid_link": "invalid link",
    "outside": "outside the folders CiteDesk may read",
    "not_checked": "not checked (time budget)",
    "server_error": "server error",
    "refused": "refused by the server",
    "timed_out": "timed out",
    "reset": "connection reset",
    "unreachable": "could not connect",
}
KEEPS_LAST_COPY = (
    "dead",
    "not_checked",
    "offline",
    "server_error",
    "refused",
    "timed_out",
    "reset",
    "unreachable",
)
"""Statuses of a source not had now, whose last good copy (when there is one) is used instead."""
WARNING_STANDINGS = {"retraction": "critical", "withdrawal": "critical", "expression_of_concern": "warning"}
"""Notices that put an icon on the row: a retraction or withdrawal, an expression of concern."""


def dropped_files(event: QDragEnterEvent | QDragMoveEvent | QDropEvent) -> list[str]:
    """The source files (by suffix) among what is dragged."""
    found = (url.toLocalFile() for url in event.mimeData().urls())
    return [local for local in found if local.lower().endswith(SOURCE_SUFFIXES)]


class SourceTree(QTreeWidget):
    """The list itself; it takes file drops: one onto a row, or several anywhere."""

    file_dropped = Signal(str, str)  # reference key, file path
    files_dropped = Signal(list)  # file paths, to match to references

    def __init__(self) -> None:
        super().__init__()
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DropOnly)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt's name
        if dropped_files(event):
            event.acceptProposedAction()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:  # noqa: N802 - Qt's name
        if dropped_files(event):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt's name
        files = dropped_files(event)
        item = self.itemAt(event.position().toPoint())
        if len(files) == 1 and item is not None:
            self.file_dropped.emit(item.data(0, Qt.ItemDataRole.UserRole), files[0])
        elif files:
            self.files_dropped.emit(files)
        else:
            return
        event.acceptProposedAction()


class _SourceItem(QTreeWidgetItem):
    """A row that sorts references by number where both are numbers ([2] before [11])."""

    def __lt__(self, other: QTreeWidgetItem) -> bool:
        column = self.treeWidget().sortColumn() if self.treeWidget() else 0
        mine, theirs = self.text(column), other.text(column)
        if column == 0 and mine.isdecimal() and theirs.isdecimal():
            return int(mine) < int(theirs)
        if column == 0 and mine.isdecimal() != theirs.isdecimal():
            return mine.isdecimal()  # numbered entries first, then footnote names
        return mine.casefold() < theirs.casefold()


class SourcesPanel(QWidget):
    refresh_requested = Signal(str)  # reference key
    open_requested = Signal(str)  # reference key
    attach_requested = Signal(str, str)  # reference key, file path
    folder_requested = Signal(str)  # a folder of sources named by key or number
    files_dropped = Signal(list)  # file paths to match to references

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.choose_folder: Callable[[], str] = self._folder_dialog
        """Asks for the folder (replaced in tests)."""
        self.setAcceptDrops(True)
        self.folder_label = QLabel("")
        self.folder_label.setWordWrap(True)
        self.folder_label.setVisible(False)
        self.tree = SourceTree()
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSortingEnabled(True)
        self.tree.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.tree.file_dropped.connect(self.attach_requested)
        self.tree.files_dropped.connect(self.files_dropped)
        self.refresh_button = QPushButton("Refresh")
        self.open_button = QPushButton("Open")
        self.attach_button = QPushButton("Attach a file…")
        self.folder_button = QPushButton("Attach a folder…")
        self.folder_button.setToolTip(
            "A folder of sources named by reference key or number (3.pdf, smith2020.html), for this document"
        )
        self.folder_button.clicked.connect(self.ask_folder)
        self.refresh_button.clicked.connect(lambda: self._emit(self.refresh_requested))
        self.open_button.clicked.connect(lambda: self._emit(self.open_requested))
        self.attach_button.clicked.connect(self._attach_dialog)
        self.tree.currentItemChanged.connect(lambda *_: self._update_buttons())
        self.tree.itemDoubleClicked.connect(lambda *_: self._emit(self.open_requested))
        buttons = QHBoxLayout()
        for button in (self.refresh_button, self.open_button, self.attach_button, self.folder_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.folder_label)
        layout.addWidget(self.tree)
        layout.addLayout(buttons)
        self._sources: dict[str, SourceSummary] = {}
        self._update_buttons()

    def set_sources(
        self,
        sources: list[SourceSummary],
        attached: dict[str, str] | None = None,
        folders: list[str] | None = None,
    ) -> None:
        current = self.current_key()
        self.set_folder(folders[-1] if folders else None)
        self.tree.clear()
        self._sources = {s.key: s for s in sources}
        attached = attached or {}
        for source in sources:
            status = reason_words(STATUS_WORDS.get(source.status, source.status), source.detail)
            if source.cached and source.status in KEEPS_LAST_COPY:
                status += " (using the cached copy)"
            if source.key in attached:
                status += " · attached"
            check = source.check
            if (
                check is not None
            ):  # what the indexes say, or why they were not asked ("offline: not looked up")
                status += f" · {check.words}"
            score = f"{source.quality.score:.2f}" if source.quality else "—"
            described = " — ".join(
                p for p in (source.title, source.authors) if p
            )  # a bibliography's title, authors
            item = _SourceItem([source.key, status, score, described or source.location or ""])
            item.setData(0, Qt.ItemDataRole.UserRole, source.key)
            item.setToolTip(3, self._tooltip(source))
            item.setToolTip(1, "\n".join(filter(None, [source.message or status, *_truth_lines(check)])))
            severity = WARNING_STANDINGS.get(check.standing.kind) if check and check.standing else None
            if severity is not None:
                icon = (
                    QStyle.StandardPixmap.SP_MessageBoxCritical
                    if severity == "critical"
                    else QStyle.StandardPixmap.SP_MessageBoxWarning
                )
                item.setIcon(1, self.style().standardIcon(icon))
            self.tree.addTopLevelItem(item)
            if source.key == current:
                self.tree.setCurrentItem(item)
        for column in range(len(COLUMNS) - 1):
            self.tree.resizeColumnToContents(column)
        self._update_buttons()

    def set_folder(self, folder: str | None) -> None:
        self.folder_label.setText(f"Sources folder: {folder}" if folder else "")
        self.folder_label.setToolTip(folder or "")
        self.folder_label.setVisible(bool(folder))

    @staticmethod
    def _tooltip(source: SourceSummary) -> str:
        lines = [source.title or "", source.location or ""]
        if source.quality:
            parts = source.quality.components().items()
            lines.append("quality: " + ", ".join(f"{name} {value:.2f}" for name, value in parts))
        if source.message:
            lines.append(source.message)
        return "\n".join(line for line in lines if line)

    def rows(self) -> dict[str, list[str]]:
        """Reference key → the texts of its row, as shown."""
        shown: dict[str, list[str]] = {}
        for row in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(row)
            if item is not None:
                shown[item.text(0)] = [item.text(c) for c in range(1, len(COLUMNS))]
        return shown

    def current_key(self) -> str | None:
        item = self.tree.currentItem()
        return str(item.data(0, Qt.ItemDataRole.UserRole)) if item is not None else None

    def source(self, key: str) -> SourceSummary | None:
        return self._sources.get(key)

    def select(self, key: str) -> None:
        for row in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(row)
            if item is not None and item.data(0, Qt.ItemDataRole.UserRole) == key:
                self.tree.setCurrentItem(item)

    def _update_buttons(self) -> None:
        key = self.current_key()
        source = self._sources.get(key or "")
        self.refresh_button.setEnabled(source is not None and source.status != "local")
        self.open_button.setEnabled(bool(source and source.location))
        self.attach_button.setEnabled(source is not None)

    def _emit(self, signal: SignalInstance) -> None:
        key = self.current_key()
        if key is not None:
            signal.emit(key)

    def ask_folder(self) -> None:
        folder = self.choose_folder()
        if folder:
            self.folder_requested.emit(folder)

    def _folder_dialog(self) -> str:
        return QFileDialog.getExistingDirectory(self, "A folder of sources named by reference key or number")

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt's name
        if dropped_files(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt's name
        files = dropped_files(event)
        if files:
            self.files_dropped.emit(files)
            event.acceptProposedAction()

    def _attach_dialog(self) -> None:
        key = self.current_key()
        if key is None:
            return
        name, _ = QFileDialog.getOpenFileName(
            self,
            f"Attach a file as reference [{key}]",
            "",
            "Sources (" + " ".join(f"*{s}" for s in SOURCE_SUFFIXES) + ")",
        )
        if name and Path(name).is_file():
            self.attach_requested.emit(key, name)


def _truth_lines(check: ReferenceTruth | None) -> list[str]:
    """The hover text about the work: its standing notice (DOI, date, link, reasons), then what
    the check found."""
    if check is None:
        return []
    lines = []
    notice = check.standing
    if notice is not None:
        said = f"{notice.words.capitalize()} notice"
        said += f" doi:{notice.doi}" if notice.doi else f" ({notice.source}, no notice DOI)"
        said += f", {notice.date}" if notice.date else ""
        lines.append(said)
        if notice.url:
            lines.append(notice.url)
        if notice.reasons:
            lines.append("Reasons: " + "; ".join(notice.reasons))
    if check.message:
        lines.append(check.message)
    return lines
