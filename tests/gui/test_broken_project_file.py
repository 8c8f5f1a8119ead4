"""A Quarto chapter whose `_quarto.yml` cannot be read: the window says so, it does not audit as if
the book had no bibliography without a word (issue 43 #11)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from citedesk.gui.main_window import MainWindow
from tests.gui.helpers import audited

pytestmark = pytest.mark.gui


def test_a_broken_quarto_file_is_said_in_the_window(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    (tmp_path / "_quarto.yml").write_text(
        "project:\n  type: book\nbook:\n  chapters:\n    - index.md\n    - [broken\nbibliography: refs.bib\n",
        encoding="utf-8",
    )
    (tmp_path / "refs.bib").write_text("@book{smith2020, title={Trees}, author={Smith, A}, year={2020}}\n")
    chapter = tmp_path / "index.md"
    chapter.write_text("# Chapter\n\nTrees cool streets [@smith2020].\n", encoding="utf-8")
    said: list[str] = []
    window.status.stage.setText("")
    original = window.show_message

    def show(text: str) -> None:
        said.append(text)
        original(text)

    window.show_message = show  # type: ignore[method-assign]
    audited(qtbot, window, lambda: window.load_file(chapter))
    assert window.report is not None
    [notice] = [n for n in window.report.notices if "_quarto.yml" in n]
    assert "line 7" in notice
    assert "not valid YAML" in notice
    assert "bibliographies" in notice
    assert any("_quarto.yml" in text for text in said)
