"""The cascade in the audit child (issue 27): the fast judge's report goes out first, as a
`Provisional`, then the strong judge re-reads in a second pass and its report is the `Finished`;
a cancel or a newer request stops that second pass; and a provisional report's judged fixes are
held back from **Fix all** until the strong judge has confirmed them."""

from __future__ import annotations

import functools
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from citedesk.core.findings import Applicability, Fix, Kind, Severity, TextEdit, make_finding
from citedesk.core.reading import parse_document
from citedesk.core.reports.report import Report
from citedesk.desk.background import (
    STILL_CHECKING,
    AuditMessage,
    AuditProcess,
    Cancelled,
    Finished,
    Progress,
    Provisional,
    StageDone,
    provisional,
)
from citedesk.pipeline import AuditOptions
from tests.conftest import SAMPLES
from tests.desk.strong_judge import FAST, NAME, SURVEY, install

WAIT_S = 60.0


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    target = tmp_path / "evidence.md"
    shutil.copy(SAMPLES / "evidence.md", target)
    return target


def options(sample: Path, strong: str = NAME, judge: str = "heuristic") -> AuditOptions:
    """Each test its own store: a judgement the toy strong judge gave in another test, cached, would
    let the second pass end without waiting for its release, and the newer request would be taken
    before the test can see it waiting (a race that failed CI once)."""
    return AuditOptions(
        offline=True,
        dense=False,
        judge=judge,
        document_dir=sample.parent,
        strong_judge=strong,
        store_path=sample.parent / "store.sqlite3",
    )


def read_until(process: AuditProcess, done: Callable[[list[AuditMessage]], bool]) -> list[AuditMessage]:
    received: list[AuditMessage] = []
    deadline = time.monotonic() + WAIT_S
    while not (received and done(received)):
        assert time.monotonic() < deadline, received
        message = process.next_message(1)
        if message is not None:
            received.append(message)
    return received


def last_of(generation: int) -> Callable[[list[AuditMessage]], bool]:
    return lambda got: isinstance(got[-1], Finished | Cancelled) and got[-1].generation == generation


def flags_survey(report: Report) -> bool:
    """Whether `report` calls the sample's survey claim misattributed."""
    claims = report.document.claim_by_id
    return any(
        f.kind is Kind.MISATTRIBUTED and f.claim_id in claims and SURVEY in claims[f.claim_id].sentence.text
        for f in report.findings
    )


def test_the_fast_report_comes_first_then_the_strong_judges(sample: Path) -> None:
    process = AuditProcess(setup=functools.partial(install, None))
    try:
        process.submit(1, sample.read_text(encoding="utf-8"), str(sample), options(sample))
        received = read_until(process, last_of(1))
    finally:
        process.close()
    kinds = [type(m) for m in received]
    assert kinds.count(Provisional) == 1
    at = kinds.index(Provisional)
    first, final = received[at], received[-1]
    assert isinstance(first, Provisional)
    assert isinstance(final, Finished)
    assert first.strong_judge == NAME
    # the fast judge flags the survey claim; the strong judge, re-reading it, finds it supported
    assert flags_survey(first.report)
    assert not flags_survey(final.report)
    assert f"strong judge {NAME} re-read" in final.report.judge_note
    assert "strong judge" not in first.report.judge_note
    # the second pass says what it re-reads, and sends no stage's findings (the report has them)
    second = received[at + 1 : -1]
    assert all(isinstance(m, Progress) for m in second)
    rereads = [m for m in second if isinstance(m, Progress) and m.stage == f"re-reading with {NAME}"]
    assert rereads
    assert rereads[-1].total > 0
    assert any(isinstance(m, StageDone) for m in received[:at])


def test_a_cancel_stops_the_strong_judges_second_pass(sample: Path, tmp_path: Path) -> None:
    release = tmp_path / "release"
    process = AuditProcess(setup=functools.partial(install, release))
    try:
        process.submit(1, sample.read_text(encoding="utf-8"), str(sample), options(sample))
        read_until(process, lambda got: isinstance(got[-1], Provisional))
        process.cancel_upto(1)
        release.touch()  # the re-read in hand ends; the next check stops the pass
        received = read_until(process, last_of(1))
    finally:
        release.touch()
        process.close()
    assert received[-1] == Cancelled(1)
    assert not any(isinstance(m, Finished) for m in received)


def test_a_newer_request_stops_the_second_pass_and_is_answered(sample: Path, tmp_path: Path) -> None:
    release = tmp_path / "release"
    process = AuditProcess(setup=functools.partial(install, release))
    text = sample.read_text(encoding="utf-8")
    try:
        process.submit(1, text, str(sample), options(sample))
        read_until(process, lambda got: isinstance(got[-1], Provisional))
        process.submit(2, text.replace("Shade", "Shade indeed", 1), str(sample), options(sample, strong=""))
        early = _delivered(process)
        release.touch()
        received = early if early and last_of(2)(early) else early + read_until(process, last_of(2))
    finally:
        release.touch()
        process.close()
    outcomes = [m for m in received if isinstance(m, Finished | Cancelled)]
    assert outcomes[0] == Cancelled(1)
    assert isinstance(outcomes[1], Finished)
    assert outcomes[1].generation == 2
    assert not any(isinstance(m, Provisional) and m.generation == 2 for m in received)  # no cascade asked


def _delivered(process: AuditProcess) -> list[AuditMessage]:
    """Wait until the request just submitted is in the pipe (a queue's feeder thread writes it a
    moment after `put`): the child then sees it as waiting at its next check — or until the child
    has already taken it, having seen it at the check right after the provisional report (then
    gen 1's Cancelled is among the messages read meanwhile, which are returned)."""
    reader = process._requests._reader  # type: ignore[union-attr]
    got: list[AuditMessage] = []
    deadline = time.monotonic() + WAIT_S
    while not reader.poll(0.05):
        assert time.monotonic() < deadline, got
        message = process.next_message(0.05)
        if message is not None:
            got.append(message)
            if message == Cancelled(1):
                break
    return got


def test_a_provisional_report_holds_judged_fixes_back_from_fix_all() -> None:
    document = parse_document("Trees cool streets [1].\n\n## References\n\n1. A. B.\n", None)
    edit = (TextEdit(0, 5, "Shade"),)
    structural = make_finding(
        Kind.FABRICATED, (19, 22), "no such reference", fixes=(Fix("Remove [1]", edit),)
    )
    judged = make_finding(
        Kind.MISATTRIBUTED, (19, 22), "does not say it", fixes=(Fix("Cite [2]", edit),), judged_by="model"
    )
    unsafe = make_finding(
        Kind.MISATTRIBUTED,
        (0, 5),
        "guess",
        fixes=(Fix("Cite [3]", edit, applicability=Applicability.UNSAFE),),
        judged_by="word-level",
        severity=Severity.WARNING,
    )
    held = provisional(Report(document=document, findings=[structural, judged, unsafe]))
    assert held.findings[0] == structural
    assert held.findings[1].fixes[0].applicability is Applicability.UNSAFE
    assert held.findings[1].fixes[0].title == "Cite [2]" + STILL_CHECKING
    assert held.findings[2] == unsafe  # a suggestion to verify already: said once


def test_only_a_fast_judge_on_this_machine_gets_a_background_re_read() -> None:
    from citedesk.desk.background import _two_passes

    def asks(judge: str, strong: str = NAME) -> bool:
        return _two_passes(AuditOptions(judge=judge, strong_judge=strong))

    assert asks("heuristic")
    assert not asks("heuristic", strong="")  # no cascade: one pass, as ever
    assert not asks("claude")  # the engine's cascade re-reads nothing Claude judged
    assert not asks("none")  # nothing judged, nothing to re-read
    assert not asks("no-such-judge")  # the audit itself says what is wrong


def test_fix_all_gets_a_judges_fix_only_once_the_strong_judge_confirmed_it(sample: Path) -> None:
    process = AuditProcess(setup=functools.partial(install, None))
    try:
        process.submit(1, sample.read_text(encoding="utf-8"), str(sample), options(sample, judge=FAST))
        received = read_until(process, last_of(1))
    finally:
        process.close()
    (first,) = [m for m in received if isinstance(m, Provisional)]
    final = received[-1]
    assert isinstance(final, Finished)
    # a fast judge that may act offers the uncited sentence's citation as a safe fix; shown at
    # once, it is held back from Fix all, saying why, until the strong judge's report offers it
    (held,) = [f for f in first.report.findings if f.kind is Kind.UNCITED]
    (offered,) = [f for f in final.report.findings if f.kind is Kind.UNCITED]
    assert held.fixes
    assert all(not fix.safe and fix.title.endswith(STILL_CHECKING) for fix in held.fixes)
    assert any(fix.safe and not fix.title.endswith(STILL_CHECKING) for fix in offered.fixes)
