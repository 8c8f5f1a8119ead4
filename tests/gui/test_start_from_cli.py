"""`citedesk draft.md` through the real entry point: the window opens on the document (and
`citedesk a.md b.md` opens one window each).

Each run is a fresh process (offscreen Qt), as a writer's would be: the entry point makes and runs
the application's own event loop (`app.run` calls `exec`), which must not share a process with the
other window tests (a loop ended by `quit` leaves the application in a state later tests would
inherit). A timer in that process watches the windows, prints the document each one shows, closes
them and quits; the test reads what it printed and checks that the process ended cleanly, leaving
no audit process behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

GIVE_UP_S = 60

RUN = """
import json, sys, time
from citedesk.gui.qt import QApplication, QTimer
from citedesk.gui.main_window import MainWindow
import citedesk.main as entry

app = QApplication(sys.argv[:1])  # the entry point uses the application there is (app.run)
want, started = int(sys.argv[1]), time.monotonic()
watch = QTimer()
watch.setInterval(50)

def check():
    windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
    shown = [str(w.document.session.path) for w in windows if w.document.session.path is not None]
    if len(shown) < want and time.monotonic() - started < GIVE_UP_S:
        return
    watch.stop()
    print("SHOWN " + json.dumps(shown), flush=True)
    for window in windows:
        window.document.confirm_discard = lambda: True
        window.close()
    QApplication.quit()

watch.timeout.connect(check)
watch.start()
code = entry.main(sys.argv[2:])
import multiprocessing
print("LEFT " + str(len(multiprocessing.active_children())), flush=True)  # audit processes still running
sys.exit(code)
""".replace("GIVE_UP_S", str(GIVE_UP_S))


def _document(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text(f"# {name}\n\nA sentence with no citation in {name}.\n", encoding="utf-8")
    return path


def _run(tmp_path: Path, paths: list[Path]) -> tuple[int, list[str]]:
    """`citedesk PATH…` in a fresh process; its exit code and the documents its windows showed."""
    settings = tmp_path / "config.toml"  # the user's settings: offline, words only
    settings.write_text('offline = true\njudge = "heuristic"\ndense = false\n', encoding="utf-8")
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "CITEDESK_CONFIG": str(settings),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),  # the window's QSettings, not the user's
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
    }
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(len(paths)), *map(str, paths)],
        capture_output=True,
        text=True,
        env=env,
        timeout=GIVE_UP_S + 60,
        check=False,
    )
    shown = next((line for line in done.stdout.splitlines() if line.startswith("SHOWN ")), "SHOWN []")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "LEFT 0" in done.stdout.splitlines()  # the windows' audit processes ended with them
    return done.returncode, json.loads(shown.removeprefix("SHOWN "))


def test_a_bare_path_opens_the_window_on_that_document(tmp_path: Path) -> None:
    draft = _document(tmp_path, "draft.md")
    code, seen = _run(tmp_path, [draft])
    assert code == 0
    assert seen == [str(draft.resolve())]


def test_two_paths_open_two_windows_one_document_each(tmp_path: Path) -> None:
    first, second = _document(tmp_path, "one.md"), _document(tmp_path, "two.md")
    code, seen = _run(tmp_path, [first, second])
    assert code == 0
    assert sorted(seen) == sorted([str(first.resolve()), str(second.resolve())])
