"""The audit's stages (issue 24): named, in order, each publishing its findings when it is done."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import pytest

from citedesk.engine import stages
from citedesk.engine.state import StageResult
from citedesk.pipeline import AuditOptions, AuditState, audit_text
from tests.conftest import SAMPLES

NAMES = ["structure", "sources", "reference truth", "retrieval", "judging", "findings"]


def _options(tmp_path: Path) -> AuditOptions:
    return AuditOptions(offline=True, store_path=tmp_path / "store.db", judge="heuristic", dense=False)


def test_every_stage_publishes_in_order_and_the_report_is_their_union(tmp_path: Path) -> None:
    published: list[StageResult] = []
    path = SAMPLES / "problems.md"
    state = AuditState(on_stage=published.append)
    report = audit_text(path.read_text(encoding="utf-8"), str(path), _options(tmp_path), state)
    assert [r.stage for r in published] == NAMES
    shown: list[object] = []
    for result in published:
        for gone in result.withdrawn:
            shown.remove(next(f for f in shown if f == gone))
        shown.extend(result.findings)
    assert sorted(map(repr, shown)) == sorted(map(repr, report.findings))
    assert published[0].findings  # the structural findings come first
    assert all(r.seconds >= 0 for r in published)


def test_a_stage_is_published_before_the_next_one_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    structure_out = threading.Event()
    order: list[str] = []

    def waiting(ctx: stages.AuditContext) -> stages.Found:
        order.append("sources starts")
        assert structure_out.wait(timeout=10), "the structural findings were not published first"
        return stages._sources(ctx)

    patched = tuple(replace(s, run=waiting) if s.name == "sources" else s for s in stages.STAGES)
    monkeypatch.setattr(stages, "STAGES", patched)

    def heard(result: StageResult) -> None:
        order.append(f"{result.stage} published")
        if result.stage == "structure":
            structure_out.set()

    path = SAMPLES / "problems.md"
    audit_text(path.read_text(encoding="utf-8"), str(path), _options(tmp_path), AuditState(on_stage=heard))
    assert order[:3] == ["structure published", "sources starts", "sources published"]


def test_a_cancelled_audit_stops_between_stages(tmp_path: Path) -> None:
    from citedesk.errors import Cancelled

    state = AuditState()
    heard: list[str] = []

    def cancel_after_structure(result: StageResult) -> None:
        heard.append(result.stage)
        state.cancel()

    state.on_stage = cancel_after_structure
    path = SAMPLES / "problems.md"
    with pytest.raises(Cancelled):
        audit_text(path.read_text(encoding="utf-8"), str(path), _options(tmp_path), state)
    assert heard == ["structure"]
