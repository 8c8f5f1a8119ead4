"""The findings list: the audit's findings in document order (or grouped by kind), with the fix buttons.

A thin view: it shows what it is given, tells the window which finding is selected
(`selection_changed`) and when a fix is asked for; it decides nothing. "Apply" names the fix it
applies; the list follows the editor's cursor through `select(finding)`.
"""

from __future__ import annotations

from citedesk.core.findings import Finding
from citedesk.gui.actions import APPLY_FIX, FIX_ALL, VERIFY_FIRST, ActionState, button_text, fix_label
from citedesk.gui.panels.findings_model import FindingsModel
from citedesk.gui.qt import (
    QCheckBox,
    QHBoxLayout,
    QLineEdit,
    QModelIndex,
    QPersistentModelIndex,
    QPushButton,
    QRect,
    QSize,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    Qt,
    QTimer,
    QTreeView,
    QVBoxLayout,
    QWidget,
    Signal,
)

WRAP_ROWS = 300
"""Up to this many findings, each row is as tall as its whole message needs."""
MESSAGE = 2
"""The column of the messages (`FindingsModel`'s COLUMNS)."""


class WrappedMessages(QStyledItemDelegate):
    """Rows as tall as their message wrapped to the Message column's width (a QTreeView asks its
    delegate for a row's size without the column's width, so it never wraps by itself)."""

    def __init__(self, tree: QTreeView) -> None:
        super().__init__(tree)
        self.tree = tree
        self.wrap = True

    def sizeHint(  # noqa: N802 - Qt's name
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        hint = super().sizeHint(option, index)
        if not self.wrap or index.column() != MESSAGE:
            return hint
        width = self.tree.header().sectionSize(MESSAGE) - 8  # the item's margins
        text = str(index.data() or "")
        if width <= 0 or not text:
            return hint
        bounds = option.fontMetrics.boundingRect(
            QRect(0, 0, width, 100_000), int(Qt.TextFlag.TextWordWrap), text
        )
        return QSize(hint.width(), max(hint.height(), bounds.height() + 4))


class FindingsPanel(QWidget):
    selection_changed = Signal(object)  # Finding | None
    fix_requested = Signal()
    fix_all_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = FindingsModel(self)
        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        self.tree.header().setResizeContentsPrecision(200)  # a column is sized on 200 rows (issue 26)
        self.tree.setSortingEnabled(True)
        self.tree.sortByColumn(1, Qt.SortOrder.AscendingOrder)  # by line: document order
        self.tree.setRootIsDecorated(False)
        self.messages = WrappedMessages(self.tree)
        self.tree.setItemDelegate(self.messages)
        self.tree.header().sectionResized.connect(self._rewrap)
        self.filter_box = QLineEdit()
        self.filter_box.setPlaceholderText("Filter findings: kind, [reference], words…")
        self.filter_box.setClearButtonEnabled(True)
        self.filter_box.textChanged.connect(self._filter)
        self.group_box = QCheckBox("Group by kind")
        self.group_box.setToolTip("List the findings by kind instead of in document order")
        self.group_box.toggled.connect(self.set_grouped)
        self.fix_button = QPushButton(APPLY_FIX.text)
        self.fix_all_button = QPushButton(FIX_ALL.text)
        self.fix_button.setEnabled(False)
        self.fix_all_button.setEnabled(False)
        self.fix_button.clicked.connect(self.fix_requested)
        self.fix_all_button.clicked.connect(self.fix_all_requested)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addWidget(self.filter_box, 1)
        top.addWidget(self.group_box)
        layout.addLayout(top)
        layout.addWidget(self.tree)
        buttons = QHBoxLayout()
        buttons.addWidget(self.fix_button)
        buttons.addWidget(self.fix_all_button)
        layout.addLayout(buttons)
        self.tree.selectionModel().currentChanged.connect(lambda *_: self._selected())
        self.tree.clicked.connect(self._clicked)

    def show_findings(self, findings: list[Finding], lines: dict[int, int], decided: dict[int, str]) -> None:
        self.model.set_findings(findings, lines, decided)
        self._expand()
        self._selected()

    def set_grouped(self, grouped: bool) -> None:
        """Group by kind, or list in document order; the selected finding stays selected."""
        selected = self.selected_finding()
        self.model.set_grouped(grouped)
        if self.group_box.isChecked() != grouped:
            self.group_box.setChecked(grouped)
        self._expand()
        if selected is not None:
            self.select(selected)
        else:
            self._selected()

    def _expand(self) -> None:
        self.tree.setRootIsDecorated(self.model.grouped)
        # a message is read whole in its row (wrapped to the column's width) while the list is short
        # enough for rows of their own heights; a longer list keeps one line a row, the speed a book's
        # thousands of findings need (issue 26), and the whole message in the evidence pane and tooltip
        wrap = len(self.model.all_findings()) <= WRAP_ROWS
        self.messages.wrap = wrap
        self.tree.setWordWrap(wrap)
        self.tree.setUniformRowHeights(not wrap)
        self.tree.expandAll()
        for column in range(2):
            self.tree.resizeColumnToContents(column)

    def _rewrap(self, _column: int, _old: int, _new: int) -> None:
        """A column's width changed (the Message column, or another that took room from it): the
        rows' heights follow."""
        if self.messages.wrap:
            QTimer.singleShot(0, self.tree.doItemsLayout)  # once the header has laid its sections out

    def selected_finding(self) -> Finding | None:
        return self.model.finding_at(self.tree.currentIndex())

    def select(self, finding: Finding) -> bool:
        index = self.model.index_of(finding)
        if index.isValid():
            self.tree.setCurrentIndex(index)
            self.tree.scrollTo(index)
        return index.isValid()

    def clear_selection(self) -> None:
        self.tree.setCurrentIndex(QModelIndex())

    def step(self, delta: int) -> None:
        """Select the next (or previous) finding in document order, wrapping around."""
        findings = sorted(self.model.findings(), key=lambda f: f.start)
        if not findings:
            return
        current = self.selected_finding()
        position = findings.index(current) if current in findings else -1
        chosen = (
            findings[(position + delta) % len(findings)]
            if position >= 0
            else findings[0 if delta > 0 else -1]
        )
        self.select(chosen)

    def _clicked(self, index: QModelIndex) -> None:
        """A click on the finding already selected (the list followed the cursor onto it) still
        takes the editor there."""
        if (
            index.row() == self.tree.currentIndex().row()
            and index.parent() == self.tree.currentIndex().parent()
        ):
            self.selection_changed.emit(self.model.finding_at(index))

    def focus_filter(self) -> None:
        self.filter_box.setFocus()
        self.filter_box.selectAll()

    def _filter(self, text: str) -> None:
        self.model.set_filter(text)
        self.tree.expandAll()

    def _selected(self) -> None:
        finding = self.selected_finding()
        fixable = APPLY_FIX.enabled_when(ActionState(finding))
        self.fix_button.setEnabled(fixable)
        # Fix all applies safe fixes only: a kind whose fixes are all suggestions to verify has none
        safe_of_kind = finding is not None and any(
            fx.safe for f in self.model.all_findings() if f.kind is finding.kind for fx in f.fixes
        )
        self.fix_all_button.setEnabled(fixable and safe_of_kind)
        self.fix_all_button.setToolTip(
            ""
            if safe_of_kind or not fixable
            else "Every fix of this kind is a suggestion to verify: apply each from its finding"
        )
        first = finding.fixes[0] if finding is not None and finding.fixes else None
        title = fix_label(first) if first is not None else ""
        shown = title if len(title) <= 42 else title[:41] + "…"
        self.fix_button.setText(button_text(f"Apply: {shown}") if title else APPLY_FIX.text)
        self.fix_button.setToolTip(title if first is None or first.safe else f"{title}. {VERIFY_FIRST}")
        self.selection_changed.emit(finding)
