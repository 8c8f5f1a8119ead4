"""Window start-up time and the worst GUI-thread stall during a full audit (figures, not a test).

A 10 ms timer runs on the GUI thread while the window audits the evidence sample (first run: the
worker imports torch and loads the embedding model); its worst lateness is the longest the editor
could not respond.

    xvfb-run -a .venv/bin/python -m tests.bench.gui_responsiveness    (or QT_QPA_PLATFORM=offscreen)
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

started = time.perf_counter()
from PySide6.QtCore import QElapsedTimer, QEventLoop, QSettings, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from citedesk.desk import AuditOptions  # noqa: E402
from citedesk.gui.app import when_ready  # noqa: E402
from citedesk.gui.main_window import MainWindow  # noqa: E402

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"


def main() -> None:
    app = QApplication(sys.argv)
    folder = Path(tempfile.mkdtemp())
    shutil.copytree(SAMPLES / "sources", folder / "sources")
    shutil.copy(SAMPLES / "evidence.md", folder / "evidence.md")
    settings = QSettings(str(folder / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(
        AuditOptions(offline=True, judge="heuristic", store_path=folder / "store.db"), settings
    )
    window.show()
    app.processEvents()
    shown = time.perf_counter() - started
    print(f"window shown {shown:.2f} s after the first import (Qt and CiteDesk imports included)")

    measure(
        window,
        "first audit (cold: the audit process starts, loads torch and the embedding model)",
        lambda: when_ready(lambda: window.load_file(folder / "evidence.md"), window),  # as `citedesk open`
    )
    measure(window, "audit after editing one sentence (warm)", lambda: edit_one_sentence(window))
    window.document.confirm_discard = lambda: True
    window.close()  # stops the audit process


def edit_one_sentence(window: MainWindow) -> None:
    """Type a word into the first sentence, as the writer would, and audit now (not after the pause)."""
    cursor = window.editor.textCursor()
    cursor.setPosition(window.editor.toPlainText().index(" ") + 1)
    cursor.insertText("measured ")
    window.audits.start()


def measure(window: MainWindow, label: str, action: Callable[[], object]) -> None:
    clock = QElapsedTimer()
    lateness: list[float] = []
    tick = QTimer()
    tick.setInterval(10)

    def on_tick() -> None:
        elapsed = clock.restart()
        lateness.append(max(0.0, elapsed - 10))

    tick.timeout.connect(on_tick)
    audit_started = time.perf_counter()
    clock.start()
    tick.start()
    loop = QEventLoop()

    def finished(_report: object) -> None:
        tick.stop()
        loop.quit()

    window.audits.audit_finished.connect(finished)
    action()
    loop.exec()
    window.audits.audit_finished.disconnect(finished)
    took = time.perf_counter() - audit_started
    worst = max(lateness) if lateness else 0.0
    over = sum(1 for x in lateness if x > 50)
    print(
        f"{label}: {took:.1f} s; worst GUI-thread stall {worst:.0f} ms; ticks >50 ms late: {over} of {len(lateness)}"
    )


if __name__ == "__main__":
    main()
