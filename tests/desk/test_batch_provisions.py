"""`citedesk batch` (issue 42): the local files a corpus cites are read, split and embedded once, in
the parent, and handed to the workers with the rest of the provisions — a worker extracts no file
and embeds no source passage again — and each report is still the one its document's audit alone
gives."""

from __future__ import annotations

import json
import multiprocessing as mp
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from citedesk.desk import AuditOptions, Desk, corpus_worker
from citedesk.desk.corpus_run import run_corpus
from citedesk.evidence.embed import Embedder
from citedesk.sources import gather
from citedesk.sources.extract import extract as real_extract
from tests.desk.test_batch import TOPICS, _findings

DOCUMENTS = 8


def _corpus(folder: Path) -> tuple[Path, Path]:
    """8 documents citing 3 of 6 local files by path; the files' texts are this test's own (no
    process-wide cache of an earlier test holds their passages)."""
    mark = uuid.uuid4().hex[:8]
    src = folder / "sources"
    src.mkdir()
    for n, (title, finding) in enumerate(TOPICS):
        (src / f"s{n}.txt").write_text(
            f"{title}\n\n{finding} The survey {mark} covered 112 mid-sized cities over three summers.\n\n"
            "The effect was strongest in hot, dry cities and weakest in humid coastal ones.\n",
            encoding="utf-8",
        )
    docs = folder / "corpus"
    docs.mkdir()
    for i in range(DOCUMENTS):
        a, b, c = i % 6, (i + 2) % 6, (i + 4) % 6
        (docs / f"doc{i:02}.md").write_text(
            f"# Notes {i}\n\n{TOPICS[a][1]} [1] In study {i}, {TOPICS[b][1].lower()} [2] "
            "The effect was strongest in hot cities [3].\n\n## References\n\n"
            f"1. Moreau L. (2021). {TOPICS[a][0]}. {src}/s{a}.txt\n"
            f"2. Lindqvist K. (2019). {TOPICS[b][0]}. {src}/s{b}.txt\n"
            f"3. Oke T. (2017). {TOPICS[c][0]}. {src}/s{c}.txt\n",
            encoding="utf-8",
        )
    return docs, src


def _options(folder: Path, src: Path, store: str) -> AuditOptions:
    return AuditOptions(
        judge="heuristic",
        dense=True,
        offline=True,
        check_references=False,
        local_roots=(src,),
        store_path=folder / store,
    )


@pytest.mark.slow
def test_a_worker_given_the_corpus_files_extracts_and_embeds_none_of_them_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs, src = _corpus(tmp_path)
    phase = ["gathering"]
    extracted: dict[str, list[str]] = {"gathering": [], "auditing": []}
    embedded: dict[str, list[str]] = {"gathering": [], "auditing": []}
    real_forward, real_start = Embedder._forward, corpus_worker.start

    def extract(data: bytes, content_type: str | None, name: str, **kw: object) -> object:
        extracted[phase[0]].append(name)
        return real_extract(data, content_type, name, **kw)  # type: ignore[arg-type]

    def forward(self: Embedder, texts: list[str], progress: object) -> object:
        embedded[phase[0]].extend(texts)
        return real_forward(self, texts, progress)  # type: ignore[arg-type]

    def start(*args: object, **named: object) -> None:
        phase[0] = "auditing"  # one worker: it runs in this process, after the parent's gathering
        real_start(*args, **named)  # type: ignore[arg-type]

    monkeypatch.setattr(gather, "extract", extract)
    monkeypatch.setattr(Embedder, "_forward", forward)
    monkeypatch.setattr(corpus_worker, "start", start)
    result = run_corpus(Desk(_options(tmp_path, src, "store.sqlite3")), [docs], tmp_path / "out", workers=1)
    assert [o.error for o in result.outcomes] == [None] * DOCUMENTS

    # each file read once, by the parent; each of its passages embedded once, by the parent
    assert sorted(extracted["gathering"]) == [f"s{n}.txt" for n in range(6)]
    assert extracted["auditing"] == []
    passages = embedded["gathering"]
    assert len(passages) == len(set(passages)) >= 12
    assert any("covered 112 mid-sized cities" in t for t in passages)
    assert embedded["auditing"], "the documents' own sentences are embedded by the worker"
    assert not set(embedded["auditing"]) & set(passages)

    # and each report is its document's audit alone, with a store of its own
    monkeypatch.undo()
    alone = Desk(_options(tmp_path, src, "alone.sqlite3"))
    for path in sorted(docs.iterdir()):
        written = json.loads((tmp_path / "out" / "reports" / f"{path.name}.json").read_text(encoding="utf-8"))
        mine = json.loads(alone.open(path).render(alone.open(path).audit(), "json"))
        assert _findings(written) == _findings(mine), path.name


def test_a_run_stopped_while_the_parent_gathers_leaves_no_worker_waiting(tmp_path: Path) -> None:
    """The workers are started before the parent gathers (they spawn and import meanwhile) and wait
    for their options: a run stopped then (Ctrl-C, a failure) tells them to end, and none is left."""
    docs, src = _corpus(tmp_path)

    def stop(label: str, done: int, total: int, note: str) -> None:
        if label == "documents read" and done == 3:
            raise KeyboardInterrupt

    options = replace(_options(tmp_path, src, "store.sqlite3"), dense=False)
    with pytest.raises(KeyboardInterrupt):
        run_corpus(Desk(options), [docs], tmp_path / "out", workers=2, progress=stop)
    assert mp.active_children() == []
    assert not (tmp_path / "out" / ".workers").exists() or not any((tmp_path / "out" / ".workers").iterdir())
