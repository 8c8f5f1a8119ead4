"""Settings offers the local LLM server judge (issue 27): choosing "Local LLM server" with a model
and an address is what `--judge server:MODEL --judge-url URL` is on the command line, and the
window's audits use it; a server on another machine is refused until the writer says so, because
the document's text would leave the machine; Help says how to set Ollama up."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from citedesk.gui.dialogs.settings_dialog import (
    SERVER,
    SERVER_URL,
    SettingsDialog,
    options_from_settings,
)
from citedesk.gui.main_window import MainWindow

pytestmark = pytest.mark.gui

CLOSED_PORT = "http://127.0.0.1:9/v1"
"""A loopback address nothing answers on: the window's audit after the choice fails fast there."""


def _choose_server(dialog: SettingsDialog, model: str, url: str) -> None:
    dialog.judge.setCurrentIndex(dialog.judge.findData(SERVER))
    dialog.server_model.setText(model)
    dialog.server_url.setText(url)


def test_choosing_the_local_server_sets_the_windows_judge_and_its_url(
    qtbot: QtBot, window: MainWindow, settings: QSettings
) -> None:
    dialog = SettingsDialog(settings, window, window.layers.configuration)
    qtbot.addWidget(dialog)
    assert not dialog.server_box.isVisibleTo(dialog)  # only the server's own fields
    assert dialog.server_url.text() == SERVER_URL  # Ollama's, until the writer gives another
    _choose_server(dialog, "bespoke-minicheck", CLOSED_PORT)
    assert dialog.server_box.isVisibleTo(dialog)
    assert not dialog.server_warning.isVisibleTo(dialog)  # loopback: nothing leaves the machine
    dialog.accept()
    assert dialog.result() == SettingsDialog.DialogCode.Accepted
    dialog.save()
    window.apply_settings()
    assert window.options.judge == "server:bespoke-minicheck"
    assert window.options.judge_settings.get("judge_url") == CLOSED_PORT
    assert not window.options.judge_settings.get("judge_remote")

    again = SettingsDialog(settings, window, window.layers.configuration)  # shown as chosen
    qtbot.addWidget(again)
    assert again.judge.currentData() == SERVER
    assert again.server_model.text() == "bespoke-minicheck"
    assert again.server_url.text() == CLOSED_PORT
    assert not any("not installed" in again.judge.itemText(i) for i in range(again.judge.count()))


def test_ollamas_address_left_as_it_is_is_not_written(qtbot: QtBot, settings: QSettings) -> None:
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    _choose_server(dialog, "bespoke-minicheck", SERVER_URL)
    dialog.accept()
    dialog.save()
    assert not settings.contains("judge_url")  # empty means Ollama's, and a file may still set it
    assert options_from_settings(settings).judge == "server:bespoke-minicheck"


def test_a_server_elsewhere_needs_the_explicit_remote_choice(qtbot: QtBot, settings: QSettings) -> None:
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.show()
    _choose_server(dialog, "bespoke-minicheck", "http://gpu-box.example:11434/v1")
    assert dialog.server_warning.isVisible()  # the writer sees that text would leave the machine
    dialog.accept()
    assert dialog.isVisible()  # refused: not closed, and why is said
    assert "another machine" in dialog.problem.text()

    dialog.server_remote.setChecked(True)
    dialog.accept()
    assert dialog.result() == SettingsDialog.DialogCode.Accepted
    dialog.save()
    options = options_from_settings(settings)
    assert (options.judge, options.judge_settings["judge_url"], options.judge_settings["judge_remote"]) == (
        "server:bespoke-minicheck",
        "http://gpu-box.example:11434/v1",
        True,
    )


def test_a_server_without_a_model_or_with_a_bad_address_is_not_kept(
    qtbot: QtBot, settings: QSettings
) -> None:
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    _choose_server(dialog, "  ", SERVER_URL)
    assert "model" in (dialog.server_problem() or "")
    _choose_server(dialog, "bespoke-minicheck", "127.0.0.1:11434")
    assert "URL" in (dialog.server_problem() or "")
    dialog.judge.setCurrentIndex(0)  # another judge: the server's fields no longer matter
    assert dialog.server_problem() is None


def test_help_explains_ollama_pull_and_where_to_choose_it(
    qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "information", lambda parent, title, text: shown.append(text))
    window.menus.actions["help_server_judge"].trigger()
    assert len(shown) == 1
    assert "ollama pull bespoke-minicheck" in shown[0]
    assert "Local LLM server" in shown[0]
