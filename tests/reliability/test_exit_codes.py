"""One exit-code contract: 0 clean, 1 findings, 2 a known condition, 3 a bug — never a traceback.

Run through the real command in a child process (`python -m citedesk`), so what a CI gate sees is
what is tested: the exit status, and standard error.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, SAMPLES


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "citedesk", *args],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=REPO,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
        check=False,
    )


def test_clean_findings_and_usage_are_0_1_2() -> None:
    assert run("audit", str(SAMPLES / "clean.md"), "--offline").returncode == 0
    assert run("audit", str(SAMPLES / "problems.md"), "--offline").returncode == 1
    bad = run("audit", str(SAMPLES / "clean.md"), "--fail-on", "nonsense")
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr


def test_a_report_that_cannot_be_written_is_2_with_a_message(tmp_path: Path) -> None:
    result = run("audit", str(SAMPLES / "problems.md"), "--offline", "--out", str(tmp_path))
    assert result.returncode == 2
    assert "is a folder" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_unusable_data_folder_is_2_with_a_message(tmp_path: Path) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("a file where the data folder should be", encoding="utf-8")
    result = run("audit", str(SAMPLES / "evidence.md"), "--offline", env={"XDG_DATA_HOME": str(blocker)})
    assert result.returncode == 2
    assert "cannot be created" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_damaged_store_is_rebuilt_and_the_audit_goes_on(tmp_path: Path) -> None:
    store = tmp_path / "citedesk" / "sources.sqlite3"
    store.parent.mkdir(parents=True)
    store.write_bytes(b"garbage, not SQLite" * 100)
    result = run("audit", str(SAMPLES / "evidence.md"), "--offline", env={"XDG_DATA_HOME": str(tmp_path)})
    assert result.returncode == 1  # the sample's findings, as always
    assert "damaged" in result.stderr + result.stdout
    assert list(store.parent.glob("sources.sqlite3.corrupt-*"))
    assert sqlite3.connect(store).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_an_internal_error_is_3_with_a_bug_report_hint_and_debug_shows_it(tmp_path: Path) -> None:
    # a bug, planted: the parser of this child process raises something CiteDesk never raises on purpose
    boom = "import citedesk.core.document.model as d; d.document_of = lambda *a, **k: 1 / 0\n"
    script = tmp_path / "planted.py"
    script.write_text(boom + "from citedesk.main import main\nraise SystemExit(main())\n", encoding="utf-8")
    args = [sys.executable, str(script), "audit", str(SAMPLES / "clean.md"), "--no-sources"]
    plain = subprocess.run(args, capture_output=True, text=True, cwd=REPO, timeout=120, check=False)
    assert plain.returncode == 3
    assert "internal error: ZeroDivisionError" in plain.stderr
    assert "please report it" in plain.stderr
    assert "Traceback" not in plain.stderr
    debug = subprocess.run(
        [*args, "--debug"], capture_output=True, text=True, cwd=REPO, timeout=120, check=False
    )
    assert "Traceback" in debug.stderr
    assert debug.returncode == 3  # still a bug's code: a CI gate never reads a crash as findings (1)


def test_a_cancelled_command_is_130_and_says_nothing(tmp_path: Path) -> None:
    # a cancellation is a CiteDeskError, but a silent one: never printed as an error
    cancel = "import citedesk.core.document.model as d\nfrom citedesk.errors import Cancelled\n"
    cancel += "def stop(*a, **k):\n    raise Cancelled\nd.document_of = stop\n"
    script = tmp_path / "cancelled.py"
    script.write_text(cancel + "from citedesk.main import main\nraise SystemExit(main())\n", encoding="utf-8")
    args = [sys.executable, str(script), "audit", str(SAMPLES / "clean.md"), "--no-sources"]
    result = subprocess.run(args, capture_output=True, text=True, cwd=REPO, timeout=120, check=False)
    assert result.returncode == 130
    assert result.stderr == ""


def test_control_sequences_in_a_document_never_reach_the_terminal(tmp_path: Path) -> None:
    document = tmp_path / "hostile.md"
    document.write_text(
        "Prices rose 40% last year\x1b]0;owned\x07 and \x1b[2Jmore \x1b[31mred [7].\n\n"
        "## References\n\n[1] A. https://a.example\n",
        encoding="utf-8",
    )
    result = run("audit", str(document), "--no-sources")
    assert result.returncode == 1
    assert "\x1b" not in result.stdout
    assert "\x07" not in result.stdout
    assert (
        "Prices rose 40% last year\ufffd and \ufffdmore \ufffdred" in result.stdout
    )  # text shown, controls not


def test_thousands_of_references_are_checked_and_fixed_in_linear_time(tmp_path: Path) -> None:
    """Each orphan's fix used to re-parse the whole document: 1,000 references took 83 s and 5,000
    did not finish in 600 s. Now one parse serves every fix (tests/bench/references_scale.py
    measures the growth; this bound is 30x what it takes here)."""
    import time

    from tests.bench.references_scale import document

    draft = tmp_path / "long.md"
    draft.write_text(document(5000), encoding="utf-8")
    started = time.monotonic()
    result = run(
        "fix", str(draft), "--kinds", "orphan_reference,duplicate_reference", "--renumber", "--no-sources"
    )
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started < 180
    assert "Traceback" not in result.stderr
    fixed = draft.read_text(encoding="utf-8")
    assert fixed.count("\n[") < 5000  # the orphans are gone, the rest renumbered
