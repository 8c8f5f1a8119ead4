"""What the GUI tests share: waiting for an audit, and finding where a finding is on the screen."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QPoint
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from citedesk.gui.editor.offsets import Utf16Map
from citedesk.gui.main_window import MainWindow
from tests.conftest import SAMPLES


def audited(qtbot: QtBot, window: MainWindow, action: Callable[[], object], timeout: int = 30_000) -> None:
    """Do `action` and wait for the audit it starts to finish (its report is then shown)."""
    with qtbot.waitSignal(window.audits.audit_finished, timeout=timeout):
        action()


def settled(qtbot: QtBot, window: MainWindow, timeout: int = 10_000) -> None:
    """Wait until the window's ops (store writes, look-ups, exports: `gui.ops`) are done and their
    results shown."""
    qtbot.waitUntil(lambda: window.ops.idle, timeout=timeout)


def audited_copy(qtbot: QtBot, window: MainWindow, document: Path, sample: str = "problems.md") -> Path:
    """Copy a bundled sample to `document`, open it in the window and wait for its audit."""
    shutil.copy(SAMPLES / sample, document)
    audited(qtbot, window, lambda: window.load_file(document))
    return document


def point_of(window: MainWindow, start: int, end: int) -> QPoint:
    """The viewport point in the middle of text[start:end] (Python offsets of the audited text),
    scrolled into view."""
    assert window.report is not None
    mapping = Utf16Map(window.report.document.text)
    cursor = window.editor.textCursor()
    cursor.setPosition(mapping.to_qt(start))
    window.editor.setTextCursor(cursor)
    window.editor.ensureCursorVisible()
    left = window.editor.cursorRect(cursor)
    cursor.setPosition(mapping.to_qt(end))
    right = window.editor.cursorRect(cursor)
    if right.center().y() != left.center().y():  # wrapped: the first character's middle
        cursor.setPosition(mapping.to_qt(start) + 1)
        right = window.editor.cursorRect(cursor)
    return QPoint((left.center().x() + right.center().x()) // 2, left.center().y())


def hover(window: MainWindow, point: QPoint) -> None:
    """What Qt sends after the mouse rests on `point`: a tooltip (help) event."""
    viewport = window.editor.viewport()
    event = QHelpEvent(QEvent.Type.ToolTip, point, viewport.mapToGlobal(point))
    QApplication.sendEvent(viewport, event)
