"""Encoder (sequence-classification) judges on ONNX Runtime: torch's probabilities without torch.

A large encoder on torch reads ≈2-3 pairs a second on a laptop CPU, and torch's import alone is
seconds. Each judge model is therefore exported ONCE (on first use, in a background process, like
the embedder: `onnx_export.start_background_export`), into the user cache under the same
fingerprint of the model's files the embedder's file uses (`onnx_embed.fingerprint`), with its own
suffix: `<fingerprint>.judge.onnx`. From then on a judge tokenises with the `tokenizers` library
(the model's tokenizer.json; transformers would import torch) and runs the file with onnxruntime.

A file is published only when it is right: onnxruntime's probabilities for the check pairs, padded
in batches, equal torch's (within `MAX_DIFFERENCE`), and the `tokenizers` ids equal transformers'
(else the two paths would read different text). Then a dynamically quantised copy (int8 weights,
`onnxruntime.quantization.quantize_dynamic`) is made and kept only if its labels agree with fp32's
on at least `MIN_AGREEMENT` of the check pairs: int8 is about twice as fast on a CPU, but a judge
that changes its mind is not worth it. A model that cannot be exported leaves a note
(`judge_failure_file`) and stays on torch, said once in one line.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from citedesk.errors import ModelError
from citedesk.evidence.onnx_embed import OPSET, fingerprint, onnx_dir, runtime_installed
from citedesk.evidence.runtime import onnx_threads, shared_model

MAX_DIFFERENCE = 1e-4
"""Largest difference allowed between torch's and the ONNX file's probabilities."""
MIN_AGREEMENT = 0.99
"""Share of the check pairs on which int8's label must equal fp32's for int8 to be used."""
NAMES = ("input_ids", "attention_mask", "token_type_ids")

_EVIDENCE = (
    "The museum opened to the public in 1998 in the old harbour warehouse.",
    "Vaccinated patients had a 90% lower risk of severe disease.",
    "The bridge is 1.2 km long and carries four lanes of traffic.",
    "Street trees were cooler in the afternoon than rural land, by about two degrees.",
    "Young trees planted in dry summers often died without watering.",
    "The survey found that mid-sized cities had the strongest cooling effect.",
    "Night temperatures in the neighbourhoods with more canopy were lower.",
    "x",
)
_CLAIMS = (
    "The museum opened in 1998.",
    "Vaccination increased the risk of severe disease.",
    "The bridge carries four lanes.",
    "Trees were warmer.",
    "Young trees died in drought.",
    "Cities had no cooling effect at all, according to the survey of neighbourhoods.",
    "Canopy lowered night heat.",
    "It was hot.",
)
CHECK_PAIRS = tuple((e, c) for e in _EVIDENCE for c in _CLAIMS)
"""(evidence, claim): every evidence with every claim (64 pairs), short and long, so batches pad."""


class JudgeExportFailed(ModelError):
    """The judge's ONNX file could not be made (or is not faithful): it stays on torch."""


def judge_onnx_file(model_dir: Path, *, int8: bool = False) -> Path:
    """Where the judge's ONNX file is (or will be): <cache>/citedesk/onnx/<fingerprint>.judge[-int8].onnx."""
    return onnx_dir() / f"{fingerprint(model_dir)}.judge{'-int8' if int8 else ''}.onnx"


def judge_failure_file(model_dir: Path) -> Path:
    """Left by an export that failed, with why: the judge keeps torch and does not retry."""
    return onnx_dir() / f"{fingerprint(model_dir)}.judge.failed"


def int8_refused_file(model_dir: Path) -> Path:
    """Left when int8 disagreed with fp32 too often: fp32 is used, and int8 is not tried again."""
    return onnx_dir() / f"{fingerprint(model_dir)}.judge-int8.refused"


def best_file(model_dir: Path) -> Path | None:
    """The file to judge with: int8 where it was kept, else fp32; None when neither exists."""
    for path in (judge_onnx_file(model_dir, int8=True), judge_onnx_file(model_dir)):
        if path.is_file():
            return path
    return None


def _special(model_dir: Path, name: str) -> str | None:
    """A special token's text (`eos_token`, `pad_token`) from the tokenizer's saved settings."""
    for file in ("tokenizer_config.json", "special_tokens_map.json"):
        try:
            value = json.loads((model_dir / file).read_text(encoding="utf-8")).get(name)
        except (OSError, ValueError):
            continue
        if isinstance(value, dict):
            value = value.get("content")
        if isinstance(value, str):
            return value
    return None


@dataclass
class PairTokenizer:
    """The model's fast tokenizer (tokenizers, not transformers) encoding pairs as `NliJudge` does:
    a sentence pair cut from the evidence only, or `evidence + eos + claim` as one sequence."""

    tokenizer: Any
    kind: Literal["pair", "joined"]
    eos: str | None
    pad_id: int
    max_length: int

    @classmethod
    def load(cls, model_dir: Path, kind: Literal["pair", "joined"], max_length: int) -> PairTokenizer:
        from tokenizers import Tokenizer  # noqa: PLC0415 - only when an ONNX judge loads

        tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        pad = _special(model_dir, "pad_token")
        pad_id = tokenizer.token_to_id(pad) if pad else None
        eos = _special(model_dir, "eos_token")
        if kind == "joined" and not eos:
            raise ModelError(f"the model at {model_dir} has no end-of-sequence token")
        return cls(tokenizer, kind, eos, 0 if pad_id is None else int(pad_id), max_length)

    def count(self, text: str) -> int:
        """Tokens in `text`, without special tokens."""
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def cut(self, text: str, tokens: int) -> str:
        """The longest prefix of `text` that is at most `tokens` tokens, cut at a token boundary."""
        offsets = self.tokenizer.encode(text, add_special_tokens=False).offsets
        return text if len(offsets) <= tokens else text[: offsets[tokens - 1][1]]

    def encode(self, evidence: Sequence[str], claims: Sequence[str]) -> dict[str, np.ndarray[Any, Any]]:
        """int64 arrays, padded to the longest input (pad on the right, as transformers does)."""
        pairs = list(zip(evidence, claims, strict=True))
        if self.kind == "joined":
            self.tokenizer.enable_truncation(max_length=self.max_length)
            encoded = self.tokenizer.encode_batch([f"{e}{self.eos}{c}" for e, c in pairs])
        else:
            self.tokenizer.enable_truncation(max_length=self.max_length, strategy="only_first")
            encoded = self.tokenizer.encode_batch(pairs)
        width = max(len(e.ids) for e in encoded)

        def padded(rows: list[list[int]], value: int) -> np.ndarray[Any, Any]:
            return np.array([row + [value] * (width - len(row)) for row in rows], dtype=np.int64)

        return {
            "input_ids": padded([e.ids for e in encoded], self.pad_id),
            "attention_mask": padded([e.attention_mask for e in encoded], 0),
            "token_type_ids": padded([e.type_ids for e in encoded], 0),
        }


def softmax(logits: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return np.asarray(shifted / shifted.sum(axis=-1, keepdims=True))


@dataclass
class OnnxClassifier:
    """One onnxruntime session for a judge model: probabilities for encoded inputs."""

    session: Any
    inputs: tuple[str, ...]

    @classmethod
    def open(cls, path: Path, threads: int | None = None, *, shared: bool = True) -> OnnxClassifier:
        def make() -> OnnxClassifier:
            import onnxruntime as ort  # noqa: PLC0415 - only when an ONNX judge loads

            options = ort.SessionOptions()
            options.intra_op_num_threads = onnx_threads(threads)
            options.inter_op_num_threads = 1
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.log_severity_level = 3
            session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
            return cls(session, tuple(i.name for i in session.get_inputs()))

        return shared_model("onnx-judge", path.parent, str(path), make) if shared else make()

    def probabilities(self, encoded: dict[str, np.ndarray[Any, Any]]) -> np.ndarray[Any, Any]:
        logits = self.session.run(None, {name: encoded[name] for name in self.inputs})[0]
        return softmax(np.asarray(logits, dtype=np.float64))


def prepare_judge(model_dir: Path, kind: Literal["pair", "joined"], max_length: int) -> Path:
    """The judge's best ONNX file, exported now when missing; JudgeExportFailed says why not."""
    found = best_file(model_dir)
    if found is not None:
        return found
    try:
        export_judge(model_dir, kind, max_length)
    except Exception as exc:
        failed = judge_failure_file(model_dir)
        failed.parent.mkdir(parents=True, exist_ok=True)
        failed.write_text(f"{type(exc).__name__}: {exc}\n", encoding="utf-8")
        if isinstance(exc, JudgeExportFailed):
            raise
        raise JudgeExportFailed(f"the ONNX judge could not be made: {type(exc).__name__}: {exc}") from exc
    judge_failure_file(model_dir).unlink(missing_ok=True)
    found = best_file(model_dir)
    assert found is not None
    return found


def export_judge(
    model_dir: Path,
    kind: Literal["pair", "joined"],
    max_length: int,
    *,
    min_agreement: float = MIN_AGREEMENT,
    batch: int = 16,
) -> tuple[Path, Path | None]:
    """Export fp32 (checked against torch), then int8 where it agrees with fp32; (fp32, int8 or None)."""
    if not runtime_installed():
        raise JudgeExportFailed("onnxruntime is not installed (pip install onnxruntime)")
    if not (model_dir / "tokenizer.json").is_file():
        raise JudgeExportFailed("the model has no fast tokenizer (tokenizer.json)")
    import torch  # noqa: PLC0415 - the export is the one place the ONNX path needs torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer  # noqa: PLC0415

    slow = AutoTokenizer.from_pretrained(str(model_dir))
    model = AutoModelForSequenceClassification.from_pretrained(str(model_dir), attn_implementation="eager")
    model = model.eval()
    names = [n for n in NAMES if n in slow.model_input_names]
    fast = PairTokenizer.load(model_dir, kind, max_length)
    groups = [CHECK_PAIRS[i : i + batch] for i in range(0, len(CHECK_PAIRS), batch)]
    feeds = [fast.encode([e for e, _ in g], [c for _, c in g]) for g in groups]
    _same_ids(slow, fast, groups, feeds)
    fp32 = judge_onnx_file(model_dir)
    fp32.parent.mkdir(parents=True, exist_ok=True)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = [
            torch.softmax(model(**{n: torch.from_numpy(f[n]) for n in names}).logits.double(), -1).numpy()
            for f in feeds
        ]
        partial = _partial(fp32)
        try:
            write_graph(model, names, feeds[0], partial)
            got = _run(partial, feeds)
            worst = max(float(np.abs(g - e).max()) for g, e in zip(got, expected, strict=True))
            if worst > MAX_DIFFERENCE:
                raise JudgeExportFailed(f"the ONNX judge's probabilities differ from torch's by {worst:.2g}")
            os.chmod(partial, 0o644)
            os.replace(partial, fp32)
        finally:
            partial.unlink(missing_ok=True)
    return fp32, _quantised(model_dir, fp32, feeds, got, min_agreement)


def write_graph(model: Any, names: Sequence[str], feed: dict[str, Any], path: Path) -> None:
    """Export a torch sequence classifier (eager attention: SDPA would bake the sample's padding into
    the graph) to `path`: inputs `names`, batch and length dynamic, one output, its logits."""
    import torch  # noqa: PLC0415

    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on Python booleans, the exporter's deprecation
        torch.onnx.export(
            _Logits(model, list(names), torch),
            tuple(torch.from_numpy(np.asarray(feed[n])) for n in names),
            str(path),
            input_names=list(names),
            output_names=["logits"],
            dynamic_axes={**{n: {0: "batch", 1: "sequence"} for n in names}, "logits": {0: "batch"}},
            opset_version=OPSET,
            dynamo=False,
        )


def quantise(fp32: Path, int8: Path) -> None:
    """Dynamic int8 quantisation: int8 weights, activations quantised on the fly (CPU-friendly).
    Per channel: one scale per output column keeps the bundled embedder's int8 vectors at cosine
    ≥ 0.98 of fp32's, where one scale per matrix gave 0.91 (tests/bench/model_speed.py)."""
    import logging  # noqa: PLC0415

    from onnxruntime.quantization import QuantType, quantize_dynamic  # noqa: PLC0415

    root = logging.getLogger()
    level = root.level
    root.setLevel(max(level, logging.ERROR))  # its hint about pre-processing goes to the root logger
    try:
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
    finally:
        root.setLevel(level)


def _same_ids(slow: Any, fast: PairTokenizer, groups: list[Any], feeds: list[Any]) -> None:
    """Refuse a tokenizer.json that reads text otherwise than the model's transformers tokenizer."""
    for group, feed in zip(groups, feeds, strict=True):
        if fast.kind == "joined":
            texts: Any = [f"{e}{fast.eos}{c}" for e, c in group]
            reference = slow(texts, padding=True, truncation=True, max_length=fast.max_length)
        else:
            reference = slow(
                [e for e, _ in group],
                [c for _, c in group],
                padding=True,
                truncation="only_first",
                max_length=fast.max_length,
            )
        if np.asarray(reference["input_ids"]).tolist() != feed["input_ids"].tolist():
            raise JudgeExportFailed("tokenizer.json reads text differently from the model's tokenizer")


def _quantised(
    model_dir: Path, fp32: Path, feeds: list[Any], fp32_probabilities: list[Any], min_agreement: float
) -> Path | None:
    """The int8 copy when its labels agree with fp32's often enough, else None (and a note)."""
    target = judge_onnx_file(model_dir, int8=True)
    partial = _partial(target)
    try:
        quantise(fp32, partial)
        got = _run(partial, feeds)
        agree = [
            a == b
            for g, e in zip(got, fp32_probabilities, strict=True)
            for a, b in zip(g.argmax(-1), e.argmax(-1), strict=True)
        ]
        share = sum(agree) / len(agree)
        if share < min_agreement:
            int8_refused_file(model_dir).write_text(
                f"int8 agreed with fp32 on {share:.1%} of {len(agree)} check pairs\n", encoding="utf-8"
            )
            return None
        os.chmod(partial, 0o644)
        os.replace(partial, target)
        return target
    finally:
        partial.unlink(missing_ok=True)


def _partial(target: Path) -> Path:
    handle, name = tempfile.mkstemp(prefix=target.stem, suffix=".onnx.part", dir=target.parent)
    os.close(handle)
    return Path(name)


def _run(path: Path, feeds: list[Any]) -> list[np.ndarray[Any, Any]]:
    classifier = OnnxClassifier.open(path, shared=False)
    return [classifier.probabilities(f) for f in feeds]


def _Logits(model: Any, names: list[str], torch: Any) -> Any:  # noqa: N802 - a torch Module class, lazily
    class Logits(torch.nn.Module):  # type: ignore[misc]
        """The classifier with positional inputs (the tokenizer's) and one output, its logits."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs: Any) -> Any:
            return self.model(**dict(zip(names, inputs, strict=True))).logits

    return Logits()


def main(argv: list[str]) -> int:
    """`python -m citedesk.evidence.onnx_judge KIND MAX_LENGTH MODEL_DIR [--lock FILE]`: the
    background export `NliJudge` starts on first use."""
    kind, max_length, model_dir = argv[0], int(argv[1]), Path(argv[2])
    lock = Path(argv[4]) if argv[3:4] == ["--lock"] else None
    with contextlib.suppress(OSError):
        os.nice(10)
    try:
        prepare_judge(model_dir, "joined" if kind == "joined" else "pair", max_length)
    except JudgeExportFailed:
        return 1
    finally:
        if lock is not None:
            lock.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
