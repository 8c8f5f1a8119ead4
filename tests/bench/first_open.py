"""The first open of a document: how long the GUI thread is held (figures, not a test; issue 28).

A window is shown as `citedesk open` shows it (the store imported on a thread first, `when_ready`);
then a document is opened, and a 5 ms timer on the GUI thread measures its worst lateness until the
first audit's report is on screen: the longest the editor could not respond — before the audit
starts (opening: the file, the recovery copies, the settings, the store) and after (the audit's
findings painted as they come, then the report). The synchronous part
of `load_file` (what the writer waits for before the text appears) is timed on its own, and with
`--profile` its slowest calls are listed, to find what still runs on the GUI thread.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.bench.first_open [--words N] [--profile]

Each run starts in a fresh process with an empty data folder (recovery copies, settings, store), so
"first" is the first open of a session, as a writer meets it.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path

TICK_MS = 5
SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"


def _document(folder: Path, words: int) -> Path:
    """The evidence sample with its local sources, its prose repeated to about `words` words."""
    shutil.copytree(SAMPLES / "sources", folder / "sources")
    text = (SAMPLES / "evidence.md").read_text(encoding="utf-8")
    body, _, references = text.partition("\n## References")
    repeats = max(1, words // max(1, len(body.split())))
    path = folder / "first.md"
    path.write_text("\n\n".join([body] * repeats) + "\n## References" + references, encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=1_000, help="about how long the document is")
    parser.add_argument("--profile", action="store_true", help="list the slowest calls of load_file")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="citedesk-first-open-"))
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["XDG_DATA_HOME"] = str(folder / "data")  # no recovery copies of the writer's own
    os.environ["XDG_CONFIG_HOME"] = str(folder / "config")
    os.environ["CITEDESK_ONNX"] = "off"
    try:
        print(json.dumps(measure(folder, args.words, profile=args.profile)))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def measure(folder: Path, words: int, *, profile: bool = False) -> dict[str, float | int]:
    from PySide6.QtCore import QElapsedTimer, QEventLoop, QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from citedesk.desk import AuditOptions
    from citedesk.gui.app import when_ready
    from citedesk.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv)
    path = _document(folder, words)
    settings = QSettings(str(folder / "s.ini"), QSettings.Format.IniFormat)
    options = AuditOptions(offline=True, judge="heuristic", dense=False, store_path=folder / "store.db")
    window = MainWindow(options, settings)
    window.document.recovery_folder = folder / "recovery"
    window.show()
    ready = QEventLoop()
    when_ready(ready.quit, window)
    ready.exec()  # the store imported, as `citedesk open` waits for it
    app.processEvents()

    clock = QElapsedTimer()
    lateness: list[tuple[bool, int]] = []
    started: list[int] = []
    tick = QTimer()
    tick.setInterval(TICK_MS)
    tick.timeout.connect(lambda: lateness.append((bool(started), max(0, clock.restart() - TICK_MS))))
    window.audits.audit_started.connect(lambda: started.append(len(lateness)))
    done = QEventLoop()
    window.audits.audit_finished.connect(lambda _report: done.quit())
    window.audits.audit_failed.connect(lambda _failure: done.quit())
    profiler = cProfile.Profile() if profile else None
    clock.start()
    tick.start()
    began = time.perf_counter()
    if profiler:
        profiler.enable()
    window.load_file(path)
    if profiler:
        profiler.disable()
    synchronous = time.perf_counter() - began
    done.exec()
    tick.stop()
    took = time.perf_counter() - began
    window.document.confirm_discard = lambda: True
    window.close()
    if profiler:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
        print(out.getvalue(), file=sys.stderr)
    return {
        "words": len(path.read_text(encoding="utf-8").split()),
        "load_file_ms": round(synchronous * 1000, 1),
        "worst_stall_opening_ms": max((x for after, x in lateness if not after), default=0),
        "worst_stall_auditing_ms": max((x for after, x in lateness if after), default=0),
        "ticks_over_50ms": sum(1 for _after, x in lateness if x > 50),
        "to_report_s": round(took, 2),
    }


if __name__ == "__main__":
    main()
