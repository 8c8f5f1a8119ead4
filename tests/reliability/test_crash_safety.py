"""Killing CiteDesk in the middle of a save or an autosave never loses the writer's text.

A real window runs in a child process, writing ~2.5 MB versions of a document in a loop; the test
kills it (SIGKILL: no clean-up runs) at different moments inside a write. Afterwards the document
is exactly one complete version — the last one finished or the one being written — never a torn
mix, and an autosaved copy is offered back by a new window.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from citedesk.desk.recovery import recovery_dir
from citedesk.gui.main_window import MainWindow
from citedesk.pipeline import AuditOptions
from tests.conftest import REPO
from tests.reliability.crash_child import version

DELAYS = (0.0, 0.001, 0.003, 0.006, 0.012)
"""Seconds between the child announcing a write and the kill: early, middle and late in it."""


def kill_during_a_write(mode: str, document: Path, settings: Path, delay: float) -> int:
    """Run the child until it starts its third write, kill it `delay` s later; the last version it
    finished writing."""
    finished = 0
    with subprocess.Popen(
        [sys.executable, "-m", "tests.reliability.crash_child", mode, str(document), str(settings)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    ) as child:
        assert child.stdout is not None
        try:
            for line in child.stdout:
                word, number = line.split()
                if word == "wrote":
                    finished = int(number)
                elif int(number) >= 3:
                    time.sleep(delay)
                    child.kill()
                    break
        finally:
            child.kill()
            child.wait(timeout=30)
    assert child.returncode == -9  # killed, not finished or crashed by itself
    return finished


@pytest.mark.slow
@pytest.mark.parametrize("delay", DELAYS)
def test_killed_mid_save_leaves_one_whole_version(tmp_path: Path, delay: float) -> None:
    document = tmp_path / "draft.md"
    document.write_text(version(0), encoding="utf-8")
    finished = kill_during_a_write("save", document, tmp_path / "settings.ini", delay)
    on_disk = document.read_text(encoding="utf-8")
    assert on_disk in (version(finished), version(finished + 1)), "the document is torn"
    # leftovers of the interrupted write are hidden temporary files, never the document
    assert {p.name for p in tmp_path.iterdir() if not p.name.startswith(".")} <= {"draft.md", "settings.ini"}


@pytest.mark.slow
@pytest.mark.gui
def test_killed_mid_autosave_the_text_is_offered_back(qtbot: QtBot, tmp_path: Path) -> None:
    document = tmp_path / "draft.md"  # never saved by the child: only the recovery copy is written
    window = MainWindow(
        AuditOptions(check_sources=False, judge="none"),
        QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat),
    )
    window.document.confirm_discard = lambda: True
    window.document.confirm_recovery = lambda question: "unsaved text" in question
    qtbot.addWidget(window)
    for delay in DELAYS[::2]:
        finished = kill_during_a_write("autosave", document, tmp_path / "settings.ini", delay)
        copies = list(recovery_dir().glob("*.md"))
        assert len(copies) == 1
        body = copies[0].read_text(encoding="utf-8").split("\n", 1)[1]
        assert body in (version(finished), version(finished + 1)), "the recovery copy is torn"

        kept = window.document.offer_recovery_at_start()
        assert kept is not None
        assert window.editor.toPlainText() == body
        assert window.editor.document().isModified()  # recovered text is unsaved text
        assert not document.exists()
        for seen in recovery_dir().glob("*.md.seen"):
            seen.unlink()
    window.audits.debounce.stop()  # no audit of the recovered text: this test is about the text
    window.editor.document().setModified(False)
