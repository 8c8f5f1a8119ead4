"""`citedesk batch` (issue 42): the local files a corpus cites are read, split and embedded once, in
the parent, and handed to the workers with the rest of the provisions — a worker extracts no file
and embeds no source passage again — and each report is still the one its document's audit alone
gives."""

from __future__ import annotations

import json
import multiprocessing as mp
import threading
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from citedesk.desk import AuditOptions, Desk, corpus_worker
from citedesk.desk.corpus_run import CorpusResult, run_corpus
from citedesk.evidence.embed import Embedder
from citedesk.files import read_regular_file as real_read
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
    opened: dict[str, list[str]] = {"gathering": [], "auditing": []}
    real_forward, real_start = Embedder._forward, corpus_worker.start

    def extract(data: bytes, content_type: str | None, name: str, **kw: object) -> object:
        extracted[phase[0]].append(name)
        return real_extract(data, content_type, name, **kw)  # type: ignore[arg-type]

    def read(path: Path, limit: int) -> bytes:
        opened[phase[0]].append(path.name)
        return real_read(path, limit)

    def forward(self: Embedder, texts: list[str], progress: object) -> object:
        embedded[phase[0]].extend(texts)
        return real_forward(self, texts, progress)  # type: ignore[arg-type]

    def start(*args: object, **named: object) -> None:
        phase[0] = "auditing"  # one worker: it runs in this process, after the parent's gathering
        real_start(*args, **named)  # type: ignore[arg-type]

    monkeypatch.setattr(gather, "extract", extract)
    monkeypatch.setattr(gather, "read_regular_file", read)
    monkeypatch.setattr(Embedder, "_forward", forward)
    monkeypatch.setattr(corpus_worker, "start", start)
    result = run_corpus(Desk(_options(tmp_path, src, "store.sqlite3")), [docs], tmp_path / "out", workers=1)
    assert [o.error for o in result.outcomes] == [None] * DOCUMENTS

    # each file read once, by the parent; each of its passages embedded once, by the parent
    assert sorted(extracted["gathering"]) == [f"s{n}.txt" for n in range(6)]
    assert extracted["auditing"] == []
    assert sorted(opened["gathering"]) == [f"s{n}.txt" for n in range(6)]  # not once per citing document
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


def test_a_worker_killed_before_it_has_its_options_ends_the_run_with_every_document_said(
    tmp_path: Path,
) -> None:
    """A worker that dies while the parent gathers (out of memory, killed): the run still ends —
    its options, queued for a reader that is gone, are not waited on — each document is said to be
    left for the next run, and no process is left behind."""
    docs, src = _corpus(tmp_path)
    with (src / "s0.txt").open("a", encoding="utf-8") as source:  # options larger than a pipe holds
        source.write(
            "".join(f"Plot {n} was surveyed in the summer of {1990 + n % 30}. " for n in range(3000))
        )

    def kill_one(label: str, done: int, total: int, note: str) -> None:
        if label == "documents read" and done == 1:
            worker = mp.active_children()[0]
            worker.kill()
            worker.join(timeout=60)

    options = replace(_options(tmp_path, src, "store.sqlite3"), dense=False)
    ended: list[object] = []
    run = threading.Thread(
        target=lambda: ended.append(
            run_corpus(Desk(options), [docs], tmp_path / "out", workers=2, progress=kill_one)
        ),
        daemon=True,
    )
    run.start()
    run.join(timeout=300)
    assert ended, "the run did not end"
    (result,) = ended
    assert isinstance(result, CorpusResult)
    assert all(o.error is not None and "worker process ended" in o.error for o in result.outcomes)
    assert mp.active_children() == []
