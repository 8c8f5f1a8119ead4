"""Long work shows progress (issue 28): on a terminal a rich bar with counts and the time left; in
a log (not a TTY) plain lines with the same; quick work shows nothing. A clock the test moves
stands in for time, so what is shown and when is exact."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from citedesk.cli import main, progress
from citedesk.cli.progress import Progress, counts, duration
from tests.conftest import SAMPLES


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def plain(clock: Clock) -> tuple[Progress, io.StringIO]:
    stream = io.StringIO()  # not a terminal
    return Progress(stream, clock=clock, show_after=1.0, plain_every=5.0), stream


def test_quick_work_shows_nothing() -> None:
    clock = Clock()
    shown, stream = plain(clock)
    with shown:
        for done in range(11):
            clock.now += 0.05
            shown.update("checking references", done, 10)
    assert stream.getvalue() == ""


def test_not_a_terminal_gives_plain_lines_with_counts_and_time_left() -> None:
    clock = Clock()
    shown, stream = plain(clock)
    with shown:
        shown.update("checking references", 0, 40)
        for done in range(1, 41):
            clock.now += 0.5  # 20 s in all: a line on the first count seen late, every 5 s, and done
            shown.update("checking references", done, 40)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "citedesk: checking references 2/40 (5%), about 19 s left"
    assert lines[1] == "citedesk: checking references 12/40 (30%), about 14 s left"
    assert lines[-1] == "citedesk: checking references 40/40 (100%), done in 20 s"
    assert len(lines) == 5  # 2, 12, 22, 32 and 40 of 40: not one per count
    assert "\r" not in stream.getvalue()
    assert "\x1b" not in stream.getvalue()  # no terminal codes in a log


def test_plain_lines_for_bytes_and_a_note() -> None:
    clock = Clock()
    shown, stream = plain(clock)
    clock.now += 2
    shown.update("downloading tiny", 120_000_000, 400_000_000, unit="bytes")
    shown.update("documents audited", 1, 3, note="chapter2.md")
    assert stream.getvalue().splitlines() == [
        "citedesk: downloading tiny 120 of 400 MB (30%)",  # no rate yet: no time left
        "citedesk: documents audited 1/3 (33%) chapter2.md",
    ]


def test_work_that_starts_again_is_counted_afresh() -> None:
    clock = Clock()
    shown, stream = plain(clock)
    clock.now += 2
    shown.update("checking references", 3, 3)  # the first document's look-ups
    clock.now += 60
    shown.update("checking references", 1, 4)  # the next one's: its own time left
    assert stream.getvalue().splitlines()[-1] == "citedesk: checking references 1/4 (25%)"


def test_an_uncounted_stage_is_not_shown() -> None:
    clock = Clock()
    shown, stream = plain(clock)
    clock.now += 5
    shown.update("loading the judge", 0, 0)
    assert stream.getvalue() == ""


def test_a_terminal_gets_a_bar() -> None:
    clock = Clock()
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100, color_system="standard")
    with Progress(console=console, clock=clock, show_after=1.0) as shown:
        assert shown.bar
        for done in range(11):
            clock.now += 0.5
            shown.update("checking references", done, 10)
    drawn = out.getvalue()
    assert "checking references" in drawn
    assert "━" in drawn  # the bar
    assert "10/10" in drawn
    assert "5/10" in drawn  # drawn as it went, not only at the end
    assert "0:00:0" in drawn  # the time left


def test_stderr_that_is_a_terminal_gets_a_bar_and_one_that_is_not_gets_lines() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert Progress(Tty()).bar
    assert Progress(Tty()).show_after == progress.SHOW_AFTER_S
    assert not Progress(io.StringIO()).bar
    assert Progress(io.StringIO()).show_after == progress.PLAIN_AFTER_S  # a log: only long work


def test_counts_and_durations_in_words() -> None:
    assert counts(3, 12) == "3/12"
    assert counts(3, 12, "files") == "3/12 files"
    assert counts(312_000_000, 1_430_000_000, "bytes") == "312 of 1,430 MB"
    assert counts(120_000, 480_000, "bytes") == "120 of 480 kB"
    assert [duration(s) for s in (0.2, 8, 59.4, 61, 3600 + 1200)] == [
        "1 s",
        "8 s",
        "59 s",
        "1 min",
        "1 h 20 min",
    ]


# --- the commands ------------------------------------------------------------------------------------
def test_a_multi_file_audit_counts_its_documents_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(progress, "PLAIN_AFTER_S", 0.0)  # every audit here is quick
    files = []
    for name in ("one.md", "two.md", "three.md"):
        (tmp_path / name).write_bytes((SAMPLES / "clean.md").read_bytes())
        files.append(str(tmp_path / name))
    monkeypatch.setattr(progress, "PLAIN_EVERY_S", 0.0)
    code = main(["audit", *files, "--offline", "--no-sources", "--format", "json"])
    assert code == 0
    captured = capsys.readouterr()
    said = [line for line in captured.err.splitlines() if "documents audited" in line]
    assert said[0].startswith("citedesk: documents audited 1/3 (33%) one.md")
    assert said[-1].startswith("citedesk: documents audited 3/3 (100%) three.md, done in")
    assert '"summary"' in captured.out  # the report on stdout, untouched by progress


def test_a_quick_audit_prints_no_progress(capsys: pytest.CaptureFixture[str]) -> None:
    clean = str(SAMPLES / "clean.md")
    assert main(["audit", clean, clean, "--offline", "--no-sources"]) == 0
    assert "documents audited" not in capsys.readouterr().err


def test_a_slow_start_does_not_swell_the_time_left() -> None:
    """The first item waits for a one-time start (a model loading): the time left is told at the pace
    of the items after it, so "about 2 min left" is not said of work done in 25 s (issue 43 #10)."""
    clock = Clock()
    shown, stream = plain(clock)
    with shown:
        shown.update("judging", 0, 40)
        clock.now += 100.0  # the start
        shown.update("judging", 1, 40)
        for done in range(2, 41):
            clock.now += 0.5
            shown.update("judging", done, 40)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "citedesk: judging 1/40 (2%)"  # no pace to go by yet: no time said
    assert lines[1] == "citedesk: judging 11/40 (27%), about 14 s left"  # 0.5 s each, not 10 s
