"""Done when (issue 39), in the window: a judge's own setting (`tests/helpers/toy_judge.py`'s
`toy_depth`, declared on its spec) is a row of the settings dialog, with the value in force and
where it came from, and what the writer types there reaches the window's audits."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFormLayout, QLabel, QLineEdit
from pytestqt.qtbot import QtBot

from citedesk import config
from citedesk.gui.dialogs.settings_dialog import SettingsDialog, options_from_settings
from tests.helpers.toy_judge import toy_judge

pytestmark = pytest.mark.gui


def _labels(dialog: SettingsDialog) -> list[str]:
    form = dialog.layout()
    assert isinstance(form, QFormLayout)
    labels = (form.itemAt(row, QFormLayout.ItemRole.LabelRole) for row in range(form.rowCount()))
    widgets = (item.widget() for item in labels if item is not None)
    return [widget.text() for widget in widgets if isinstance(widget, QLabel)]


def test_a_judges_own_setting_is_a_row_of_the_dialog(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_file = tmp_path / "config.toml"
    user_file.write_text('toy_depth = "deep"\n', encoding="utf-8")
    monkeypatch.setenv(config.CONFIG_VARIABLE, str(user_file))
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    with toy_judge():
        dialog = SettingsDialog(settings)
        qtbot.addWidget(dialog)
        assert "Toy judge depth" in _labels(dialog)
        row = dialog.judge_rows["toy_depth"]
        assert isinstance(row, QLineEdit)
        assert row.text() == "deep"  # the user's file's value, and the note says so
        assert dialog.origins["toy_depth"].text() == f"from {user_file}"
        assert "how deeply the toy judge reads" in row.toolTip()
        row.setText("deepest")
        dialog.save()
        assert options_from_settings(settings).judge_settings == {"toy_depth": "deepest"}
    dialog = SettingsDialog(settings)  # taken back: no row
    qtbot.addWidget(dialog)
    assert "Toy judge depth" not in _labels(dialog)
