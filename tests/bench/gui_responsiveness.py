"""The worst GUI-thread stall while the window audits a 20,000-word and a 100,000-word document
(figures, not a test; issue 26's target: no stall over 50 ms).

A 10 ms timer runs on the GUI thread while the window audits; its worst lateness is the longest the
editor could not respond. The documents are made as `tests.bench.scaling` makes them (10 local
sources, heuristic judge, offline), plus one citation of a reference they do not list, so the
structure stage has a finding to paint at once. A small document is audited first (the audit
process starts, imports the stages and loads the embedding model; the sources are read and
embedded), so each big document's figure is its own. For each: the time to open it (reading the
file and putting it in the editor, which is not the audit's), the worst stall after that until its
audit is done and what happened just before it, the time to the first findings painted (staged)
and to the report. Then one sentence of the last document is edited and audited again. The last
line is JSON.

    xvfb-run -a .venv/bin/python -m tests.bench.gui_responsiveness [WORDS ...]   (or QT_QPA_PLATFORM=offscreen)
"""

from __future__ import annotations

import functools
import gc
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

started = time.perf_counter()
from PySide6.QtCore import QEventLoop, QSettings, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from citedesk.desk import AuditOptions  # noqa: E402
from citedesk.gui.app import when_ready  # noqa: E402
from citedesk.gui.main_window import MainWindow  # noqa: E402
from tests.bench.audit_speed import make_corpus  # noqa: E402

SIZES = (20_000, 100_000)
TICK_MS = 10
AFTER_MS = 500
"""How long the ticks go on after the report is shown."""


@dataclass
class Run:
    label: str
    opened_ms: float = 0.0
    """The action itself (opening the file: reading it, putting it in the editor)."""
    took_s: float = 0.0
    first_paint_s: float | None = None
    worst_ms: float = 0.0
    worst_after: str = ""
    over_50: int = 0
    ticks: int = 0
    events: list[tuple[float, str]] = field(default_factory=list)


def document(folder: Path, sources: Path, words: int) -> Path:
    text = make_corpus(sources, sources=10, words=words)
    text = text.replace("\n\n## References", " A figure no reference gives [99].\n\n## References", 1)
    path = folder / f"doc{words}.md"
    path.write_text(text, encoding="utf-8")
    return path


class Timed:
    """The longest calls of the window's paints (GUI thread) and the longest pauses of Python's
    cycle collector: where a stall comes from."""

    def __init__(self, window: MainWindow) -> None:
        self.longest: dict[str, float] = {}
        staged = getattr(window, "staged", None)  # (None: a checkout from before staged results)
        if staged is not None:
            staged._paint = self.wrap("staged paint", staged._paint)
        observers = window.state._observers["report"]
        observers[:] = [self.wrap("report paint", callback) for callback in observers]
        self._collecting = 0.0
        gc.callbacks.append(self._collection)

    def _collection(self, phase: str, info: dict[str, int]) -> None:
        """Python's cycle collector, on whichever thread set it off, holds the GIL while it runs."""
        if phase == "start":
            self._collecting = time.perf_counter()
            return
        name = f"gc gen{info['generation']}"
        took = (time.perf_counter() - self._collecting) * 1000
        self.longest[name] = max(self.longest.get(name, 0.0), took)

    def wrap(self, name: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any) -> Any:
            began = time.perf_counter()
            result = call(*args)
            took = (time.perf_counter() - began) * 1000
            self.longest[name] = max(self.longest.get(name, 0.0), took)
            return result

        return timed

    def take(self) -> str:
        said = ", ".join(f"{name} {ms:.0f} ms" for name, ms in sorted(self.longest.items()))
        self.longest.clear()
        return said


def measure(window: MainWindow, label: str, action: Callable[[], object], timed: Timed) -> Run:
    """Run `action` (which starts an audit) and the event loop until the audit is done."""
    run = Run(label)
    now = time.perf_counter
    last = [now()]
    lateness: list[tuple[float, float]] = []

    def on_tick() -> None:
        t = now()
        lateness.append((t, max(0.0, (t - last[0]) * 1000 - TICK_MS)))
        last[0] = t

    tick = QTimer()
    tick.setInterval(TICK_MS)
    tick.timeout.connect(on_tick)
    loop = QEventLoop()
    audits = window.audits

    def finished(_report: object) -> None:
        run.events.append((now(), "report shown"))
        run.took_s = now() - began
        # the report was painted before this signal (the window observes the state): keep ticking a
        # while, or that paint's stall (and the sliced marks after it) would never be measured
        QTimer.singleShot(AFTER_MS, lambda: (tick.stop(), loop.quit()))  # type: ignore[func-returns-value]

    def failed(failure: object) -> None:
        print(failure)
        finished(None)

    hooks: list[tuple[Any, Callable[..., None]]] = [
        (audits.progress, lambda stage, done, total: run.events.append((now(), f"{stage} {done}/{total}"))),
        (audits.audit_finished, finished),
        (audits.audit_failed, failed),
    ]
    if hasattr(audits, "stage_done"):
        hooks.append(
            (audits.stage_done, lambda stage, count: run.events.append((now(), f"stage {stage} ({count})")))
        )
    for signal, slot in hooks:
        signal.connect(slot)
    staged = getattr(window, "staged", None)
    painted_before = staged.painted if staged is not None else None
    began = now()
    action()
    run.opened_ms = (now() - began) * 1000
    last[0] = now()
    tick.start()
    paint_check = QTimer()
    paint_check.setInterval(5)

    def painted() -> None:
        if run.first_paint_s is None and staged is not None and staged.painted is not painted_before:
            run.first_paint_s = now() - began

    paint_check.timeout.connect(painted)
    paint_check.start()
    loop.exec()
    paint_check.stop()
    for signal, slot in hooks:
        signal.disconnect(slot)
    run.ticks = len(lateness)
    run.over_50 = sum(1 for _, late in lateness if late > 50)
    if lateness:
        at, run.worst_ms = max(lateness, key=lambda item: item[1])
        before = [name for t, name in run.events if t <= at]
        run.worst_after = before[-1] if before else "(opening)"
    first = f"{run.first_paint_s:.2f} s" if run.first_paint_s is not None else "none"
    print(
        f"{label}: opened in {run.opened_ms:.0f} ms; audited {run.took_s:.1f} s; first findings painted {first}; "
        f"worst stall {run.worst_ms:.0f} ms (after: {run.worst_after}); ticks >50 ms late: {run.over_50} of "
        f"{run.ticks}; longest: {timed.take()}",
        flush=True,
    )
    return run


def edit_one_sentence(window: MainWindow) -> None:
    """Type a word into the first sentence, as the writer would, and audit now (not after the pause)."""
    cursor = window.editor.textCursor()
    cursor.setPosition(window.editor.toPlainText().index(" ") + 1)
    cursor.insertText("measured ")
    window.audits.start()


def main(sizes: tuple[int, ...]) -> None:
    app = QApplication(sys.argv)
    folder = Path(tempfile.mkdtemp())
    sources = folder / "sources"
    sources.mkdir()
    settings = QSettings(str(folder / "s.ini"), QSettings.Format.IniFormat)
    options = AuditOptions(
        offline=True, judge="heuristic", sources_dir=sources, store_path=folder / "store.db"
    )
    window = MainWindow(options, settings)
    window.document.confirm_discard = lambda: True
    window.resize(1200, 800)
    window.show()
    app.processEvents()
    print(f"window shown {time.perf_counter() - started:.2f} s after the first import", flush=True)
    platform = os.environ.get("QT_QPA_PLATFORM") or "xcb"
    print(f"platform {platform}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}", flush=True)
    primer = document(folder, sources, 300)
    timed = Timed(window)
    measure(
        window,
        "primer, 300 words (cold: the embedder loads, the sources are read)",
        lambda: when_ready(lambda: window.load_file(primer), window),  # as `citedesk open`
        timed,
    )
    runs = []
    for size in sizes:
        opening = functools.partial(window.load_file, document(folder, sources, size))
        runs.append(measure(window, f"{size:,} words, first audit", opening, timed))
    edit = functools.partial(edit_one_sentence, window)
    runs.append(measure(window, f"{sizes[-1]:,} words, one sentence edited", edit, timed))
    window.close()  # stops the audit process
    figures: dict[str, float | None] = {}
    for words, run in zip([*map(str, sizes), f"{sizes[-1]}_edit"], runs, strict=True):
        figures[f"audit_s_{words}"] = round(run.took_s, 2)
        figures[f"first_paint_s_{words}"] = (
            round(run.first_paint_s, 2) if run.first_paint_s is not None else None
        )
        figures[f"worst_stall_ms_{words}"] = round(run.worst_ms)
        figures[f"open_ms_{words}"] = round(run.opened_ms)
    figures["worst_stall_ms"] = round(max(run.worst_ms for run in runs))
    print(json.dumps(figures))
    app.quit()


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or SIZES)
