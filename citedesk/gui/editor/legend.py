"""The legend: what each mark in the text means, drawn with the very formats the editor uses.

Opened from the status bar's "Legend" button (or Help ▸ Legend). A small non-modal window: a
sample of each mark, painted by the highlighter's own format functions, with the kinds it stands
for and the words for its line ("orange wavy") — so the legend can never drift from the marks.
"""

from __future__ import annotations

from citedesk.core.findings import Finding, Kind, Severity
from citedesk.gui.editor.highlighter import STYLES, UNCHECKED, char_format, claim_format, unchecked_format
from citedesk.gui.qt import (
    QDialog,
    QDialogButtonBox,
    QFont,
    QTextCharFormat,
    QTextCursor,
    QTextEdit,
    QTextTableFormat,
    QVBoxLayout,
    QWidget,
)


def _sample(kind: Kind) -> Finding:
    return Finding(kind, 0, 1, "", kind.default_severity)


def legend_rows() -> list[tuple[str, QTextCharFormat, str]]:
    """(sample text, its format, what it means) for each distinct mark."""
    rows: list[tuple[str, QTextCharFormat, str]] = []
    seen: dict[tuple[str, object, bool], int] = {}
    for kind, style in STYLES.items():
        error = kind.default_severity is Severity.ERROR
        key = (style.colour, style.underline, error)
        if key in seen:
            sample, fmt, words = rows[seen[key]]
            rows[seen[key]] = (sample, fmt, words.replace(" — ", f", {kind.label} — ", 1))
            continue
        seen[key] = len(rows)
        tint = ", tinted: an error" if error else ""
        rows.append(("marked words", char_format(_sample(kind)), f"{kind.label} — {style.name}{tint}"))
    rows.append(
        (
            "the sentence",
            claim_format(_sample(Kind.MISATTRIBUTED)),
            "The sentence a finding is about — a light underline in the finding's colour",
        )
    )
    rows.append(
        ("[4] not checked", unchecked_format(), f"A citation that was not checked — {UNCHECKED.name}")
    )
    return rows


class Legend(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Legend — CiteDesk")
        self.setModal(False)
        self.view = QTextEdit()
        self.view.setReadOnly(True)
        font = self.view.font()
        font.setPointSize(font.pointSize() + 2)  # underlines big enough to tell apart
        self.view.setFont(font)
        cursor = QTextCursor(self.view.document())
        plain = QTextCharFormat()
        bold = QTextCharFormat()
        bold.setFontWeight(QFont.Weight.Bold)
        cursor.insertText("Marks in the text\n", bold)
        rows = legend_rows()
        table_format = QTextTableFormat()
        table_format.setBorder(0)
        table_format.setCellPadding(3)
        table = cursor.insertTable(len(rows), 2, table_format)
        for row, (sample, fmt, meaning) in enumerate(rows):
            table.cellAt(row, 0).firstCursorPosition().insertText(sample, fmt)
            table.cellAt(row, 1).firstCursorPosition().insertText(meaning, plain)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(
            "\n\nHover a mark (or press Alt+Return on it) for what is wrong and its fixes; right-click it for "
            "the same actions.",
            plain,
        )
        self.view.setMinimumSize(680, 440)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view)
        layout.addWidget(buttons)

    def meanings(self) -> list[str]:
        return [meaning for _, _, meaning in legend_rows()]
