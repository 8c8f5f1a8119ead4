"""A `.tex` file in the window's file handling (issue 29): Open, drag-and-drop and recent files
accept it, Save as keeps `.tex`, and its recovery copy keeps `.tex` and is offered back."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QFileDialog
from pytestqt.qtbot import QtBot

from citedesk.core.formats import format_named, open_filter
from citedesk.desk import recovery as copies
from citedesk.gui.main_window import MainWindow
from tests.gui.helpers import settled

pytestmark = pytest.mark.gui

PAPER = r"""\documentclass{article}
\begin{document}
Streets under trees are cooler \cite{moreau2021}. % a note
\end{document}
"""


@pytest.fixture
def paper(tmp_path: Path) -> Path:
    path = tmp_path / "paper.tex"
    path.write_text(PAPER, encoding="utf-8")
    return path


def test_open_save_as_and_drop_accept_latex_and_save_as_keeps_tex(
    qtbot: QtBot, window: MainWindow, paper: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "*.tex" in open_filter().split(";;")[0]
    assert format_named("latex").filter == "LaTeX (*.tex *.ltx)"
    assert format_named("latex").filter in open_filter()
    offered: list[str] = []

    def save_as(_parent: object, _title: str, _start: str, filters: str) -> tuple[str, str]:
        offered.append(filters)
        return str(paper.with_name("copy")), filters.split(";;", maxsplit=1)[0]  # typed with no suffix

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(save_as))
    assert window.load_file(paper)
    assert window.document.save_as_dialog()
    assert offered[0].startswith(format_named("latex").filter)  # the document's own kind first
    saved = paper.with_name("copy.tex")
    assert saved.read_text(encoding="utf-8") == PAPER
    assert window.document.path == saved.resolve()
    assert window.windowTitle() == "copy.tex (LaTeX) — CiteDesk"

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(paper))])
    event = QDropEvent(
        QPointF(5, 5), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier
    )
    window.dropEvent(event)
    assert window.document.path == paper.resolve()
    assert str(paper) in window.document.recent()
    settled(qtbot, window)


def test_a_tex_files_recovery_copy_keeps_tex_and_is_offered(
    qtbot: QtBot, window: MainWindow, paper: Path, tmp_path: Path
) -> None:
    recovery = tmp_path / "recovery"
    window.document.recovery_folder = recovery
    assert window.load_file(paper)
    window.editor.appendPlainText("Unsaved words \\cite{moreau2021}.")
    window.document.write_recovery()
    [copy] = list(recovery.iterdir())
    assert copy.suffix == ".tex"

    window.document.load_file(paper, offer_recovery=False)  # as a fresh window would have it
    asked: list[str] = []

    def accept(question: str) -> bool:
        asked.append(question)
        return True

    window.document.confirm_recovery = accept
    assert window.load_file(paper)
    assert asked
    assert str(paper.resolve()) in asked[0]
    assert "Unsaved words \\cite{moreau2021}." in window.editor.toPlainText()
    assert [p.name.endswith(".tex.seen") for p in recovery.iterdir()] == [True]
    window.document.forget_copies()
    assert list(recovery.iterdir()) == []
    settled(qtbot, window)


def test_recovery_copies_keep_their_documents_suffix_and_old_md_copies_are_still_found(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "recovery"
    tex = copies.write_copy(tmp_path / "a.tex", "\\cite{x}", "u1", folder)
    md = copies.write_copy(tmp_path / "b.md", "[@x]", "u2", folder)
    untitled = copies.write_copy(None, "\\cite{y}", "u3", folder, kind=".tex")
    other = copies.write_copy(tmp_path / "c.rst", "text", "u4", folder)  # not a format the window edits
    assert (tex.suffix, md.suffix, untitled.suffix, other.suffix) == (".tex", ".md", ".tex", ".md")
    assert copies.copy_path(tmp_path / "d.qmd", "u5", folder).suffix == ".qmd"  # the window opens it
    assert {c.copy for c in copies.find_copies(folder)} == {tex, md, untitled, other}
    assert copies.copy_for(tmp_path / "a.tex", folder) is not None
    kept = copies.set_aside(copies.read_copy(tex))
    assert kept.name.endswith(".tex.seen")
    assert tex not in {c.copy for c in copies.find_copies(folder)}  # offered once
    copies.discard(None, "u3", folder)
    copies.discard(tmp_path / "a.tex", "u1", folder)
    assert sorted(p.name for p in folder.iterdir()) == sorted([md.name, other.name])
