"""Test-wide set-up: no display, no real home directory, no network but loopback, and no process
left behind when the run ends."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["CITEDESK_ONNX"] = "off"  # torch embeds, no background export (test_onnx_embedder turns it on)

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "resources" / "samples"
MAKE_SAMPLE = REPO / "tests" / "fixtures" / "make_word_sample.py"
"""The developer's script that makes the Word sample (`resources/samples/word/paper.docx`)."""
SHARED_EVAL = REPO.parent / "shared" / "eval"


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Config, data and cache go to a temporary folder, never the real home directory."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


@pytest.fixture
def samples() -> Path:
    return SAMPLES


@pytest.fixture(autouse=True)
def _no_real_indexes(monkeypatch: pytest.MonkeyPatch) -> None:
    """doi.org, Crossref and OpenAlex are never asked for real: their addresses default to names
    that cannot resolve (RFC 2606 `.invalid`), so an online audit in a test that sets up no local
    server sees them unreachable, whatever network the machine has. A test points them at its own
    server with `monkeypatch.setenv` (which wins, being set later)."""
    monkeypatch.setenv("CITEDESK_DOI_BASE", "http://doi.invalid")
    monkeypatch.setenv("CITEDESK_CROSSREF_BASE", "http://crossref.invalid")
    monkeypatch.setenv("CITEDESK_OPENALEX_BASE", "http://openalex.invalid")
    monkeypatch.delenv("CITEDESK_CONTACT_EMAIL", raising=False)
    monkeypatch.delenv("CITEDESK_OPENALEX_API_KEY", raising=False)


@dataclass(frozen=True)
class _Process:
    pid: int
    ppid: int
    state: str
    started: int
    """Clock ticks after boot."""
    argv: tuple[str, ...]


def _process(pid: int) -> _Process | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:  # gone meanwhile, or not ours to read
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (name) "
    return _Process(
        pid, int(fields[1]), fields[0], int(fields[19]), tuple(a.decode(errors="replace") for a in argv if a)
    )


def _processes() -> list[_Process]:
    found = (_process(int(entry.name)) for entry in Path("/proc").iterdir() if entry.name.isdigit())
    return [p for p in found if p is not None]


def _started_by_this_run(me: _Process, own_tracker: int | None) -> list[_Process]:
    """Processes the tests started that are still running: children of this process, and Python
    multiprocessing workers of this checkout started since the run began (an audit process or a
    resource tracker left by a window killed in a test is re-parented, so it is found by what it
    runs). This process's own multiprocessing resource tracker ends with it and is not counted."""
    pythons = {sys.executable, str(REPO / ".venv" / "bin" / "python")}
    left = []
    for process in _processes():
        if process.pid in (me.pid, own_tracker) or process.state in ("Z", "X"):
            continue  # a zombie has exited: only its exit status is left to collect
        ours = process.ppid == me.pid or (
            process.started >= me.started
            and bool(process.argv)
            and (process.argv[0] in pythons or process.argv[0].startswith(str(REPO / ".venv")))
            and any("multiprocessing" in arg for arg in process.argv)
        )
        if ours:
            left.append(process)
    return left


@pytest.fixture(scope="session", autouse=True)
def _no_process_left_behind() -> Iterator[None]:
    """Fail the run if a process started by the tests outlives them (checked for 10 s, as a killed
    window's workers take a moment to notice)."""
    me = _process(os.getpid()) if Path("/proc/self/stat").is_file() else None
    yield
    if me is None:  # no /proc: not Linux
        return
    from multiprocessing import resource_tracker

    pdf = sys.modules.get("citedesk.sources.pdfworker")
    if pdf is not None:  # what the app's exit does (an idle PDF worker would also end within 5 s)
        pdf.close_workers()
    own_tracker = getattr(resource_tracker._resource_tracker, "_pid", None)  # no public way to ask for it
    deadline = time.monotonic() + 10
    left = _started_by_this_run(me, own_tracker)
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = _started_by_this_run(me, own_tracker)
    if left:
        lines = "\n".join(f"  {p.pid} (parent {p.ppid}): {' '.join(p.argv)[:160]}" for p in left)
        pytest.fail(f"the tests left {len(left)} process(es) running:\n{lines}", pytrace=False)
