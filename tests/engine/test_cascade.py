"""The cascade (issue 27): the fast judge reads everything, a strong judge re-reads only what
matters — the fast judge's findings, the fixes it drives, the claims it is unsure about — within
its budget, and decides those; everything else keeps the fast judge's reading, and the report says
which judge decided each verdict and how much the strong judge re-read."""

from __future__ import annotations

import json
import re
import shutil
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from citedesk.cli import main
from citedesk.core.findings import Applicability, Kind, VerdictLabel
from citedesk.errors import EXIT_USAGE
from citedesk.evidence.judges import heuristic
from citedesk.evidence.judges.base import Judgement, Pair, Policy
from citedesk.evidence.judges.heuristic import HeuristicJudge
from citedesk.evidence.judges.registry import JudgeKind, JudgeSpec, registered
from citedesk.pipeline import AuditOptions, audit_text
from tests.conftest import SAMPLES

FAST = "heuristic:words"
SURVEY = "112 mid-sized cities"
"""Words of the sample's misattributed claim (c3: cites the tree-survival fact sheet [3])."""


@dataclass
class StrongToy:
    """A stand-in for a strong model: the word-level judge's numbers, except that it finds the
    survey claim supported by whatever it reads (so it disagrees with the fast judge there), and
    it may take `pause` seconds per call (a slow model)."""

    policy: Policy
    name: str
    pause: float = 0.0
    asked: list[str] = field(default_factory=list)
    inner: HeuristicJudge = field(default_factory=HeuristicJudge)

    def judge(
        self, pairs: Sequence[Pair], progress: Callable[[int, int], None] | None = None
    ) -> list[Judgement]:
        time.sleep(self.pause)
        self.asked.extend(p.claim for p in pairs)
        read = self.inner.judge(pairs, progress)
        return [Judgement(0.95, 0.0) if SURVEY in p.claim else j for p, j in zip(pairs, read, strict=True)]


def strong_spec(name: str, pause: float = 0.0) -> tuple[JudgeSpec, list[StrongToy]]:
    policy = replace(heuristic.POLICY, note="", acts=True, kind="model")
    loaded: list[StrongToy] = []

    def load(_: object) -> StrongToy:
        loaded.append(StrongToy(policy, name, pause))
        return loaded[-1]

    return JudgeSpec(name, JudgeKind.SERVER, f"Toy strong judge {name}", load, policy), loaded


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    target = tmp_path / "evidence.md"
    shutil.copy(SAMPLES / "evidence.md", target)
    return target


def audit(sample: Path, **options: Any) -> Any:
    chosen = AuditOptions(offline=True, dense=False, judge="heuristic", document_dir=sample.parent, **options)
    return audit_text(sample.read_text(encoding="utf-8"), str(sample), chosen)


def deciders(report: Any) -> dict[str, set[str | None]]:
    return {c: {v.judge for v in vs} for c, vs in report.verdicts.items()}


def test_the_strong_judge_decides_what_it_rereads_and_the_rest_keeps_the_fast_reading(sample: Path) -> None:
    fast = audit(sample)
    spec, loaded = strong_spec("toy-strong")
    with registered(spec):
        report = audit(sample, strong_judge="toy-strong")
    survey = next(c.id for c in report.document.claims if SURVEY in c.text)
    # the fast judge called the survey claim misattributed; the strong judge, re-reading it, decides
    assert (Kind.MISATTRIBUTED, survey) in {(f.kind, f.claim_id) for f in fast.findings}
    assert (Kind.MISATTRIBUTED, survey) not in {(f.kind, f.claim_id) for f in report.findings}
    assert [v.label for v in report.verdicts[survey]] == [VerdictLabel.SUPPORTED]
    assert deciders(report)[survey] == {"toy-strong"}
    # only the claims that matter were re-read: a confidently supported one keeps the fast verdict
    asked = set(loaded[0].asked)
    confident = [
        c for c, vs in fast.verdicts.items() if all(abs(v.score - heuristic.SUPPORTED) > 0.1 for v in vs)
    ]
    confident = [c for c in confident if not any(f.claim_id == c for f in fast.findings)]
    assert confident
    for claim_id in confident:
        assert deciders(report)[claim_id] == {FAST}
        assert report.document.claim_by_id[claim_id].text not in asked
        assert report.verdicts[claim_id] == fast.verdicts[claim_id]
    assert re.search(r"strong judge toy-strong re-read (\d+) of \1 within 30 s", report.judge_note)
    assert report.judge == FAST  # the fast judge is still the audit's judge


def test_findings_the_strong_judge_decides_follow_its_policy(sample: Path) -> None:
    fast = audit(sample)
    spec, _ = strong_spec("toy-strong")
    with registered(spec):
        report = audit(sample, strong_judge="toy-strong")
    # the word-level judge may only suggest: its fix for the uncited sentence is unsafe; the strong
    # judge re-read that sentence (a judge-driven fix) and, being a model that may act, offers it safe
    (before,) = [f for f in fast.findings if f.kind is Kind.UNCITED]
    (after,) = [f for f in report.findings if f.kind is Kind.UNCITED]
    assert {f.applicability for f in before.fixes} == {Applicability.UNSAFE}
    assert Applicability.SAFE in {f.applicability for f in after.fixes}


def test_the_budget_stops_the_rereading_and_what_it_missed_keeps_the_fast_reading(sample: Path) -> None:
    fast = audit(sample)
    spec, _ = strong_spec("toy-slow", pause=0.4)
    with registered(spec):
        started = time.monotonic()
        report = audit(sample, strong_judge="toy-slow", strong_budget=0.2)
        took = time.monotonic() - started
    found = re.search(
        r"re-read (\d+) of (\d+) within 0.2 s; the rest keep the fast judge's reading", report.judge_note
    )
    assert found is not None, report.judge_note
    reread, wanted = int(found[1]), int(found[2])
    assert reread < wanted
    not_reached = [c for c, who in deciders(report).items() if who == {FAST}]
    assert len(not_reached) >= wanted - reread
    for claim_id in not_reached:
        assert report.verdicts[claim_id] == fast.verdicts[claim_id]
    # one claim cut short is dropped whole, not half-read: never a verdict that is not checked
    assert all(v.label is not VerdictLabel.UNCHECKED for vs in report.verdicts.values() for v in vs)
    assert took < 60  # a hang guard; that the budget stopped the re-reading is `reread < wanted` above


def test_the_cli_takes_a_strong_judge_and_the_json_report_names_each_verdicts_judge(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec, _ = strong_spec("toy-strong")
    with registered(spec):
        main(
            [
                "audit",
                str(sample),
                "--offline",
                "--format",
                "json",
                "--no-dense",
                "--judge",
                "heuristic",
                "--strong-judge",
                "toy-strong",
                "--strong-budget",
                "20",
            ]
        )
    report = json.loads(capsys.readouterr().out)
    judges = {v["judge"] for c in report["claims"] for v in c["verdicts"] if v["label"] != "unchecked"}
    assert judges == {FAST, "toy-strong"}
    assert "strong judge toy-strong re-read" in report["judge_note"]
    assert "within 20 s" in report["judge_note"]


def test_a_strong_judge_that_would_send_text_to_claude_is_refused(sample: Path) -> None:
    assert main(["audit", str(sample), "--offline", "--no-dense", "--strong-judge", "claude"]) == EXIT_USAGE


def test_without_a_strong_judge_the_audit_is_as_before(sample: Path) -> None:
    report = audit(sample)
    assert "strong judge" not in report.judge_note
    assert all(who == {FAST} for who in deciders(report).values())


def test_a_strong_judge_whose_server_is_down_leaves_the_fast_reading_whole(sample: Path) -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on: the connection is refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    alone = audit(sample)
    down = audit(
        sample, strong_judge="server:toy", judge_settings={"judge_url": f"http://127.0.0.1:{port}/v1"}
    )
    kinds = sorted(f.kind for f in alone.findings)
    assert Kind.NUMBER_MISMATCH in kinds
    assert sorted(f.kind for f in down.findings) == kinds  # the fast judge's error and warnings stand
    assert down.coverage_or_count().checked == alone.coverage_or_count().checked
    assert all(who == {FAST} for who in deciders(down).values())
    assert "the rest keep the fast judge's reading" in down.judge_note
    # nothing was re-read: an uncited sentence's candidates the server could not answer either
    assert "re-read 0 of" in down.judge_note
    offered = {f.claim_id: [x.title for x in f.fixes] for f in alone.findings if f.kind is Kind.UNCITED}
    assert offered == {
        f.claim_id: [x.title for x in f.fixes] for f in down.findings if f.kind is Kind.UNCITED
    }
