"""`citedesk batch --engine ray --address ADDR` on a two-node local cluster (issue 42): a head and a
worker node started with `ray start`, the worker node with a HOME of its own (so not the parent's
store), gives the same findings as the local engine, and each source is fetched once.

Both nodes are started with `--block`, each in a session of its own, and stopped by those handles
(their process groups), never by `ray stop` (which ends every Ray on the machine by name)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from citedesk.desk import Desk
from citedesk.desk.corpus_ray import ray_installed
from citedesk.desk.corpus_run import run_corpus
from tests.desk.test_batch import _Sources, corpus, options, sources  # noqa: F401

START_LIMIT_S = 300
"""`ray start` takes 10-30 s on two loaded cores; this bounds a hang."""
ADDRESS = re.compile(r"--address='([^']+)'")


class _Node:
    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        ray = str(Path(sys.executable).with_name("ray"))
        self.process = subprocess.Popen(
            [ray, "start", "--block", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    def wait_for(self, pattern: re.Pattern[str]) -> str:
        deadline = time.monotonic() + START_LIMIT_S
        while time.monotonic() < deadline and self.process.poll() is None:
            for line in list(self.lines):
                found = pattern.search(line)
                if found:
                    return found.group(1) if pattern.groups else line
            time.sleep(0.5)
        raise AssertionError("ray start did not start:\n" + "".join(self.lines))

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=60)
        with contextlib.suppress(ProcessLookupError):  # what the node started, in its session
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=60)
        self.reader.join(timeout=60)
        if self.process.stdout is not None:
            self.process.stdout.close()


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # this process joins it as a driver, as the nodes do
    temp = tempfile.mkdtemp(prefix="cdray", dir="/tmp")  # Ray's socket paths must stay short
    head_home, worker_home = tmp_path / "head-home", tmp_path / "worker-home"
    head_home.mkdir()
    worker_home.mkdir()
    # a test cluster on loopback, without Ray's token (a local `ray.init()` earlier in this process
    # turns RAY_AUTH_MODE to "token" for its children, and these nodes have no token to show)
    base = {
        **os.environ,
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_AUTH_MODE": "disabled",
        "PYTHONPATH": os.getcwd(),
    }
    nodes: list[_Node] = []
    try:
        head = _Node(
            [
                "--head",
                "--port=0",
                "--node-ip-address=127.0.0.1",
                f"--temp-dir={temp}",
                "--num-cpus=1",
                "--include-dashboard=false",
            ],
            {**base, "HOME": str(head_home)},
        )
        nodes.append(head)
        address = head.wait_for(ADDRESS)
        worker = _Node(
            [f"--address={address}", "--node-ip-address=127.0.0.1", "--num-cpus=1"],
            {**base, "HOME": str(worker_home)},
        )
        nodes.append(worker)
        worker.wait_for(re.compile(r"(Ray runtime started)"))
        yield address
    finally:
        for node in reversed(nodes):
            node.stop()
        shutil.rmtree(temp, ignore_errors=True)


@pytest.mark.ray
@pytest.mark.slow
@pytest.mark.skipif(not ray_installed(), reason="Ray is not installed (pip install 'citedesk[scale]')")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # Ray Data's own, about its own settings
@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_a_two_node_cluster_gives_what_the_local_engine_gives(
    tmp_path: Path,
    sources: str,  # noqa: F811
    cluster: str,
) -> None:
    root = corpus(tmp_path, sources)
    (tmp_path / "ray").mkdir()
    on_ray = run_corpus(
        Desk(options(tmp_path / "ray")),
        [root],
        tmp_path / "ray" / "out",
        workers=2,
        engine="ray",
        address=cluster,
    )
    assert {p: n for p, n in _Sources.hits.items() if p.startswith("/src/")} == {
        f"/src/{n}": 1 for n in range(6)
    }
    (tmp_path / "local").mkdir()
    local = run_corpus(Desk(options(tmp_path / "local")), [root], tmp_path / "local" / "out", workers=1)
    assert on_ray.outcomes == local.outcomes
    for report in sorted((tmp_path / "local" / "out" / "reports").rglob("*.json")):
        name = report.relative_to(tmp_path / "local" / "out")
        assert (tmp_path / "ray" / "out" / name).read_bytes() == report.read_bytes(), name
    assert not list((tmp_path / "worker-home").rglob("*.sqlite3"))  # the worker node opened no store
