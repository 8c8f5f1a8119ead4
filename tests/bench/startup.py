"""How long `citedesk` takes to show its window, from the moment the process is launched (figures,
not a test), and how soon `citedesk audit --format jsonl` prints its first finding.

Each run starts a fresh Python process that does what `citedesk` with no command does — import the
entry point and the CLI, then the window, create it and show it — and prints a line once the
window is exposed on screen; the time is taken here, from just before the launch to that line,
so the interpreter's own start and every import are in it. No audit starts (no document), as at a
bare start. Runs 1 is "cold" only as far as the OS file cache is: run the script twice for a
cold figure after a reboot.

`first_finding_s` (issue 26): from launching `citedesk audit DOC --format jsonl` in a fresh process to
the line of the structure stage that holds a finding, on the 1,000-word document of
`tests.bench.audit_speed` (plus one citation of a reference it does not list, so that stage has a
finding to print); offline, heuristic judge. The last line printed is JSON with both figures.

    xvfb-run -a .venv/bin/python -m tests.bench.startup [RUNS]     (or QT_QPA_PLATFORM=offscreen)
"""

from __future__ import annotations

import json
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


def first_finding(runs: int = 3) -> dict[str, float]:
    """Seconds from launching `citedesk audit --format jsonl` to its first structural finding, and to
    the end of the audit (medians of `runs` fresh processes; the store is warm after the first)."""
    from tests.bench.audit_speed import make_corpus  # only this figure needs it

    firsts: list[float] = []
    totals: list[float] = []
    peaks: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "sources").mkdir()
        text = make_corpus(root / "sources", sources=10, words=1000)
        text = text.replace("\n\n## References", " A figure no reference gives [99].\n\n## References", 1)
        document = root / "doc.md"
        document.write_text(text, encoding="utf-8")
        command = [
            sys.executable, "-m", "citedesk.main", "audit", str(document), "--format", "jsonl",
            "--offline", "--judge", "heuristic", "--sources", str(root / "sources"),
        ]  # fmt: skip
        environment = {  # its own store and no user settings (the models are installed packages)
            **os.environ,
            "XDG_DATA_HOME": str(root / "data"),
            "XDG_CONFIG_HOME": str(root / "config"),
            "CITEDESK_CONFIG": "",
        }
        for _ in range(runs):
            launched = time.perf_counter()
            child = subprocess.Popen(
                command,
                cwd=root,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                env=environment,
            )
            assert child.stdout is not None
            first = None
            for line in child.stdout:
                if first is None and json.loads(line).get("findings"):
                    first = time.perf_counter() - launched
            _, _, usage = os.wait4(child.pid, 0)  # the child's own peak memory, not this process's
            child.returncode = 0
            totals.append(time.perf_counter() - launched)
            peaks.append(usage.ru_maxrss / 1024)
            firsts.append(first if first is not None else float("nan"))
    return {
        "first_finding_s": round(statistics.median(firsts), 3),
        "first_finding_cold_s": round(firsts[0], 3),
        "jsonl_audit_s": round(statistics.median(totals), 3),
        "cold_audit_s": round(statistics.median(totals), 3),
        "peak_rss_mb": round(max(peaks)),
    }


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
    streamed = first_finding()
    print(
        f"audit --format jsonl, 1,000 words: first structural finding {streamed['first_finding_s']:.2f} s "
        f"(first run {streamed['first_finding_cold_s']:.2f} s), whole audit {streamed['jsonl_audit_s']:.2f} s"
    )
    print(json.dumps({"window_visible_s": round(statistics.median(visible), 3), **streamed}))


if __name__ == "__main__":
    if sys.argv[1:2] == ["first-finding"]:
        print(json.dumps(first_finding(int(sys.argv[2]) if len(sys.argv) > 2 else 3)))
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
