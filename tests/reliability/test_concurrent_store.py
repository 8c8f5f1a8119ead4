"""The source store is shared: the window (and its audit process) and CLI runs use it at once.

Two CLI processes audit and record review decisions in a loop while the window re-audits an
edited document and records its own decisions, all in one SQLite file. Nothing may fail with
"database is locked", no decision may be lost, and the file must pass SQLite's integrity check.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from citedesk.core.review import Decision, document_key
from citedesk.desk import AuditOptions
from citedesk.gui.main_window import MainWindow
from citedesk.store import Store
from tests.conftest import REPO, SAMPLES

ROUNDS = 8


@pytest.mark.slow
@pytest.mark.gui
def test_window_and_cli_share_the_store(qtbot: QtBot, tmp_path: Path) -> None:
    folder = tmp_path / "doc"
    shutil.copytree(SAMPLES, folder)
    store_path = tmp_path / "store.sqlite3"
    options = AuditOptions(offline=True, judge="heuristic", dense=False, store_path=store_path)
    window = MainWindow(options, QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    window.document.confirm_discard = lambda: True
    qtbot.addWidget(window)
    document = folder / "evidence.md"
    with qtbot.waitSignal(window.audits.audit_finished, timeout=60_000):
        window.load_file(document)

    children = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.reliability.store_child",
                str(folder),
                str(store_path),
                str(ROUNDS),
            ],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    decided: dict[str, str] = {}
    try:
        for n in range(ROUNDS):
            window.editor.setPlainText(
                window.editor.toPlainText().replace("On calm", f"On calm (round {n})", 1)
            )
            with qtbot.waitSignal(window.audits.audit_finished, timeout=60_000):
                window.audits.start()
            assert window.report is not None
            assert "failed" not in window.stage.text().lower()
            window.findings.step(1)  # select the first finding, as F8 does
            finding = window.selected_finding()
            assert finding is not None
            window.review.decide(Decision.CONFIRMED if n % 2 else Decision.NEEDS_SOURCE)
            qtbot.waitUntil(lambda: window.ops.idle, timeout=30_000)  # kept on the store worker
            decided[window.report.key_of(finding)] = "confirmed" if n % 2 else "needs_source"
    finally:
        outputs = [child.communicate(timeout=300) for child in children]
    for child, (out, err) in zip(children, outputs, strict=True):
        assert child.returncode == 0, err
        assert "locked" not in err.lower()
        assert "Traceback" not in err
        rounds = [line.split() for line in out.splitlines()]
        assert len(rounds) == ROUNDS
        assert all(audit in ("0", "1") and review == "0" for audit, review in rounds)

    store = Store(store_path)
    try:
        assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = store.reviews(document_key(str(document)))
        assert {key: stored[key]["decision"] for key in decided} == decided  # the last decision on each
        cli_documents = set(folder.glob("cli-*.md"))
        assert len(cli_documents) == 2 * ROUNDS
        assert all(store.reviews(document_key(str(p))) for p in cli_documents)
    finally:
        store.close()
