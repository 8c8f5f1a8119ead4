"""The window under pytest-qt (offscreen): findings inline and in the panel, fixes, undo, cancel, drop.

Tests wait on the window's public signals (`window.audits.audit_finished`), never on its state."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QDropEvent
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from citedesk.core.findings import Kind
from citedesk.desk import AuditOptions
from citedesk.desk.background import Progress
from citedesk.gui.app import when_ready
from citedesk.gui.controllers.audit_controller import ProcessAuditRunner
from citedesk.gui.dialogs.settings_dialog import SettingsDialog, options_from_settings
from citedesk.gui.editor.offsets import Utf16Map
from citedesk.gui.main_window import MainWindow
from citedesk.gui.panels.evidence_view import hover_html
from tests.conftest import REPO, SAMPLES
from tests.gui.helpers import audited, audited_copy, settled
from tests.helpers.server import _Handler, serve

pytestmark = pytest.mark.gui


def test_problems_appear_inline_and_in_the_panel(qtbot: QtBot, window: MainWindow) -> None:
    audited(qtbot, window, lambda: window.load_file(SAMPLES / "problems.md"))
    assert window.report is not None
    kinds = {f.kind for f in window.findings.model.findings()}
    assert {Kind.FABRICATED, Kind.ORPHAN_REFERENCE, Kind.UNCITED} <= kinds
    window.group_action.trigger()  # grouped by kind: one row per kind
    assert window.findings.model.rowCount() == len(kinds)
    # every finding is painted where it is
    block = window.editor.document().findBlock(window.editor.highlighter.spans()[0][0])
    assert any(
        r.format.underlineStyle() != r.format.underlineStyle().NoUnderline for r in block.layout().formats()
    )
    assert "finding" in window.stage.text()


def test_fix_then_undo_restores_the_text_exactly(qtbot: QtBot, window: MainWindow) -> None:
    audited(qtbot, window, lambda: window.load_file(SAMPLES / "problems.md"))
    original = window.editor.toPlainText()
    fabricated = next(f for f in window.findings.model.findings() if f.kind is Kind.FABRICATED and f.fixes)
    window.findings.tree.setCurrentIndex(window.findings.model.index_of(fabricated))
    assert window.findings.fix_button.isEnabled()
    qtbot.mouseClick(window.findings.fix_button, Qt.MouseButton.LeftButton)
    changed = window.editor.toPlainText()
    assert changed != original
    expected = original
    for edit in sorted(fabricated.fixes[0].edits, key=lambda e: e.start, reverse=True):
        expected = expected[: edit.start] + edit.replacement + expected[edit.end :]
    assert changed == expected
    window.editor.undo()  # one undo step restores everything
    assert window.editor.toPlainText() == original


def test_fix_all_of_a_kind_is_one_undo_step(qtbot: QtBot, window: MainWindow) -> None:
    audited(qtbot, window, lambda: window.load_file(SAMPLES / "problems.md"))
    original = window.editor.toPlainText()
    orphan = next(f for f in window.findings.model.findings() if f.kind is Kind.ORPHAN_REFERENCE)
    window.findings.tree.setCurrentIndex(window.findings.model.index_of(orphan))
    audited(qtbot, window, window.apply_fix_all_of_kind)  # the fix, then the audit it starts
    assert window.editor.toPlainText() != original
    assert not [f for f in window.findings.model.findings() if f.kind is Kind.ORPHAN_REFERENCE]
    window.editor.undo()
    assert window.editor.toPlainText() == original


def test_fix_all_applies_no_suggestion_of_the_word_level_judge(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    shutil.copy(SAMPLES / "evidence.md", tmp_path / "evidence.md")
    audited(qtbot, window, lambda: window.load_file(tmp_path / "evidence.md"))
    original = window.editor.toPlainText()
    wrong = next(f for f in window.findings.model.findings() if f.kind is Kind.MISATTRIBUTED)
    assert wrong.fixes
    assert not wrong.fixes[0].safe
    window.findings.tree.setCurrentIndex(window.findings.model.index_of(wrong))
    assert window.findings.fix_button.isEnabled()  # one click on its own finding applies it
    assert not window.findings.fix_all_button.isEnabled()  # no safe fix of this kind
    said: list[str] = []
    window.fixes.message.connect(said.append)
    window.apply_fix_all_of_kind()
    assert window.editor.toPlainText() == original  # a suggestion to verify is applied from its finding only
    assert said
    assert "suggestions to verify" in said[-1]


def test_evidence_and_swap_fix_for_a_misattributed_citation(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    shutil.copy(SAMPLES / "evidence.md", tmp_path / "evidence.md")
    audited(qtbot, window, lambda: window.load_file(tmp_path / "evidence.md"))
    wrong = next(
        f for f in window.findings.model.findings() if f.kind is Kind.MISATTRIBUTED and f.reference == "3"
    )
    window.findings.tree.setCurrentIndex(window.findings.model.index_of(wrong))
    shown = window.evidence.toPlainText()
    assert "Evidence" in shown
    assert "Reference [2] says" in shown
    assert "Cite [2] instead of [3]" in shown
    assert window.judge_label.text() == "judge: heuristic:words"
    window.apply_selected_fix()
    assert "less than 10% canopy [2]." in window.editor.toPlainText()
    # saving writes the file atomically and clears the modified flag
    assert window.document.save()
    assert "canopy [2]." in (tmp_path / "evidence.md").read_text(encoding="utf-8")
    assert not window.editor.document().isModified()


def test_a_new_audit_cancels_the_old_one_and_stale_results_never_show(
    qtbot: QtBot, window: MainWindow
) -> None:
    window.editor.setPlainText("A claim with a fabricated marker [9].\n")
    window.audits.start()
    first = window.audits.generation
    window.editor.setPlainText("Fine text with no citations at all.\n")
    audited(qtbot, window, window.audits.start)
    assert window.audits.generation == first + 1
    assert window.report is not None
    assert window.report.document.text.startswith("Fine text")
    assert not [f for f in window.findings.model.findings() if f.kind is Kind.FABRICATED]
    window.audits.cancel()
    assert window.audits.runner.wait_idle(10)  # nothing left running


def test_typing_reaudits_after_a_pause(qtbot: QtBot, window: MainWindow) -> None:
    window.audits.debounce.setInterval(50)
    audited(qtbot, window, lambda: window.editor.setPlainText("Nothing here.\n"))  # the pause, then the audit
    window.editor.moveCursor(window.editor.textCursor().MoveOperation.End)
    qtbot.keyClicks(window.editor, "A survey found 40% gains [7].")
    qtbot.waitUntil(
        lambda: window.report is not None and any(f.kind is Kind.FABRICATED for f in window.report.findings),
        timeout=30_000,
    )


def test_dropping_a_markdown_file_opens_it(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    target = tmp_path / "dropped.md"
    target.write_text("Dropped text [1].\n\n## References\n\n[1] A source.\n", encoding="utf-8")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(target))])
    event = QDropEvent(
        QPointF(QPoint(10, 10)),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)
    assert window.document.path == target.resolve()
    assert window.editor.toPlainText().startswith("Dropped text")


def test_unreadable_files_give_a_message_and_keep_the_text(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    window.editor.setPlainText("My unsaved draft.")
    binary = tmp_path / "image.md"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    assert not window.load_file(binary)
    assert "Could not open" in window.stage.text()
    assert window.editor.toPlainText() == "My unsaved draft."


def test_recovery_copy_is_written_for_unsaved_text(qtbot: QtBot, window: MainWindow) -> None:
    qtbot.keyClicks(window.editor, "Precious unsaved words.")
    window.document.write_recovery()
    copy = window.document.recovery_path()
    assert copy.read_text(encoding="utf-8").endswith("Precious unsaved words.")

    # the "crash": a new window finds the copy and offers it back, once, keeping the file either way
    reopened = MainWindow(window.options, window.settings)
    reopened.document.confirm_discard = lambda: True
    qtbot.addWidget(reopened)
    questions: list[str] = []

    def answer_yes(question: str) -> bool:
        questions.append(question)
        return True

    reopened.document.confirm_recovery = answer_yes
    kept = reopened.document.offer_recovery_at_start()
    assert kept is not None
    assert len(questions) == 1
    assert reopened.editor.toPlainText() == "Precious unsaved words."
    assert reopened.editor.document().isModified()
    assert list(copy.parent.glob("*.md.seen"))  # kept, set aside
    assert reopened.document.offer_recovery_at_start() is None  # not offered twice


def test_findings_model_passes_the_model_tester(
    qtbot: QtBot, window: MainWindow, qtmodeltester: ModelTester
) -> None:
    audited(qtbot, window, lambda: window.load_file(SAMPLES / "problems.md"))
    qtmodeltester.check(window.findings.model)


def test_findings_sort_and_filter_keep_the_selection(
    qtbot: QtBot, window: MainWindow, qtmodeltester: ModelTester
) -> None:
    audited(qtbot, window, lambda: window.load_file(SAMPLES / "problems.md"))
    assert window.report is not None
    total = len(window.findings.model.findings())
    qtmodeltester.check(window.findings.model)  # and it keeps checking through the sorts and filters below

    def lines_of_biggest_group() -> list[int]:
        group = max(
            range(window.findings.model.rowCount()),
            key=lambda r: window.findings.model.rowCount(window.findings.model.index(r, 0)),
        )
        parent = window.findings.model.index(group, 0)
        return [
            int(window.findings.model.index(r, 1, parent).data())
            for r in range(window.findings.model.rowCount(parent))
        ]

    window.findings.group_box.setChecked(True)  # the kinds at the top, findings beneath
    qtmodeltester.check(window.findings.model)
    assert lines_of_biggest_group() == sorted(lines_of_biggest_group())
    assert len(set(lines_of_biggest_group())) > 1
    window.findings.step(1)
    selected = window.selected_finding()
    assert selected is not None
    header = window.findings.tree.header()
    # a click on the Line header (sorted ascending already) reverses the order
    qtbot.mouseClick(
        header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(header.sectionPosition(1) + 5, 5)
    )
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    assert lines_of_biggest_group() == sorted(lines_of_biggest_group(), reverse=True)
    assert window.selected_finding() is selected  # the selection follows its finding

    window.findings.filter_box.setText("fabricated")
    shown = window.findings.model.findings()
    assert shown
    assert all(f.kind is Kind.FABRICATED for f in shown)
    reference = next(f.reference for f in window.report.findings if f.reference)
    window.findings.filter_box.setText(f"[{reference}]")
    shown = window.findings.model.findings()
    assert reference in {f.reference for f in shown}
    assert all(f.reference == reference or f"[{reference}]" in f.message for f in shown)
    assert len(shown) < total
    window.findings.filter_box.setText("no such words anywhere")
    assert window.findings.model.findings() == []
    window.findings.filter_box.clear()
    assert len(window.findings.model.findings()) == total


def test_offsets_survive_characters_outside_the_bmp(qtbot: QtBot, window: MainWindow) -> None:
    text = "Emoji 😀😀 then a fabricated marker [9].\n"
    mapping = Utf16Map(text)
    start = text.index("[9]")
    assert mapping.to_qt(start) == start + 2
    assert mapping.to_python(mapping.to_qt(start)) == start
    window.editor.setPlainText(text)
    audited(qtbot, window, window.audits.start)
    fabricated = next(f for f in window.findings.model.findings() if f.kind is Kind.FABRICATED)
    window.findings.clear_selection()  # (the list followed the cursor onto it already)
    window.findings.tree.setCurrentIndex(window.findings.model.index_of(fabricated))
    assert window.editor.textCursor().selectedText() == "[9]"
    window.apply_selected_fix()
    assert window.editor.toPlainText() == "Emoji 😀😀 then a fabricated marker.\n"


def test_showing_the_window_does_not_import_torch() -> None:
    code = (
        "import os, sys; os.environ['QT_QPA_PLATFORM']='offscreen';"
        "from PySide6.QtWidgets import QApplication; app = QApplication([]);"
        "from citedesk.gui.main_window import MainWindow; w = MainWindow(); w.show(); app.processEvents();"
        "print('torch' in sys.modules, 'transformers' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert result.stdout.split() == ["False", "False"]


def test_review_mode_by_keyboard_persists_decisions(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    document = audited_copy(qtbot, window, tmp_path / "problems.md")
    assert window.report is not None
    total = len(window.report.findings)
    window.activateWindow()
    window.editor.setFocus()
    qtbot.keyClick(window.editor, Qt.Key.Key_F7)  # start the review: the first finding by position
    first = window.selected_finding()
    assert first is not None
    assert first.start == min(f.start for f in window.report.findings)
    qtbot.keyClick(window.editor, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)  # false alarm
    settled(qtbot, window)  # kept in the store off the GUI thread, then shown
    assert first not in window.findings.model.findings()  # hidden at once, no re-audit needed
    assert window.review_label.text() == f"1 of {total} reviewed"
    second = window.selected_finding()  # review mode moved on to the next undecided finding
    assert second is not None
    assert second.start >= first.start
    qtbot.keyClick(window.editor, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)  # confirmed
    settled(qtbot, window)
    assert window.review_label.text() == f"2 of {total} reviewed"
    assert "Confirmed" in str(window.findings.model.data(window.findings.model.index_of(second)))
    assert window.report is not None
    with qtbot.waitSignal(window.document.message, timeout=10_000) as said:
        window.document.export_report(window.report, tmp_path / "report.json")  # off the GUI thread
    assert said.args == [f"Report written to {tmp_path / 'report.json'}"]
    exported = json.loads((tmp_path / "report.json").read_text())
    assert [d["review"]["decision"] for d in exported["dismissed"]] == ["false_alarm"]
    assert any(f["review"] and f["review"]["decision"] == "confirmed" for f in exported["findings"])

    # a new window on the same file: the false alarm stays hidden, the confirmation stays
    other = MainWindow(window.options, window.settings)
    other.document.confirm_discard = lambda: True
    qtbot.addWidget(other)
    audited(qtbot, other, lambda: other.load_file(document))
    assert other.report is not None
    assert len(other.report.findings) == total - 1
    assert other.review_label.text() == f"2 of {total} reviewed"
    other.review.toggle_dismissed(True)
    assert len(other.findings.model.findings()) == total  # "Show false alarms" lists the dismissed one too
    # edit the dismissed finding's own sentence: it is a new claim, so it is reported again
    sentence = other.report.document.text[first.start : first.end]
    assert "most widely" in sentence
    other.editor.setPlainText(other.editor.toPlainText().replace("most widely", "most commonly"))
    audited(qtbot, other, other.audits.start)
    assert len(other.report.findings) == total
    assert other.report.dismissed == []


def _drop_on(point: QPoint, path: Path) -> tuple[QDropEvent, QMimeData]:
    """A drop of `path` at `point`; the mime data is returned too, as the event only points to it."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(
        QPointF(point),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    return event, mime


def test_sources_panel_refreshes_one_source_and_takes_dropped_files(
    qtbot: QtBot, tmp_path: Path, settings: QSettings
) -> None:
    with serve() as base:
        store = tmp_path / "store.sqlite3"
        options = AuditOptions(judge="heuristic", dense=False, allow_private_network=True, store_path=store)
        window = MainWindow(options, settings)
        window.document.confirm_discard = lambda: True
        qtbot.addWidget(window)
        document = tmp_path / "draft.md"
        document.write_text(
            "Shaded streets were cooler than open ones in the survey [1]. Parks reduce heat [2].\n\n"
            f"## References\n\n[1] Canopy. {base}/article\n[2] Parks and heat. {base}/missing\n",
            encoding="utf-8",
        )
        audited(qtbot, window, lambda: window.load_file(document))
        panel = window.sources_panel
        assert {key: row[0] for key, row in panel.rows().items()} == {
            "1": "fetched",
            "2": "dead link (HTTP 404)",
        }
        fetched_once = _Handler.hits["/article"]
        audited(qtbot, window, window.audits.start)
        assert _Handler.hits["/article"] == fetched_once  # cached: not fetched again
        assert panel.rows()["1"][0] == "cached"
        panel.select("1")
        audited(qtbot, window, panel.refresh_button.click)  # Refresh fetches [1] again, and only [1]
        assert _Handler.hits["/article"] == fetched_once + 1
        assert panel.rows()["1"][0] == "fetched"

    # a local copy of the dead source, dropped onto its row, becomes its content
    copy = tmp_path / "parks.txt"
    copy.write_text(
        "City parks reduce heat in the surrounding streets by several degrees.\n", encoding="utf-8"
    )
    item = panel.tree.findItems("2", Qt.MatchFlag.MatchExactly, 0)[0]
    point = panel.tree.visualItemRect(item).center()
    event, _mime = _drop_on(point, copy)
    audited(qtbot, window, lambda: panel.tree.dropEvent(event))
    assert window.document.session.attachments() == {"2": str(copy.resolve())}
    assert panel.rows()["2"][0] == "local file · attached"
    assert window.report is not None
    assert not [f for f in window.report.findings if f.kind is Kind.DEAD_LINK]
    # the attachment belongs to the document and comes back with it
    other = MainWindow(options, settings)
    other.document.confirm_discard = lambda: True
    qtbot.addWidget(other)
    audited(qtbot, other, lambda: other.load_file(document))
    assert other.document.session.attachments() == {"2": str(copy.resolve())}


def test_find_and_replace_all_is_one_undo_step(qtbot: QtBot, window: MainWindow) -> None:
    original = "Cats sleep. Cats purr. The cat naps.\n"
    window.editor.setPlainText(original)
    window.activateWindow()
    window.editor.setFocus()
    qtbot.keyClick(window.editor, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier)
    assert window.find_bar.isVisible()
    window.find_bar.find_field.setText("cats")
    window.find_bar.replace_field.setText("Dogs")
    assert window.find_bar.replace_all() == 2
    assert window.editor.toPlainText() == "Dogs sleep. Dogs purr. The cat naps.\n"
    window.find_bar.case.setChecked(True)
    window.find_bar.find_field.setText("cat")
    assert window.find_bar.find_next()
    assert window.editor.textCursor().selectedText() == "cat"
    window.editor.undo()
    assert window.editor.toPlainText() == original
    qtbot.keyClick(window.find_bar.find_field, Qt.Key.Key_Escape)
    assert not window.find_bar.isVisible()


def test_settings_dialog_changes_and_keeps_the_options(
    qtbot: QtBot, window: MainWindow, settings: QSettings
) -> None:
    dialog = SettingsDialog(window.settings, window)
    qtbot.addWidget(dialog)
    labels = [dialog.judge.itemData(i) for i in range(dialog.judge.count())]
    assert labels[:2] == ["auto", "heuristic"]
    dialog.judge.setCurrentIndex(labels.index("heuristic"))
    dialog.offline.setChecked(True)
    dialog.private.setChecked(True)
    dialog.dense.setChecked(False)
    dialog.save()
    window.apply_settings()
    assert window.options.judge == "heuristic"
    assert window.options.offline
    assert window.options.allow_private_network
    assert not window.options.dense
    assert window.offline_action.isChecked()
    fresh = options_from_settings(window.settings)
    assert (fresh.judge, fresh.offline, fresh.allow_private_network, fresh.dense) == (
        "heuristic",
        True,
        True,
        False,
    )


def test_audits_run_in_a_child_process_that_is_restarted_and_stopped(
    qtbot: QtBot, window: MainWindow
) -> None:
    runner = window.audits.runner
    assert isinstance(runner, ProcessAuditRunner)
    window.editor.setPlainText("A claim with a fabricated marker [9].\n")
    audited(qtbot, window, window.audits.start)
    child = runner.process.pid
    assert child is not None
    assert runner.process.alive
    assert child != os.getpid()
    # the child dies mid-audit (killed, out of memory…): the window says so, and the next audit
    # starts a new child
    window.editor.setPlainText("Coffee was drunk in Yemen in 1450 by many people [1]. " * 6000)
    with qtbot.waitSignal(
        runner.received, timeout=30_000, check_params_cb=lambda message: isinstance(message, Progress)
    ):
        window.audits.start()
    with qtbot.waitSignal(window.audits.audit_failed, timeout=30_000):
        os.kill(child, signal.SIGKILL)
    assert "stopped unexpectedly" in window.stage.text()
    window.editor.setPlainText("A claim with a fabricated marker [9].\n")
    audited(qtbot, window, window.audits.start)
    second = runner.process.pid
    assert second is not None
    assert second != child
    assert any(f.kind is Kind.FABRICATED for f in window.report.findings)  # type: ignore[union-attr]
    window.close()
    assert not runner.process.alive
    assert not _running(second)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_hovering_a_highlight_explains_it_and_clicking_selects_it(qtbot: QtBot, window: MainWindow) -> None:
    audited(qtbot, window, lambda: window.load_file(SAMPLES / "problems.md"))
    assert window.report is not None
    fabricated = next(f for f in window.report.findings if f.kind is Kind.FABRICATED)
    mapping = Utf16Map(window.report.document.text)
    cursor = window.editor.textCursor()
    cursor.setPosition(mapping.to_qt(fabricated.start))
    window.editor.setTextCursor(cursor)
    window.editor.ensureCursorVisible()
    left = window.editor.cursorRect(cursor)
    cursor.setPosition(mapping.to_qt(fabricated.end))
    right = window.editor.cursorRect(cursor)
    point = QPoint((left.center().x() + right.center().x()) // 2, left.center().y())  # mid-character
    assert window.editor.findings_at(window.editor.cursorForPosition(point).position())[0] is fabricated
    assert "Fabricated citation" in hover_html([fabricated])
    window.findings.tree.setCurrentIndex(window.findings.model.index(0, 0))  # a group row: nothing selected
    qtbot.mouseClick(window.editor.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert window.selected_finding() is fabricated
    assert "Fabricated citation" in window.evidence.toPlainText()


def test_line_numbers_can_be_hidden_and_the_choice_is_kept(
    qtbot: QtBot, window: MainWindow, settings: QSettings
) -> None:
    window.editor.setPlainText("\n".join(f"line {n}" for n in range(1, 1201)))
    gutter = window.editor.line_numbers
    assert gutter.isVisible()
    wide = window.editor.viewportMargins().left()
    assert wide >= window.editor.fontMetrics().horizontalAdvance("9999")  # room for four digits
    window.line_numbers_action.trigger()
    assert not gutter.isVisible()
    assert window.editor.viewportMargins().left() == 0
    other = MainWindow(window.options, settings)
    qtbot.addWidget(other)
    assert not other.line_numbers_action.isChecked()
    assert other.editor.viewportMargins().left() == 0


def _an_edit_sends_nothing(qtbot: QtBot, window: MainWindow) -> None:
    """Once the running audit ends, editing and re-auditing sends no request to the Messages API."""
    from tests.helpers.messages_api import FakeMessages

    if window.audits.busy:
        with qtbot.waitSignal(window.audits.audit_finished, timeout=60_000):
            pass
    sent = len(FakeMessages.requests)
    window.editor.setPlainText(window.editor.toPlainText().replace("Young street", "Young city street"))
    audited(qtbot, window, window.audits.start)
    assert len(FakeMessages.requests) == sent


def test_claude_assistance_is_per_document_shown_before_sending_and_off_stops_traffic(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import re

    from tests.helpers.messages_api import (
        FakeMessages,
        by_task,
        last_user_text,
        message,
        messages_api,
        sentence_of,
    )

    def cite(body: dict[str, object]) -> tuple[int, dict[str, object]]:
        sentence = sentence_of(body)
        return message(json.dumps({"sentence": re.sub(r"\.(\s*)$", r" [3].\1", sentence, count=1)}))

    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    document = tmp_path / "evidence.md"
    shutil.copy(SAMPLES / "evidence.md", document)
    previews: list[str] = []

    def consent(count: int, preview: str) -> bool:
        previews.append(preview)
        return count > 0

    window.assist.confirm_assist = consent
    with messages_api(by_task(insert=cite)) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
        audited(qtbot, window, lambda: window.load_file(document))
        assert FakeMessages.requests == []  # off by default: nothing is sent
        window.assist_action.trigger()  # no key: stays off, says how to set one
        assert not window.assist_action.isChecked()
        assert "ANTHROPIC_API_KEY" in window.stage.text()
        assert previews == []

        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret")
        window.audits.runner.shutdown()  # the audit process reads the environment when it starts
        audited(qtbot, window, window.assist_action.trigger, timeout=60_000)
        assert window.assist_action.isChecked()
        assert len(previews) == 1
        assert "Young street trees need regular watering" in previews[0]
        assert "The cooling effect was strongest" not in previews[0]  # short cited sentences are not sent
        assert FakeMessages.requests
        assert window.report is not None
        for request in FakeMessages.requests:  # what was sent is what was shown
            assert last_user_text(request) in previews[0]
        uncited = next(f for f in window.report.findings if f.kind is Kind.UNCITED)
        assert uncited.fixes[0].title == "Cite [3] (suggested by Claude, confirmed locally)"
        assert f"{len(FakeMessages.requests)} Claude requests" in window.assist_label.text()
        assert "sk-ant" not in window.assist_label.text() + window.assist_label.toolTip()

        window.assist_action.trigger()  # off: the next audits send nothing
        assert not window.assist_action.isChecked()
        _an_edit_sends_nothing(qtbot, window)

    # the choice is kept per document: another document starts with assistance off
    window.assist_action.trigger()
    assert window.assist_action.isChecked()
    other = tmp_path / "other.md"
    other.write_text("Trees cool streets.\n", encoding="utf-8")
    window.load_file(other)
    assert not window.assist_action.isChecked()
    window.load_file(document)
    assert window.assist_action.isChecked()


def test_claude_can_judge_a_documents_citations_only_while_assistance_is_on(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.helpers.messages_api import FakeMessages, by_task, last_user_text, message, messages_api

    def judge(body: dict[str, object]) -> tuple[int, dict[str, object]]:
        evidence = last_user_text(body).split("EVIDENCE: ", 1)[1]
        return message(
            json.dumps({"label": "entailment", "confidence": 0.8, "quote": evidence.split(".")[0]})
        )

    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    document = tmp_path / "evidence.md"
    shutil.copy(SAMPLES / "evidence.md", document)
    shown: list[tuple[int, str]] = []

    def consent(count: int, preview: str) -> bool:
        shown.append((count, preview))
        return True

    window.assist.confirm_assist = lambda count, preview: True
    window.assist.confirm_claude_judge = consent
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret")
    with messages_api(by_task(judge=judge)) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        audited(qtbot, window, lambda: window.load_file(document))
        assert not window.claude_judge_action.isEnabled()  # assistance is off: no Claude judge
        audited(qtbot, window, window.assist_action.trigger, timeout=60_000)
        assert window.claude_judge_action.isEnabled()
        audited(qtbot, window, window.claude_judge_action.trigger, timeout=60_000)
        assert len(shown) == 1
        count, preview = shown[0]
        assert count == 4  # four cited (sentence, reference) pairs in the sample
        assert "CLAIM: The cooling effect was strongest in cities with hot, dry summers" in preview
        assert window.report is not None
        judged = [v for vs in window.report.verdicts.values() for v in vs if v.judge]
        assert judged
        assert {v.judge for v in judged} == {"claude:claude-sonnet-5"}
        assert any(last_user_text(r).startswith("CLAIM: ") for r in FakeMessages.requests)

        window.assist_action.trigger()  # assistance off: the Claude judge goes with it
        assert not window.claude_judge_action.isEnabled()
        assert not window.claude_judge_action.isChecked()
        _an_edit_sends_nothing(qtbot, window)
        assert window.report is not None
        assert all(
            not (v.judge or "").startswith("claude") for vs in window.report.verdicts.values() for v in vs
        )


def test_a_fact_no_citation_supports_is_underlined_on_its_own_words_in_the_window(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.assist.test_atoms import MIXED, REFERENCES, SECOND_PART, _split_at_and
    from tests.helpers.messages_api import by_task, messages_api

    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    document = tmp_path / "mixed.md"
    document.write_text(f"# Street trees\n\n{MIXED}\n{REFERENCES}", encoding="utf-8")
    window.assist.confirm_assist = lambda count, preview: True
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret")
    with messages_api(by_task(facts=_split_at_and)) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        audited(qtbot, window, lambda: window.load_file(document))
        assert not [f for f in window.findings.model.all_findings() if f.kind is Kind.UNSUPPORTED_PART]
        audited(qtbot, window, window.assist_action.trigger, timeout=60_000)
    [part] = [f for f in window.findings.model.all_findings() if f.kind is Kind.UNSUPPORTED_PART]
    text = window.editor.toPlainText()
    assert text[part.start : part.end] == SECOND_PART
    middle = text.index(SECOND_PART) + len(SECOND_PART) // 2  # plain text: Qt positions are offsets here
    assert part in window.editor.findings_at(middle)
    assert part.fixes[0].title == "Cite [2] for this part"


def test_the_first_document_waits_for_the_store_import_on_a_thread_then_opens_on_the_gui_thread(
    qtbot: QtBot, window: MainWindow
) -> None:
    on_gui_thread: list[bool] = []
    warm = when_ready(
        lambda: on_gui_thread.append(threading.current_thread() is threading.main_thread()), window
    )
    qtbot.waitUntil(lambda: bool(on_gui_thread), timeout=30_000)
    assert on_gui_thread == [True]  # called once, on the GUI thread
    assert not warm.is_alive()  # only once the import thread had ended: nothing is left behind
