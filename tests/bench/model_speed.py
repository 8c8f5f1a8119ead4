"""CPU throughput of the registry's models, measured on their architectures (figures, not a test).

Speed depends on the architecture (layers, width, attention) and the input length, not on the
weights, so each recommended model is rebuilt from its published config with random weights
(nothing is downloaded) and timed on batches of 16 inputs of 128 tokens (a typical CiteDesk pair:
a three-sentence evidence window and the claim) and of the model's full window. The first row is
the MiniLM-size model `tests.bench.audit_speed` times (6 layers, 384 wide), and each row's cost
relative to it is printed too: on a busy machine the absolute figures drop, the ratios much less.
The registry's speeds are these ratios applied to the MiniLM-size model's 57 pairs/s measured on a
quiet 2-core machine (README, `tests.bench.audit_speed`); on the shared machine they were measured
on (load 4-7 on 2 cores) the reference ran at 9 pairs/s, RoBERTa-large cost 21x, DeBERTa-v3-large
32x, DeBERTa-v3-base 4.9x, MiniLM2-L6-H768 1.8x.

    .venv/bin/python -m tests.bench.model_speed [--threads N] [--batches N] [--only NAME]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from citedesk.evidence.registry import recommended

REFERENCE = ("bert", {"hidden_size": 384, "num_hidden_layers": 6, "num_attention_heads": 12,
                      "intermediate_size": 1536, "vocab_size": 30522})  # fmt: skip
ARCHITECTURES: dict[str, tuple[str, dict[str, Any]]] = {
    # published config.json of each hub model (the fields that set the cost)
    "lytang/MiniCheck-RoBERTa-Large": (
        "roberta",
        {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096,
         "vocab_size": 50265, "max_position_embeddings": 514, "type_vocab_size": 1, "pad_token_id": 1},
    ),
    "lytang/MiniCheck-DeBERTa-v3-Large": (
        "deberta-v2",
        {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096,
         "vocab_size": 128100, "max_position_embeddings": 512, "relative_attention": True,
         "position_buckets": 256, "pos_att_type": ["p2c", "c2p"], "norm_rel_ebd": "layer_norm",
         "position_biased_input": False, "share_att_key": True, "type_vocab_size": 0},
    ),
    "MoritzLaurer/DeBERTa-v3-base-mnli-fever-anli": (
        "deberta-v2",
        {"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072,
         "vocab_size": 128100, "max_position_embeddings": 512, "relative_attention": True,
         "position_buckets": 256, "pos_att_type": ["p2c", "c2p"], "norm_rel_ebd": "layer_norm",
         "position_biased_input": False, "share_att_key": True, "type_vocab_size": 0},
    ),
    "cross-encoder/nli-MiniLM2-L6-H768": (
        "roberta",
        {"hidden_size": 768, "num_hidden_layers": 6, "num_attention_heads": 12, "intermediate_size": 3072,
         "vocab_size": 50265, "max_position_embeddings": 514, "type_vocab_size": 1, "pad_token_id": 1},
    ),
}  # fmt: skip


def pairs_per_second(model: Any, torch: Any, length: int, batches: int, batch: int = 16) -> float:
    inputs = torch.randint(5, 1000, (batch, length))
    mask = torch.ones_like(inputs)
    with torch.inference_mode():
        model(input_ids=inputs[:2], attention_mask=mask[:2])  # warm-up
        started = time.perf_counter()
        for _ in range(batches):
            model(input_ids=inputs, attention_mask=mask)
    return batch * batches / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's own)")
    parser.add_argument("--batches", type=int, default=2)
    parser.add_argument("--only", help="time only registry models whose name contains this")
    args = parser.parse_args()
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification

    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"torch threads: {torch.get_num_threads()}")
    print(f"{'model':28} {'params':>7} {'128 tokens':>12} {'cost':>6} {'full window':>20}")
    rows = [("MiniLM-size reference", REFERENCE, 128)]
    rows += [
        (e.name, ARCHITECTURES[e.hub_id], min(e.input_format.max_length or 256, 512))
        for e in recommended()
        if not args.only or args.only in e.name
    ]
    reference = 0.0
    for name, (kind, fields), window in rows:
        config = AutoConfig.for_model(kind, num_labels=3, **fields)
        torch.manual_seed(0)
        model = AutoModelForSequenceClassification.from_config(config).eval()  # type: ignore[no-untyped-call]
        params = sum(p.numel() for p in model.parameters()) / 1e6
        short = pairs_per_second(model, torch, 128, args.batches)
        reference = reference or short
        full = pairs_per_second(model, torch, window, args.batches) if window != 128 else short
        cost = reference / short
        print(
            f"{name:28} {params:6.0f}M {short:8.1f} p/s {cost:5.1f}x {full:9.1f} p/s @{window:<4}", flush=True
        )
        del model


if __name__ == "__main__":
    main()
