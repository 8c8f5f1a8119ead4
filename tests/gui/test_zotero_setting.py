"""Settings has Zotero's data folder (issue 28): a writer whose library is not in ~/Zotero tells the
window where it is, as `--zotero-dir` tells the command line, and can turn Zotero off; the window's
audits use what they chose, and a folder that went away is said, not an audit that fails."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from citedesk.gui.dialogs.settings_dialog import SettingsDialog, options_from_settings, window_configuration
from citedesk.gui.main_window import MainWindow

pytestmark = pytest.mark.gui


def test_the_zotero_data_folder_chosen_in_settings_is_what_the_windows_audits_use(
    qtbot: QtBot, window: MainWindow, settings: QSettings, tmp_path: Path
) -> None:
    library = tmp_path / "Library" / "Zotero"
    library.mkdir(parents=True)
    assert window.options.zotero_dir is None
    dialog = SettingsDialog(settings, window, window.layers.configuration)
    qtbot.addWidget(dialog)
    assert dialog.zotero.isChecked()  # on by default, the usual folder
    assert dialog.zotero_dir.text() == ""
    assert "~/Zotero" in dialog.zotero_dir.placeholderText()

    dialog.zotero_dir.setText(str(library))
    dialog.zotero.setChecked(False)
    dialog.save()
    window.apply_settings()
    assert window.options.zotero_dir == library
    assert window.options.zotero is False
    again = SettingsDialog(settings, window, window.layers.configuration)  # shown as chosen
    qtbot.addWidget(again)
    assert again.zotero_dir.text() == str(library)
    assert not again.zotero.isChecked()


def test_the_users_settings_file_fills_the_field_and_is_named_beside_it(
    qtbot: QtBot, settings: QSettings, tmp_path: Path
) -> None:
    library = tmp_path / "zotero-data"
    library.mkdir()
    user = Path.home() / ".config" / "citedesk" / "config.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(f'zotero_dir = "{library}"\n', encoding="utf-8")
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    assert dialog.zotero_dir.text() == str(library)
    assert dialog.origins["zotero_dir"].text().startswith("from ")
    dialog.save()  # left alone: not written, so the file stays in force
    assert not settings.contains("zotero_dir")
    assert options_from_settings(settings).zotero_dir == library


def test_a_zotero_folder_that_went_away_is_said_and_the_usual_one_used(
    settings: QSettings, tmp_path: Path
) -> None:
    settings.setValue("zotero_dir", str(tmp_path / "unplugged-disk" / "Zotero"))
    layers = window_configuration(settings)
    assert layers.configuration.settings.zotero_dir is None
    assert any("Zotero data folder" in notice and "not found" in notice for notice in layers.notices)
