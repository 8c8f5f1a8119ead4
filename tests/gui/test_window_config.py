"""The window reads the layered settings (issue 24): the user's file ($CITEDESK_CONFIG, a temporary
one here) and the open document's `citedesk.toml`, with the writer's own choices in the window
(QSettings) on top — only those the writer made. A project file's refused keys are said in the
status bar once per document, and the Settings dialog says which file a value comes from."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from citedesk.desk import AuditOptions
from citedesk.gui.dialogs.settings_dialog import SettingsDialog, options_from_settings
from citedesk.gui.main_window import MainWindow

pytestmark = pytest.mark.gui

AUDIT_WAIT_MS = 60_000


@pytest.fixture
def user_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The writer's own settings file: retrieval without the embedding model (keeps audits light)."""
    path = tmp_path / "user" / "config.toml"
    path.parent.mkdir()
    path.write_text("dense = false\n", encoding="utf-8")
    monkeypatch.setenv("CITEDESK_CONFIG", str(path))
    return path


def _project(tmp_path: Path, settings_text: str) -> Path:
    """A document with a `citedesk.toml` beside it."""
    folder = tmp_path / "paper"
    folder.mkdir()
    (folder / "citedesk.toml").write_text(settings_text, encoding="utf-8")
    document = folder / "paper.md"
    document.write_text("Street trees cool cities [1].\n\n## References\n\n1. Moreau L. Trees. 2021.\n")
    return document


def _window(qtbot: QtBot, settings: QSettings) -> MainWindow:
    """A window on the defaults (online, the automatic judge), so what the files set shows."""
    window = MainWindow(AuditOptions(), settings)
    window.document.confirm_discard = lambda: True
    qtbot.addWidget(window)
    window.show()
    return window


def _open(qtbot: QtBot, window: MainWindow, document: Path) -> None:
    with qtbot.waitSignal(window.audits.audit_finished, timeout=AUDIT_WAIT_MS):
        assert window.load_file(document)


def test_a_project_files_judge_and_offline_reach_the_windows_audit_options(
    qtbot: QtBot, settings: QSettings, tmp_path: Path, user_file: Path
) -> None:
    document = _project(tmp_path, 'judge = "heuristic"\noffline = true\n')
    window = _window(qtbot, settings)
    assert (window.options.judge, window.options.offline, window.options.dense) == ("auto", False, False)
    _open(qtbot, window, document)
    assert (window.options.judge, window.options.offline, window.options.dense) == ("heuristic", True, False)
    assert window.offline_action.isChecked()
    assert window.report is not None
    dialog = SettingsDialog(settings, window, window.layers.configuration)
    qtbot.addWidget(dialog)
    assert dialog.judge.currentData() == "heuristic"
    assert dialog.offline.isChecked()
    project = document.parent / "citedesk.toml"
    assert dialog.origins["judge"].text() == f"from {project}"
    assert dialog.origins["offline"].text() == f"from {project}"
    assert dialog.origins["dense"].text() == f"from {user_file}"
    assert dialog.origins["allow_private_network"].text() == ""
    # Accepting the dialog unchanged pins nothing: the project file keeps deciding.
    dialog.save()
    assert not any(settings.contains(key) for key in ("judge", "offline", "dense", "allow_private_network"))


def test_a_window_choice_overrides_the_project_file_and_an_absent_key_does_not(
    qtbot: QtBot, settings: QSettings, tmp_path: Path, user_file: Path
) -> None:
    document = _project(tmp_path, 'judge = "auto"\noffline = true\ndense = true\n')
    settings.setValue("judge", "heuristic")
    settings.setValue("dense", False)
    assert not settings.contains("offline")
    window = _window(qtbot, settings)
    _open(qtbot, window, document)
    assert window.options.judge == "heuristic"  # the window's choice beats the project's "auto"
    assert not window.options.dense  # and its `dense = true`
    assert window.options.offline  # no window choice: the project file's value stands
    dialog = SettingsDialog(settings, window, window.layers.configuration)
    qtbot.addWidget(dialog)
    assert dialog.origins["judge"].text() == ""  # the window's own choice: no file to name
    assert dialog.origins["offline"].text() == f"from {document.parent / 'citedesk.toml'}"
    # The same reading outside the window (a fresh start reads it so too).
    fresh = options_from_settings(settings, document=document)
    assert (fresh.judge, fresh.offline, fresh.dense) == ("heuristic", True, False)
    # Toggling offline in the window is a choice: it now beats the project file.
    window.toggle_offline(False)
    assert settings.value("offline", type=bool) is False
    assert not window.options.offline
    window.audits.cancel()


def test_a_project_files_refused_keys_are_said_once_per_document(
    qtbot: QtBot, settings: QSettings, tmp_path: Path, user_file: Path
) -> None:
    document = _project(tmp_path, 'offline = true\njudge = "heuristic"\nallow_private_network = true\n')
    window = _window(qtbot, settings)
    _open(qtbot, window, document)
    said = window.stage.text()
    assert "`allow_private_network` ignored" in said
    assert "cannot widen the network" in said
    assert not window.options.allow_private_network  # refused, and the rest still applies
    assert window.options.offline
    window.stage.setText("Ready")
    _open(qtbot, window, document)  # the same document again: not said again
    assert "allow_private_network" not in window.stage.text()


def test_a_broken_project_file_is_set_aside_with_a_word_and_the_user_file_still_applies(
    qtbot: QtBot, settings: QSettings, tmp_path: Path, user_file: Path
) -> None:
    document = _project(tmp_path, "offline = \n")
    settings.setValue("offline", True)
    settings.setValue("judge", "heuristic")
    window = _window(qtbot, settings)
    _open(qtbot, window, document)
    assert "Settings file not used" in window.stage.text()
    assert "not valid TOML" in window.stage.text()
    assert not window.options.dense  # the user's file
    assert window.options.offline
