"""The text-to-text judge on tiny random T5 models built here: MiniCheck-Flan-T5's input and its
support-token probability, chunking, and an installed model judging an audit end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.evidence.catalogue import find_entry
from citedesk.evidence.judges.base import Pair
from citedesk.evidence.judges.text2text import MINICHECK_T5_FORMAT, TextToTextJudge, read_text_format
from tests.conftest import SAMPLES
from tests.helpers.t5 import build_tiny_t5


@pytest.fixture(scope="module")
def t5(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("t5")
    return {
        "random": build_tiny_t5(root / "random", seed=3),
        "no": build_tiny_t5(root / "no", "no"),
    }


def test_support_is_the_softmax_of_the_label_tokens_at_the_first_decoder_step(t5: dict[str, Path]) -> None:
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    evidence, claim = "The museum opened to the public in 1998.", "The museum opened in 2011."
    judge = TextToTextJudge(t5["random"], input_format=MINICHECK_T5_FORMAT, shared=False)
    got = judge.judge([Pair(claim, evidence, (evidence,))])[0].support
    # computed here as MiniCheck does: "predict: " + doc + "</s>" + claim, decoder input 0, tokens 3 / 209
    tokenizer = AutoTokenizer.from_pretrained(str(t5["random"]))
    model = AutoModelForSeq2SeqLM.from_pretrained(str(t5["random"])).eval()
    encoded = tokenizer([f"predict: {evidence}</s>{claim}"], return_tensors="pt")
    with torch.no_grad():
        logits = model(**encoded, decoder_input_ids=torch.zeros((1, 1), dtype=torch.long)).logits[:, 0, :]
    expected = torch.softmax(logits[:, [3, 209]], dim=-1)[0, 1].item()
    assert got == pytest.approx(expected, abs=1e-5)
    assert 0.0 < got < 1.0
    # the eos between evidence and claim is the tokenizer's own token, not the characters
    assert judge._tokenizer(judge.text("a", "b"))["input_ids"].count(1) == 2


def test_long_evidence_is_read_in_chunks_and_the_best_decides(t5: dict[str, Path]) -> None:
    judge = TextToTextJudge(t5["random"], input_format=MINICHECK_T5_FORMAT, shared=False, max_length=64)
    sentences = tuple(f"The bridge {i} is long and carries four lanes of traffic." for i in range(12))
    pair = Pair("The bridge carries four lanes.", " ".join(sentences), sentences)
    judge.load()
    chunks = judge.chunks(pair)
    assert len(chunks) > 1
    assert all(judge.tokens(judge.text(c, pair.claim)) <= 64 for c in chunks)
    alone = [judge.support([judge.text(c, pair.claim)])[0] for c in chunks]
    assert judge.judge([pair])[0].support == pytest.approx(max(alone), abs=1e-5)


def test_a_folder_without_a_recorded_format_is_refused(
    t5: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "import", str(t5["random"]), "--name", "anon"]) == 2
    assert "--as NAME" in capsys.readouterr().err


def test_imported_model_judges_an_audit(t5: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    entry = find_entry("minicheck-flan-t5-large")
    assert entry is not None
    assert entry.offered  # offered now that a judge runs it
    assert main(["models", "import", str(t5["no"]), "--name", "tiny-t5", "--as", entry.name]) == 0
    capsys.readouterr()
    main(["models", "list"])
    listing = capsys.readouterr().out
    assert "tiny-t5" in listing
    assert "not measured here — run citedesk models bench tiny-t5" in listing
    assert "'predict: ' + evidence" in listing
    code = main(
        ["audit", str(SAMPLES / "clean.md"), "--offline", "--format", "json", "--judge", "seq2seq:tiny-t5"]
    )
    report = json.loads(capsys.readouterr().out)
    assert report["judge"] == "seq2seq:tiny-t5"
    labels = {v["label"] for c in report["claims"] for v in c["verdicts"]}
    assert labels == {"not_supported"}
    assert code == 1
    # `auto` reads the only installed model with the judge of its kind
    main(["audit", str(SAMPLES / "clean.md"), "--offline", "--format", "json"])
    assert json.loads(capsys.readouterr().out)["judge"] == "seq2seq:tiny-t5"
    assert main(["models", "verify", "tiny-t5"]) == 1  # says "unsupported" to the true pairs too
    capsys.readouterr()
    assert main(["models", "remove", "tiny-t5"]) == 0


def test_the_recorded_format_reads_back(tmp_path: Path) -> None:
    from citedesk.evidence.judges.nli import write_format

    write_format(tmp_path, MINICHECK_T5_FORMAT, registry="minicheck-flan-t5-large")
    assert read_text_format(tmp_path) == MINICHECK_T5_FORMAT
