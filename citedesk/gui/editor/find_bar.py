"""Find and replace in the editor: a bar under it (Ctrl+F finds, Ctrl+H replaces, Esc closes).

"Replace all" is one edit block, so one Ctrl+Z undoes it.
"""

from __future__ import annotations

from citedesk.gui.qt import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTextCursor,
    QTextDocument,
    QWidget,
)


class FindBar(QWidget):
    def __init__(self, editor: QPlainTextEdit, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editor = editor
        self.find_field = QLineEdit()
        self.find_field.setPlaceholderText("Find")
        self.replace_field = QLineEdit()
        self.replace_field.setPlaceholderText("Replace with")
        self.case = QCheckBox("Match case")
        self.status = QLabel("")
        previous = QPushButton("Previous")
        following = QPushButton("Next")
        replace = QPushButton("Replace")
        replace_all = QPushButton("Replace all")
        close = QPushButton("×")
        close.setFlat(True)
        previous.clicked.connect(lambda: self.find_next(backward=True))
        following.clicked.connect(self.find_next)
        replace.clicked.connect(self.replace_one)
        replace_all.clicked.connect(self.replace_all)
        close.clicked.connect(self.close_bar)
        self.find_field.returnPressed.connect(self.find_next)
        self.replace_field.returnPressed.connect(self.replace_one)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        for widget in (
            self.find_field,
            previous,
            following,
            self.replace_field,
            replace,
            replace_all,
            self.case,
            self.status,
            close,
        ):
            layout.addWidget(widget)
        self.hide()

    def open_bar(self, replacing: bool = False) -> None:
        selected = self.editor.textCursor().selectedText()
        if selected and "\u2029" not in selected:
            self.find_field.setText(selected)
        self.show()
        (self.replace_field if replacing and self.find_field.text() else self.find_field).setFocus()
        self.find_field.selectAll()

    def close_bar(self) -> None:
        self.hide()
        self.editor.setFocus()

    def _flags(self, backward: bool = False) -> QTextDocument.FindFlag:
        flags = QTextDocument.FindFlag(0)
        if self.case.isChecked():
            flags |= QTextDocument.FindFlag.FindCaseSensitively
        if backward:
            flags |= QTextDocument.FindFlag.FindBackward
        return flags

    def find_next(self, backward: bool = False) -> bool:
        needle = self.find_field.text()
        if not needle:
            return False
        if self.editor.find(needle, self._flags(backward)):
            self.status.setText("")
            return True
        # wrap around once
        cursor = self.editor.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End if backward else QTextCursor.MoveOperation.Start)
        self.editor.setTextCursor(cursor)
        found = self.editor.find(needle, self._flags(backward))
        self.status.setText("" if found else "Not found")
        return found

    def _selection_matches(self) -> bool:
        selected = self.editor.textCursor().selectedText()
        needle = self.find_field.text()
        if self.case.isChecked():
            return selected == needle
        return selected.lower() == needle.lower()

    def replace_one(self) -> None:
        if not self.find_field.text():
            return
        if self._selection_matches():
            self.editor.textCursor().insertText(self.replace_field.text())
        self.find_next()

    def replace_all(self) -> int:
        needle, replacement = self.find_field.text(), self.replace_field.text()
        if not needle:
            return 0
        document = self.editor.document()
        count = 0
        edit = QTextCursor(document)
        edit.beginEditBlock()
        found = document.find(needle, 0, self._flags())
        while not found.isNull():
            found.insertText(replacement)
            count += 1
            found = document.find(needle, found.position(), self._flags())
        edit.endEditBlock()
        self.status.setText(f"{count} replaced")
        return count
