"""The window speaks window (issue 28): a pasted, untitled text whose references name files outside
the folders CiteDesk may read is offered the window's own Allow (kept in Settings ▸ Folders
CiteDesk may read), not the command line's `--allow-folder`; once allowed, the file is read."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from citedesk.gui.dialogs.settings_dialog import allowed_folders
from citedesk.gui.main_window import MainWindow
from tests.gui.helpers import audited

pytestmark = pytest.mark.gui
SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"


def _pasted(notes: Path) -> str:
    source = notes / "canopy-survey.txt"
    return (
        "Cities with more tree canopy had cooler afternoons [1].\n\n"
        f"## References\n\n1. Moreau, L. and Okafor, T. (2021). Tree canopy and afternoon heat. {source}\n"
    )


@pytest.mark.parametrize("allow", [False, True])
def test_a_pasted_text_naming_a_file_elsewhere_is_offered_allow(
    qtbot: QtBot, window: MainWindow, settings: QSettings, tmp_path: Path, allow: bool
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    shutil.copy(SAMPLES / "sources" / "canopy-survey.txt", notes / "canopy-survey.txt")
    asked: list[str] = []

    def answer(question: str) -> bool:
        asked.append(question)
        return allow

    window.confirm_allow_folder = answer
    window.editor.setPlainText(_pasted(notes))
    audited(qtbot, window, window.audits.start)
    assert window.document.path is None  # untitled, pasted
    assert len(asked) == 1
    assert f"Allow CiteDesk to read files in {notes}?" in asked[0]
    assert "Settings ▸ Folders CiteDesk may read" in asked[0]
    assert "--allow" not in asked[0]
    if not allow:
        assert allowed_folders(settings) == []
        assert window.report is not None
        assert [s.status for s in window.report.sources] == ["outside"]
        audited(qtbot, window, window.audits.start)  # audited again: not asked again
        assert len(asked) == 1
        return
    qtbot.waitUntil(
        lambda: window.report is not None and window.report.sources[0].status == "local", timeout=60_000
    )
    assert allowed_folders(settings) == [str(notes)]
    assert len(asked) == 1
