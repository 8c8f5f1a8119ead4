"""Tiny NLI models built by the tests: random BERT weights, a real WordPiece vocabulary.

The classifier head can be pinned so one label always wins: that makes the label mapping
(`id2label`) observable end to end without any pretrained weights. `build_trained_nli` instead
trains a tiny model for a moment on given pairs, in one input format: a model that judges those
pairs right only when it is read the way it was trained.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transformers import BertConfig

    from citedesk.evidence.judges.nli import InputFormat

WORDS = [
    "the",
    "a",
    "of",
    "in",
    "and",
    "to",
    "was",
    "were",
    "is",
    "are",
    "trees",
    "tree",
    "cities",
    "city",
    "cooler",
    "warmer",
    "heat",
    "shade",
    "survey",
    "street",
    "neighbourhoods",
    "canopy",
    "degrees",
    "afternoon",
    "summer",
    "summers",
    "night",
    "nights",
    "rural",
    "land",
    "water",
    "watering",
    "young",
    "planted",
    "die",
    "died",
    "drought",
    "percent",
    "museum",
    "opened",
    "public",
    "bridge",
    "long",
    "lanes",
    "traffic",
    "vaccination",
    "risk",
    "disease",
    "severe",
    "lower",
    "reduced",
    "increased",
    "patients",
    "had",
    "than",
    "more",
    "less",
    "with",
    "from",
    "by",
    "on",
    "at",
    "for",
    "it",
    "its",
    "this",
    "that",
    "which",
    "up",
    "about",
    "average",
    "hot",
    "dry",
    "strongest",
    "weakest",
    "cooling",
    "effect",
    "found",
    "mid",
    "sized",
]


def _save_tokenizer(folder: Path, tokens: Sequence[str], **special: str) -> dict[str, int]:
    """A BERT-style WordPiece tokenizer over `tokens`, saved in `folder`; its vocabulary."""
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece
    from transformers import PreTrainedTokenizerFast

    vocab = {token: i for i, token in enumerate(dict.fromkeys(tokens))}
    backend = Tokenizer(WordPiece(vocab, unk_token="[UNK]"))
    backend.normalizer = normalizers.BertNormalizer(lowercase=True)
    backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    backend.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    tokenizer = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=backend,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        model_max_length=128,
        model_input_names=["input_ids", "token_type_ids", "attention_mask"],  # as BERT's tokenizer
        **special,
    )
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(str(folder))
    return vocab


def _tiny_bert(vocab_size: int, id2label: dict[int, str], dropout: float = 0.1) -> BertConfig:
    from transformers import BertConfig

    return BertConfig(
        vocab_size=vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
        hidden_dropout_prob=dropout,  # 0.1: BERT's default
        attention_probs_dropout_prob=dropout,
    )


_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def build_tiny_nli(folder: Path, id2label: dict[int, str], winner: int | None = None) -> Path:
    import torch
    from transformers import BertForSequenceClassification

    vocab = _save_tokenizer(folder, [*_SPECIALS, *WORDS, *(f"##{c}" for c in "abcdefghijklmnopqrstuvwxyz")])
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    torch.manual_seed(0)
    model = BertForSequenceClassification(_tiny_bert(len(vocab), id2label))
    if winner is not None:
        with torch.no_grad():
            model.classifier.weight.zero_()
            model.classifier.bias.fill_(0.0)
            model.classifier.bias[winner] = 6.0
    model.save_pretrained(str(folder))
    return folder


def build_trained_nli(
    folder: Path,
    pairs: Sequence[tuple[str, str, bool]],
    *,
    id2label: dict[int, str],
    entail: int,
    input_format: InputFormat,
    steps: int = 80,
) -> Path:
    """A tiny model trained, through the judge's own input encoding, to judge `pairs`
    ((evidence, claim, entailed?)) right: output `entail` for entailed pairs, the other (first
    non-entail) output otherwise. It also learns every pair read the other way round (the claim as
    the premise) as not entailed, so it answers right only when the evidence is the premise.
    `id2label` is written to its config as given (MiniCheck-style `{0: "0", 1: "1"}` says nothing)."""
    import torch
    from transformers import BertForSequenceClassification

    from citedesk.evidence.judges.nli import NliJudge

    letters = "abcdefghijklmnopqrstuvwxyz0123456789"
    tokens = [*_SPECIALS, *WORDS, *letters, ".", ",", "%", *(f"##{c}" for c in letters)]
    # eos as DeBERTa-v3's: what a `joined` format puts between evidence and claim
    vocab = _save_tokenizer(folder, tokens, eos_token="[SEP]")
    config = _tiny_bert(len(vocab), id2label, dropout=0.0)
    torch.manual_seed(0)
    BertForSequenceClassification(config).save_pretrained(str(folder))

    judge = NliJudge(folder, input_format=input_format, shared=False)
    judge.load()
    model = judge._model
    other = next(i for i in sorted(id2label) if i != entail)
    examples = [*pairs, *((claim, evidence, False) for evidence, claim, _ in pairs)]
    encoded = judge.encode([e for e, _, _ in examples], [c for _, c, _ in examples])
    labels = torch.tensor([entail if entailed else other for _, _, entailed in examples])
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a model this small trains ~30x faster on one thread of a busy machine
    try:
        model.train()
        for _ in range(steps):
            optimizer.zero_grad()
            loss = model(**encoded, labels=labels).loss
            loss.backward()
            optimizer.step()
        model.eval()
    finally:
        torch.set_num_threads(threads)
    model.save_pretrained(str(folder))
    return folder
