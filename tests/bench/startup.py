"""How long `citedesk` takes to show its window, from the moment the process is launched (figures,
not a test).

Each run starts a fresh Python process that does what `citedesk` with no command does — import the
entry point and the CLI, then the window, create it and show it — and prints a line once the
window is exposed on screen; the time is taken here, from just before the launch to that line,
so the interpreter's own start and every import are in it. No audit starts (no document), as at a
bare start. Runs 1 is "cold" only as far as the OS file cache is: run the script twice for a
cold figure after a reboot.

    xvfb-run -a .venv/bin/python -m tests.bench.startup [RUNS]     (or QT_QPA_PLATFORM=offscreen)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHILD = """
import sys, time
started = time.perf_counter()
import citedesk.main, citedesk.cli  # what `citedesk` imports before it opens the window
from citedesk.gui.main_window import MainWindow
from citedesk.gui.qt import QApplication, QSettings
from citedesk.gui.dialogs.settings_dialog import apply_theme
app = QApplication(sys.argv)
window = MainWindow(settings=QSettings(sys.argv[1], QSettings.Format.IniFormat))
apply_theme("system")
window.show()
while window.windowHandle() is None or not window.windowHandle().isExposed():
    app.processEvents()
app.processEvents()
print(f"shown {time.perf_counter() - started:.3f}", flush=True)
"""


def one_run(settings: Path) -> tuple[float, float]:
    """(seconds from launch to a visible window, seconds of it inside Python after start-up)."""
    launched = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(settings)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    visible = time.perf_counter() - launched
    child.kill()
    child.wait()
    return visible, float(line.split()[1])


def main(runs: int) -> None:
    platform = os.environ.get("QT_QPA_PLATFORM") or ("xcb" if os.environ.get("DISPLAY") else "default")
    with tempfile.TemporaryDirectory() as folder:
        settings = Path(folder) / "settings.ini"
        figures = [one_run(settings) for _ in range(runs)]
    visible = [v for v, _ in figures]
    inside = [i for _, i in figures]
    print(f"platform {platform}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, {runs} runs")
    print(
        f"launch → window visible: median {statistics.median(visible):.2f} s "
        f"(min {min(visible):.2f}, max {max(visible):.2f}); first run {visible[0]:.2f} s"
    )
    print(
        f"of which after the interpreter started (imports, window, first paint): median "
        f"{statistics.median(inside):.2f} s"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
