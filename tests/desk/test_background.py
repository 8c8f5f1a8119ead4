"""The audit child process's protocol: typed messages, picklable, in the order the window needs."""

from __future__ import annotations

import pickle

from citedesk.core.bibliographies.model import OutsideFoldersError
from citedesk.desk.background import (
    AuditFailure,
    AuditMessage,
    AuditProcess,
    AuditRequest,
    Cancelled,
    Failed,
    Finished,
    Progress,
    StageDone,
)
from citedesk.pipeline import AuditOptions


def test_every_message_survives_pickling_as_the_queues_do() -> None:
    failure = AuditFailure("outside", "refs.bib: it is outside", True, folder="/elsewhere")
    for message in (
        AuditRequest(1, "text", None, AuditOptions(offline=True)),
        Progress(2, "reading", 1, 3),
        StageDone(2, "structure", 0.01),
        Failed(3, failure),
        Cancelled(4),
    ):
        assert pickle.loads(pickle.dumps(message)) == message


def test_a_failure_keeps_the_folder_an_outside_file_names() -> None:
    failure = AuditFailure.of(OutsideFoldersError("refs.bib is outside", folder="/elsewhere"))
    assert (failure.kind, failure.known, failure.folder) == ("outside", True, "/elsewhere")
    bug = AuditFailure.of(ValueError("boom"))
    assert (bug.kind, bug.known, bug.folder) == ("ValueError", False, "")


def test_the_child_answers_each_request_with_progress_then_one_outcome() -> None:
    options = AuditOptions(offline=True, judge="heuristic", dense=False)
    process = AuditProcess()
    received: list[AuditMessage] = []
    try:
        process.submit(1, "Never finished [1].\n", None, options)
        process.cancel_upto(1)  # before or while it runs: either way it ends cancelled
        process.submit(2, "A claim with a marker [9].\n", None, options)
        while not received or isinstance(received[-1], Progress | StageDone) or received[-1].generation == 1:
            message = process.next_message(60)
            assert message is not None, received
            received.append(message)
    finally:
        process.close()
    first = [m for m in received if m.generation == 1]
    assert first[-1] == Cancelled(1)
    assert all(isinstance(m, Progress | StageDone) for m in first[:-1])
    *progress, last = [m for m in received if m.generation == 2]
    assert progress
    assert all(isinstance(m, Progress | StageDone) for m in progress)
    assert isinstance(last, Finished)
    assert last.report.findings
    # each stage's findings as it is done, the document with the first only (issue 26)
    stages = [m for m in progress if isinstance(m, StageDone)]
    assert [m.stage for m in stages] == [
        "structure", "sources", "reference truth", "retrieval", "judging", "findings"
    ]  # fmt: skip
    assert stages[0].document is not None
    assert all(m.document is None for m in stages[1:])
    assert [f.kind for f in stages[0].findings] == [f.kind for f in last.report.findings]
