"""Line numbers beside the editor (View ▸ Line numbers), painted for the visible blocks only."""

from __future__ import annotations

from citedesk.gui.qt import QPainter, QPaintEvent, QPlainTextEdit, QRect, QResizeEvent, QSize, Qt, QWidget


class LineNumberArea(QWidget):
    def __init__(self, editor: QPlainTextEdit) -> None:
        super().__init__(editor)
        self.editor = editor
        editor.blockCountChanged.connect(self._update_width)
        editor.updateRequest.connect(self._on_update_request)
        self._update_width()

    def width_needed(self) -> int:
        if self.isHidden():
            return 0
        digits = len(str(max(1, self.editor.blockCount())))
        return 12 + self.editor.fontMetrics().horizontalAdvance("9") * max(3, digits)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(self.width_needed(), 0)

    def set_shown(self, shown: bool) -> None:
        self.setVisible(shown)
        self._update_width()

    def refit(self) -> None:
        """The editor's font changed (zoom, a different family): follow it."""
        self.setFont(self.editor.font())
        self._update_width()
        self.update()

    def _update_width(self, *_: object) -> None:
        self.editor.setViewportMargins(self.width_needed(), 0, 0, 0)
        self.fit()

    def fit(self) -> None:
        """Follow the editor's size (call from the editor's resizeEvent)."""
        rect = self.editor.contentsRect()
        self.setGeometry(QRect(rect.left(), rect.top(), self.width_needed(), rect.height()))

    def _on_update_request(self, rect: QRect, dy: int) -> None:
        if dy:
            self.scroll(0, dy)
        else:
            self.update(0, rect.y(), self.width(), rect.height())

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        palette = self.editor.palette()
        painter.fillRect(event.rect(), palette.alternateBase())
        painter.setPen(palette.placeholderText().color())
        block = self.editor.firstVisibleBlock()
        offset = self.editor.contentOffset()
        height = self.editor.fontMetrics().height()
        while block.isValid():
            top = self.editor.blockBoundingGeometry(block).translated(offset).top()
            if top > event.rect().bottom():
                break
            if block.isVisible():
                painter.drawText(
                    0,
                    int(top),
                    self.width() - 6,
                    height,
                    Qt.AlignmentFlag.AlignRight,
                    str(block.blockNumber() + 1),
                )
            block = block.next()
        painter.end()


class NumberedEditor(QPlainTextEdit):
    """A QPlainTextEdit with a line-number gutter."""

    def __init__(self) -> None:
        super().__init__()
        self.line_numbers = LineNumberArea(self)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.line_numbers.fit()
