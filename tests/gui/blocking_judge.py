"""A judge that answers only once the test lets it: the window's staged results can be looked at
while the audit is still judging. It runs in the audit child process (a fresh interpreter), so the
child registers it itself: `AuditProcess(setup=functools.partial(install, release))`."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from citedesk.evidence.judges import heuristic
from citedesk.evidence.judges.base import Judgement, Pair, Policy
from citedesk.evidence.judges.heuristic import HeuristicJudge
from citedesk.evidence.judges.spec import JudgeKind, JudgeSpec, register, registered_specs

NAME = "blocking"
WAIT_S = 60
"""The longest it waits for its release (a test that forgot to release it still ends)."""


@dataclass
class BlockingJudge:
    """The heuristic judge's answers, given once the file `release` exists."""

    release: Path
    policy: Policy = heuristic.POLICY
    name: str = NAME
    inner: HeuristicJudge = field(default_factory=HeuristicJudge)

    def judge(
        self, pairs: Sequence[Pair], progress: Callable[[int, int], None] | None = None
    ) -> list[Judgement]:
        deadline = time.monotonic() + WAIT_S
        while not self.release.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.inner.judge(pairs, progress)


def spec(release: Path) -> JudgeSpec:
    return JudgeSpec(
        NAME, JudgeKind.WORD_LEVEL, "Blocking test judge", lambda _: BlockingJudge(release), heuristic.POLICY
    )


def install(release: Path) -> None:
    """Register the blocking judge in this process (the audit child's `setup`)."""
    if all(s.name != NAME for s in registered_specs()):
        register(spec(release))
