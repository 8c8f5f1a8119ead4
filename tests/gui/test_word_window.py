"""The window with a Word document (issue 30), on a copy of the bundled sample: a .docx opens (Open,
drag-and-drop and recent files accept it) with its text read-only under a banner saying so, marked
and listed like any document; Save writes nothing and Save as exports the text; no recovery copy
is made; Apply fix writes the repaired field into the .docx (the original kept beside it) and the
document is read and audited again."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from citedesk.assets import sample_word_documents
from citedesk.core.findings import Kind
from citedesk.core.formats import matches, open_filter
from citedesk.core.word import read_docx
from citedesk.desk import recovery as copies
from citedesk.files import BACKUP_SUFFIX
from citedesk.gui.controllers.word_document import BANNER_NAME
from citedesk.gui.editor.offsets import Utf16Map
from citedesk.gui.main_window import MainWindow
from citedesk.pipeline import AuditOptions
from tests.gui.helpers import audited, settled

pytestmark = pytest.mark.gui


@pytest.fixture
def paper(tmp_path: Path) -> Path:
    folder = tmp_path / "word"
    shutil.copytree(sample_word_documents()["word"].parent, folder)
    return folder / "paper.docx"


@pytest.fixture
def word_window(qtbot: QtBot, settings: QSettings, paper: Path, tmp_path: Path) -> MainWindow:
    options = AuditOptions(offline=True, judge="heuristic", dense=False, sources_dir=paper.parent / "sources")
    window = MainWindow(options, settings)
    window.document.confirm_discard = lambda: True
    window.document.recovery_folder = tmp_path / "recovery"
    qtbot.addWidget(window)
    window.show()
    return window


def banner(window: MainWindow) -> QLabel:
    found = window.findChild(QLabel, BANNER_NAME)
    assert found is not None
    return found


def test_a_docx_opens_read_only_marked_and_listed(qtbot: QtBot, word_window: MainWindow, paper: Path) -> None:
    window = word_window
    assert matches("paper.docx")  # Open, drag-and-drop, recent files
    assert "*.docx" in open_filter()
    window.resize(900, 420)  # the front matter alone fills the editor
    audited(qtbot, window, lambda: window.load_file(paper))
    view = read_docx(paper.read_bytes(), "paper.docx").text
    assert window.editor.toPlainText() == view
    assert window.editor.isReadOnly()
    assert banner(window).isVisible()
    assert "read-only here; fixes are written into the .docx" in banner(window).text()
    assert window.windowTitle() == "paper.docx (Word, read-only) — CiteDesk"
    cursor = window.editor.textCursor()
    assert cursor.block().text() == "# Street trees and summer heat"  # the writer's text, not the works
    assert window.editor.cursorRect().top() < window.editor.fontMetrics().height() * 2  # at the top
    report = window.report
    assert report is not None
    kinds = {f.kind for f in report.findings}
    assert {Kind.NUMBER_MISMATCH, Kind.MISATTRIBUTED, Kind.REDUNDANT_CITATION} <= kinds
    [swapped] = [f for f in report.findings if f.kind is Kind.MISATTRIBUTED]
    mapping = Utf16Map(view)
    painted = [(s, e) for s, e, f in window.editor.highlighter.spans() if f is swapped]
    assert painted == [(mapping.to_qt(swapped.start), mapping.to_qt(swapped.end))]
    assert view[swapped.start : swapped.end] == "[@municipalforestrynetwork2019]"

    before = paper.read_bytes()
    assert window.document.save()  # nothing to save: its fixes are written into it
    window.document.write_recovery()
    assert paper.read_bytes() == before
    assert not copies.find_copies(window.document.recovery_folder)
    exported = paper.with_suffix(".md")
    assert window.document.export_text(exported)
    assert exported.read_text(encoding="utf-8") == view
    assert window.document.path == paper.resolve()  # still the .docx open here

    markdown = paper.parent / "notes.md"  # a text document after it is editable again
    markdown.write_text("Plain text.\n", encoding="utf-8")
    audited(qtbot, window, lambda: window.load_file(markdown))
    assert not window.editor.isReadOnly()
    assert not banner(window).isVisible()


def test_apply_fix_writes_the_docx_and_audits_it_again(
    qtbot: QtBot, word_window: MainWindow, paper: Path
) -> None:
    window = word_window
    audited(qtbot, window, lambda: window.load_file(paper))
    before = paper.read_bytes()
    report = window.report
    assert report is not None
    [swapped] = [f for f in report.findings if f.kind is Kind.MISATTRIBUTED]
    said: list[str] = []
    window.fixes.message.connect(said.append)
    with qtbot.waitSignal(window.audits.audit_finished, timeout=30_000):
        window.apply_fix(swapped, swapped.fixes[0])
    settled(qtbot, window)
    qtbot.waitUntil(lambda: any(m.startswith("Written into paper.docx") for m in said), timeout=10_000)
    backup = paper.with_name(paper.name + BACKUP_SUFFIX)
    assert backup.read_bytes() == before
    view = read_docx(paper.read_bytes(), "paper.docx").text
    assert "less than 10% canopy [@moreau2021]." in view
    assert window.editor.toPlainText() == view
    assert window.document.session.text == view
    assert not window.editor.document().isModified()
    assert not window.editor.document().isUndoAvailable()  # the file's text, not an edit to undo
    if window.state.text != view:  # the audit of the shown text may still be on its way
        with qtbot.waitSignal(window.audits.audit_finished, timeout=30_000):
            pass
    report = window.report
    assert report is not None
    assert report.document.text == view
    assert Kind.MISATTRIBUTED not in {f.kind for f in report.findings}
    assert not copies.find_copies(window.document.recovery_folder)


def test_a_fix_is_not_written_over_a_docx_changed_on_disk(
    qtbot: QtBot, word_window: MainWindow, paper: Path
) -> None:
    window = word_window
    audited(qtbot, window, lambda: window.load_file(paper))
    report = window.report
    assert report is not None
    [swapped] = [f for f in report.findings if f.kind is Kind.MISATTRIBUTED]
    edited = paper.read_bytes()
    paper.write_bytes(edited)  # saved again in Word meanwhile
    os.utime(paper, ns=(0, 0))
    shown = window.editor.toPlainText()
    said: list[str] = []
    window.fixes.message.connect(said.append)
    window.apply_fix(swapped, swapped.fixes[0])
    settled(qtbot, window)
    qtbot.waitUntil(lambda: any(m.startswith("Not written into paper.docx") for m in said), timeout=10_000)
    assert "changed on disk" in said[-1]
    assert paper.read_bytes() == edited
    assert not paper.with_name(paper.name + BACKUP_SUFFIX).exists()
    assert window.editor.toPlainText() == shown  # the file's text, as it is
    assert not window.editor.document().isModified()


def test_the_word_sample_opens_as_a_copy_with_its_sources_attached(
    qtbot: QtBot, settings: QSettings, tmp_path: Path
) -> None:
    """File ▸ Open a sample ▸ word: a copy of the sample's folder, the paper read-only, and its
    `sources/` (texts named by citation key) attached, so its citations are checked with no flag."""
    window = MainWindow(AuditOptions(offline=True, judge="heuristic", dense=False), settings)
    window.document.confirm_discard = lambda: True
    window.document.samples_folder = tmp_path / "samples"
    qtbot.addWidget(window)
    window.show()
    sample = window.desk.folder_samples()["word"]
    audited(qtbot, window, lambda: window.open_sample(sample), timeout=60_000)
    assert window.document.path == (tmp_path / "samples" / "word" / "paper.docx").resolve()
    assert window.editor.isReadOnly()
    qtbot.waitUntil(
        lambda: (
            window.report is not None and Kind.NUMBER_MISMATCH in {f.kind for f in window.report.findings}
        ),
        timeout=60_000,
    )
    settled(qtbot, window)
