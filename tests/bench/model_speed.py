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

Then the same pairs on ONNX Runtime (`evidence.onnx_judge`: the export and int8 quantisation the
judges use), for a MiniLM-shaped and a DeBERTa-v3-large-shaped classifier: torch fp32, ONNX fp32 and
ONNX int8 pairs/s in one run, on the same token ids and thread count, and how often int8's label
equals fp32's; and, for the real bundled embedder, texts/s on torch, ONNX fp32 and ONNX int8 (made
as the app makes it: `evidence.onnx_int8`) and the smallest cosine between its fp32 and int8
vectors over held-out dev sentences (`int8_cosine_min`; `plain_int8_cosine_min` is plain dynamic
int8's, what it replaced). The last line is JSON with those figures.

    .venv/bin/python -m tests.bench.model_speed [--threads N] [--batches N] [--only NAME]
        [--no-table] [--large-pairs N]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from citedesk.evidence.catalogue import recommended

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
    "yaxili96/FactCG-DeBERTa-v3-Large": (  # DeBERTa-v3-large, as MiniCheck's, with a 2-label head
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


ONNX_SHAPES: dict[str, tuple[str, dict[str, Any]]] = {
    "minilm": REFERENCE,
    "deberta_v3_large": ARCHITECTURES["lytang/MiniCheck-DeBERTa-v3-Large"],
}


def onnx_row(kind: str, fields: dict[str, Any], pairs: int, threads: int, folder: Path) -> dict[str, float]:
    """torch fp32, ONNX fp32 and ONNX int8 pairs/s on the same 128-token inputs (batches of 16)."""
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification

    from citedesk.evidence.onnx_judge import OnnxClassifier, quantise, write_graph

    config = AutoConfig.for_model(kind, num_labels=2, **fields)
    torch.manual_seed(0)
    model = AutoModelForSequenceClassification.from_config(config).eval()  # type: ignore[no-untyped-call]
    batch = min(16, pairs)
    ids = np.random.default_rng(0).integers(5, 1000, (batch, 128), dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    names = list(feed)
    rounds = max(1, pairs // batch)

    def timed(run: Any) -> tuple[float, Any]:
        out = run({n: v[:2] for n, v in feed.items()})  # warm-up
        started = time.perf_counter()
        for _ in range(rounds):
            out = run(feed)
        return batch * rounds / (time.perf_counter() - started), out

    def torch_run(f: dict[str, Any]) -> Any:
        with torch.inference_mode():
            return torch.softmax(model(**{n: torch.from_numpy(v) for n, v in f.items()}).logits, -1).numpy()

    torch_s, torch_p = timed(torch_run)  # torch at its fastest (its default attention)
    model.set_attn_implementation("eager")  # what the export needs (onnx_judge.write_graph)
    fp32, int8 = folder / f"{kind}.onnx", folder / f"{kind}-int8.onnx"
    write_graph(model, names, feed, fp32)
    quantise(fp32, int8)
    fp32_s, fp32_p = timed(OnnxClassifier.open(fp32, threads, shared=False).probabilities)
    int8_s, int8_p = timed(OnnxClassifier.open(int8, threads, shared=False).probabilities)
    return {
        "torch_fp32_pairs_s": round(torch_s, 2),
        "onnx_fp32_pairs_s": round(fp32_s, 2),
        "onnx_int8_pairs_s": round(int8_s, 2),
        "int8_speedup": round(int8_s / torch_s, 2),
        "fp32_max_difference": float(np.abs(fp32_p - torch_p).max()),
        "int8_label_agreement": float((int8_p.argmax(-1) == fp32_p.argmax(-1)).mean()),
    }


def dev_sentences(limit: int = 60) -> list[str]:
    """Held-out text for the embedder's agreement: the bundled samples' sentences, and the claims and
    evidence of the dev splits in ../shared/eval (read where they are, never copied; absent in a
    user's clone: the samples alone then)."""
    from tests.evidence.test_onnx_embedder import real_sentences

    texts = real_sentences()
    for name in ("scifact", "healthver", "covidfact"):
        path = Path(__file__).resolve().parents[3] / "shared" / "eval" / name / "dev.jsonl"
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines()[:limit]:
                row = json.loads(line)
                texts += [row["claim"], " ".join(row["evidence"])[:600]]
    return texts


def embedder_row(threads: int, folder: Path) -> dict[str, Any]:
    """The bundled embedder: texts/s on torch fp32, ONNX fp32 and ONNX int8 (the method the app
    uses, `onnx_int8`; and plain per-channel int8, what it replaced), and the smallest cosine
    between fp32's and int8's vectors on held-out dev sentences, each alone and in batches."""
    from citedesk.evidence.embed import Embedder, default_model_dir
    from citedesk.evidence.onnx_embed import OnnxEncoder
    from citedesk.evidence.onnx_export import export
    from citedesk.evidence.onnx_int8 import METHOD, bundled_sentences, min_cosine, quantise_embedder
    from citedesk.evidence.onnx_judge import quantise

    model = default_model_dir()
    fp32, int8, plain = (
        folder / "embedder.onnx",
        folder / "embedder-int8.onnx",
        folder / "embedder-plain.onnx",
    )
    export(model, fp32)
    quantise_embedder(model, fp32, int8, bundled_sentences())
    quantise(fp32, plain)
    texts = dev_sentences()
    timed = sorted(texts[: 16 * 6], key=len)  # in batches of similar length, as `Embedder` embeds

    def rate(encode: Any) -> float:
        encode(timed[:2])  # warm-up
        started = time.perf_counter()
        for begin in range(0, len(timed), 16):
            encode(timed[begin : begin + 16])
        return len(timed) / (time.perf_counter() - started)

    torch_embedder = Embedder(model, backend="torch", threads=threads)
    torch_embedder.load()
    onnx = {p: OnnxEncoder.load(model, p, max_length=128, threads=threads).forward for p in (fp32, int8)}
    engines = [
        torch_embedder._batch,
        onnx[fp32],
        onnx[int8],
    ]  # _batch: encode() would serve repeats from memory
    rounds = [[rate(encode) for encode in engines] for _ in range(3)]  # in turns, the best of three:
    torch_s, fp32_s, int8_s = (max(column) for column in zip(*rounds, strict=True))  # a busy machine
    return {
        "torch_fp32_texts_s": round(torch_s, 1),
        "onnx_fp32_texts_s": round(fp32_s, 1),
        "onnx_int8_texts_s": round(int8_s, 1),
        "int8_speedup": round(int8_s / torch_s, 2),
        "int8_method": METHOD,
        "int8_cosine_min": round(min_cosine(model, fp32, int8, texts, threads=threads), 5),
        "plain_int8_cosine_min": round(min_cosine(model, fp32, plain, texts, threads=threads), 5),
        "cosine_texts": len(texts),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's own)")
    parser.add_argument("--batches", type=int, default=2)
    parser.add_argument("--only", help="time only registry models whose name contains this")
    parser.add_argument("--no-table", action="store_true", help="only the ONNX figures")
    parser.add_argument("--pairs", type=int, default=64, help="pairs per engine, MiniLM shape")
    parser.add_argument("--large-pairs", type=int, default=16, help="pairs per engine, DeBERTa-large shape")
    args = parser.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    threads = torch.get_num_threads()
    print(f"torch threads: {threads}")
    if not args.no_table:
        table(args, torch)
    figures: dict[str, Any] = {"threads": threads, "cpus": os.cpu_count(), "load_1min": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="citedesk-bench-") as folder:
        for name, (kind, fields) in ONNX_SHAPES.items():
            pairs = args.large_pairs if "large" in name else args.pairs
            figures[name] = onnx_row(kind, fields, pairs, threads, Path(folder))
            print(f"{name}: {figures[name]}", flush=True)
        figures["embedder"] = embedder_row(threads, Path(folder))
        print(f"embedder: {figures['embedder']}", flush=True)
        figures["int8_cosine_min"] = figures["embedder"]["int8_cosine_min"]
    print(json.dumps(figures))


def table(args: argparse.Namespace, torch: Any) -> None:
    """The registry's models on torch: pairs/s at 128 tokens and at their full window."""
    from transformers import AutoConfig, AutoModelForSequenceClassification

    print(f"{'model':28} {'params':>7} {'128 tokens':>12} {'cost':>6} {'full window':>20}")
    rows = [("MiniLM-size reference", REFERENCE, 128)]
    rows += [
        (e.name, ARCHITECTURES[e.hub_id], min(e.input_format.max_length or 256, 512))
        for e in recommended()
        if (not args.only or args.only in e.name) and e.hub_id in ARCHITECTURES
    ]  # a text-to-text model (MiniCheck-Flan-T5) is no sequence classifier: `citedesk models bench` times it
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
