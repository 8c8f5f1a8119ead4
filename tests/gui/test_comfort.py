"""The editor a writer lives in: font, wrap and zoom kept in the settings; undo where the change
was; renumbering as one checked step; samples as copies; unsaved text offered back for its file."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QFontInfo, QTextCursor
from PySide6.QtWidgets import QFileDialog, QPlainTextEdit
from pytestqt.qtbot import QtBot

from citedesk.core.findings import Kind
from citedesk.core.review import Decision
from citedesk.gui.editor.editor import BASE_POINTS
from citedesk.gui.main_window import MainWindow
from tests.conftest import SAMPLES
from tests.gui.helpers import audited, audited_copy, settled

pytestmark = pytest.mark.gui


def test_font_wrap_and_zoom_are_settings_with_keys_that_do_not_clash(
    qtbot: QtBot, window: MainWindow, settings: QSettings
) -> None:
    editor = window.editor
    assert not QFontInfo(editor.font()).fixedPitch()  # prose reads in a proportional font by default
    window.monospace_action.trigger()
    assert QFontInfo(editor.font()).fixedPitch()
    assert editor.lineWrapMode() == QPlainTextEdit.LineWrapMode.WidgetWidth  # soft wrap by default
    window.wrap_action.trigger()
    assert editor.lineWrapMode() == QPlainTextEdit.LineWrapMode.NoWrap

    window.activateWindow()
    editor.setFocus()
    qtbot.keyClick(editor, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(editor, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert editor.font().pointSize() == BASE_POINTS + 2
    qtbot.keyClick(editor, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert editor.font().pointSize() == BASE_POINTS + 1
    gutter = editor.line_numbers
    assert gutter.font().pointSize() == BASE_POINTS + 1  # the line numbers follow the zoom
    # Ctrl+0 is "clear the decision": it leaves the zoom alone
    qtbot.keyClick(editor, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert editor.font().pointSize() == BASE_POINTS + 1

    # a new window starts the way this one was left
    other = MainWindow(window.options, settings)
    qtbot.addWidget(other)
    assert QFontInfo(other.editor.font()).fixedPitch()
    assert other.editor.lineWrapMode() == QPlainTextEdit.LineWrapMode.NoWrap
    assert other.editor.font().pointSize() == BASE_POINTS + 1
    assert other.monospace_action.isChecked()
    assert not other.wrap_action.isChecked()

    qtbot.keyClick(
        editor, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
    )  # actual size
    assert editor.font().pointSize() == BASE_POINTS


def test_undo_of_a_fix_brings_the_cursor_back_to_the_fix(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    filler = "".join(f"Paragraph {n} talks about nothing in particular.\n\n" for n in range(150))
    document = tmp_path / "long.md"
    document.write_text(
        f"# A long draft\n\n{filler}Far down, a figure with no source at all [9].\n\n"
        f"The end of the draft cites its one source [1].\n\n## References\n\n[1] A source. https://example.org/a\n",
        encoding="utf-8",
    )
    audited(qtbot, window, lambda: window.load_file(document))
    assert window.report is not None
    fabricated = next(f for f in window.report.findings if f.kind is Kind.FABRICATED)
    window.findings.select(fabricated)  # the editor goes to it
    audited(qtbot, window, window.apply_selected_fix)
    fixed = window.editor.toPlainText()
    assert "at all." in fixed
    editor = window.editor
    editor.moveCursor(QTextCursor.MoveOperation.Start)
    editor.verticalScrollBar().setValue(0)
    window.activateWindow()
    editor.setFocus()
    qtbot.keyClick(editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editor.toPlainText() == document.read_text(encoding="utf-8")
    marker_end = editor.toPlainText().index("at all [9]") + len("at all [9]")
    assert abs(editor.textCursor().position() - marker_end) <= 1  # the cursor is back at the fix
    assert editor.verticalScrollBar().value() > 0
    assert editor.viewport().rect().contains(editor.cursorRect())  # and the view shows it
    qtbot.keyClick(
        editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    assert editor.toPlainText() == fixed  # redo too


def test_renumbering_the_reference_list_is_one_checked_undo_step(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    document = tmp_path / "order.md"
    original = (
        "Street trees cool cities [3]. Parks cool them too [1].\n\n"
        "## References\n\n[1] Parks and heat. https://example.org/parks\n"
        "[3] Street trees. https://example.org/trees\n"
    )
    document.write_text(original, encoding="utf-8")
    audited(qtbot, window, lambda: window.load_file(document))
    audited(qtbot, window, window.menus.find("Re&number the reference list").trigger)
    text = window.editor.toPlainText()
    assert text.startswith("Street trees cool cities [2]. Parks cool them too [1].")
    assert "[2] Street trees." in text  # each marker still points at its work
    assert "Renumbered the reference list" in window.stage.text()
    window.editor.undo_in_place()
    assert window.editor.toPlainText() == original


def test_a_sample_opens_as_an_untitled_copy_and_saving_never_writes_the_sample(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sample = SAMPLES / "problems.md"
    before = sample.read_bytes()
    audited(qtbot, window, lambda: window.open_sample(sample))
    assert window.document.path is None
    assert window.windowTitle() == "*Untitled — CiteDesk"
    assert window.editor.toPlainText() == before.decode("utf-8")
    target = tmp_path / "mine.md"
    asked: list[str] = []

    def save_where(*args: object, **kwargs: object) -> tuple[str, str]:
        asked.append(str(args[1]))
        return str(target), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(save_where))
    window.activateWindow()
    window.editor.setFocus()
    qtbot.keyClick(window.editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert asked == ["Save as"]  # Ctrl+S asks where: the copy has no file
    assert sample.read_bytes() == before
    assert target.read_text(encoding="utf-8") == before.decode("utf-8")
    assert window.document.path == target.resolve()


def test_reopening_a_file_with_newer_unsaved_text_offers_it_with_its_path_and_decisions(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, settings: QSettings
) -> None:
    document = audited_copy(qtbot, window, tmp_path / "draft.md")
    assert window.report is not None
    fabricated = next(f for f in window.report.findings if f.kind is Kind.FABRICATED)
    window.review.decide(Decision.FALSE_ALARM, finding=fabricated, advance=False)
    settled(qtbot, window)
    window.audits.debounce.stop()
    edited = window.editor.toPlainText().replace("What about sleep?", "What about sleep and mood?")
    window.editor.setPlainText(edited)
    window.editor.document().setModified(True)
    window.audits.debounce.stop()
    window.document.write_recovery()  # then the window is killed: nothing else is written

    reopened = MainWindow(window.options, settings)
    reopened.document.confirm_discard = lambda: True
    qtbot.addWidget(reopened)
    questions: list[str] = []

    def answer_yes(question: str) -> bool:
        questions.append(question)
        return True

    reopened.document.confirm_recovery = answer_yes
    audited(qtbot, reopened, lambda: reopened.load_file(document))  # `citedesk open draft.md`
    assert len(questions) == 1
    assert str(document.resolve()) in questions[0]  # offered for this file, by its path
    assert reopened.editor.toPlainText() == edited
    assert reopened.document.path == document.resolve()
    assert reopened.windowTitle() == "*draft.md — CiteDesk"
    assert reopened.report is not None
    assert reopened.report.document.text == edited
    # the decisions made on this file apply to the recovered text
    assert [f.kind for f in reopened.report.dismissed] == [Kind.FABRICATED]
    assert not [
        f for f in reopened.report.findings if f.kind is Kind.FABRICATED and f.start == fabricated.start
    ]
    assert document.read_text(encoding="utf-8") != edited  # nothing was written over the file

    # killed again before saving: a bare start (`citedesk` alone) offers it back for its file too
    reopened.document.write_recovery()
    third = MainWindow(window.options, settings)
    third.document.confirm_discard = lambda: True
    qtbot.addWidget(third)
    third.document.confirm_recovery = answer_yes
    with qtbot.waitSignal(third.audits.audit_finished, timeout=30_000):
        kept = third.document.offer_recovery_at_start()
    assert kept is not None
    assert kept.document == document.resolve()
    assert str(document.resolve()) in questions[-1]
    assert third.document.path == document.resolve()
    assert third.editor.toPlainText() == edited
    assert third.report is not None
    assert third.report.document.text == edited  # the recovered text is what was checked
    assert [f.kind for f in third.report.dismissed] == [Kind.FABRICATED]
