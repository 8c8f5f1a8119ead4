"""Staged results in the window (issue 26): the structural findings are painted while the judge is
still at work, the status bar counts the judging up, a superseded audit's stage never paints, and
the audit process is running before the first audit asks for it."""

from __future__ import annotations

import functools
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from citedesk.core.findings import Kind
from citedesk.desk import AuditOptions
from citedesk.desk.background import AuditProcess, StageDone
from citedesk.evidence.judges.spec import registered
from citedesk.gui.main_window import MainWindow
from tests.conftest import SAMPLES
from tests.gui.blocking_judge import NAME, install, spec

WAIT_MS = 60_000
JUDGED = {Kind.MISATTRIBUTED, Kind.NUMBER_MISMATCH, Kind.UNSUPPORTED_PART, Kind.UNSUPPORTED_NUMBER}


@pytest.fixture
def release(tmp_path: Path) -> Iterator[Path]:
    """The file whose existence lets the blocking judge answer (registered here and in the child)."""
    gate = tmp_path / "release"
    with registered(spec(gate)):
        yield gate
    gate.touch()  # a child still judging ends its audit


@pytest.fixture
def blocked(qtbot: QtBot, settings: QSettings, release: Path) -> MainWindow:
    """A window whose audits are judged by the blocking judge, in a child that registered it."""
    window = MainWindow(AuditOptions(offline=True, judge=NAME, dense=False), settings)
    window.document.confirm_discard = lambda: True
    qtbot.addWidget(window)
    window.audits.runner.use_process(AuditProcess(setup=functools.partial(install, release)))
    window.show()
    return window


def _document(folder: Path) -> Path:
    """The evidence sample (judged findings) with a citation of a reference it does not list."""
    shutil.copytree(SAMPLES / "sources", folder / "sources")
    text = (SAMPLES / "evidence.md").read_text(encoding="utf-8")
    text = text.replace("\n\n## References", " Shade also saves water [7].\n\n## References", 1)
    document = folder / "staged.md"
    document.write_text(text, encoding="utf-8")
    return document


def test_structural_findings_are_painted_before_the_judge_answers(
    qtbot: QtBot, blocked: MainWindow, release: Path, tmp_path: Path
) -> None:
    window = blocked
    judging: list[tuple[int, int]] = []
    window.audits.progress.connect(
        lambda stage, done, total: judging.append((done, total)) if stage == "judging" else None
    )
    assert window.load_file(_document(tmp_path))
    qtbot.waitUntil(lambda: window.status.stage.text().startswith("judging "), timeout=WAIT_MS)

    # the judge has not answered, the audit runs: the structural findings are on screen already
    assert window.audits.busy
    assert window.report is None
    listed = window.findings.model.all_findings()
    fabricated = [f for f in listed if f.kind is Kind.FABRICATED]
    assert [f.reference for f in fabricated] == ["7"]
    assert not JUDGED & {f.kind for f in listed}
    assert fabricated[0] in [f for _, _, f in window.editor.highlighter.spans()]
    assert window.status.coverage.text() == f"{len(listed)} finding{'s' if len(listed) != 1 else ''} so far"
    total = judging[-1][1]
    assert total > 0
    assert window.status.stage.text() == f"judging 0/{total}"

    with qtbot.waitSignal(window.audits.audit_finished, timeout=WAIT_MS):
        release.touch()
    report = window.report
    assert report is not None
    # then the verdicts, and the final counts in place of "so far"
    assert JUDGED & {f.kind for f in report.findings}
    assert any(f.kind is Kind.FABRICATED for f in report.findings)
    assert window.findings.model.all_findings() == report.findings
    assert "so far" not in window.status.coverage.text()
    assert window.status.stage.text() == f"{len(report.findings)} findings"
    done = [d for d, t in judging if t == total]
    assert done == sorted(done)  # it counted up,
    assert done[-1] == total  # to the end


def test_a_superseded_audits_stage_never_paints(
    qtbot: QtBot, blocked: MainWindow, release: Path, tmp_path: Path
) -> None:
    window = blocked
    assert window.load_file(_document(tmp_path))
    qtbot.waitUntil(lambda: window.staged.painted is not None, timeout=WAIT_MS)
    stale = window.audits.generation
    painted = window.staged.painted
    assert painted is not None
    assert painted.document is not None
    window.audits.start()  # the writer asked again: the first audit is superseded
    current = window.audits.generation
    assert current == stale + 1
    intruder = replace(painted.findings[0], message="found by an audit that no longer counts")
    for generation in (stale, current - 2):
        window.audits.runner.received.emit(
            StageDone(generation, "judging", 0.1, (intruder, intruder), (), painted.document)
        )
    qtbot.wait(50)  # the queued signals are delivered
    staged = window.state.staged
    assert staged is not None
    assert staged.generation == current
    assert intruder not in staged.findings
    assert intruder not in window.findings.model.all_findings()
    with qtbot.waitSignal(window.audits.audit_finished, timeout=WAIT_MS):
        release.touch()
    assert window.state.generation == current


def test_the_audit_process_is_running_before_the_first_audit(qtbot: QtBot, window: MainWindow) -> None:
    qtbot.waitUntil(lambda: window.audits.runner.process.alive, timeout=10_000)
    assert window.report is None
    assert not window.audits.busy
    pid = window.audits.runner.process.pid
    with qtbot.waitSignal(window.audits.audit_finished, timeout=WAIT_MS):
        window.editor.setPlainText("A claim with a marker [9].\n")
        window.audits.start()
    assert window.audits.runner.process.pid == pid  # the warm child did the audit
