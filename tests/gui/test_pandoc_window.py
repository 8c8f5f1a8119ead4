"""The window with a pandoc document: keys in the Sources tab with titles and authors, fixes in
citation syntax, and `@` completed from the bibliography as the writer types."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QTextCursor
from pytestqt.qtbot import QtBot

from citedesk.core.findings import Kind
from citedesk.desk import AuditOptions
from citedesk.gui.main_window import MainWindow
from tests.conftest import SAMPLES

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> MainWindow:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(AuditOptions(offline=True, judge="heuristic", dense=False), settings)
    win.document.confirm_discard = lambda: True
    qtbot.addWidget(win)
    win.show()
    return win


def type_at_end(qtbot: QtBot, window: MainWindow, before: str, typed: str) -> None:
    cursor = window.editor.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    window.editor.setTextCursor(cursor)
    window.editor.insertPlainText(before)
    qtbot.keyClicks(window.editor, typed)


def test_the_pandoc_sample_shows_keys_titles_authors_and_key_swaps(qtbot: QtBot, window: MainWindow) -> None:
    with qtbot.waitSignal(window.audits.audit_finished, timeout=60_000):
        window.open_sample(SAMPLES / "pandoc.md")  # an untitled copy: its bibliography still found
    rows = window.sources_panel.rows()
    assert set(rows) == {"climateoffice", "moreau2021"}
    assert rows["moreau2021"][0] == "local file"
    assert (
        rows["moreau2021"][2]
        == "Tree Canopy and Afternoon Heat in 112 Mid-Sized Cities — Moreau, Léa; Okafor, Tunde"
    )
    report = window.report
    assert report is not None
    titles = {f.kind: [fix.title for fix in f.fixes] for f in report.findings}
    assert titles[Kind.UNKNOWN_KEY] == ["Remove @lindqvist2018"]
    assert titles[Kind.MISATTRIBUTED] == ["Cite @forestry2019 instead of @moreau2021"]
    model = window.findings.model
    shown = {model.data(model.index(row, 0)) for row in range(model.rowCount())}
    assert {"Not in the bibliography @lindqvist2018", "Misattributed citation @moreau2021"} <= shown
    [wrong] = [f for f in report.findings if f.kind is Kind.MISATTRIBUTED]
    window.evidence.show_finding(wrong)  # the evidence pane and the card write keys as the text does
    assert "Reference @forestry2019 says" in window.evidence.browser.toPlainText()
    assert window.editor.card.cite("moreau2021") == "@moreau2021"


# the offscreen platform cannot raise a popup or give it the keyboard; a desktop does both
@pytest.mark.qt_log_ignore("This plugin does not support raise", "This plugin does not support grabbing")
def test_at_completes_with_the_bibliographys_keys_as_the_writer_types(
    qtbot: QtBot, window: MainWindow
) -> None:
    with qtbot.waitSignal(window.audits.audit_finished, timeout=60_000):
        window.load_file(SAMPLES / "pandoc.md")
    completer = window.completion.completer
    popup = completer.popup()
    assert popup is not None
    type_at_end(qtbot, window, "\n\nShade cools streets [see ", "@MO")
    assert popup.isVisible()
    model = completer.completionModel()
    shown = [model.index(row, 0).data() for row in range(model.rowCount())]
    assert shown == [
        "moreau2021 — Moreau & Okafor (2021) Tree Canopy and Afternoon Heat in 112 Mid-Sized Cities"
    ]
    with qtbot.waitSignal(window.completion.completed, timeout=5_000) as chosen:
        qtbot.keyClick(popup, Qt.Key.Key_Return)
    assert chosen.args == ["moreau2021"]
    assert window.editor.toPlainText().endswith("Shade cools streets [see @moreau2021")
    assert not popup.isVisible()
    # an e-mail address is not a citation: nothing is offered after its `@`
    type_at_end(qtbot, window, "]. Write to heat", "@o")
    assert not popup.isVisible()
