"""A judge CiteDesk does not have, with one setting of its own, declared in this one module (issue
39): `toy-depth` reads as the word-level judge does, and its spec declares `toy_depth` (a settings
file's key, `--toy-depth`, a row of the settings dialog). Its loader keeps the value it was given
(`DEPTHS`), so a test sees what reached `JudgeContext.settings`; no module of `citedesk/` names it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from citedesk.evidence.judges import heuristic
from citedesk.evidence.judges.base import Judge
from citedesk.evidence.judges.heuristic import HeuristicJudge
from citedesk.evidence.judges.registry import JudgeContext, JudgeKind, JudgeSetting, JudgeSpec, registered

DEPTH = JudgeSetting(
    "toy_depth",
    "shallow",
    "Toy judge depth",
    "how deeply the toy judge reads (shallow or deep)",
    flag="--toy-depth",
    metavar="DEPTH",
)
DEPTHS: list[object] = []
"""The `toy_depth` each load was given, in order."""


def _load(context: JudgeContext) -> Judge:
    DEPTHS.append(context.settings.get(DEPTH.key))
    return HeuristicJudge()


SPEC = JudgeSpec(
    "toy-depth",
    JudgeKind.WORD_LEVEL,
    "Toy judge with a depth",
    _load,
    replace(heuristic.POLICY, note=""),
    settings=(DEPTH,),
)


@contextmanager
def toy_judge() -> Iterator[JudgeSpec]:
    """The toy judge registered (and its setting declared) while in the block."""
    DEPTHS.clear()
    with registered(SPEC) as spec:
        yield spec
