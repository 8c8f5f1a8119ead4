"""A window killed with SIGKILL leaves nothing running: its audit process and the resource tracker
multiprocessing started for it end within seconds (the audit process asks the kernel for a
parent-death signal and also watches its parent; the tracker ends when no one holds its pipe)."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import pytest

from tests.conftest import REPO, SAMPLES

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc (Linux)")


def children_of(pid: int) -> set[int]:
    """Every process descended from `pid` (read from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def running(pid: int) -> bool:
    """Alive and not a zombie waiting to be collected."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2 :].split()[0] not in ("Z", "X")


def read_line(stream: IO[str] | None, timeout: float) -> str:
    assert stream is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([stream], [], [], deadline - time.monotonic())
        if ready:
            return stream.readline()
    raise AssertionError(f"nothing from the window in {timeout} s")


@pytest.mark.slow
def test_a_killed_window_leaves_no_worker_alive_within_10_seconds(tmp_path: Path) -> None:
    document = tmp_path / "problems.md"
    shutil.copy(SAMPLES / "problems.md", document)
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    with subprocess.Popen(
        [sys.executable, "-m", "tests.reliability.window_child", str(document), str(tmp_path / "s.ini")],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
        env=environment,
    ) as window:
        try:
            line = read_line(window.stdout, 180)
            worker = int(line.split()[-1])
            workers = children_of(window.pid)
            assert worker in workers  # the audit process, started by the window
            assert all(running(pid) for pid in workers)
            os.kill(window.pid, signal.SIGKILL)
            window.wait(timeout=30)
        finally:
            window.kill()
    assert window.returncode == -signal.SIGKILL
    deadline = time.monotonic() + 10
    while any(running(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [pid for pid in workers if running(pid)]
    assert not left, f"still running 10 s after the window was killed: {left}"
