"""The ONNX Runtime embedder: the same vectors as torch's (so the store's cached embeddings stay
valid whichever ran), no torch in a process that embeds with it, and torch — never a failure — when
the ONNX file is missing, damaged or could not be made."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pysbd
import pytest

from citedesk.cli import main
from citedesk.evidence.embed import PREPARING, Embedder, default_model_dir
from citedesk.evidence.onnx_embed import (
    ONNX_ENV,
    Int8Agreement,
    OnnxEncoder,
    agreement_file,
    chosen_file,
    failure_file,
    int8_file,
    onnx_file,
)
from citedesk.evidence.onnx_export import export, prepare, start_background_export
from citedesk.evidence.onnx_int8 import MIN_COSINE, make_int8, min_cosine
from citedesk.store import Store
from tests.conftest import REPO, SAMPLES

pytestmark = pytest.mark.slow


def real_sentences(count: int = 50) -> list[str]:
    """Sentences of the bundled samples and their sources (titles and list stubs left out), and one
    long enough to be truncated at 128 tokens."""
    files = sorted(SAMPLES.glob("*.md")) + sorted((SAMPLES / "sources").iterdir())
    text = "\n\n".join(path.read_text(encoding="utf-8") for path in files)
    segmenter = pysbd.Segmenter(language="en", clean=False)
    found = [s.strip() for s in segmenter.segment(text) if len(s.split()) >= 5]
    assert len(found) >= count - 1
    return [*found[: count - 1], " ".join(found[:12])]


@pytest.fixture(scope="module")
def onnx_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packaged all-MiniLM-L6-v2 exported once for this module (about five seconds)."""
    return export(default_model_dir(), tmp_path_factory.mktemp("onnx") / "minilm.onnx")


@pytest.fixture
def onnx_on(monkeypatch: pytest.MonkeyPatch) -> Path:
    """ONNX allowed (the suite turns it off) in this test's own cache folder: yields the path the
    packaged model's ONNX file has there."""
    monkeypatch.delenv(ONNX_ENV)
    return onnx_file(default_model_dir())


def test_onnx_vectors_equal_torch_vectors_on_real_sentences(onnx_model: Path) -> None:
    sentences = real_sentences()
    torch_vectors = Embedder(default_model_dir(), backend="torch", batch_size=16).encode(sentences)
    encoder = OnnxEncoder.load(default_model_dir(), onnx_model, max_length=128)
    onnx_vectors = np.concatenate([encoder.forward(sentences[i : i + 16]) for i in range(0, 50, 16)])

    cosines = (torch_vectors * onnx_vectors).sum(axis=1)
    assert onnx_vectors.shape == (50, 384)
    assert cosines.min() >= 0.9999, sentences[int(cosines.argmin())]
    assert np.allclose(np.linalg.norm(onnx_vectors, axis=1), 1.0, atol=1e-5)


def test_vectors_cached_by_torch_serve_the_onnx_embedder(
    onnx_model: Path, onnx_on: Path, tmp_path: Path
) -> None:
    """One cache key for both: a store filled by torch answers the ONNX embedder, and back."""
    onnx_on.parent.mkdir(parents=True)
    onnx_on.write_bytes(onnx_model.read_bytes())
    sentences = real_sentences(10)
    store = Store(tmp_path / "store.sqlite3")
    try:
        by_torch = Embedder(default_model_dir(), store=store, backend="torch")
        first = by_torch.encode(sentences[:5])
        by_onnx = Embedder(default_model_dir(), store=store)
        both = by_onnx.encode(sentences)
        assert by_onnx.name == by_torch.name
        assert by_onnx.runtime == "onnx"
        assert np.array_equal(both[:5], first)  # read back from the store, not recomputed
        again = Embedder(default_model_dir(), store=store, backend="torch").encode(sentences[5:])
        assert np.array_equal(again, both[5:])
    finally:
        store.close()


def test_a_process_that_embeds_with_onnx_never_imports_torch(onnx_model: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "PYTHONPATH": str(REPO)}
    env.pop(ONNX_ENV)
    child = (
        "import json, sys\n"
        "from citedesk.evidence.embed import Embedder, default_model_dir\n"
        "from citedesk.evidence.onnx_embed import onnx_file\n"
        "target = onnx_file(default_model_dir())\n"
        "target.parent.mkdir(parents=True)\n"
        f"target.symlink_to({str(onnx_model)!r})\n"
        "embedder = Embedder(default_model_dir())\n"
        "vectors = embedder.encode(['Street trees cool the pavement.', 'Cities are warmer.'])\n"
        "heavy = sorted(m for m in ('torch', 'transformers') if m in sys.modules)\n"
        "print(json.dumps([embedder.runtime, vectors.shape, heavy]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", child], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == ["onnx", [2, 384], []]


def test_a_damaged_onnx_file_falls_back_to_torch_with_a_notice(
    onnx_on: Path, caplog: pytest.LogCaptureFixture
) -> None:
    onnx_on.parent.mkdir(parents=True)
    onnx_on.write_bytes(b"not an onnx model")
    embedder = Embedder(default_model_dir())

    vectors = embedder.encode(["Street trees cool the pavement."])

    assert embedder.runtime == "torch"
    assert vectors.shape == (1, 384)
    assert "did not load" in embedder.notice
    assert "embeddings use torch" in embedder.notice
    assert "\n" not in embedder.notice


def test_an_onnx_session_failing_mid_way_hands_every_text_to_torch(
    onnx_model: Path, onnx_on: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Texts embedded two at a time; the session fails from its fourth text on: every text still
    gets its vector, in order (torch's from then on, loaded once for both lanes), and the notice
    says why. Before, the lanes after the failure met an unloaded torch model."""
    model = default_model_dir()
    onnx_on.parent.mkdir(parents=True)
    shutil.copy(onnx_model, onnx_on)
    Int8Agreement("none", 0.0, 0, False).save(agreement_file(model))  # fp32: no int8 copy to make
    calls = itertools.count()
    real = OnnxEncoder.forward

    def failing(self: OnnxEncoder, texts: list[str]) -> np.ndarray:
        if next(calls) >= 3:
            raise RuntimeError("the session broke")
        return real(self, texts)

    monkeypatch.setattr(OnnxEncoder, "forward", failing)
    sentences = real_sentences(12)
    embedder = Embedder(model, threads=2)
    vectors = embedder.encode(sentences)

    assert embedder.runtime == "torch"
    assert "the ONNX model failed (RuntimeError: the session broke)" in embedder.notice
    reference = Embedder(model, backend="torch").encode(sentences)
    assert vectors.shape == (12, 384)
    assert float((vectors * reference).sum(axis=1).min()) >= 0.9999


def test_a_failed_export_is_not_retried_by_audits(onnx_on: Path) -> None:
    """The failure note keeps later audits on torch, without starting another export each time."""
    failed = failure_file(default_model_dir())
    failed.parent.mkdir(parents=True)
    failed.write_text("ExportFailed: the exporter crashed\n", encoding="utf-8")
    embedder = Embedder(default_model_dir())

    embedder.encode(["Street trees cool the pavement."])

    assert embedder.runtime == "torch"
    assert "the exporter crashed" in embedder.notice
    assert "citedesk models prepare" in embedder.notice
    assert start_background_export(default_model_dir()) is None
    assert not onnx_on.with_suffix(".lock").exists()


def test_the_background_export_runs_once_and_publishes_a_whole_file(onnx_on: Path) -> None:
    process = start_background_export(default_model_dir())
    assert process is not None
    try:
        assert start_background_export(default_model_dir()) is None  # its lock holds a second one off
    finally:
        assert process.wait(timeout=300) == 0
    assert onnx_on.is_file()
    assert not onnx_on.with_suffix(".lock").exists()
    made = {onnx_on, int8_file(default_model_dir()), agreement_file(default_model_dir())}
    assert set(onnx_on.parent.iterdir()) == made  # no partial file left
    embedder = Embedder(default_model_dir())
    embedder.encode(["Street trees cool the pavement."])
    assert embedder.runtime == "onnx"
    assert embedder.notice == ""


def test_models_prepare_makes_the_file_once(
    onnx_on: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`citedesk models prepare` exports when the file is missing and says so; run again, it finds
    the file and exports nothing (torch is not even imported for it)."""
    assert main(["models", "prepare"]) == 0
    made = capsys.readouterr().out
    assert str(chosen_file(default_model_dir())) in made
    assert "made in" in made
    stamp = onnx_on.stat().st_mtime_ns
    monkeypatch.setitem(sys.modules, "torch", None)  # an import of torch would now fail
    assert main(["models", "prepare"]) == 0
    assert "already made" in capsys.readouterr().out
    assert onnx_on.stat().st_mtime_ns == stamp


def test_a_model_folder_without_tokenizer_json_embeds_with_torch(onnx_on: Path, tmp_path: Path) -> None:
    """A sentence-transformers folder with only vocab.txt still works: torch, and a notice."""
    folder = tmp_path / "model"
    shutil.copytree(default_model_dir(), folder)
    (folder / "tokenizer.json").unlink()
    embedder = Embedder(folder)

    vectors = embedder.encode(["Street trees cool the pavement."])

    assert embedder.runtime == "torch"
    assert vectors.shape == (1, 384)
    assert "cannot run on ONNX Runtime" in embedder.notice


def test_the_int8_embedder_is_used_only_where_it_agrees_with_fp32(onnx_on: Path) -> None:
    """`prepare` makes the int8 copy beside fp32's file with its measured agreement; the embedder
    then runs it, and its vectors stay within cosine 0.99 of torch's on real sentences."""
    model = default_model_dir()
    assert prepare(model) == int8_file(model) == chosen_file(model)
    agreement = Int8Agreement.read(agreement_file(model))
    assert agreement is not None
    assert agreement.used
    assert agreement.cosine_min >= MIN_COSINE
    assert agreement.texts >= 50
    assert "SmoothQuant" in agreement.method

    sentences = real_sentences()
    fast = Embedder(model, backend="onnx")
    vectors = fast.encode(sentences)
    assert fast.runtime == "onnx"
    reference = Embedder(model, backend="torch").encode(sentences)
    assert float((vectors * reference).sum(axis=1).min()) >= MIN_COSINE
    # the same measure on sentences it was not calibrated on (any text: each alone and in batches)
    others = ["Night temperatures were lower under the canopy.", "x", "Ok.", *REFUSED[:2]]
    assert min_cosine(model, onnx_on, int8_file(model), others) >= 0.98

    # texts embedded side by side on two cores: each row is the text's own vector, in the order
    # given, bit for bit what one at a time gives (a report must not depend on the cores)
    one_lane = Embedder(model, backend="onnx", threads=1).encode(sentences[::-1])
    two_lanes = Embedder(model, backend="onnx", threads=2).encode(sentences[::-1])
    assert one_lane.tobytes() == two_lanes.tobytes() == vectors[::-1].tobytes()


REFUSED = ("The int8 copy below the bar is not published.", "Audits then embed with fp32.")


def test_an_int8_copy_below_the_bar_is_recorded_and_fp32_embeds(
    onnx_model: Path, onnx_on: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from citedesk.evidence import onnx_int8

    model = default_model_dir()
    onnx_on.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(onnx_model, onnx_on)
    monkeypatch.setattr(onnx_int8, "MIN_COSINE", 1.01)  # no copy can reach it
    agreement = make_int8(model, onnx_on, REFUSED)
    assert not agreement.used
    assert Int8Agreement.read(agreement_file(model)) == agreement
    assert not int8_file(model).exists()
    assert chosen_file(model) == onnx_on
    assert prepare(model) == onnx_on  # recorded: not tried again
    embedder = Embedder(model, backend="onnx")
    embedder.encode(["Street trees cool the pavement."])
    assert embedder.runtime == "onnx"


@pytest.mark.slow
def test_a_fresh_profile_is_told_of_the_one_time_preparation(onnx_on: Path) -> None:
    """No ONNX file yet (a fresh profile): the audit embeds with torch while the file is made in the
    background, and says so — the first audit's wait is explained (issue 43 #10)."""
    embedder = Embedder(default_model_dir())
    embedder.encode(["Street trees cool the pavement."])
    assert embedder.runtime == "torch"
    assert embedder.notice == PREPARING
    deadline = time.monotonic() + 600  # the background export ends by itself; wait for it (no orphan)
    lock = onnx_on.with_suffix(".lock")
    while (lock.exists() or not onnx_on.is_file()) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert onnx_on.is_file()
    again = Embedder(default_model_dir())
    again.encode(["Street trees cool the pavement."])
    assert again.runtime == "onnx"
    assert again.notice == ""
