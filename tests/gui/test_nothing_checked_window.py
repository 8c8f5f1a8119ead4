"""The window's status bar never says "No problems found" when not one citation could be checked
(offline, no source, judge server down): as every report leads with "nothing could be checked", so
does the window, since "no problems" would read as "all is well"."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from citedesk.gui.main_window import MainWindow
from tests.gui.helpers import audited

pytestmark = pytest.mark.gui


def test_nothing_checked_is_said_not_no_problems(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    document = tmp_path / "offline.md"
    document.write_text(
        "Street trees cool the afternoon [1].\n\n## References\n\n"
        "1. Moreau, L. (2021). Tree canopy and afternoon heat. https://example.org/canopy\n",
        encoding="utf-8",
    )
    audited(qtbot, window, lambda: window.load_file(document))  # the fixture's window is offline
    assert window.report is not None
    assert not window.report.findings
    qtbot.waitUntil(lambda: window.status.stage.text() == "Nothing could be checked", timeout=15_000)


def test_a_checked_clean_text_still_says_no_problems(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    document = tmp_path / "plain.md"
    document.write_text("A text that cites nothing and claims nothing in particular.\n", encoding="utf-8")
    audited(qtbot, window, lambda: window.load_file(document))
    qtbot.waitUntil(lambda: window.status.stage.text() == "No problems found", timeout=15_000)
