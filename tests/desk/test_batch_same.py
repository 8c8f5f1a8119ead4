"""`citedesk batch` (issue 42): the same corpus with the same settings gives byte-identical reports
whatever the number of workers (and the order the documents were audited in)."""

from __future__ import annotations

from pathlib import Path

from citedesk.desk import Desk
from citedesk.desk.corpus_run import run_corpus
from tests.desk.test_batch import corpus, options, sources  # noqa: F401


def _reports(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted((out / "reports").rglob("*.json"))}


def test_one_worker_and_two_write_the_same_bytes(tmp_path: Path, sources: str) -> None:  # noqa: F811
    root = corpus(tmp_path, sources)
    one = run_corpus(Desk(options(tmp_path)), [root], tmp_path / "one", workers=1)
    two = run_corpus(Desk(options(tmp_path)), [root], tmp_path / "two", workers=2)
    assert one.outcomes == two.outcomes
    mine, theirs = _reports(tmp_path / "one"), _reports(tmp_path / "two")
    assert sorted(mine) == sorted(theirs)
    assert len(mine) >= 12
    for name, text in mine.items():
        assert text == theirs[name], name
    assert (tmp_path / "one" / "corpus.csv").read_bytes() == (tmp_path / "two" / "corpus.csv").read_bytes()
