"""`citedesk batch` (issue 42): one huge document does not stall the tail in silence — it is
started first (the largest first), and while no audit finishes the progress names it and how long
it has been in flight (before: the bar stayed put with nothing said until it was done)."""

from __future__ import annotations

from pathlib import Path

import pytest

from citedesk.desk import AuditOptions, Desk, corpus_run
from tests.bench.corpus_speed import build


def test_a_huge_document_is_started_first_and_named_while_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(corpus_run, "TICK", 0.05)  # a line every 50 ms without a finished audit
    sources, docs = build(tmp_path, 6, huge=150)
    options = AuditOptions(
        judge="heuristic",
        dense=False,
        local_roots=(sources,),
        offline=True,
        check_references=False,
        store_path=tmp_path / "store.sqlite3",
    )
    said: list[tuple[int, str]] = []
    result = corpus_run.run_corpus(
        Desk(options),
        [docs],
        tmp_path / "out",
        workers=2,
        progress=lambda label, done, total, note: (
            said.append((done, note)) if label == "documents audited" else None
        ),
    )
    assert all(o.error is None for o in result.outcomes)
    assert result.slowest[0][0] == "huge.md"
    in_flight = [(done, note) for done, note in said if "in flight: huge.md for" in note]
    assert in_flight  # named while it ran
    assert said[-1][0] == 7
