"""`citedesk draft.md` through the real entry point: the window opens on the document (and
`citedesk a.md b.md` opens one window each). The event loop is the application's own (`app.run`
calls `exec`); a timer watches the windows, and closes them and quits once each shows its document."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

import citedesk.main as entry
from citedesk.gui.main_window import MainWindow
from citedesk.gui.qt import QApplication, QTimer

GIVE_UP_S = 60


@pytest.fixture(autouse=True)
def _offline_user_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The window `run` makes reads the user's settings file: offline, words only, no model offer."""
    settings = tmp_path / "config.toml"
    settings.write_text('offline = true\njudge = "heuristic"\ndense = false\n', encoding="utf-8")
    monkeypatch.setenv("CITEDESK_CONFIG", str(settings))


def _windows() -> list[MainWindow]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]


def _run_until_opened(paths: list[Path], want: int) -> tuple[int, list[Path | None]]:
    """`entry.main(paths)`, its loop ended once `want` windows show a document (or after GIVE_UP_S)."""
    seen: list[Path | None] = []
    started = time.monotonic()
    watch = QTimer()
    watch.setInterval(50)

    def check() -> None:
        windows = _windows()
        shown = [w.document.session.path for w in windows if w.document.session.path is not None]
        if len(shown) < want and time.monotonic() - started < GIVE_UP_S:
            return
        seen.extend(shown)
        watch.stop()
        for window in windows:
            window.document.confirm_discard = lambda: True
            window.close()
        QApplication.quit()

    watch.timeout.connect(check)
    watch.start()
    code = entry.main([str(p) for p in paths])
    return code, seen


def _children() -> set[int]:
    """The processes this one started that still run (an audit process; not the resource tracker)."""
    found = set()
    for proc in Path("/proc").iterdir():
        try:
            stat = (proc / "stat").read_text() if proc.name.isdigit() else ""
            argv = (proc / "cmdline").read_bytes() if stat else b""
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split() if stat else []
        ours = bool(fields) and int(fields[1]) == os.getpid() and fields[0] not in ("Z", "X")
        if ours and b"resource_tracker" not in argv:  # this process's own tracker lives as long as it
            found.add(int(proc.name))
    return found


def _no_new_children(before: set[int]) -> bool:
    deadline = time.monotonic() + 10
    while _children() - before and time.monotonic() < deadline:
        time.sleep(0.1)
    return not _children() - before


def _document(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text(f"# {name}\n\nA sentence with no citation in {name}.\n", encoding="utf-8")
    return path


def test_a_bare_path_opens_the_window_on_that_document(qtbot: QtBot, tmp_path: Path) -> None:
    draft = _document(tmp_path, "draft.md")
    before = _children()
    code, seen = _run_until_opened([draft], want=1)
    assert code == 0
    assert seen == [draft.resolve()]
    assert _no_new_children(before)  # the window's audit process ended with it


def test_two_paths_open_two_windows_one_document_each(qtbot: QtBot, tmp_path: Path) -> None:
    first, second = _document(tmp_path, "one.md"), _document(tmp_path, "two.md")
    before = _children()
    code, seen = _run_until_opened([first, second], want=2)
    assert code == 0
    assert sorted(map(str, seen)) == sorted([str(first.resolve()), str(second.resolve())])
    assert _no_new_children(before)
