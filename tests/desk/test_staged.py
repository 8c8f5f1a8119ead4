"""The state's staged findings (issue 26): what a running audit has found so far, stage by stage,
as the window's observers are told it."""

from __future__ import annotations

import pickle

from citedesk.core.findings import Finding, Kind, Severity
from citedesk.desk.state import DocumentState, Staged


def _finding(kind: Kind, start: int, message: str = "") -> Finding:
    return Finding(kind, start, start + 3, message or kind.value, Severity.WARNING)


def test_each_stage_adds_and_withdraws_in_document_order() -> None:
    uncited = _finding(Kind.UNCITED, 40, "no citation")
    orphan = _finding(Kind.ORPHAN_REFERENCE, 90)
    fabricated = _finding(Kind.FABRICATED, 10)
    structure = Staged(3).after("structure", [orphan, uncited])
    assert structure.findings == (uncited, orphan)
    # a later stage withdraws the uncited finding (a copy: it crossed a process boundary) and
    # gives it again with a suggested reference, besides a finding of its own
    suggested = _finding(Kind.UNCITED, 40, "no citation; [2] says so")
    judged = structure.after("judging", [suggested, fabricated], [pickle.loads(pickle.dumps(uncited))])
    assert judged.findings == (fabricated, suggested, orphan)
    assert judged.stages == ("structure", "judging")
    assert judged.generation == 3
    assert structure.findings == (uncited, orphan)  # the earlier one is unchanged


def test_a_withdrawn_finding_takes_out_one_of_its_equals() -> None:
    twice = _finding(Kind.DUPLICATE_REFERENCE, 5)
    staged = Staged(1).after("structure", [twice, twice]).after("judging", [], [twice])
    assert staged.findings == (twice,)


def test_observers_hear_each_stage_once() -> None:
    state = DocumentState()
    heard: list[tuple[str, ...]] = []
    state.on_change("staged", lambda staged: heard.append(staged.stages))
    first = Staged(1).after("structure", [_finding(Kind.FABRICATED, 1)])
    state.update(staged=first)
    state.update(staged=first)  # the same: no change
    state.update(staged=first.after("sources", []))
    assert heard == [("structure",), ("structure", "sources")]
