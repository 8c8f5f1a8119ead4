"""GUI tests: a window on offline options with settings in a temporary file; no test ever blocks
on a modal dialog (any that opens fails the test at once instead of hanging); and no test leaves a
worker thread of the window's ops (`gui.ops`) running."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox
from pytestqt.qtbot import QtBot

from citedesk.desk import AuditOptions
from citedesk.gui.main_window import MainWindow
from citedesk.gui.ops import POOL_THREAD, STORE_THREAD

LEFT_THREAD_WAIT_S = 5


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


def _op_threads() -> list[str]:
    return sorted(t.name for t in threading.enumerate() if t.name.startswith((STORE_THREAD, POOL_THREAD)))


@pytest.fixture(autouse=True)
def _no_op_thread_left() -> Iterator[None]:
    """After the test (its windows closed, which waits for their ops), no op worker runs; an op
    runner not closed with a window must be shut down by its test."""
    before = set(_op_threads())
    yield
    deadline = time.monotonic() + LEFT_THREAD_WAIT_S
    left = [name for name in _op_threads() if name not in before]
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [name for name in _op_threads() if name not in before]
    assert left == [], f"op worker threads still running after the test: {left}"


@pytest.fixture(autouse=True)
def _qt_garbage_collected_here() -> Iterator[None]:
    """After each test, what its windows left for the garbage collector is collected on this (the
    GUI) thread: left for later, a collection that a background thread of a later test sets off
    (a thread pool, a queue's feeder) would delete Qt objects off the GUI thread, which PySide may
    not survive (the suite died twice with SIGSEGV at a window test's start in CI)."""
    yield
    gc.collect()


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
