"""The embedder's int8 copy: made beside its fp32 ONNX file, and used only where it agrees with it.

int8 roughly doubles the embedder's speed on a CPU, but plain dynamic quantisation (int8 weights,
one scale per output column; activations quantised on the fly, one scale per tensor) left the
bundled all-MiniLM-L6-v2's vectors at cosine 0.98 of fp32's on short texts: a few hidden channels
carry activations tens of times larger than the rest (BERT's known outliers), and one scale per
tensor leaves the other channels a handful of levels. Leaving the layers that suffer most in fp32
(the feed-forward output projections, then the intermediate ones) reached 0.990 only with two
thirds of the arithmetic back in fp32; `reduce_range`, MatMul-only and constant-B-only did not help.

SmoothQuant's remedy (Xiao et al., 2023) does: each quantised MatMul's input is divided, channel by
channel, by s = max|X|^α / max|W|^(1-α) (a Mul node before it) and the weight's rows multiplied by s
— fp32's answer is unchanged (cosine 1 - 1e-7) while the activations' range moves partly into the
weights, which per-channel scales absorb. max|X| is measured on the sentences bundled with the
package (resources/samples), never on evaluation data. The agreement is measured on those sentences
too, each text alone and in batches (dynamic scales depend on the batch), and recorded beside the
file (`onnx_embed.Int8Agreement`): int8 is used only when the smallest cosine is ≥ `MIN_COSINE`.
Figures on held-out dev sentences: tests/bench/model_speed.py (README, Measured).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np

from citedesk.core.formats import is_format
from citedesk.evidence.onnx_embed import (
    INPUTS,
    Int8Agreement,
    OnnxEncoder,
    agreement_file,
    fast_tokenizer,
    int8_file,
)
from citedesk.evidence.onnx_judge import quantise

MIN_COSINE = 0.99
"""The smallest cosine between a text's fp32 and int8 vectors for int8 to be used (issue 27)."""
ALPHA = 0.7
"""SmoothQuant's migration strength: 0.5 (the paper's default for BERT-size models) measured worse
than plain quantisation here (cosine 0.980), 0.7 reached 0.993 on held-out dev sentences."""
METHOD = f"dynamic int8, weights per channel, SmoothQuant alpha {ALPHA} (calibrated on the bundled samples)"
BATCH = 16
MAX_LENGTH = 128


def bundled_sentences() -> list[str]:
    """Sentences of the samples that ship with CiteDesk (of five words or more), and one long enough
    to be cut at 128 tokens: the calibration and check set that every install has."""
    import pysbd  # noqa: PLC0415 - only when the int8 copy is made

    folder = Path(str(files("citedesk.resources"))) / "samples"
    paths = sorted(p for p in folder.glob("*") if is_format(p, "markdown")) + sorted(
        (folder / "sources").glob("*")
    )
    text = "\n\n".join(p.read_text(encoding="utf-8") for p in paths if p.is_file())
    found = [s.strip() for s in pysbd.Segmenter(language="en", clean=False).segment(text)]
    found = [s for s in found if len(s.split()) >= 5]
    return [*found, " ".join(found[:12])]


def make_int8(model_dir: Path, fp32: Path, texts: Sequence[str] | None = None) -> Int8Agreement:
    """Quantise `fp32` (the model's checked ONNX file), measure the copy against it, record the
    measure beside it, and publish the copy (`int8_file`) only when it agrees; the agreement."""
    texts = list(texts or bundled_sentences())
    target = int8_file(model_dir)
    handle, name = tempfile.mkstemp(prefix=target.stem, suffix=".onnx.part", dir=target.parent)
    os.close(handle)
    partial = Path(name)
    try:
        quantise_embedder(model_dir, fp32, partial, texts)
        cosine = min_cosine(model_dir, fp32, partial, texts)
        agreement = Int8Agreement(METHOD, round(cosine, 5), len(texts), cosine >= MIN_COSINE)
        if agreement.used:
            os.chmod(partial, 0o644)
            os.replace(partial, target)
        else:
            target.unlink(missing_ok=True)
        agreement.save(agreement_file(model_dir))
    finally:
        partial.unlink(missing_ok=True)
    return agreement


def quantise_embedder(model_dir: Path, fp32: Path, int8: Path, texts: Sequence[str]) -> None:
    """Smooth `fp32` on `texts` (SmoothQuant, `ALPHA`), then quantise it dynamically to `int8`."""

    with tempfile.TemporaryDirectory(dir=int8.parent) as folder:
        smoothed = Path(folder) / "smoothed.onnx"
        smooth(fp32, smoothed, _feeds(model_dir, texts), ALPHA)
        quantise(smoothed, int8)


def smooth(fp32: Path, out: Path, feeds: Sequence[dict[str, Any]], alpha: float) -> None:
    """Write `fp32` to `out` with each constant-weight MatMul's input range moved into its weight:
    input × (1/s) by a new Mul node, weight rows × s, s = max|X|^α / max|W|^(1-α) per channel."""
    import onnx  # noqa: PLC0415 - export time only
    from onnx import numpy_helper  # noqa: PLC0415

    model = onnx.load(str(fp32))
    weights = {i.name: i for i in model.graph.initializer}
    targets = [n for n in model.graph.node if n.op_type == "MatMul" and n.input[1] in weights]
    largest = _input_ranges(model, sorted({n.input[0] for n in targets}), feeds)
    nodes = []
    for node in model.graph.node:
        if node in targets:
            weight = weights[node.input[1]]
            matrix = numpy_helper.to_array(weight)
            scale = largest[node.input[0]] ** alpha / np.abs(matrix).max(axis=1).clip(1e-8) ** (1 - alpha)
            scale = scale.clip(1e-5).astype(np.float32)
            weight.CopyFrom(
                numpy_helper.from_array((matrix * scale[:, None]).astype(np.float32), weight.name)
            )
            inverse = f"{node.name}/smooth_inverse"
            model.graph.initializer.append(numpy_helper.from_array((1 / scale).astype(np.float32), inverse))
            smoothed = f"{node.name}/smoothed_input"
            nodes.append(
                onnx.helper.make_node("Mul", [node.input[0], inverse], [smoothed], name=f"{node.name}/Smooth")
            )
            node.input[0] = smoothed
        nodes.append(node)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    onnx.save(model, str(out))


def _input_ranges(model: Any, names: list[str], feeds: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The largest |value| of each named tensor per channel (its last axis), over `feeds`."""
    import onnx  # noqa: PLC0415
    import onnxruntime as ort  # noqa: PLC0415

    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    for name in names:
        probe.graph.output.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
    session = ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
    largest: dict[str, Any] = {}
    for feed in feeds:
        for name, value in zip(names, session.run(names, feed), strict=True):
            seen = np.abs(value).reshape(-1, value.shape[-1]).max(axis=0)
            largest[name] = np.maximum(largest.get(name, 0.0), seen)
    return largest


def _feeds(model_dir: Path, texts: Sequence[str]) -> list[dict[str, Any]]:
    tokenizer = fast_tokenizer(model_dir, MAX_LENGTH)
    feeds = []
    for begin in range(0, len(texts), BATCH):
        encoded = tokenizer.encode_batch(list(texts[begin : begin + BATCH]))
        feeds.append({
            "input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64),
        })  # fmt: skip
    assert tuple(feeds[0]) == INPUTS
    return feeds


def min_cosine(
    model_dir: Path, fp32: Path, int8: Path, texts: Sequence[str], *, threads: int | None = None
) -> float:
    """The smallest cosine between `fp32`'s and `int8`'s vector of a text, each text embedded alone
    and in batches of `BATCH` (a dynamic scale is the batch's: both ways are how audits embed)."""
    import onnxruntime as ort  # noqa: PLC0415

    def encoder(path: Path) -> OnnxEncoder:
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or 0
        options.log_severity_level = 3
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        return OnnxEncoder(session, fast_tokenizer(model_dir, MAX_LENGTH), MAX_LENGTH)

    full, small = encoder(fp32), encoder(int8)
    groups = [list(texts[i : i + BATCH]) for i in range(0, len(texts), BATCH)] + [[t] for t in texts]
    return min(float((full.forward(g) * small.forward(g)).sum(axis=1).min()) for g in groups)
