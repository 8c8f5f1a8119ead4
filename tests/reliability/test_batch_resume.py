"""`kill -9` of `citedesk batch`, then the same command again (issue 42): the resumed run redoes at
most the documents that were in flight (≤ the number of workers), never those whose reports were
already written, and the killed run leaves no process behind.

Before, the manifest was written every few seconds and at the end: a run killed after writing 24
reports had recorded one, and the resumed run audited 23 of them again."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citedesk.desk.corpus_files import JOURNAL
from tests.conftest import REPO
from tests.reliability.test_hostile_batch import RUN_LIMIT_S, _alive, _descendants, _flags

WORKERS = 2
DOCUMENTS = 12


def _document(number: int) -> str:
    sentences = " ".join(
        f"Claim {number}.{i} says that cities with trees are cooler [{i % 20 + 1}]." for i in range(1500)
    )
    references = "\n".join(f"{n}. Author {n}. A study of streets {n}." for n in range(1, 21))
    return f"{sentences}\n\n## References\n\n{references}\n"


def _command(corpus: Path, tmp_path: Path) -> list[str]:
    flags = _flags(tmp_path, "--workers", str(WORKERS), "--no-sources")
    return [sys.executable, "-m", "citedesk", "batch", str(corpus), *flags]


def _written(out: Path) -> dict[str, int]:
    return {str(p.relative_to(out)): p.stat().st_mtime_ns for p in (out / "reports").glob("*.json")}


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the workers through Linux's /proc")
def test_a_killed_run_resumes_without_redoing_written_reports(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for number in range(DOCUMENTS):
        (corpus / f"doc{number:02}.md").write_text(_document(number), encoding="utf-8")
    out = tmp_path / "out"
    env = {**os.environ, "NO_COLOR": "1"}
    run = subprocess.Popen(
        _command(corpus, tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO, env=env
    )
    seen: dict[int, int] = {}
    try:
        deadline = time.monotonic() + RUN_LIMIT_S
        while time.monotonic() < deadline and run.poll() is None:
            seen.update(_descendants(run.pid))
            journal = out / JOURNAL
            if journal.is_file() and journal.read_text(encoding="utf-8").count("\n") >= 3:
                break
            time.sleep(0.05)
        assert run.poll() is None, "the run ended before it could be killed: make the documents longer"
        run.send_signal(signal.SIGKILL)
        run.wait(timeout=RUN_LIMIT_S)
        before = _written(out)
        assert 3 <= len(before) < DOCUMENTS
        deadline = time.monotonic() + 20
        while _alive(seen) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(seen), f"still running after the run was killed: {_alive(seen)}"

        resumed = subprocess.run(
            _command(corpus, tmp_path),
            capture_output=True,
            text=True,
            timeout=RUN_LIMIT_S,
            cwd=REPO,
            env=env,
            check=False,
        )
        assert resumed.returncode in (0, 1), resumed.stderr
        after = _written(out)
        assert len(after) == DOCUMENTS
        redone = [name for name, stamp in before.items() if after[name] != stamp]
        assert len(redone) <= WORKERS, f"{len(redone)} written reports audited again: {redone}"
        assert f"{DOCUMENTS - len(before) + len(redone)} audited now" in resumed.stderr
        assert not (out / ".workers").exists()
    finally:
        if run.poll() is None:
            run.kill()
            run.wait(timeout=RUN_LIMIT_S)
        for pid in _alive(seen):  # only what this run started
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
