"""Saving over a file that changed on disk since it was opened never loses either version: the
window asks whether to overwrite it or reload it, and keeps the writer's text in a recovery copy
(issue 32: `fix` and saves write only if the file is unchanged)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from citedesk.desk import recovery as copies
from citedesk.gui.main_window import MainWindow
from tests.gui.helpers import audited, audited_copy

pytestmark = pytest.mark.gui


@pytest.mark.parametrize("choice", ["cancel", "overwrite", "reload"])
def test_saving_over_a_file_changed_on_disk_asks_and_loses_nothing(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, choice: str
) -> None:
    document = audited_copy(qtbot, window, tmp_path / "draft.md")
    window.audits.debounce.stop()
    mine = window.editor.toPlainText() + "\nMy new paragraph, typed in the window.\n"
    window.editor.setPlainText(mine)
    window.editor.document().setModified(True)
    window.audits.debounce.stop()
    theirs = document.read_text(encoding="utf-8") + "\nA paragraph another program added.\n"
    document.write_text(theirs, encoding="utf-8")
    asked: list[str] = []

    def answer(question: str) -> str:
        asked.append(question)
        return choice

    window.document.confirm_changed = answer
    if choice == "reload":
        audited(qtbot, window, window.document.save)
    else:
        window.document.save()
    assert len(asked) == 1
    assert "changed on disk" in asked[0]
    copy = copies.copy_for(document.resolve(), window.document.recovery_folder)
    if choice == "overwrite":
        assert document.read_text(encoding="utf-8") == mine
        assert not window.editor.document().isModified()
        return
    assert document.read_text(encoding="utf-8") == theirs  # their version stays on disk
    assert copy is not None
    assert copy.text() == mine  # and the writer's text is in a recovery copy
    if choice == "reload":
        assert window.editor.toPlainText() == theirs
        assert not window.editor.document().isModified()
    else:
        assert window.editor.toPlainText() == mine
        assert window.editor.document().isModified()


def test_saving_twice_over_an_unchanged_file_asks_nothing(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    document = audited_copy(qtbot, window, tmp_path / "draft.md")
    window.audits.debounce.stop()

    def never(question: str) -> str:
        raise AssertionError(question)

    window.document.confirm_changed = never
    for n in range(2):
        window.editor.setPlainText(window.editor.toPlainText() + f"\nLine {n}.\n")
        window.audits.debounce.stop()
        assert window.document.save()
    assert document.read_text(encoding="utf-8").endswith("Line 1.\n")
