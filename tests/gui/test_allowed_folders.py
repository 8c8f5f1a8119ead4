"""The folders CiteDesk may read are the writer's choice (issue 32): a chapter naming `../refs.bib`
is not read until the writer allows that folder, which the window asks about, and the Settings
dialog keeps the list."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from citedesk.gui.dialogs.settings_dialog import SettingsDialog, allowed_folders, options_from_settings
from citedesk.gui.main_window import MainWindow

pytestmark = pytest.mark.gui


def _thesis(tmp_path: Path) -> Path:
    (tmp_path / "thesis" / "chapters").mkdir(parents=True)
    (tmp_path / "thesis" / "refs.bib").write_text(
        "@article{moreau2021, title={Street trees and urban heat}, author={Moreau, Louise}, year={2021}}\n",
        encoding="utf-8",
    )
    chapter = tmp_path / "thesis" / "chapters" / "ch1.md"
    chapter.write_text(
        "---\nbibliography: ../refs.bib\n---\n\nStreets with trees were cooler [@moreau2021].\n",
        encoding="utf-8",
    )
    return chapter


@pytest.mark.parametrize("allow", [False, True])
def test_a_bibliography_outside_the_documents_folder_is_read_only_once_the_writer_allows_it(
    qtbot: QtBot, window: MainWindow, settings: QSettings, tmp_path: Path, allow: bool
) -> None:
    chapter = _thesis(tmp_path)
    asked: list[str] = []

    def answer(question: str) -> bool:
        asked.append(question)
        return allow

    window.confirm_allow_folder = answer
    if not allow:
        with qtbot.waitSignal(window.audits.audit_failed, timeout=30_000):
            window.load_file(chapter)
        assert len(asked) == 1
        assert f"Allow CiteDesk to read files in {tmp_path / 'thesis'}?" in asked[0]
        assert allowed_folders(settings) == []
        assert "outside the document's folder" in window.status.stage.text()
        assert window.report is None
        return
    with qtbot.waitSignal(window.audits.audit_finished, timeout=60_000):  # failed, allowed, audited again
        window.load_file(chapter)
    assert len(asked) == 1
    assert allowed_folders(settings) == [str(tmp_path / "thesis")]
    assert window.report is not None
    assert [w.key for w in window.report.document.bibliography or ()] == ["moreau2021"]


def test_the_settings_dialog_keeps_the_allowed_folders(
    qtbot: QtBot, settings: QSettings, tmp_path: Path
) -> None:
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.add_folder(str(tmp_path / "a"))
    dialog.add_folder(str(tmp_path / "b"))
    dialog.add_folder(str(tmp_path / "a"))  # each once
    dialog.save()
    assert allowed_folders(settings) == [str(tmp_path / "a"), str(tmp_path / "b")]
    assert options_from_settings(settings).local_roots == (tmp_path / "a", tmp_path / "b")
    again = SettingsDialog(settings)
    qtbot.addWidget(again)
    again.folders.setCurrentRow(0)
    again.folders.item(0).setSelected(True)
    again.remove_selected_folders()
    again.save()
    assert allowed_folders(settings) == [str(tmp_path / "b")]
