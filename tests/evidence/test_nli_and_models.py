from __future__ import annotations

import json
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.evidence.judges.base import Pair
from citedesk.evidence.judges.nli import ModelError, NliJudge, label_scheme
from tests.conftest import SAMPLES
from tests.helpers.models import build_tiny_nli

THREE_WAY = {0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("models")
    return {
        "entails": build_tiny_nli(root / "entails", THREE_WAY, winner=1),
        "contradicts": build_tiny_nli(
            root / "contradicts", {0: "entailment", 1: "neutral", 2: "contradiction"}, winner=2
        ),
        "two-way": build_tiny_nli(root / "two-way", {0: "not_entailment", 1: "entailment"}, winner=1),
        "random": build_tiny_nli(root / "random", THREE_WAY),
        "unlabelled": build_tiny_nli(root / "unlabelled", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}),
    }


@pytest.mark.parametrize(
    ("labels", "entail", "contradict"),
    [
        (THREE_WAY, 1, 0),
        ({0: "entailment", 1: "neutral", 2: "contradiction"}, 0, 2),
        ({0: "not_entailment", 1: "entailment"}, 1, None),
        ({0: "SUPPORTED", 1: "UNSUPPORTED"}, 0, None),
        ({0: "hallucinated", 1: "consistent"}, 1, None),
        ({0: "refutes", 1: "not enough info", 2: "supports"}, 2, 0),
    ],
)
def test_labels_are_read_from_the_model(labels: dict[int, str], entail: int, contradict: int | None) -> None:
    scheme = label_scheme(labels)
    assert (scheme.entail, scheme.contradict) == (entail, contradict)


def test_generic_labels_are_refused_not_guessed(models: dict[str, Path]) -> None:
    with pytest.raises(ModelError, match="cannot tell which output means entailment"):
        NliJudge(models["unlabelled"]).load()


def test_the_tokenizer_knows_real_words(models: dict[str, Path]) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(models["random"]))
    ids = tokenizer("Trees were cooler in the afternoon")["input_ids"]
    assert tokenizer.unk_token_id not in ids
    assert tokenizer.convert_ids_to_tokens(ids)[1:4] == ["trees", "were", "cooler"]


def test_judge_follows_the_labels_whatever_their_order(models: dict[str, Path]) -> None:
    pair = Pair(
        "Trees were cooler.", "Street trees were cooler in the afternoon.", ("Street trees were cooler.",)
    )
    assert NliJudge(models["entails"]).judge([pair])[0].support > 0.99
    contradicted = NliJudge(models["contradicts"]).judge([pair])[0]
    assert contradicted.contradiction > 0.99
    assert contradicted.support < 0.01
    assert NliJudge(models["two-way"]).judge([pair])[0].support > 0.99


def test_long_evidence_is_split_and_the_claim_kept_whole(models: dict[str, Path]) -> None:
    judge = NliJudge(models["random"], max_length=32)
    judge.load()
    sentences = tuple(f"The street trees were cooler in summer number {i}." for i in range(12))
    pair = Pair("Street trees were cooler in the afternoon than rural land.", " ".join(sentences), sentences)
    pieces = judge.chunks(pair)
    assert len(pieces) > 1
    assert " ".join(pieces) == " ".join(sentences)  # nothing dropped, sentences whole
    results = judge.judge([pair, pair])
    assert results[0] == results[1]
    # max aggregation: the pair scores as its best chunk
    best = max(judge.judge([Pair(pair.claim, p, (p,)) for p in pieces]), key=lambda j: j.support)
    assert results[0].support == pytest.approx(best.support, abs=1e-5)


def test_int8_quantized_judge_runs(models: dict[str, Path]) -> None:
    judge = NliJudge(models["entails"], quantize=True)
    assert judge.name.endswith(":int8")
    assert judge.judge([Pair("a", "b", ("b",))])[0].support > 0.9


def test_models_cli_import_list_verify_remove(
    models: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "import", str(models["unlabelled"])]) == 2
    assert "cannot tell" in capsys.readouterr().err
    assert main(["models", "import", str(models["entails"]), "--name", "tiny"]) == 0
    assert main(["models", "list"]) == 0
    listing = capsys.readouterr().out
    assert "tiny" in listing
    assert "ENTAILMENT" in listing
    assert "minilm-nli" in listing  # the registry
    # a model that says "entailment" to everything gets the false pairs wrong
    assert main(["models", "verify", "tiny"]) == 1
    assert "3/6 known pairs right" in capsys.readouterr().out
    assert main(["models", "remove", "tiny"]) == 0
    assert main(["models", "verify", "tiny"]) == 2


def test_audit_with_an_imported_model_uses_its_verdicts(
    models: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "import", str(models["contradicts"]), "--name", "naysayer"]) == 0
    capsys.readouterr()
    code = main(
        ["audit", str(SAMPLES / "clean.md"), "--offline", "--format", "json", "--judge", "nli:naysayer"]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert report["judge"] == "nli:naysayer"
    labels = {v["label"] for c in report["claims"] for v in c["verdicts"]}
    assert labels == {"contradicted"}
    misattributed = [f for f in report["findings"] if f["kind"] == "misattributed"]
    assert misattributed
    assert all(f["severity"] == "error" for f in misattributed)
    assert all(f["evidence"]["passage"] for f in misattributed)
    # `auto` picks the only installed model
    main(["audit", str(SAMPLES / "clean.md"), "--offline", "--format", "json"])
    assert json.loads(capsys.readouterr().out)["judge"] == "nli:naysayer"
    # and a missing model is a clear message, exit 2
    assert main(["audit", str(SAMPLES / "clean.md"), "--offline", "--judge", "nli:nothing-here"]) == 2
    assert "no model 'nothing-here'" in capsys.readouterr().err
