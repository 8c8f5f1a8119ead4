"""Encoder judges on ONNX Runtime: the same probabilities as torch for each architecture the registry
offers (BERT/MiniLM, RoBERTa, DeBERTa-v2, built tiny here), int8 only where its labels agree with
fp32's, no torch in a process that judges with the file, and torch — with a one-line notice — for a
model that cannot be exported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from citedesk.errors import ModelError
from citedesk.evidence.judges.base import Pair
from citedesk.evidence.judges.nli import InputFormat, NliJudge, write_format
from citedesk.evidence.onnx_embed import ONNX_ENV
from citedesk.evidence.onnx_judge import (
    best_file,
    export_judge,
    int8_refused_file,
    judge_failure_file,
    judge_onnx_file,
)
from tests.conftest import REPO
from tests.helpers.models import _SPECIALS, WORDS, _save_tokenizer, build_tiny_nli

pytestmark = pytest.mark.slow

THREE_WAY = {0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}
JOINED = InputFormat(kind="joined", entail=1, max_length=64)
SHAPE: dict[str, Any] = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
                         "intermediate_size": 64, "pad_token_id": 0}  # fmt: skip

DEBERTA_V3: dict[str, Any] = {"max_position_embeddings": 128, "relative_attention": True, "position_buckets": 16,
                              "pos_att_type": ["p2c", "c2p"], "norm_rel_ebd": "layer_norm", "type_vocab_size": 0,
                              "position_biased_input": False, "share_att_key": True}  # fmt: skip
"""DeBERTa-v3's attention (relative positions, both ways, shared keys): what MiniCheck and FactCG run."""


def _tiny(folder: Path, kind: str, **fields: Any) -> Path:
    """A random `kind` classifier over the helpers' WordPiece vocabulary, read as MiniCheck reads
    its RoBERTa / DeBERTa checkpoints (evidence + eos + claim)."""
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification

    vocab = _save_tokenizer(folder, [*_SPECIALS, *WORDS, *(f"##{c}" for c in "abcdefghijklmnopqrstuvwxyz")],
                            eos_token="[SEP]")  # fmt: skip
    config = AutoConfig.for_model(
        kind, vocab_size=len(vocab), num_labels=2, id2label={0: "0", 1: "1"}, **SHAPE, **fields
    )
    torch.manual_seed(0)
    AutoModelForSequenceClassification.from_config(config).save_pretrained(str(folder))  # type: ignore[no-untyped-call]
    write_format(folder, JOINED)
    return folder


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("judges")
    return {
        "bert": build_tiny_nli(root / "bert", THREE_WAY),
        "roberta": _tiny(root / "roberta", "roberta", max_position_embeddings=130, type_vocab_size=1),
        "deberta-v2": _tiny(root / "deberta-v2", "deberta-v2", **DEBERTA_V3),
        "pinned": build_tiny_nli(root / "pinned", THREE_WAY, winner=1),
    }


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """ONNX allowed, in this test's own cache folder."""
    monkeypatch.delenv(ONNX_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def pairs() -> list[Pair]:
    long = tuple(f"The street trees were cooler in summer number {i}." for i in range(10))
    return [
        Pair(
            "Trees were cooler.", "Street trees were cooler in the afternoon.", ("Street trees were cooler.",)
        ),
        Pair("The museum opened in 1998.", "The museum opened to the public.", ()),
        Pair("Street trees were cooler in the afternoon than rural land.", " ".join(long), long),
        Pair("x", "y", ()),
    ]


@pytest.mark.parametrize("name", ["bert", "roberta", "deberta-v2"])
def test_onnx_fp32_gives_torchs_probabilities(models: dict[str, Path], cache: Path, name: str) -> None:
    fp32, _ = export_judge(models[name], "joined" if name != "bert" else "pair", 64, min_agreement=1.1)
    assert fp32 == judge_onnx_file(models[name])
    assert best_file(models[name]) == fp32
    torch_judge = NliJudge(models[name], backend="torch", shared=False, batch_size=3)
    onnx_judge = NliJudge(models[name], backend="onnx", shared=False, batch_size=3)
    expected, got = torch_judge.judge(pairs()), onnx_judge.judge(pairs())
    assert onnx_judge.engine == "onnx"
    assert torch_judge.engine == "torch"
    assert onnx_judge.max_length == torch_judge.max_length
    assert onnx_judge.chunks(pairs()[2]) == torch_judge.chunks(pairs()[2])
    for e, g in zip(expected, got, strict=True):
        assert abs(e.support - g.support) < 1e-4
        assert abs(e.contradiction - g.contradiction) < 1e-4


def test_int8_is_kept_only_where_it_agrees_with_fp32(models: dict[str, Path], cache: Path) -> None:
    _, int8 = export_judge(models["pinned"], "pair", 64)  # one label wins by far: int8 agrees
    assert int8 == judge_onnx_file(models["pinned"], int8=True)
    assert best_file(models["pinned"]) == int8
    judge = NliJudge(models["pinned"], shared=False)
    assert judge.judge(pairs())[0].support > 0.99
    assert judge.engine == "onnx-int8"

    _, refused = export_judge(models["bert"], "pair", 64, min_agreement=1.01)  # no model is that good
    assert refused is None
    assert not judge_onnx_file(models["bert"], int8=True).exists()
    assert "agreed with fp32 on" in int8_refused_file(models["bert"]).read_text(encoding="utf-8")
    assert NliJudge(models["bert"], shared=False).judge(pairs())
    assert best_file(models["bert"]) == judge_onnx_file(models["bert"])


def test_judging_from_the_onnx_file_never_imports_torch(models: dict[str, Path], cache: Path) -> None:
    export_judge(models["roberta"], "joined", 64)
    script = (
        "import sys, json\n"
        "from pathlib import Path\n"
        "from citedesk.evidence.judges.nli import NliJudge\n"
        "from citedesk.evidence.judges.base import Pair\n"
        f"judge = NliJudge(Path({str(models['roberta'])!r}))\n"
        "out = judge.judge([Pair('Trees were cooler.', 'Street trees were cooler.', ())])\n"
        "print(json.dumps([judge.engine, 'torch' in sys.modules, 'transformers' in sys.modules]))\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    env.pop(ONNX_ENV, None)
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    engine, torch_loaded, transformers_loaded = json.loads(done.stdout.splitlines()[-1])
    assert engine.startswith("onnx")
    assert not torch_loaded
    assert not transformers_loaded


def test_a_model_that_cannot_be_exported_stays_on_torch_and_is_not_retried(
    models: dict[str, Path], cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from citedesk.evidence import onnx_judge

    monkeypatch.setattr(onnx_judge, "MAX_DIFFERENCE", -1.0)  # no export can pass: the check refuses it
    with pytest.raises(ModelError, match="differ from torch"):
        NliJudge(models["bert"], backend="onnx", shared=False).load()
    assert best_file(models["bert"]) is None  # nothing unchecked is published
    assert "differ from torch" in judge_failure_file(models["bert"]).read_text(encoding="utf-8")

    judge = NliJudge(models["bert"], shared=False)
    assert np.isfinite(judge.judge(pairs())[0].support)
    assert judge.engine == "torch"
    assert judge.notice == "the model could not be put on ONNX Runtime; nli:bert judges with torch (slower)"
    assert not list(judge_failure_file(models["bert"]).parent.glob("*.lock"))  # no export started


def test_first_use_judges_with_torch_and_exports_in_the_background(
    models: dict[str, Path], cache: Path
) -> None:
    import time

    first = NliJudge(models["deberta-v2"], shared=False)
    expected = first.judge(pairs())
    assert first.engine == "torch"
    assert first.notice == ""
    deadline = time.monotonic() + 120
    while best_file(models["deberta-v2"]) is None and time.monotonic() < deadline:
        time.sleep(0.2)
    lock = judge_onnx_file(models["deberta-v2"]).with_suffix(".lock")
    while lock.exists() and time.monotonic() < deadline:  # the child is done when its lock is gone
        time.sleep(0.1)
    assert best_file(models["deberta-v2"]) is not None
    assert not lock.exists()
    again = NliJudge(models["deberta-v2"], shared=False)
    got = again.judge(pairs())
    assert again.engine.startswith("onnx")
    if again.engine == "onnx":  # fp32: torch's figures; int8 was kept only where labels agree
        assert all(abs(e.support - g.support) < 1e-4 for e, g in zip(expected, got, strict=True))
