"""Fix all: as many fixes as can go together, the others left out and named."""

from __future__ import annotations

from pathlib import Path

import pytest

from citedesk.core.findings import Fix, Kind
from citedesk.core.operations import RetargetCitation
from citedesk.desk import AuditOptions, Desk
from citedesk.errors import RepairError


def test_a_fix_that_would_break_a_citation_is_left_out_with_why_and_the_rest_applied(tmp_path: Path) -> None:
    document = tmp_path / "draft.md"
    document.write_text(
        "Trees cool streets [1][9].\n\n## References\n\n[1] A. https://a.example\n", encoding="utf-8"
    )
    desk = Desk(AuditOptions(offline=True, judge="none", store_path=tmp_path / "store.sqlite3"))
    session = desk.open(document)
    report = session.structure_report()
    [good] = [f.fixes[0] for f in report.findings if f.kind is Kind.FABRICATED]
    bad = Fix("Cite [7] instead of [1]", (), (RetargetCitation(0, "1", "7"),))  # there is no [7]
    plan, refused = session.plan_most(report, [good, bad])
    assert plan.fixes == (good,)
    assert "Trees cool streets [1]." in plan.result  # [9] removed, [1] kept
    assert [fix for fix, _ in refused] == [bad]
    _, alone = session.plan_most(report, [bad])  # one fix: refused with the reason its plan gave
    with pytest.raises(RepairError) as raised:
        session.plan(report, [bad])
    assert alone == [(bad, raised.value.message)]
