"""Sources for the whole document: a folder of sources named by key or number (kept for the
document), and several files dropped at once, each matched to its reference."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QDropEvent
from pytestqt.qtbot import QtBot

from citedesk.core.reports.summaries import SourceSummary
from citedesk.gui.main_window import MainWindow
from citedesk.gui.panels.sources_panel import SourcesPanel
from tests.conftest import SAMPLES
from tests.gui.helpers import audited

pytestmark = pytest.mark.gui

DRAFT = (
    "Cities are warmer than the countryside around them [1]. Neighbourhoods with more tree canopy "
    "were cooler in the afternoon [2]. About 20% of newly planted street trees die within five years [3].\n\n"
    "## References\n\n"
    '1. Regional Climate Office. "Urban heat islands: a fact sheet".\n'
    '2. Moreau, L. and Okafor, T. (2021). "Tree canopy and afternoon heat in 112 mid-sized cities".\n'
    '3. Municipal Forestry Network (2019). "Street tree survival after planting".\n'
)
"""References that name no file, link or DOI: nothing can be checked until sources are attached."""


def drop(paths: list[Path], at: QPoint) -> tuple[QDropEvent, QMimeData]:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    event = QDropEvent(
        QPointF(at), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    return event, mime


def unchecked_keys(window: MainWindow) -> list[str]:
    assert window.report is not None
    assert window.report.coverage is not None
    return sorted({u.key for u in window.report.coverage.unchecked})


def test_a_folder_of_sources_is_attached_for_the_document_and_remembered(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, settings: QSettings
) -> None:
    document = tmp_path / "draft.md"
    document.write_text(DRAFT, encoding="utf-8")
    folder = tmp_path / "my sources"
    folder.mkdir()
    shutil.copy(SAMPLES / "sources" / "heat-islands.txt", folder / "1.txt")
    shutil.copy(SAMPLES / "sources" / "canopy-survey.txt", folder / "2.txt")
    shutil.copy(SAMPLES / "sources" / "tree-survival.md", folder / "3.md")
    audited(qtbot, window, lambda: window.load_file(document))
    assert unchecked_keys(window) == ["1", "2", "3"]
    assert {u.reason.value for u in window.report.coverage.unchecked} == {"no source: attach a file"}  # type: ignore[union-attr]

    panel = window.sources_panel
    window.tabs.setCurrentWidget(panel)
    panel.choose_folder = lambda: str(folder)
    audited(qtbot, window, lambda: qtbot.mouseClick(panel.folder_button, Qt.MouseButton.LeftButton))
    assert unchecked_keys(window) == []
    assert {key: row[0] for key, row in panel.rows().items()} == {
        "1": "local file · offline: not looked up",
        "2": "local file · offline: not looked up",
        "3": "local file · offline: not looked up",
    }
    assert panel.folder_label.text() == f"Sources folder: {folder.resolve()}"
    assert "3 citations · 3 checked" in window.status.coverage.text()

    # the folder belongs to the document: a new window on it uses it again
    other = MainWindow(window.options, settings)
    other.document.confirm_discard = lambda: True
    qtbot.addWidget(other)
    audited(qtbot, other, lambda: other.load_file(document))
    assert unchecked_keys(other) == []
    assert other.document.session.attachments_split() == ({}, [str(folder.resolve())])
    # and only that document: another one in the same folder does not get it
    stranger = tmp_path / "other.md"
    stranger.write_text(DRAFT, encoding="utf-8")
    audited(qtbot, other, lambda: other.load_file(stranger))
    assert unchecked_keys(other) == ["1", "2", "3"]


def test_files_dropped_together_are_matched_by_key_number_or_title(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    document = tmp_path / "draft.md"
    document.write_text(DRAFT, encoding="utf-8")
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    by_number = downloads / "ref-1.txt"
    shutil.copy(SAMPLES / "sources" / "heat-islands.txt", by_number)
    by_title = downloads / "canopy-survey.txt"  # "Tree canopy and afternoon heat in …"
    shutil.copy(SAMPLES / "sources" / "canopy-survey.txt", by_title)
    also_by_title = downloads / "Street tree survival.md"
    shutil.copy(SAMPLES / "sources" / "tree-survival.md", also_by_title)
    stray = downloads / "shopping list.txt"
    stray.write_text("Milk, bread.\n", encoding="utf-8")
    audited(qtbot, window, lambda: window.load_file(document))
    panel = window.sources_panel
    window.tabs.setCurrentWidget(panel)

    event, _mime = drop([by_number, by_title, also_by_title, stray], QPoint(10, 10))
    audited(qtbot, window, lambda: panel.tree.dropEvent(event))
    assert window.document.session.attachments() == {
        "1": str(by_number.resolve()),
        "2": str(by_title.resolve()),
        "3": str(also_by_title.resolve()),
    }
    assert unchecked_keys(window) == []
    assert "not matched: shopping list.txt" in window.stage.text()
    assert {row[0] for row in panel.rows().values()} == {"local file · attached · offline: not looked up"}


def test_references_sort_by_number_then_by_name(qtbot: QtBot) -> None:
    panel = SourcesPanel()
    qtbot.addWidget(panel)
    panel.set_sources([SourceSummary(key, "local") for key in ("11", "note", "2", "1", "10")])
    items = [panel.tree.topLevelItem(row) for row in range(panel.tree.topLevelItemCount())]
    shown = [item.text(0) for item in items if item is not None]
    assert shown == ["1", "2", "10", "11", "note"]
