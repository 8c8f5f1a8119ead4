"""FactCG-DeBERTa-v3-Large, read as FactCG reads it: its instruction prompt around (document, claim),
the document in 550-word chunks with the best chunk deciding, and its published threshold deciding
the verdict. A tiny random DeBERTa-v2 with DeBERTa-v3's attention stands in for the 1.7 GB weights:
what is checked is what the model is fed and how its outputs are read, which random weights show
as well as trained ones."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from citedesk.core.findings import VerdictLabel
from citedesk.evidence import models
from citedesk.evidence.catalogue import FACTCG_FORMAT, FACTCG_TEMPLATE, find_entry, recommended
from citedesk.evidence.judges.base import Pair
from citedesk.evidence.judges.nli import NliJudge, onnx_layout, read_format, words, write_format
from citedesk.evidence.judges.registry import resolve
from citedesk.evidence.onnx_embed import ONNX_ENV
from citedesk.evidence.onnx_judge import export_judge
from tests.helpers.models import _SPECIALS, WORDS, _save_tokenizer

pytestmark = pytest.mark.slow

PROMPT_WORDS = ["choose", "your", "answer", "based", "paragraph", "above", "can", "we", "conclude",
                "options", "yes", "no", "i", "think", "1998", "2011"]  # fmt: skip
DEBERTA_V3: dict[str, Any] = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
                              "intermediate_size": 64, "pad_token_id": 0, "max_position_embeddings": 128,
                              "relative_attention": True, "position_buckets": 16, "pos_att_type": ["p2c", "c2p"],
                              "norm_rel_ebd": "layer_norm", "type_vocab_size": 0, "position_biased_input": False,
                              "share_att_key": True}  # fmt: skip
"""DeBERTa-v3-large's attention (relative positions only, both ways, shared keys), at toy size."""

CLAIM = "The museum opened in 1998."
EVIDENCE = "The museum opened to the public in 1998."


@pytest.fixture(scope="module")
def factcg(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random FactCG-shaped model (2 outputs, generic labels) whose vocabulary spells the prompt,
    recorded with the catalogue's FactCG format as `models pull` records it."""
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification

    folder = tmp_path_factory.mktemp("factcg") / "factcg-deberta-large"
    letters = "abcdefghijklmnopqrstuvwxyz0123456789"
    tokens = [*_SPECIALS, *WORDS, *PROMPT_WORDS, *letters, ".", ",", ":", "?", "-", '"',
              *(f"##{c}" for c in letters)]  # fmt: skip
    vocab = _save_tokenizer(folder, tokens, eos_token="[SEP]")
    config = AutoConfig.for_model(
        "deberta-v2", vocab_size=len(vocab), num_labels=2, id2label={0: "0", 1: "1"}, **DEBERTA_V3
    )
    torch.manual_seed(0)
    model = AutoModelForSequenceClassification.from_config(config)  # type: ignore[no-untyped-call]
    model.save_pretrained(str(folder))
    write_format(
        folder, FACTCG_FORMAT, registry="factcg-deberta-large", hub_id="yaxili96/FactCG-DeBERTa-v3-Large"
    )
    return folder


class Fed:
    """The rows of token ids the real model is called with (a forward pre-hook: it runs as is)."""

    def __init__(self, judge: NliJudge) -> None:
        judge.load()
        self.rows: list[list[int]] = []
        judge._model.register_forward_pre_hook(self._record, with_kwargs=True)

    def _record(self, module: Any, args: Any, kwargs: dict[str, Any]) -> None:
        for ids, mask in zip(kwargs["input_ids"].tolist(), kwargs["attention_mask"].tolist(), strict=True):
            self.rows.append([i for i, m in zip(ids, mask, strict=True) if m])


def long_source() -> tuple[str, ...]:
    """70 sentences of 9–10 words each (the full stop counts, as NLTK counts it): 686 words, over
    FactCG's 550."""
    subjects = ["street trees", "young trees", "rural land", "the canopy", "water"]
    return tuple(f"In summer {subjects[i % 5]} was cooler by {i} degrees." for i in range(70))


def test_the_model_is_fed_factcgs_prompt_around_document_and_claim(factcg: Path) -> None:
    judge = NliJudge(factcg, backend="torch", shared=False)
    fed = Fed(judge)
    judge.judge(
        [Pair(CLAIM, EVIDENCE, (EVIDENCE,)), Pair("The bridge is long.", "The bridge carries traffic.", ())]
    )
    tokenizer = judge._tokenizer
    expected = {
        tuple(tokenizer(FACTCG_TEMPLATE.format(evidence=EVIDENCE, claim=CLAIM))["input_ids"]),
        tuple(tokenizer(FACTCG_TEMPLATE.format(evidence="The bridge carries traffic.", claim="The bridge is long."))["input_ids"]),
    }  # fmt: skip
    assert {tuple(row) for row in fed.rows} == expected
    first = next(r for r in fed.rows if tokenizer.decode(r).count("museum"))
    assert tokenizer.decode(first, skip_special_tokens=True) == (
        "the museum opened to the public in 1998 . choose your answer : based on the paragraph above can we "
        'conclude that " the museum opened in 1998 . " ? options : - yes - no i think the answer is'
    )
    assert judge.input_format == FACTCG_FORMAT
    assert tokenizer.convert_ids_to_tokens(first[:1]) == ["[CLS]"]  # one sequence: no pair, no eos joiner
    assert first.count(tokenizer.sep_token_id) == 1


def test_a_long_source_is_read_in_550_word_chunks_and_the_best_chunk_decides(factcg: Path) -> None:
    judge = NliJudge(factcg, backend="torch", shared=False, batch_size=4)
    sentences = long_source()
    pair = Pair("Street trees were cooler in summer.", " ".join(sentences), sentences)
    judge.load()
    assert judge.max_length == 2048  # FactCG's window: DeBERTa-v3's relative positions are not capped at 128
    chunks = judge.chunks(pair)
    assert len(chunks) == 2
    first = chunks[0].count("\n") + 1
    assert (
        words(chunks[0]) <= 550 < words(chunks[0]) + words(sentences[first])
    )  # as full as whole sentences allow
    assert words(chunks[1]) <= 550
    assert "\n".join(chunks).split("\n") == list(sentences)  # whole sentences, in order, one a line

    fed = Fed(judge)
    support = judge.judge([pair])[0].support
    assert len(fed.rows) == 2  # both chunks, each wrapped whole in the prompt: nothing truncated
    alone = [judge.judge([Pair(pair.claim, chunk, ())])[0].support for chunk in chunks]
    assert alone[0] != pytest.approx(alone[1], abs=1e-6)
    assert support == pytest.approx(max(alone), abs=1e-5)
    short = Pair(pair.claim, " ".join(sentences[:10]), sentences[:10])
    assert judge.chunks(short) == ["\n".join(sentences[:10])]


def test_the_catalogue_threshold_decides_the_verdict(factcg: Path) -> None:
    entry = find_entry("factcg-deberta-large")
    assert entry is not None
    assert read_format(factcg) == entry.input_format == FACTCG_FORMAT
    judge = NliJudge(factcg, backend="torch", shared=False)
    assert judge.policy.supported == FACTCG_FORMAT.threshold == 0.5  # before load: an audit reads it first
    verdict = judge.judge([Pair(CLAIM, EVIDENCE, ())])[0]

    for threshold, label in [
        (verdict.support - 0.01, VerdictLabel.SUPPORTED),
        (verdict.support + 0.01, VerdictLabel.PARTIALLY_SUPPORTED),
    ]:
        write_format(factcg, replace(FACTCG_FORMAT, threshold=threshold))
        try:
            reread = NliJudge(factcg, backend="torch", shared=False)
            assert reread.policy.supported == threshold
            assert reread.policy.label(*_read(reread)) is label
        finally:
            write_format(factcg, FACTCG_FORMAT)


def _read(judge: NliJudge) -> tuple[float, float]:
    answer = judge.judge([Pair(CLAIM, EVIDENCE, ())])[0]
    return answer.support, answer.contradiction


def test_factcg_is_offered_and_installs_as_an_nli_judge(factcg: Path) -> None:
    entry = find_entry("yaxili96/FactCG-DeBERTa-v3-Large")
    assert entry is not None
    assert entry in recommended()
    assert entry.offered
    assert not entry.why_not_offered
    assert "75.6" in entry.benchmark
    assert "77.2" in entry.benchmark
    assert entry.licence.startswith("MIT")
    lines = models.registry_lines()
    offered = lines[: lines.index("Listed, not offered for download:")]
    assert any(line.strip().startswith("factcg-deberta-large") for line in offered)
    assert any(
        "Choose your answer" in line and "550 words" in line and "at P ≥ 0.5" in line for line in offered
    )

    installed = models.import_model(factcg, "factcg-deberta-large", registry_name="factcg-deberta-large")
    judge = resolve("nli:factcg-deberta-large").load()
    assert isinstance(judge, NliJudge)
    assert judge.model_dir == installed
    assert judge.input_format == FACTCG_FORMAT
    assert judge.policy.supported == 0.5


def test_onnx_reads_the_prompt_as_torch_does(
    factcg: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ONNX_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    sentences = long_source()
    pairs = [Pair(CLAIM, EVIDENCE, ()), Pair("Street trees were cooler.", " ".join(sentences), sentences)]
    export_judge(factcg, onnx_layout(FACTCG_FORMAT), 2048, min_agreement=1.1)  # fp32 only: exact comparison
    torch_judge = NliJudge(factcg, backend="torch", shared=False)
    onnx_judge = NliJudge(factcg, backend="onnx", shared=False)
    expected, got = torch_judge.judge(pairs), onnx_judge.judge(pairs)
    assert onnx_judge.engine == "onnx"
    assert onnx_judge.chunks(pairs[1]) == torch_judge.chunks(pairs[1])
    for e, g in zip(expected, got, strict=True):
        assert g.support == pytest.approx(e.support, abs=1e-4)
