"""The sources panel: each reference with its status and quality, and what can be done about it.

The status says how the source was had (fetched, cached, local …) and what the scholarly indexes
say about the work (retracted, year differs, DOI of another work, verified …), with an icon for a
retraction or an expression of concern and the notice (its DOI, date and link) on hover.

A thin view over the report's `sources` list (typed summaries from the engine). It decides nothing: it
emits `refresh_requested`, `open_requested` and `attach_requested`, and the window acts on them.
Dropping a PDF, HTML, Markdown or text file onto a reference attaches it as that reference's content.
"""

from __future__ import annotations

from pathlib import Path

from citedesk.core.summaries import ReferenceTruth, SourceSummary
from citedesk.gui.qt import (
    QAbstractItemView,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QFileDialog,
    QHBoxLayout,
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

SOURCE_SUFFIXES = (".txt", ".md", ".markdown", ".html", ".htm", ".pdf")
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
    "outside": "outside the document's folder",
    "not_checked": "not checked (time budget)",
}
WARNING_STANDINGS = {"retraction": "critical", "withdrawal": "critical", "expression_of_concern": "warning"}
"""Notices that put an icon on the row: a retraction or withdrawal, an expression of concern."""


class SourceTree(QTreeWidget):
    """The list itself; it takes file drops onto a row."""

    file_dropped = Signal(str, str)  # reference key, file path

    def __init__(self) -> None:
        super().__init__()
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DropOnly)

    @staticmethod
    def _file(event: QDragEnterEvent | QDragMoveEvent | QDropEvent) -> str | None:
        for url in event.mimeData().urls():
            local = url.toLocalFile()
            if local.lower().endswith(SOURCE_SUFFIXES):
                return local
        return None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt's name
        if self._file(event):
            event.acceptProposedAction()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:  # noqa: N802 - Qt's name
        item = self.itemAt(event.position().toPoint())
        if self._file(event) and item is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt's name
        local = self._file(event)
        item = self.itemAt(event.position().toPoint())
        if local and item is not None:
            self.file_dropped.emit(item.data(0, Qt.ItemDataRole.UserRole), local)
            event.acceptProposedAction()


class SourcesPanel(QWidget):
    refresh_requested = Signal(str)  # reference key
    open_requested = Signal(str)  # reference key
    attach_requested = Signal(str, str)  # reference key, file path

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tree = SourceTree()
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSortingEnabled(True)
        self.tree.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.tree.file_dropped.connect(self.attach_requested)
        self.refresh_button = QPushButton("Refresh")
        self.open_button = QPushButton("Open")
        self.attach_button = QPushButton("Attach a file…")
        self.refresh_button.clicked.connect(lambda: self._emit(self.refresh_requested))
        self.open_button.clicked.connect(lambda: self._emit(self.open_requested))
        self.attach_button.clicked.connect(self._attach_dialog)
        self.tree.currentItemChanged.connect(lambda *_: self._update_buttons())
        self.tree.itemDoubleClicked.connect(lambda *_: self._emit(self.open_requested))
        buttons = QHBoxLayout()
        for button in (self.refresh_button, self.open_button, self.attach_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tree)
        layout.addLayout(buttons)
        self._sources: dict[str, SourceSummary] = {}
        self._update_buttons()

    def set_sources(self, sources: list[SourceSummary], attached: dict[str, str] | None = None) -> None:
        current = self.current_key()
        self.tree.clear()
        self._sources = {s.key: s for s in sources}
        attached = attached or {}
        for source in sources:
            status = STATUS_WORDS.get(source.status, source.status)
            if source.cached and source.status == "dead":
                status += " (using the cached copy)"
            if source.key in attached:
                status += " · attached"
            check = source.check
            if check is not None and (check.status != "not_checked" or check.standing is not None):
                status += f" · {check.words}"
            score = f"{source.quality.score:.2f}" if source.quality else "—"
            described = " — ".join(
                p for p in (source.title, source.authors) if p
            )  # a bibliography's title, authors
            item = QTreeWidgetItem([source.key, status, score, described or source.location or ""])
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
