"""The cascade in the window (issue 27): the fast judge's report is shown at once and the audit is
not busy; the status bar says "checking with NAME… done/total" while the strong judge re-reads in
the background; its report then replaces the findings in place (same generation, the selected
finding kept); an edit starts a new audit, which stops the re-read; Escape stops it and leaves the
fast judge's reading."""

from __future__ import annotations

import functools
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, QSettings
from pytestqt.qtbot import QtBot

from citedesk.core.findings import Finding, Kind
from citedesk.core.reports.report import Report
from citedesk.desk import AuditOptions
from citedesk.desk.background import AuditProcess
from citedesk.evidence.judges.spec import registered
from citedesk.gui.main_window import MainWindow
from tests.conftest import SAMPLES
from tests.desk.strong_judge import FAST, NAME, SURVEY, fast_spec, install, spec

WAIT_MS = 60_000


@pytest.fixture
def release(tmp_path: Path) -> Iterator[Path]:
    """The file whose existence lets the toy strong judge answer (registered here and in the child)."""
    gate = tmp_path / "release"
    with registered(spec(gate)), registered(fast_spec()):
        yield gate
    gate.touch()  # a child still re-reading ends its pass


@pytest.fixture
def cascading(qtbot: QtBot, settings: QSettings, release: Path, tmp_path: Path) -> MainWindow:
    """A window whose audits have a cascade (the word-level judge, then the toy strong judge)."""
    return _window(qtbot, settings, release, tmp_path, "heuristic")


def _window(qtbot: QtBot, settings: QSettings, release: Path, tmp_path: Path, judge: str) -> MainWindow:
    options = AuditOptions(offline=True, judge=judge, dense=False, strong_judge=NAME)
    window = MainWindow(options, settings)
    window.document.confirm_discard = lambda: True
    qtbot.addWidget(window)
    window.audits.runner.use_process(AuditProcess(setup=functools.partial(install, release)))
    window.show()
    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    shutil.copy(SAMPLES / "evidence.md", tmp_path / "evidence.md")
    assert window.load_file(tmp_path / "evidence.md")
    qtbot.waitUntil(
        lambda: window.status.checking.text().startswith(f"checking with {NAME}…"), timeout=WAIT_MS
    )
    return window


def survey(report: Report | None, shown: list[Finding]) -> list[Finding]:
    """The listed findings that call the sample's survey claim misattributed."""
    assert report is not None
    claims = report.document.claim_by_id
    return [
        f
        for f in shown
        if f.kind is Kind.MISATTRIBUTED
        and f.claim_id in claims
        and SURVEY in claims[f.claim_id].sentence.text
    ]


def test_the_strong_judges_report_replaces_the_fast_one_in_place(
    qtbot: QtBot, cascading: MainWindow, release: Path
) -> None:
    window = cascading
    # the fast judge's report is on screen, and the writer is not kept waiting
    provisional = window.report
    generation = window.state.generation
    shown = window.findings.model.all_findings()
    assert survey(provisional, shown)
    assert not window.audits.busy
    assert window.audits.checking
    assert not window.status.cancel_button.isVisible()
    assert "Fix all leaves the judge's fixes" in window.status.checking.toolTip()
    kept = [f for f in shown if f not in survey(provisional, shown)][-1]
    bar = window.findings.tree.verticalScrollBar()
    window.findings.tree.setFixedHeight(window.findings.tree.sizeHintForRow(0) * 4)  # it scrolls
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=WAIT_MS)
    assert window.findings.select(kept)
    assert bar.value() > 0

    release.touch()
    qtbot.waitUntil(lambda: not window.audits.checking, timeout=WAIT_MS)

    final = window.report
    assert final is not None
    assert final is not provisional
    assert window.state.generation == generation  # the same audit, its better reading
    listed = window.findings.model.all_findings()
    assert listed == final.findings
    assert not survey(final, listed)  # the strong judge found the survey claim supported
    selected = window.findings.selected_finding()
    assert selected is not None
    assert (selected.kind, selected.start, selected.reference) == (kept.kind, kept.start, kept.reference)
    tree = window.findings.tree
    qtbot.waitUntil(  # the list scrolled back to it, not to its top
        lambda: bar.value() > 0 and _in_sight(tree.visualRect(tree.currentIndex()), tree.viewport().rect()),
        timeout=WAIT_MS,
    )
    assert window.status.checking.text().startswith(f"strong judge {NAME} re-read ")
    assert window.status.checking.isVisible()


def _in_sight(row: QRect, view: QRect) -> bool:
    """The row shows in the view (its width may run past the view's)."""
    return row.isValid() and view.top() <= row.top() < view.bottom()


def test_an_edit_stops_the_re_read_and_audits_again(
    qtbot: QtBot, cascading: MainWindow, release: Path
) -> None:
    window = cascading
    first = window.state.generation
    cursor = window.editor.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    cursor.insertText("\nShade matters.\n")
    window.editor.setTextCursor(cursor)
    qtbot.waitUntil(lambda: window.audits.generation == first + 1, timeout=WAIT_MS)  # after the pause
    assert not window.audits.checking or window.state.generation == first + 1
    release.touch()
    qtbot.waitUntil(
        lambda: window.state.generation == first + 1 and not window.audits.checking, timeout=WAIT_MS
    )
    report = window.report
    assert report is not None
    assert "Shade matters." in report.document.text
    assert f"strong judge {NAME} re-read" in report.judge_note


def test_escape_stops_the_re_read_and_the_fast_reading_stands(
    qtbot: QtBot, cascading: MainWindow, release: Path
) -> None:
    window = cascading
    provisional = window.report
    window.escape()
    assert not window.audits.checking
    assert window.status.stage.text().startswith(f"the strong judge {NAME} stopped")
    assert not window.status.checking.isVisible()
    release.touch()  # the stopped pass ends (cancelled) and its last message comes back
    assert window.audits.runner.wait_idle(30)
    qtbot.wait(100)  # that message's queued signal delivered, and dropped
    assert window.report is provisional


def test_fix_all_leaves_the_judges_fixes_until_the_strong_judge_has_checked(
    qtbot: QtBot, settings: QSettings, release: Path, tmp_path: Path
) -> None:
    window = _window(qtbot, settings, release, tmp_path, FAST)  # a fast judge whose fixes are safe
    text = window.editor.toPlainText()

    def fix_all_uncited() -> None:
        (uncited,) = [f for f in window.findings.model.all_findings() if f.kind is Kind.UNCITED]
        assert window.findings.select(uncited)
        window.apply_fix_all_of_kind()

    fix_all_uncited()
    assert window.editor.toPlainText() == text  # left, and the writer is told why
    assert "suggestions to verify" in window.status.stage.text()
    (uncited,) = [f for f in window.findings.model.all_findings() if f.kind is Kind.UNCITED]
    assert all("the strong judge is still checking" in fix.title for fix in uncited.fixes)

    release.touch()
    qtbot.waitUntil(lambda: not window.audits.checking, timeout=WAIT_MS)
    fix_all_uncited()
    assert window.editor.toPlainText() != text  # confirmed: Fix all applies it
    assert window.status.stage.text().startswith("Applied")
