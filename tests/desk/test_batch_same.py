"""`citedesk batch` (issue 42): the same corpus with the same settings gives byte-identical reports
whatever the number of workers, the order the documents were audited in, the hash seed and the
engine — with the embedder on too (a text's vector is a function of the text alone)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from citedesk.desk import AuditOptions, Desk
from citedesk.desk.corpus_ray import ray_installed
from citedesk.desk.corpus_run import run_corpus
from citedesk.evidence.embed import Embedder, default_model_dir
from citedesk.evidence.onnx_embed import ONNX_ENV, chosen_file, int8_file
from citedesk.evidence.onnx_export import prepare
from tests.conftest import REPO
from tests.desk.test_batch import TOPICS, corpus, options, sources  # noqa: F401


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


def test_a_texts_vector_does_not_depend_on_the_texts_embedded_with_it() -> None:
    """Before, texts were embedded in batches, and a text's vector moved with its companions (the
    int8 model quantises a batch's activations with one scale: cosine down to 0.997; torch's
    padding by ~1e-7) — which depended on what a worker had embedded before."""
    claim = "Large parks lowered afternoon air temperature by 0.9 degrees nearby."
    longer = "The survey covered 112 mid-sized cities over three summers, strongest in hot, dry ones."
    alone = Embedder(backend="torch").encode([claim])[0]
    among = Embedder(backend="torch").encode([longer, claim, "Trees."])[1]
    assert alone.tobytes() == among.tobytes()


def _dense_corpus(folder: Path) -> Path:
    """16 documents citing 3 of 6 local sources in varied combinations, sentences shared among them:
    what a worker has embedded before differs with the number of workers and their order."""
    src = folder / "sources"
    src.mkdir(parents=True)
    for n, (title, finding) in enumerate(TOPICS):
        (src / f"s{n}.txt").write_text(
            f"{title}\n\n{finding} The survey covered 112 mid-sized cities over three summers.\n\n"
            "The effect was strongest in hot, dry cities and weakest in humid coastal ones.\n\n"
            "Night-time temperatures fell less than daytime ones in every city.\n",
            encoding="utf-8",
        )
    docs = folder / "corpus"
    docs.mkdir()
    for i in range(16):
        a, b, c = i % 6, (i * 5 + 1) % 6, (i + 3) % 6
        (docs / f"doc{i:02}.md").write_text(
            f"# Notes {i}\n\n{TOPICS[a][1]} [1] In study {i}, {TOPICS[b][1].lower()} [2] "
            "The effect was strongest in hot cities [3]. Night temperatures fell less than day ones [1].\n\n"
            f"Most cities in the sample of {100 + i} will warm by 3 degrees before 2050 [2].\n\n"
            "## References\n\n"
            f"1. Moreau L. (2021). {TOPICS[a][0]}. {src}/s{a}.txt\n"
            f"2. Lindqvist K. (2019). {TOPICS[b][0]}. {src}/s{b}.txt\n"
            f"3. Oke T. (2017). {TOPICS[c][0]}. {src}/s{c}.txt\n",
            encoding="utf-8",
        )
    return docs


@pytest.fixture(scope="module")
def int8_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder holding the packaged embedder's ONNX files, its int8 copy chosen: the model
    every writer's audit embeds with (made once for this module, a few seconds of CPU)."""
    cache = tmp_path_factory.mktemp("xdg-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(cache))
        patch.delenv(ONNX_ENV, raising=False)
        assert (
            prepare(default_model_dir()) == chosen_file(default_model_dir()) == int8_file(default_model_dir())
        )
    return cache


def _batch(docs: Path, out: Path, workers: int, seed: str, cache: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != ONNX_ENV}
    env.update(PYTHONHASHSEED=seed, XDG_CACHE_HOME=str(cache), NO_COLOR="1")
    flags = ["--out", str(out), "--store", str(out.parent / f"{out.name}.sqlite3"), "--offline"]
    flags += ["--judge", "heuristic", "--dense", "--allow-folder", str(docs.parent / "sources")]
    done = subprocess.run(
        [sys.executable, "-m", "citedesk", "batch", str(docs), *flags, "--workers", str(workers)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
        env=env,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr


@pytest.mark.slow
def test_reports_with_the_embedder_are_the_same_bytes_under_two_hash_seeds_and_worker_counts(
    tmp_path: Path, int8_cache: Path
) -> None:
    """Before, doc04's scores moved in the fourth decimal between 1 and 2 workers (0.6828 / 0.6823),
    and with them which passage was the evidence (the source's title, or a sentence of it)."""
    docs = _dense_corpus(tmp_path)
    _batch(docs, tmp_path / "one", 1, "1", int8_cache)
    _batch(docs, tmp_path / "two", 2, "2", int8_cache)
    one, two = _reports(tmp_path / "one"), _reports(tmp_path / "two")
    assert len(one) == 16
    assert b'"score"' in one["reports/doc04.md.json"]
    assert one == two
    assert (tmp_path / "one" / "corpus.csv").read_bytes() == (tmp_path / "two" / "corpus.csv").read_bytes()


@pytest.mark.ray
@pytest.mark.skipif(not ray_installed(), reason="Ray is not installed (pip install 'citedesk[scale]')")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # Ray Data's own, about its own settings
@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_ray_with_the_embedder_writes_the_local_engines_bytes(
    tmp_path: Path, int8_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # a loopback test cluster; nothing leaks to later tests
    monkeypatch.setenv("XDG_CACHE_HOME", str(int8_cache))
    monkeypatch.delenv(ONNX_ENV, raising=False)
    docs = _dense_corpus(tmp_path)
    for engine, workers in (("local", 1), ("ray", 2)):
        opts = AuditOptions(
            judge="heuristic",
            dense=True,
            offline=True,
            local_roots=(docs.parent / "sources",),
            store_path=tmp_path / f"{engine}.sqlite3",
        )
        run_corpus(Desk(opts), [docs], tmp_path / engine, workers=workers, engine=engine)
    assert len(_reports(tmp_path / "local")) == 16
    assert _reports(tmp_path / "ray") == _reports(tmp_path / "local")
