"""`citedesk batch` (issue 42): what could not be had is asked for once per corpus — a dead link, a
server error, a DOI the indexes do not know or fail on — and not again on a re-run: the failures
are kept in the store for a while (a day for what the server said is gone, an hour for a server
error), so a corpus audited again (`--force`, or new documents citing the same works) asks the
network for nothing it asked within that time."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

import pytest

from citedesk.desk import AuditOptions, Desk
from citedesk.desk.corpus_run import run_corpus
from citedesk.pipeline import audit_text
from tests.desk.test_batch import TOPICS, _Sources
from tests.helpers.server import running

DOCUMENTS = 8


class _Server(_Sources):
    """Articles at /src/N (`test_batch._Sources`); 404 at /gone/N; 500 at /broken/N; and an index at
    /crossref, /openalex, /doi that answers 500 for DOIs 10.5555/down.* and 404 for everything else."""

    hits: ClassVar[dict[str, int]] = {}

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path.startswith("/src/"):
            super().do_GET()
            return
        self.hits[path] = self.hits.get(path, 0) + 1
        self.send_response(500 if path.startswith("/broken/") or "down." in path else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def server() -> Iterator[str]:
    _Server.hits = {}
    with running(_Server) as base:
        yield base


def _corpus(folder: Path, base: str) -> Path:
    root = folder / "corpus"
    root.mkdir()
    for i in range(DOCUMENTS):
        (root / f"doc{i:02}.md").write_text(
            f"# Part {i}\n\n{TOPICS[i % 3][1]} [1] Cities of {100 + i} people were studied [2]. "
            f"Most of them were hot [3]. Some were not [4].\n\n## References\n\n"
            f"1. Moreau L. (2021). {TOPICS[i % 3][0]}. {base}/src/{i % 3}\n"
            f"2. Oke T. (2017). Gone for good. {base}/gone/{i % 2}\n"
            f"3. Ruiz P. (2018). A server that fails. {base}/broken/{i % 2}\n"
            f"4. Abe K. (2020). An index that fails. Journal of Heat, 3(2). doi:10.5555/down.{i % 2}\n",
            encoding="utf-8",
        )
    return root


def _options(folder: Path, base: str) -> AuditOptions:
    return AuditOptions(
        judge="heuristic",
        dense=False,
        allow_private_network=True,
        store_path=folder / "store.sqlite3",
        doi_base=f"{base}/doi",
        crossref_base=f"{base}/crossref",
        openalex_base=f"{base}/openalex",
    )


def _alone(folder: Path, document: Path, base: str) -> dict[str, int]:
    """The requests auditing `document` alone makes (a store of its own)."""
    _Server.hits.clear()
    folder.mkdir()
    audit_text(document.read_text(encoding="utf-8"), str(document), _options(folder, base))
    return dict(_Server.hits)


def test_failures_are_asked_once_per_corpus_and_not_again_on_a_re_run(tmp_path: Path, server: str) -> None:
    root = _corpus(tmp_path, server)
    one = {
        **_alone(tmp_path / "a", root / "doc00.md", server),
        **_alone(tmp_path / "b", root / "doc01.md", server),
    }
    failing = {path: n for path, n in one.items() if not path.startswith("/src/")}
    assert {"/gone/0", "/gone/1", "/broken/0", "/broken/1"} <= set(failing)
    assert {
        "/doi/10.5555/down.0",
        "/crossref/works/10.5555/down.1",
        "/openalex/works/doi:10.5555/down.0",
    } <= set(failing)

    _Server.hits.clear()
    out = tmp_path / "out"
    first = run_corpus(Desk(_options(tmp_path, server)), [root], out, workers=2)
    assert all(o.error is None for o in first.outcomes)
    # before: each failing look-up was asked again by every document citing the work (5-6 times
    # for 4 documents); now 8 documents ask what one document alone asks
    assert _Server.hits == {**failing, "/src/0": 1, "/src/1": 1, "/src/2": 1}
    assert (first.distinct_sources, first.fetched, first.failed_sources) == (9, 3, 6)
    said = {p.name: p.read_bytes() for p in (out / "reports").iterdir()}

    _Server.hits.clear()
    again = run_corpus(Desk(_options(tmp_path, server)), [root], out, workers=2, force=True)
    assert again.audited == DOCUMENTS
    assert _Server.hits == {}  # nothing asked again: successes cached, failures kept for a while
    assert (again.distinct_sources, again.fetched, again.cached, again.failed_sources) == (9, 0, 3, 6)
    assert {p.name: p.read_bytes() for p in (out / "reports").iterdir()} == said  # said as then

    _Server.hits.clear()
    fresh = run_corpus(
        Desk(replace(_options(tmp_path, server), refresh=True)), [root], out, workers=2, force=True
    )
    assert fresh.audited == DOCUMENTS
    assert (
        _Server.hits.get("/gone/0") == _Server.hits.get("/openalex/works/doi:10.5555/down.0") == 1
    )  # --refresh asks again
