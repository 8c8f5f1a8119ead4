"""Tiny NLI models built by the tests: random BERT weights, a real WordPiece vocabulary.

The classifier head can be pinned so one label always wins: that makes the label mapping
(`id2label`) observable end to end without any pretrained weights.
"""

from __future__ import annotations

from pathlib import Path

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


def build_tiny_nli(folder: Path, id2label: dict[int, str], winner: int | None = None) -> Path:
    import torch
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocab = {
        token: i
        for i, token in enumerate([*specials, *WORDS, *(f"##{c}" for c in "abcdefghijklmnopqrstuvwxyz")])
    }
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
    )
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(str(folder))
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
    )
    torch.manual_seed(0)
    model = BertForSequenceClassification(config)
    if winner is not None:
        with torch.no_grad():
            model.classifier.weight.zero_()
            model.classifier.bias.fill_(0.0)
            model.classifier.bias[winner] = 6.0
    model.save_pretrained(str(folder))
    return folder
