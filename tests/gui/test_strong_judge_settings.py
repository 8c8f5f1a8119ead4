"""The cascade's strong judge in Settings (issue 27): chosen among the judges that read on this
machine, with a budget, kept as the window's own choice of the `strong_judge` / `strong_budget`
settings (over the user's file, whose values the dialog shows with where they come from), and read
back by the next audit and the next opening of the dialog."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from citedesk.desk import models
from citedesk.gui.dialogs.settings_dialog import SettingsDialog, options_from_settings

pytestmark = pytest.mark.gui


@pytest.fixture
def user_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The writer's settings file: a budget, and a local LLM server's address."""
    path = tmp_path / "user" / "config.toml"
    path.parent.mkdir()
    path.write_text('strong_budget = 45\njudge_url = "http://127.0.0.1:8080/v1"\n', encoding="utf-8")
    monkeypatch.setenv("CITEDESK_CONFIG", str(path))
    return path


@pytest.fixture
def installed_model() -> str:
    """An installed encoder model folder, as the chooser sees one (its config; nothing loads it)."""
    folder = models.models_dir() / "factcg-deberta-large"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"model_type": "deberta-v2"}), encoding="utf-8")
    return "nli:factcg-deberta-large"


def _dialog(qtbot: QtBot, settings: QSettings) -> SettingsDialog:
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    return dialog


def _offered(dialog: SettingsDialog) -> list[str]:
    return [str(dialog.strong_judge.itemData(i)) for i in range(dialog.strong_judge.count())]


def test_a_strong_judge_and_budget_chosen_are_saved_and_shown_again(
    qtbot: QtBot, settings: QSettings, user_file: Path, installed_model: str
) -> None:
    dialog = _dialog(qtbot, settings)
    assert _offered(dialog) == ["", installed_model, "server:bespoke-minicheck"]
    assert dialog.strong_judge.currentData() == ""  # none until the writer picks one
    assert dialog.strong_budget.value() == 45
    assert dialog.origins["strong_budget"].text() == f"from {user_file}"
    assert dialog.origins["strong_judge"].text() == ""
    assert "updates in place" in dialog.strong_help.text()

    dialog.strong_judge.setCurrentIndex(dialog.strong_judge.findData(installed_model))
    dialog.strong_budget.setValue(90)
    dialog.save()

    on_disk = QSettings(settings.fileName(), QSettings.Format.IniFormat)  # the file, read afresh
    assert on_disk.value("strong_judge") == installed_model
    assert on_disk.value("strong_budget", type=float) == 90.0
    assert not on_disk.contains("judge")  # what was left alone is not pinned
    options = options_from_settings(on_disk)
    assert (options.strong_judge, options.strong_budget) == (installed_model, 90.0)

    again = _dialog(qtbot, on_disk)
    assert again.strong_judge.currentData() == installed_model
    assert again.strong_budget.value() == 90
    assert again.origins["strong_budget"].text() == ""  # the window's own choice now, over the file


def test_choosing_none_turns_off_a_cascade_the_users_file_sets(
    qtbot: QtBot, settings: QSettings, user_file: Path
) -> None:
    user_file.write_text('strong_judge = "nli:gone"\n', encoding="utf-8")
    dialog = _dialog(qtbot, settings)
    assert dialog.strong_judge.currentText() == "nli:gone (not available here)"  # kept visible, not lost
    assert "server:bespoke-minicheck" not in _offered(dialog)  # no server address set
    assert dialog.origins["strong_judge"].text() == f"from {user_file}"
    dialog.strong_judge.setCurrentIndex(dialog.strong_judge.findData(""))
    dialog.save()
    assert options_from_settings(settings).strong_judge == ""
    assert _dialog(qtbot, settings).strong_judge.currentData() == ""
