"""At the window's default size the writer reads every status text and every finding's message
whole (issue 43 #7): nothing is cut with "…"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from citedesk.gui.main_window import MainWindow
from tests.conftest import SAMPLES
from tests.gui.helpers import audited_copy

pytestmark = pytest.mark.gui


def test_the_status_bar_says_everything_at_the_default_size(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    window.resize(1200, 800)
    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")  # its sources: judged findings
    audited_copy(qtbot, window, tmp_path / "draft.md", "evidence.md")
    assert window.report is not None
    fixable = next(f for f in window.report.findings if f.fixes)
    window.apply_fix(fixable, fixable.fixes[0])
    status = window.status
    assert status.stage.text().startswith("Applied")
    qtbot.waitUntil(lambda: status.stage.width() > 0)
    labels = [status.stage, status.coverage, status.judge_note]
    for label in labels:
        assert label.text(), "every label has something to say here"
    qtbot.waitUntil(lambda: all(label.shown_text() == label.text() for label in labels), timeout=5000)
    assert "fix(es)" not in status.stage.text()


def test_a_long_message_wraps_in_its_row(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    window.resize(1200, 800)
    audited_copy(qtbot, window, tmp_path / "draft.md", "problems.md")
    panel = window.findings
    tree = panel.tree
    rows = [panel.model.index(row, 2) for row in range(panel.model.rowCount())]
    longest = max(rows, key=lambda index: len(str(index.data())))
    shortest = min(rows, key=lambda index: len(str(index.data())))
    width = tree.header().sectionSize(2)
    assert tree.fontMetrics().horizontalAdvance(str(longest.data())) > width  # too long for one line
    assert tree.visualRect(longest).height() >= 2 * tree.visualRect(shortest).height() - 4
    # a narrower window, and the rows grow taller still
    before = tree.visualRect(longest).height()
    window.resize(900, 800)
    qtbot.waitUntil(lambda: tree.visualRect(longest).height() > before, timeout=5000)
