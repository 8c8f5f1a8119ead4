"""Tiny text-to-text (T5) models built by the tests: random weights and a SentencePiece-style
Unigram tokenizer built with the `tokenizers` library, saved as a Hugging Face folder.

The vocabulary has MiniCheck-Flan-T5's label token ids (3 and 209) inside it, so the published
format reads it unchanged. `answer` pins the first decoder step: every decoder layer's output
projection is zeroed, so the decoder's state is its start token's embedding whatever the input, and
the output rows of the two label tokens are set to point with or against it — a model that answers
"supported" (or not) to everything, which makes the judge's reading observable end to end.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

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
    "trees",
    "cities",
    "cooler",
    "heat",
    "shade",
    "summer",
    "percent",
    "street",
    "survey",
    "water",
    "young",
    "planted",
    "drought",
    "1998",
    "2011",
    "four",
    "railway",
    "tunnel",
    "km",
]

VOCABULARY = 240
"""More than 209 entries, so MiniCheck's label token ids are inside the vocabulary."""


def build_tiny_t5(folder: Path, answer: Literal["yes", "no"] | None = None, *, seed: int = 0) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, pre_tokenizers, processors
    from tokenizers.models import Unigram
    from transformers import T5Config, T5ForConditionalGeneration, T5TokenizerFast  # type: ignore[attr-defined]

    pieces = [("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)]
    pieces += [(f"▁{w}", -2.0) for w in WORDS]
    pieces += [("▁", -6.0)] + [
        (c, -8.0) for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,:;%-'()"
    ]
    pieces += [(f"▁x{i}", -12.0) for i in range(VOCABULARY - len(pieces))]
    core = Tokenizer(Unigram(pieces, unk_id=2, byte_fallback=False))
    core.pre_tokenizer = pre_tokenizers.Metaspace()
    core.decoder = decoders.Metaspace()
    core.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", 1)]
    )
    tokenizer = T5TokenizerFast(
        tokenizer_object=core, eos_token="</s>", pad_token="<pad>", unk_token="<unk>", extra_ids=0
    )
    torch.manual_seed(seed)
    config = T5Config(  # type: ignore[call-arg]
        vocab_size=VOCABULARY,
        d_model=32,
        d_kv=8,
        d_ff=64,
        num_layers=2,
        num_decoder_layers=2,
        num_heads=4,
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=1,
        tie_word_embeddings=False,
    )
    model = T5ForConditionalGeneration(config)
    model.train(False)
    if answer is not None:
        with torch.no_grad():
            for block in model.decoder.block:  # (torch's module typing does not reach these)
                layers: Any = block.layer
                layers[0].SelfAttention.o.weight.zero_()
                layers[1].EncDecAttention.o.weight.zero_()
                layers[2].DenseReluDense.wo.weight.zero_()
            model.decoder.embed_tokens.weight[0] = 1.0  # the start token's state: all ones
            model.decoder.final_layer_norm.weight.fill_(1.0)
            sign = 1.0 if answer == "yes" else -1.0
            model.lm_head.weight[209] = sign
            model.lm_head.weight[3] = -sign
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
