"""A thin Qt item model over the core's findings: a list in document order, or grouped by kind.

By default every finding is a top-level row, in the order it appears in the text, and the first
column says what is wrong ("Misattributed citation [3]"). Grouped, the kinds are the top level
and the findings beneath. It only adapts: the findings are the core's frozen dataclasses, and
nothing here decides anything.
"""

from __future__ import annotations

from collections.abc import Callable

from citedesk.core.findings import Finding, Kind
from citedesk.gui.editor.highlighter import STYLES
from citedesk.gui.qt import QAbstractItemModel, QColor, QModelIndex, QObject, QPersistentModelIndex, Qt

COLUMNS = ("Problem", "Line", "Message")
ModelIndex = QModelIndex | QPersistentModelIndex
_TOP = 0xFFFFFFFF
"""internalId of top-level kind rows (grouped); a finding's row beneath stores its kind's row."""
_FLAT = 0xFFFFFFFE
"""internalId of top-level finding rows (the list in document order)."""


_ROLES = frozenset(
    {
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.DecorationRole,
        Qt.ItemDataRole.ToolTipRole,
        Qt.ItemDataRole.UserRole + 1,  # FindingModel.FindingRole
    }
)
"""The roles `data` answers."""


def problem_label(finding: Finding, cite: Callable[[str], str] = lambda key: f"[{key}]") -> str:
    """What is wrong, in the list's first column: the kind, and the reference it is about, written
    as the document cites it (`cite`: `[3]`, or `@doe99` in a pandoc document)."""
    return finding.kind.label + (f" {cite(finding.reference)}" if finding.reference else "")


class FindingsModel(QAbstractItemModel):
    FindingRole = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._grouped = False
        self._groups: list[tuple[Kind, list[Finding]]] = []
        self._flat: list[Finding] = []
        self._all: list[Finding] = []
        self._line_of: dict[int, int] = {}
        self._notes: dict[int, str] = {}
        self._filter = ""
        self._sort: tuple[int, Qt.SortOrder] = (1, Qt.SortOrder.AscendingOrder)
        self.cite: Callable[[str], str] = lambda key: f"[{key}]"
        """How the document writes a citation of a key (`Document.label`), set with each report."""

    @property
    def grouped(self) -> bool:
        return self._grouped

    def set_grouped(self, grouped: bool) -> None:
        """Group the findings by kind (True), or list them in document order (False)."""
        if grouped == self._grouped:
            return
        self.beginResetModel()
        self._grouped = grouped
        self._arrange()
        self.endResetModel()

    def set_findings(
        self,
        findings: list[Finding],
        lines: dict[int, int] | None = None,
        reviews: dict[int, str] | None = None,
    ) -> None:
        """Replace everything (a new audit).

        `lines` maps a finding's start offset → its 1-based line; `reviews` maps `id(finding)` → the
        writer's decision, shown beside the finding.
        """
        self.beginResetModel()
        self._notes = reviews or {}
        self._all = list(findings)
        self._line_of = lines or {}
        self._arrange()
        self.endResetModel()

    def set_filter(self, text: str) -> None:
        """Show only findings whose kind, severity, reference, message or review contain `text`
        (case-insensitive; every word must match)."""
        self.beginResetModel()
        self._filter = text.strip().lower()
        self._arrange()
        self.endResetModel()

    def _matches(self, finding: Finding) -> bool:
        if not self._filter:
            return True
        haystack = " ".join(
            (
                finding.kind.label,
                finding.kind.value,
                finding.severity.value,
                self.cite(finding.reference) if finding.reference else "",
                finding.message,
                self._notes.get(id(finding), ""),
            )
        ).lower()
        return all(word in haystack for word in self._filter.split())

    def _sort_key(self, column: int) -> Callable[[Finding], tuple[object, ...]]:
        kinds = list(Kind)
        if column == 0:
            return lambda f: (kinds.index(f.kind), f.reference or "", f.start)
        if column == 2:
            return lambda f: (f.message.lower(), f.start)
        return lambda f: (self._line_of.get(f.start, 0), f.start, kinds.index(f.kind))

    def _arrange(self) -> None:
        column, order = self._sort
        ordered = sorted(
            (f for f in self._all if self._matches(f)),
            key=self._sort_key(column),
            reverse=order == Qt.SortOrder.DescendingOrder,
        )
        self._flat = ordered if not self._grouped else []
        grouped: dict[Kind, list[Finding]] = {}
        if self._grouped:
            for finding in ordered:
                grouped.setdefault(finding.kind, []).append(finding)
        kinds = list(Kind)
        self._groups = sorted(grouped.items(), key=lambda item: kinds.index(item[0]))

    def _places(self) -> dict[int, tuple[int, int]]:
        """id(finding) → (row, internalId) where it is now."""
        if not self._grouped:
            return {id(f): (row, _FLAT) for row, f in enumerate(self._flat)}
        return {
            id(f): (row, group_row)
            for group_row, (_, group) in enumerate(self._groups)
            for row, f in enumerate(group)
        }

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the findings (inside each kind, when grouped: the kinds keep their order); the
        selection is kept."""
        if not 0 <= column < len(COLUMNS):
            return
        self.layoutAboutToBeChanged.emit()
        before = self._places()
        self._sort = (column, order)
        self._arrange()
        after = self._places()
        at_before = {place: finding_id for finding_id, place in before.items()}
        moved_from, moved_to = [], []
        for index in self.persistentIndexList():
            if index.internalId() == _TOP:
                continue
            finding_id = at_before.get((index.row(), int(index.internalId())))
            if finding_id is not None and finding_id in after:
                row, internal = after[finding_id]
                moved_from.append(index)
                moved_to.append(self.createIndex(row, index.column(), internal))
        self.changePersistentIndexList(moved_from, moved_to)
        self.layoutChanged.emit()

    def findings(self) -> list[Finding]:
        """The findings shown (after the filter), in display order."""
        if not self._grouped:
            return list(self._flat)
        return [f for _, group in self._groups for f in group]

    def all_findings(self) -> list[Finding]:
        """Every finding of the audit, shown or filtered out."""
        return list(self._all)

    def finding_at(self, index: ModelIndex) -> Finding | None:
        if not index.isValid() or index.internalId() == _TOP:
            return None
        if index.internalId() == _FLAT:
            return self._flat[index.row()]
        return self._groups[index.internalId()][1][index.row()]

    def index_of(self, finding: Finding) -> QModelIndex:
        if not self._grouped:
            for row, candidate in enumerate(self._flat):
                if candidate is finding:
                    return self.createIndex(row, 0, _FLAT)
            return QModelIndex()
        for group_row, (_, group) in enumerate(self._groups):
            for row, candidate in enumerate(group):
                if candidate is finding:
                    return self.createIndex(row, 0, group_row)
        return QModelIndex()

    # --- QAbstractItemModel ----------------------------------------------------------------------
    def index(self, row: int, column: int, parent: ModelIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, _TOP if self._grouped else _FLAT)
        return self.createIndex(row, column, parent.row())

    def parent(self, index: ModelIndex = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid() or index.internalId() in (_TOP, _FLAT):
            return QModelIndex()
        return self.createIndex(int(index.internalId()), 0, _TOP)

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008, N802 - Qt's name
        if not parent.isValid():
            return len(self._groups) if self._grouped else len(self._flat)
        if parent.internalId() == _TOP and parent.column() == 0:
            return len(self._groups[parent.row()][1])
        return 0

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008, N802 - Qt's name
        return len(COLUMNS)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if role not in _ROLES or not index.isValid():
            return None  # asked often (sizing a column asks each row for every role): answered first
        if index.internalId() == _TOP:
            kind, group = self._groups[index.row()]
            if role == Qt.ItemDataRole.DisplayRole and index.column() == 0:
                return f"{kind.label} ({len(group)})"
            if role == Qt.ItemDataRole.DecorationRole and index.column() == 0:
                return QColor(STYLES[kind].colour)
            return None
        finding = self.finding_at(index)
        if finding is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() == 0:
                label = problem_label(finding, self.cite)
                review = self._notes.get(id(finding))
                return f"{label} · {review}" if review else label
            if index.column() == 1:
                return str(self._line_of.get(finding.start, ""))
            return finding.message
        if role == Qt.ItemDataRole.DecorationRole and index.column() == 0:
            return QColor(STYLES[finding.kind].colour)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{finding.severity.value}: {finding.message}"
        if role == self.FindingRole:
            return finding
        return None

    def headerData(  # noqa: N802 - Qt's name
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None
