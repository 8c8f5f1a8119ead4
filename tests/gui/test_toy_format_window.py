"""Done when (issue 39), in the window: a format registered from one test module
(`tests/helpers/toy_format.py`, a toy package `NAME.cite.txt`) is in the Open dialog's filters and
opens read-only, with no module of `citedesk/` naming it, and the window's audit child — a fresh
process started before the format was registered — reads it in its own dialect (each request
carries what modules outside CiteDesk registered, `desk.registrations`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog
from pytestqt.qtbot import QtBot

from citedesk.gui.main_window import MainWindow
from tests.gui.helpers import audited
from tests.helpers.toy_format import toy_format, toy_package

pytestmark = pytest.mark.gui

TEXT = "# Heat\n\nShade trees cool streets {{cite:lee2020}}.\n"


def test_the_open_dialog_offers_a_registered_format_and_opens_it(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = tmp_path / "notes.cite.txt"
    notes.write_bytes(toy_package(TEXT))
    offered: list[str] = []

    def choose(_parent: object, _title: str, _start: str, filters: str) -> tuple[str, str]:
        offered.append(filters)
        return str(notes), filters.split(";;", maxsplit=1)[0]

    monkeypatch.setattr(QFileDialog, "getOpenFileName", choose)
    with toy_format():
        audited(qtbot, window, window.document.open_dialog)
        assert "*.cite.txt" in offered[0].split(";;")[0]
        assert "Toy package (*.cite.txt)" in offered[0].split(";;")
        assert window.editor.toPlainText() == TEXT
        assert window.editor.isReadOnly()  # a package: fixes only, as a .docx
        assert "(Toy package, read-only)" in window.windowTitle()


def test_the_windows_audit_child_reads_a_format_registered_at_run_time(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    """The child was started (warm) before the toy format was registered; the request tells it."""
    notes = tmp_path / "notes.cite.txt"
    notes.write_bytes(toy_package(TEXT))
    window.audits.warm()  # the child starts knowing CiteDesk's formats only
    with toy_format():
        audited(qtbot, window, lambda: window.load_file(notes))
        assert window.report is not None
        assert window.report.document.dialect.name == "toy-cite"
        assert [(f.kind.value, f.message) for f in window.report.findings] == [
            ("fabricated", "{{cite:lee2020}} cites a key that is in no bibliography.")
        ]
