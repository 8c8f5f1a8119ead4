"""`citedesk batch --engine ray` (issue 31): on a local Ray, the same corpus gives the same reports
and rows as the local engine. Skipped when Ray (the `scale` extra) is not installed: CI's dev
install leaves it out, for its time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citedesk.desk import Desk
from citedesk.desk.corpus_ray import ray_installed
from citedesk.desk.corpus_run import run_corpus
from tests.desk.test_batch import DOCUMENTS, corpus, options, sources  # noqa: F401 - the server fixture


@pytest.mark.skipif(not ray_installed(), reason="Ray is not installed (pip install 'citedesk[scale]')")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # Ray Data's own, about its own settings
@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_ray_gives_what_the_local_engine_gives(
    tmp_path: Path,
    sources: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # a loopback test cluster; nothing leaks to later tests
    root = corpus(tmp_path, sources)
    (tmp_path / "local").mkdir()
    (tmp_path / "ray").mkdir()
    local = run_corpus(Desk(options(tmp_path / "local")), [root], tmp_path / "local" / "out", workers=1)
    on_ray = run_corpus(
        Desk(options(tmp_path / "ray")), [root], tmp_path / "ray" / "out", workers=2, engine="ray"
    )

    assert on_ray.audited == local.audited == DOCUMENTS + 1
    assert on_ray.outcomes == local.outcomes  # every row, the broken document's error included
    for outcome in local.outcomes:
        if outcome.error is None:
            name = f"{outcome.document}.json"
            mine = json.loads((tmp_path / "ray" / "out" / "reports" / name).read_text(encoding="utf-8"))
            theirs = json.loads((tmp_path / "local" / "out" / "reports" / name).read_text(encoding="utf-8"))
            assert mine["findings"] == theirs["findings"]
