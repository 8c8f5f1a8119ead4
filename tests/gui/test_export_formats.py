"""The window's export dialog offers the report formats of `core.reports`' table (a format
registered in one module of the tests' own is a filter too), and the file's suffix chooses."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog
from pytestqt.qtbot import QtBot

from citedesk.gui.main_window import MainWindow
from tests import toy_report_format
from tests.gui.helpers import audited_copy


def test_the_export_dialog_offers_every_format_and_writes_the_one_chosen(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    audited_copy(qtbot, window, tmp_path / "draft.md")
    report = window.report
    assert report is not None
    asked: list[str] = []
    target = tmp_path / "report.toy"

    def export_where(*args: object, **kwargs: object) -> tuple[str, str]:
        asked.append(str(args[3]))
        return str(tmp_path / "report"), "Toy lines (*.toy)"  # the filter chosen gives the suffix

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(export_where))
    with toy_report_format.registered() as toy:
        with qtbot.waitSignal(window.document.message, timeout=10_000) as said:
            window.export_report()
        assert said.args == [f"Report written to {target}"]
        assert target.read_text(encoding="utf-8") == toy.render(report)
    [filters] = asked
    assert filters.split(";;") == [
        "HTML (*.html)", "JSON (*.json)", "Markdown (*.md)", "Text (*.txt)", "Toy lines (*.toy)"
    ]  # fmt: skip
