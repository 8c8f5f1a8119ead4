"""The window's one runner for slow work (`gui.ops`): off the GUI thread, results back on it, store
work in order on one worker, busy shown only for slow work, failures delivered, nothing left running."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog
from pytestqt.qtbot import QtBot

from citedesk.core.review import Decision
from citedesk.desk import DocumentSession
from citedesk.errors import CiteDeskError, StoreError
from citedesk.gui.main_window import MainWindow
from citedesk.gui.ops import BUSY_AFTER_MS, POOL_THREAD, STORE_THREAD, OpRunner, run_op
from tests.gui.helpers import audited, audited_copy, settled


@pytest.fixture
def runner(qtbot: QtBot) -> Iterator[OpRunner]:
    ops = OpRunner()
    yield ops
    ops.shutdown()


def test_an_op_runs_off_the_gui_thread_and_its_result_comes_back_on_it(
    qtbot: QtBot, runner: OpRunner
) -> None:
    threads: dict[str, threading.Thread] = {}
    results: list[int] = []

    def op() -> int:
        threads["op"] = threading.current_thread()
        return 42

    def success(value: int) -> None:
        threads["success"] = threading.current_thread()
        results.append(value)

    runner.run(op, success)
    qtbot.waitUntil(lambda: results == [42])
    assert threads["op"] is not threading.main_thread()
    assert threads["op"].name.startswith(STORE_THREAD)
    assert threads["success"] is threading.main_thread()
    assert runner.idle


def test_store_work_runs_one_at_a_time_in_the_order_asked(qtbot: QtBot, runner: OpRunner) -> None:
    inside = threading.Semaphore(1)
    overlapped: list[int] = []
    ran: list[int] = []
    delivered: list[int] = []

    def op(n: int) -> int:
        if not inside.acquire(blocking=False):
            overlapped.append(n)
        try:
            ran.append(n)
            time.sleep(0.01)  # long enough for a second worker, if there were one, to start
        finally:
            inside.release()
        return n

    for n in range(8):
        runner.run(functools.partial(op, n), delivered.append)
    qtbot.waitUntil(lambda: len(delivered) == 8)
    assert ran == delivered == list(range(8))
    assert overlapped == []


def test_a_citedesk_error_goes_to_failure_on_the_gui_thread_or_else_is_said(
    qtbot: QtBot, runner: OpRunner
) -> None:
    failed: list[tuple[str, bool]] = []

    def op() -> None:
        raise StoreError("the store is locked")

    runner.run(
        op,
        lambda _: pytest.fail("no success"),
        lambda exc: failed.append((exc.message, threading.current_thread() is threading.main_thread())),
    )
    qtbot.waitUntil(lambda: bool(failed))
    assert failed == [("the store is locked", True)]
    with qtbot.waitSignal(runner.message) as said:
        runner.run(op, lambda _: pytest.fail("no success"), store=False)
    assert said.args == ["the store is locked"]


def test_a_bug_in_an_op_is_raised_again_on_the_gui_thread(qtbot: QtBot, runner: OpRunner) -> None:
    def op() -> None:
        raise ZeroDivisionError("a bug")

    with qtbot.captureExceptions() as raised:
        runner.run(op, lambda _: None)
        qtbot.waitUntil(lambda: runner.idle)
    assert [type(exc) for _kind, exc, _tb in raised] == [ZeroDivisionError]
    assert not issubclass(ZeroDivisionError, CiteDeskError)


def test_busy_is_shown_only_for_slow_work(qtbot: QtBot, runner: OpRunner) -> None:
    results: list[str] = []
    runner.run(lambda: "quick", results.append, label="Quick")
    qtbot.waitUntil(lambda: results == ["quick"])
    assert runner.busy == ""
    assert not runner.busy_timer.isActive()  # never shown: quick work does not flash

    release = threading.Event()
    started = time.monotonic()
    with qtbot.waitSignal(runner.busy_changed, timeout=5_000) as shown:
        runner.run(lambda: str(release.wait(10)), results.append, store=False, label="Slow")
    assert shown.args == ["Slow"]
    assert time.monotonic() - started >= BUSY_AFTER_MS / 1000 - 0.05
    with qtbot.waitSignal(runner.busy_changed, timeout=5_000) as cleared:
        release.set()
    assert cleared.args == [""]
    assert runner.idle


def test_shutdown_waits_for_running_work_and_ends_the_workers(qtbot: QtBot) -> None:
    ops = OpRunner()
    release = threading.Event()
    finished: list[bool] = []

    def slow() -> None:
        release.wait(10)
        finished.append(True)

    ops.run(slow, lambda _: None)
    ops.run(slow, lambda _: None, store=False)
    release.set()
    ops.shutdown()
    assert finished == [True, True]  # nothing dropped
    assert not [t for t in threading.enumerate() if t.name.startswith(STORE_THREAD)]
    with pytest.raises(RuntimeError):
        ops.run(slow, lambda _: None)


def test_run_op_finds_the_runner_of_the_window_an_object_belongs_to(qtbot: QtBot, window: MainWindow) -> None:
    assert OpRunner.of(window.review) is window.ops
    assert OpRunner.of(window.editor) is window.ops
    results: list[str] = []
    run_op(window.sources, lambda: "done", results.append)
    qtbot.waitUntil(lambda: results == ["done"])
    with pytest.raises(LookupError):
        OpRunner.of(QObject())


def test_the_window_keeps_decisions_attaches_and_exports_off_the_gui_thread(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran_on: dict[str, str] = {}

    def watched(name: str) -> None:
        original = getattr(DocumentSession, name)

        def run(*args: object, **kwargs: object) -> object:
            ran_on[name] = threading.current_thread().name
            return original(*args, **kwargs)

        monkeypatch.setattr(DocumentSession, name, run)

    for name in ("keep_decision", "attach", "export", "citation_works"):
        watched(name)
    audited_copy(qtbot, window, tmp_path / "problems.md")
    assert window.report is not None
    finding = window.report.findings[0]
    window.review.decide(Decision.CONFIRMED, finding=finding, advance=False)
    settled(qtbot, window)
    review = window.report.review_of(finding)
    assert review is not None
    assert review.decision is Decision.CONFIRMED
    source = tmp_path / "source.txt"
    source.write_text("What reference 1 says.\n", encoding="utf-8")
    audited(qtbot, window, lambda: window.sources.attach("1", str(source)))
    assert window.document.session.attachments() == {"1": str(source.resolve())}
    with qtbot.waitSignal(window.document.message, timeout=10_000):
        window.document.export_report(window.report, tmp_path / "report.html")
    assert (tmp_path / "report.html").is_file()
    assert set(ran_on) == {"keep_decision", "attach", "export", "citation_works"}
    assert ran_on["keep_decision"].startswith(STORE_THREAD)
    assert ran_on["attach"].startswith(STORE_THREAD)
    assert ran_on["citation_works"].startswith(STORE_THREAD)
    assert ran_on["export"].startswith(POOL_THREAD)


def test_choosing_a_bibliography_reads_and_keeps_it_off_the_gui_thread(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{moreau2021, title={Tree canopy}, author={Moreau, L}, year={2021}}\n")
    document = tmp_path / "draft.md"
    document.write_text("Streets with trees were cooler [@moreau2021].\n", encoding="utf-8")
    audited(qtbot, window, lambda: window.load_file(document))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(bib), "")))
    audited(qtbot, window, window.choose_bibliography)
    assert window.document.session.bibliography() == bib.resolve()
    assert "Bibliography: refs.bib" in window.stage.text()
    assert [w.key for w in window.report.document.bibliography or ()] == ["moreau2021"]  # type: ignore[union-attr]
