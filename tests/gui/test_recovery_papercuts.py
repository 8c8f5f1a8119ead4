"""Recovery copies end when the text's story ends (issue 28): text the writer answered **Discard**
for never comes back at the next start, and a saved document leaves no side file behind — neither
its copy nor the `.seen` copy its text was recovered from."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from citedesk.core.findings import Kind
from citedesk.desk import AuditOptions
from citedesk.gui.main_window import MainWindow
from tests.gui.helpers import audited

pytestmark = pytest.mark.gui


def _window(qtbot: QtBot, settings: QSettings, recovery: Path) -> MainWindow:
    """A window as the writer has it: `confirm_discard` asks (here: `ask_unsaved`), nothing is
    replaced but the answer to the question."""
    window = MainWindow(AuditOptions(offline=True, judge="heuristic", dense=False), settings)
    window.document.recovery_folder = recovery
    window.document.ask_unsaved = lambda: "discard"
    qtbot.addWidget(window)
    window.show()
    return window


def _left(recovery: Path) -> list[str]:
    return sorted(p.name for p in recovery.iterdir()) if recovery.is_dir() else []


@pytest.mark.parametrize("titled", [False, True])
def test_discarded_text_does_not_come_back_at_the_next_start(
    qtbot: QtBot, settings: QSettings, tmp_path: Path, titled: bool
) -> None:
    recovery = tmp_path / "recovery"
    window = _window(qtbot, settings, recovery)
    if titled:
        document = tmp_path / "essay.md"
        document.write_text("Saved words.\n", encoding="utf-8")
        assert window.load_file(document)
    qtbot.keyClicks(window.editor, "Words I do not want. ")
    window.document.write_recovery()  # the autosave ran before the writer closed the window
    assert _left(recovery) != []

    asked: list[str] = []

    def discard() -> str:
        asked.append("asked")
        return "discard"

    window.document.ask_unsaved = discard
    assert window.close()
    assert asked == ["asked"]
    assert _left(recovery) == []  # discard means gone

    again = _window(qtbot, settings, recovery)
    offered: list[str] = []

    def accept(question: str) -> bool:
        offered.append(question)
        return True

    again.document.confirm_recovery = accept
    assert again.document.offer_recovery_at_start() is None
    assert offered == []
    assert "Words I do not want" not in again.editor.toPlainText()


def test_cancel_keeps_the_window_open_and_the_copy(qtbot: QtBot, settings: QSettings, tmp_path: Path) -> None:
    recovery = tmp_path / "recovery"
    window = _window(qtbot, settings, recovery)
    qtbot.keyClicks(window.editor, "Words still wanted.")
    window.document.write_recovery()
    window.document.ask_unsaved = lambda: "cancel"
    assert not window.close()
    assert len(_left(recovery)) == 1
    window.document.ask_unsaved = lambda: "discard"


@pytest.mark.parametrize("titled", [False, True])
def test_saving_recovered_text_leaves_no_side_file(
    qtbot: QtBot, settings: QSettings, tmp_path: Path, titled: bool
) -> None:
    recovery = tmp_path / "recovery"
    document = tmp_path / "essay.md"
    document.write_text("Old words.\n", encoding="utf-8")
    crashed = _window(qtbot, settings, recovery)
    if titled:
        assert crashed.load_file(document)
    qtbot.keyClicks(crashed.editor, "Words written before the crash. ")
    crashed.document.write_recovery()
    crashed.document.autosave.stop()
    crashed.document.recovery_folder = tmp_path / "elsewhere"  # the "crash": this window keeps nothing
    crashed.document.confirm_discard = lambda: True

    window = _window(qtbot, settings, recovery)
    window.document.confirm_recovery = lambda _question: True
    assert window.document.offer_recovery_at_start() is not None
    assert "Words written before the crash." in window.editor.toPlainText()
    assert [p.endswith(".md.seen") for p in _left(recovery)] == [True]  # set aside while unsaved

    assert window.document.save_to(document)
    assert document.read_text(encoding="utf-8").startswith("Words written before the crash.")
    assert _left(recovery) == []  # saved means no side file left behind
    assert window.close()  # nothing unsaved: not asked


def test_a_declined_copy_stays_until_its_document_is_saved(
    qtbot: QtBot, settings: QSettings, tmp_path: Path
) -> None:
    """Saying no by mistake loses nothing (the copy is set aside, kept); once the writer saves that
    document, its copies go."""
    recovery = tmp_path / "recovery"
    document = tmp_path / "essay.md"
    document.write_text("Old words.\n", encoding="utf-8")
    first = _window(qtbot, settings, recovery)
    assert first.load_file(document)
    qtbot.keyClicks(first.editor, "Unsaved. ")
    first.document.write_recovery()
    first.document.autosave.stop()
    first.document.recovery_folder = tmp_path / "elsewhere"
    first.document.confirm_discard = lambda: True

    window = _window(qtbot, settings, recovery)
    window.document.confirm_recovery = lambda _question: False
    assert window.load_file(document)
    assert window.editor.toPlainText() == "Old words.\n"
    assert [p.endswith(".md.seen") for p in _left(recovery)] == [True]  # kept
    qtbot.keyClicks(window.editor, "New. ")
    assert window.document.save()
    assert _left(recovery) == []


def test_a_fix_undone_leaves_no_copy_to_offer_back(qtbot: QtBot, settings: QSettings, tmp_path: Path) -> None:
    """Apply a fix, undo it, quit: the text equals the saved file, so the next start offers nothing
    as "unsaved" (issue 43 #6) — whether the autosave ran while the fix stood or not."""
    recovery = tmp_path / "recovery"
    document = tmp_path / "essay.md"
    document.write_text(
        "Coffee lowers the risk of diabetes [1, 7].\n\n## References\n\n[1] A. https://a.example/x\n",
        encoding="utf-8",
    )
    window = _window(qtbot, settings, recovery)
    window.document.confirm_discard = window.document._ask_discard  # as the writer has it
    audited(qtbot, window, lambda: window.load_file(document))
    assert window.report is not None
    [fabricated] = [f for f in window.report.findings if f.kind is Kind.FABRICATED]
    window.apply_fix(fabricated, fabricated.fixes[0])
    assert "[7]" not in window.editor.toPlainText()
    window.document.write_recovery()  # the autosave ran while the fix stood
    assert len(_left(recovery)) == 1
    window.editor.undo()
    assert window.editor.toPlainText() == document.read_text(encoding="utf-8")
    asked: list[str] = []

    def cancel() -> str:
        asked.append("asked")
        return "cancel"

    window.document.ask_unsaved = cancel
    window.audits.debounce.stop()
    assert window.close()  # nothing unsaved: not asked, and the copy goes
    assert asked == []
    assert _left(recovery) == []

    again = _window(qtbot, settings, recovery)
    offered: list[str] = []

    def accept(question: str) -> bool:
        offered.append(question)
        return True

    again.document.confirm_recovery = accept
    assert again.load_file(document)
    assert again.document.offer_recovery_at_start() is None
    assert offered == []
    assert not again.windowTitle().startswith("*")
