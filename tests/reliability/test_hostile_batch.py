"""Hostile corpora for `citedesk batch`: run as the real command in a child process, each case ends
with a clear message (never exit 3), bounded in time, and leaves no process behind.

- a link in the corpus to a file outside it is not read, and said (it crashed the run: exit 3,
  nothing audited);
- a named pipe called `*.md` is not opened, and said (hashing it blocked the run forever);
- `kill -9` of the run takes its workers and the multiprocessing helpers with it (they audited
  on for a minute, one at 60 % of a core).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO

RUN_LIMIT_S = 120
"""A run on a corpus of a few short documents takes a few seconds; this bounds a hang."""
GONE_WITHIN_S = 20
"""After `kill -9` of the run its workers end within a second (the kernel's death signal, else a
check every half second); before, they audited every document already handed to them."""


def _flags(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "--out",
        str(tmp_path / "out"),
        "--store",
        str(tmp_path / "store.sqlite3"),
        "--offline",
        "--judge",
        "heuristic",
        "--no-dense",
        *extra,
    ]


def _batch(corpus: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "citedesk", "batch", str(corpus), *_flags(tmp_path, "--workers", "1")],
        capture_output=True,
        text=True,
        timeout=RUN_LIMIT_S,
        cwd=REPO,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
    )


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "note.md").write_text("Trees cool streets [1].\n\n## References\n\n1. Oke. Cities.\n", "utf-8")
    return corpus


def test_a_link_out_of_the_corpus_is_not_read_and_said(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    private = tmp_path / "elsewhere" / "private.md"
    private.parent.mkdir()
    private.write_text("Not part of the corpus [1].\n", encoding="utf-8")
    (corpus / "link.md").symlink_to(private)
    (corpus / "loop.md").symlink_to(corpus / "loop.md")
    result = _batch(corpus, tmp_path)
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    assert "1 documents (0 could not be audited): 1 audited now" in result.stderr
    assert f"{corpus / 'link.md'}: not read: a link to a file outside the corpus" in result.stderr
    assert f"{corpus / 'loop.md'}: not read:" in result.stderr
    assert "2 files not read" in result.stderr
    assert not (tmp_path / "out" / "reports" / "link.md.json").exists()
    assert (tmp_path / "out" / "reports" / "note.md.json").is_file()


def test_a_link_inside_the_corpus_is_still_audited(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    (corpus / "chapters").mkdir()
    (corpus / "chapters" / "same.md").symlink_to(corpus / "note.md")
    result = _batch(corpus, tmp_path)
    assert result.returncode in (0, 1), result.stderr
    assert "not read" not in result.stderr
    assert "1 documents (0 could not be audited)" in result.stderr  # one document, found twice


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_in_the_corpus_is_not_opened(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    os.mkfifo(corpus / "pipe.md")
    result = _batch(corpus, tmp_path)  # before: it waited for a writer forever (the timeout fails it)
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    assert f"{corpus / 'pipe.md'}: not read: a named pipe, not a file" in result.stderr
    assert "1 documents (0 could not be audited): 1 audited now" in result.stderr


# --- kill -9 ------------------------------------------------------------------------------------


def _started(pid: int) -> int | None:
    """The process's start time (clock ticks after boot), None when it is gone or a zombie."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] in ("Z", "X") else int(fields[19])


def _descendants(pid: int) -> dict[int, int]:
    """Every living descendant of `pid` → its start time (a pid reused later is not it)."""
    found: dict[int, int] = {}
    waiting = [pid]
    while waiting:
        parent = waiting.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            with contextlib.suppress(OSError):
                for child in map(int, (task / "children").read_text().split()):
                    started = _started(child)
                    if started is not None and child not in found:
                        found[child] = started
                        waiting.append(child)
    return found


def _alive(processes: dict[int, int]) -> dict[int, int]:
    return {pid: started for pid, started in processes.items() if _started(pid) == started}


def _long_document(number: int) -> str:
    sentences = " ".join(
        f"Claim {number}.{i} says that cities with trees are cooler [{i % 50 + 1}]." for i in range(20_000)
    )
    references = "\n".join(f"{n}. Author {n}. A study of streets {n}." for n in range(1, 51))
    return f"{sentences}\n\n## References\n\n{references}\n"


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the workers through Linux's /proc")
def test_kill_9_of_a_run_ends_its_workers(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for number in range(4):  # each takes some 15 s of CPU to audit: the workers are busy when killed
        (corpus / f"long{number}.md").write_text(_long_document(number), encoding="utf-8")
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "citedesk",
            "batch",
            str(corpus),
            *_flags(tmp_path, "--workers", "2", "--no-sources"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=REPO,
        env={**os.environ, "NO_COLOR": "1"},
    )
    seen: dict[int, int] = {}
    try:
        deadline = time.monotonic() + RUN_LIMIT_S
        while len(seen) < 3 and time.monotonic() < deadline and run.poll() is None:
            seen.update(_descendants(run.pid))  # two workers and the resource tracker
            time.sleep(0.2)
        assert len(seen) >= 3, f"the run did not start its workers: {seen}"
        time.sleep(3)  # the workers past their start, into their first documents
        seen.update(_descendants(run.pid))
        run.send_signal(signal.SIGKILL)
        run.wait(timeout=RUN_LIMIT_S)
        deadline = time.monotonic() + GONE_WITHIN_S
        while _alive(seen) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(seen), f"still running {GONE_WITHIN_S} s after the run was killed: {_alive(seen)}"
    finally:
        if run.poll() is None:
            run.kill()
            run.wait(timeout=RUN_LIMIT_S)
        for pid in _alive(seen):  # only what this run started
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
