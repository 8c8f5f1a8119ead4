"""The window shows what the indexes say about each reference: in the Sources tab (a status word, an
icon for a retraction, the notice on hover) and inline, on the entry and on every marker citing it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from citedesk.core.findings import Kind
from citedesk.desk import AuditOptions
from citedesk.gui.main_window import MainWindow
from tests.helpers.indexes import DING, WAKEFIELD, IndexServer, serve_indexes

pytestmark = pytest.mark.gui

WRONG_YEAR = DING.format(year="2016", doi="10.2337/dc13-1203")


@pytest.fixture
def indexes(monkeypatch: pytest.MonkeyPatch) -> Iterator[IndexServer]:
    with serve_indexes() as server:
        server.serve_the_app(monkeypatch)
        yield server


def test_retraction_and_metadata_status_in_the_sources_tab_and_inline(
    qtbot: QtBot, tmp_path: Path, indexes: IndexServer
) -> None:
    sources = tmp_path / "sources"
    sources.mkdir()
    for key in ("1", "2"):
        (sources / f"{key}.txt").write_text("Coffee and health, the study found. " * 4, encoding="utf-8")
    document = tmp_path / "draft.md"
    text = (
        "The vaccine scare began with one paper [2]. Coffee drinkers had less diabetes [1]. "
        "Some still cite the scare [2].\n\n"
        f"## References\n\n[1] {WRONG_YEAR}\n[2] {WAKEFIELD}\n"
    )
    document.write_text(text, encoding="utf-8")
    options = AuditOptions(
        judge="none", allow_private_network=True, store_path=tmp_path / "store.sqlite3", sources_dir=sources
    )
    window = MainWindow(options, QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    window.document.confirm_discard = lambda: True
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.audits.audit_finished, timeout=60_000):
        window.load_file(document)

    panel = window.sources_panel
    rows = panel.rows()
    assert rows["1"][0] == "local file · year differs"
    assert rows["2"][0] == "local file · retracted 2010-02-06"
    item = panel.tree.findItems("2", Qt.MatchFlag.MatchExactly, 0)[0]
    hover = item.toolTip(1)
    assert "Retraction notice doi:10.1016/s0140-6736(10)60175-4, 2010-02-06" in hover
    assert "https://doi.org/10.1016/s0140-6736(10)60175-4" in hover
    assert not item.icon(1).isNull()  # a retraction is marked, not only worded
    assert panel.tree.findItems("1", Qt.MatchFlag.MatchExactly, 0)[0].icon(1).isNull()

    assert window.report is not None
    retracted = [f for f in window.report.findings if f.kind is Kind.RETRACTED]
    underlined = sorted(text[f.start : f.end] for f in retracted)
    assert underlined == ["[2]", "[2]", "[2] " + WAKEFIELD]  # both markers and the entry
    [metadata] = [f for f in window.report.findings if f.kind is Kind.METADATA_ERROR]
    assert text[metadata.start : metadata.end] == "2016"
    assert [fix.title for fix in metadata.fixes] == ["Correct the year: 2016 → 2014"]

    # the fix corrects the entry in the editor; the next audit finds nothing left to correct
    window.findings.tree.setCurrentIndex(window.findings.model.index_of(metadata))
    with qtbot.waitSignal(window.audits.audit_finished, timeout=60_000):
        window.apply_selected_fix()
    assert window.editor.toPlainText() == text.replace("(2016)", "(2014)")
    assert not [f for f in window.report.findings if f.kind is Kind.METADATA_ERROR]
    assert window.sources_panel.rows()["1"][0] == "local file · verified"
    window.editor.undo()  # one undo step
    assert window.editor.toPlainText() == text
