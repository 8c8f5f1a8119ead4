"""GUI tests: a window on offline options with settings in a temporary file; and no test ever
blocks on a modal dialog (any that opens fails the test at once instead of hanging)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox
from pytestqt.qtbot import QtBot

from citedesk.desk import AuditOptions
from citedesk.gui.main_window import MainWindow


@pytest.fixture(autouse=True)
def _no_modal_dialogs(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError(f"a modal dialog opened during a test: {args[1:3]!r}")

    for owner, names in (
        (QMessageBox, ("question", "information", "warning", "critical", "about")),
        (QInputDialog, ("getText", "getItem", "getInt")),
        (QFileDialog, ("getOpenFileName", "getSaveFileName", "getExistingDirectory")),
    ):
        for name in names:
            monkeypatch.setattr(owner, name, staticmethod(refuse))


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def window(qtbot: QtBot, settings: QSettings) -> MainWindow:
    win = MainWindow(AuditOptions(offline=True, judge="heuristic", dense=False), settings)
    win.document.confirm_discard = lambda: True
    qtbot.addWidget(win)
    win.show()
    return win
