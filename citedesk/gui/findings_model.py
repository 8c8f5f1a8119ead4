"""A thin Qt item model over the core's findings: kinds at the top level, findings beneath.

It only adapts: the findings are the core's frozen dataclasses, and nothing here decides anything.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from citedesk.core.findings import Finding, Kind

COLUMNS = ("Finding", "Line", "Message")
ModelIndex = QModelIndex | QPersistentModelIndex
_TOP = 0xFFFFFFFF
"""internalId of top-level (kind) rows; a finding's row stores its kind's row number."""


class FindingsModel(QAbstractItemModel):
    FindingRole = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._groups: list[tuple[Kind, list[Finding]]] = []
        self._line_of: dict[int, int] = {}
        self._notes: dict[int, str] = {}

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
        grouped: dict[Kind, list[Finding]] = {}
        for finding in sorted(findings, key=lambda f: (f.start, f.kind.value)):
            grouped.setdefault(finding.kind, []).append(finding)
        order = list(Kind)
        self._groups = sorted(grouped.items(), key=lambda item: order.index(item[0]))
        self._line_of = lines or {}
        self.endResetModel()

    def findings(self) -> list[Finding]:
        return [f for _, group in self._groups for f in group]

    def finding_at(self, index: ModelIndex) -> Finding | None:
        if not index.isValid() or index.internalId() == _TOP:
            return None
        return self._groups[index.internalId()][1][index.row()]

    def index_of(self, finding: Finding) -> QModelIndex:
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
            return self.createIndex(row, column, _TOP)
        return self.createIndex(row, column, parent.row())

    def parent(self, index: ModelIndex = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid() or index.internalId() == _TOP:
            return QModelIndex()
        return self.createIndex(int(index.internalId()), 0, _TOP)

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008, N802 - Qt's name
        if not parent.isValid():
            return len(self._groups)
        if parent.internalId() == _TOP and parent.column() == 0:
            return len(self._groups[parent.row()][1])
        return 0

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008, N802 - Qt's name
        return len(COLUMNS)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        if index.internalId() == _TOP:
            kind, group = self._groups[index.row()]
            if role == Qt.ItemDataRole.DisplayRole and index.column() == 0:
                return f"{kind.label} ({len(group)})"
            return None
        finding = self._groups[index.internalId()][1][index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() == 0:
                label = finding.severity.value + (f" [{finding.reference}]" if finding.reference else "")
                review = self._notes.get(id(finding))
                return f"{label} · {review}" if review else label
            if index.column() == 1:
                return str(self._line_of.get(finding.start, ""))
            return finding.message
        if role == Qt.ItemDataRole.ToolTipRole:
            return finding.message
        if role == self.FindingRole:
            return finding
        return None

    def headerData(  # noqa: N802 - Qt's name
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None
