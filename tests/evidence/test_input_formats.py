"""The judge reads each model the way it was trained: which text is the premise, one sequence or a
sentence pair, which output means "supported", and how long evidence is cut."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.evidence import local_models, models
from citedesk.evidence.catalogue import CATALOGUE, MINICHECK_FORMAT, find_entry, recommended
from citedesk.evidence.judges.base import Pair
from citedesk.evidence.judges.nli import (
    FORMAT_FILE,
    InputFormat,
    ModelError,
    NliJudge,
    read_format,
    write_format,
)
from citedesk.evidence.models import VERIFY_PAIRS, verify
from tests.helpers.models import build_tiny_nli

THREE_WAY = {0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}


@pytest.fixture(scope="module")
def plain_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_nli(tmp_path_factory.mktemp("plain") / "plain", THREE_WAY)


def tokens(judge: NliJudge, encoded: object, row: int = 0) -> list[str]:
    ids = encoded["input_ids"][row].tolist()  # type: ignore[index]
    pad = judge._tokenizer.pad_token_id
    return [t for t, i in zip(judge._tokenizer.convert_ids_to_tokens(ids), ids, strict=True) if i != pad]


def test_a_sentence_pair_model_gets_the_evidence_as_premise(plain_model: Path) -> None:
    judge = NliJudge(plain_model)
    judge.load()
    assert judge.input_format == InputFormat()  # an unknown folder: a sentence pair, labels from id2label
    encoded = judge.encode(["Street trees were cooler"], ["The city was warmer"])
    evidence, claim = ["street", "trees", "were", "cooler"], ["the", "city", "was", "warmer"]
    assert tokens(judge, encoded) == ["[CLS]", *evidence, "[SEP]", *claim, "[SEP]"]
    # the premise is segment 0, the hypothesis (the claim) segment 1
    assert encoded["token_type_ids"][0].tolist()[:11] == [0] * 6 + [1] * 5


def test_a_joined_model_gets_one_sequence_with_its_end_token_between(grounding_model: Path) -> None:
    judge = NliJudge(grounding_model, input_format=MINICHECK_FORMAT)
    judge.load()
    encoded = judge.encode(["Street trees were cooler."], ["The city was warmer."])
    evidence, claim = ["street", "trees", "were", "cooler", "."], ["the", "city", "was", "warmer", "."]
    assert tokens(judge, encoded) == ["[CLS]", *evidence, "[SEP]", *claim, "[SEP]"]
    assert set(encoded["token_type_ids"][0].tolist()) == {0}  # one sequence, not a pair


def test_joined_format_needs_an_end_token(plain_model: Path) -> None:
    with pytest.raises(ModelError, match="no end-of-sequence token"):
        NliJudge(plain_model, input_format=MINICHECK_FORMAT, shared=False).load()


def test_a_minicheck_style_model_is_read_by_its_format_not_guessed(grounding_model: Path) -> None:
    # its own labels ("0", "1") say nothing: without its format it is refused, never guessed
    with pytest.raises(ModelError, match="cannot tell which output means entailment"):
        NliJudge(grounding_model, shared=False).load()
    judge = NliJudge(grounding_model, input_format=MINICHECK_FORMAT, shared=False)
    result = verify(judge)
    assert (result.correct, result.total) == (6, 6)
    assert judge.scheme is not None
    assert (judge.scheme.entail, judge.scheme.contradict) == (1, None)
    # evidence is the premise: the same texts the other way round are not supported
    reversed_pairs = [
        Pair(evidence, claim, (claim,)) for evidence, claim, entailed in VERIFY_PAIRS if entailed
    ]
    assert all(j.support < 0.1 for j in judge.judge(reversed_pairs))
    # and reading output 0 as "supported" gets every known pair wrong
    wrong = verify(NliJudge(grounding_model, input_format=InputFormat("joined", entail=0), shared=False))
    assert wrong.correct == 0


def test_the_format_recorded_in_the_folder_is_used(grounding_model: Path, tmp_path: Path) -> None:
    folder = tmp_path / "copy"
    shutil.copytree(grounding_model, folder)
    write_format(folder, MINICHECK_FORMAT, registry="minicheck-roberta-large")
    assert read_format(folder) == MINICHECK_FORMAT
    judge = NliJudge(folder, shared=False)
    assert verify(judge).correct == 6
    assert judge.input_format == MINICHECK_FORMAT
    assert judge.max_length == 128  # the format's 512, capped by the tiny model's 128 positions
    (folder / FORMAT_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(ModelError, match="unreadable"):
        NliJudge(folder, shared=False).load()


def test_format_indices_outside_the_model_are_refused(grounding_model: Path) -> None:
    with pytest.raises(ModelError, match="2 outputs"):
        NliJudge(grounding_model, input_format=InputFormat("joined", entail=2), shared=False).load()


def test_long_evidence_is_chunked_and_an_overlong_sentence_cut(plain_model: Path) -> None:
    judge = NliJudge(plain_model, input_format=InputFormat(max_length=32, chunk_tokens=12), shared=False)
    judge.load()
    claim = "Street trees were cooler in the afternoon."
    long_sentence = " ".join(["the trees were cooler in summer"] * 8) + "."
    pair = Pair(claim, f"Trees were cooler. {long_sentence}", ("Trees were cooler.", long_sentence))
    pieces = judge.chunks(pair)
    assert pieces[0] == "Trees were cooler."
    assert all(len(judge._tokenizer.tokenize(p)) <= 12 for p in pieces)
    assert long_sentence.startswith(pieces[-1])  # cut at a token boundary, from the start
    encoded = judge.encode(pieces, [claim] * len(pieces))
    for row in range(len(pieces)):  # the claim is never truncated
        assert tokens(judge, encoded, row)[-9:-1] == judge._tokenizer.tokenize(claim)


def test_a_registry_model_is_recognised_on_import(
    grounding_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "MiniCheck-RoBERTa-Large"  # as `huggingface-cli download` leaves it
    shutil.copytree(grounding_model, folder)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    config["_name_or_path"] = "lytang/MiniCheck-RoBERTa-Large"
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    installed = models.import_model(folder, "minicheck")
    record = json.loads((installed / FORMAT_FILE).read_text(encoding="utf-8"))
    assert record["registry"] == "minicheck-roberta-large"
    assert read_format(installed) == MINICHECK_FORMAT
    assert main(["models", "verify", "minicheck"]) == 0
    assert "6/6 known pairs right" in capsys.readouterr().out


def test_an_unrecognised_minicheck_folder_can_be_named_on_import(grounding_model: Path) -> None:
    with pytest.raises(ModelError, match="import it naming which"):
        models.import_model(grounding_model, "anonymous")
    assert not (local_models.models_dir() / "anonymous").exists()
    installed = models.import_model(grounding_model, "named", registry_name="minicheck-deberta-large")
    assert read_format(installed) == MINICHECK_FORMAT
    assert verify(NliJudge(installed, shared=False)).correct == 6
    with pytest.raises(ModelError, match="no registry model"):
        models.import_model(grounding_model, "other", registry_name="no-such-model")


def test_the_registry_states_figures_sources_and_formats() -> None:
    offered = recommended()
    assert [e.name for e in offered][:2] == ["minicheck-roberta-large", "minicheck-deberta-large"]
    for entry in CATALOGUE:
        assert entry.licence
        assert entry.one_click == (not entry.not_offered)
        if entry.benchmark:
            assert entry.source
    for entry in offered:
        assert entry.benchmark
        assert entry.source
        assert entry.speed
    minicheck = find_entry("lytang/minicheck-roberta-large")
    assert minicheck is not None
    assert minicheck.input_format == MINICHECK_FORMAT
    lines = "\n".join(models.registry_lines())
    assert "LLM-AggreFact balanced accuracy 73.5" in lines
    assert "llm-aggrefact.github.io" in lines
    assert "evidence + end-of-sequence token + claim" in lines
    assert "output 1 = supported (2-way)" in lines
    assert "trust_remote_code" in lines  # HHEM: listed, not offered, and why
