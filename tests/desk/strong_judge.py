"""A toy strong judge for the cascade's background pass (issue 27): the word-level judge's numbers,
except that it finds the evidence sample's survey claim supported (so the strong judge's report
differs from the fast judge's there), and it answers only once the file `release` exists (a test
can look at the provisional report while the re-read waits). It runs in the audit child (a fresh
interpreter), so the child registers it itself:
`AuditProcess(setup=functools.partial(install, release))`."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from citedesk.evidence.judges import heuristic
from citedesk.evidence.judges.base import Judgement, Pair, Policy
from citedesk.evidence.judges.heuristic import HeuristicJudge
from citedesk.evidence.judges.spec import JudgeKind, JudgeSpec, register, registered_specs

NAME = "toy-strong"
FAST = "toy-fast"
"""A fast judge that may act (the word-level judge's readings under a model's policy): its
judge-driven fixes are safe, so a provisional report has some to hold back from **Fix all**."""
SURVEY = "112 mid-sized cities"
"""Words of the evidence sample's misattributed claim (c3): the toy finds it supported."""
WAIT_S = 60
"""The longest it waits for its release (a test that forgot to release it still ends)."""
POLICY = replace(heuristic.POLICY, note="", acts=True, kind="model")


@dataclass
class StrongToy:
    release: Path | None
    policy: Policy = POLICY
    name: str = NAME
    twist: bool = True
    """Find the survey claim supported (the strong toy); False: the word-level reading (the fast)."""
    inner: HeuristicJudge = field(default_factory=HeuristicJudge)

    def judge(
        self, pairs: Sequence[Pair], progress: Callable[[int, int], None] | None = None
    ) -> list[Judgement]:
        deadline = time.monotonic() + WAIT_S
        while self.release is not None and not self.release.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        read = self.inner.judge(pairs, progress)
        if not self.twist:
            return read
        return [Judgement(0.95, 0.0) if SURVEY in p.claim else j for p, j in zip(pairs, read, strict=True)]


def spec(release: Path | None = None) -> JudgeSpec:
    return JudgeSpec(NAME, JudgeKind.SERVER, "Toy strong judge", lambda _: StrongToy(release), POLICY)


def fast_spec() -> JudgeSpec:
    return JudgeSpec(
        FAST, JudgeKind.SERVER, "Toy fast judge", lambda _: StrongToy(None, name=FAST, twist=False), POLICY
    )


def install(release: Path | None = None) -> None:
    """Register the toys in this process (the audit child's `setup`)."""
    names = {s.name for s in registered_specs()}
    if NAME not in names:
        register(spec(release))
    if FAST not in names:
        register(fast_spec())
