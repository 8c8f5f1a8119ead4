"""Making the embedder's ONNX file, once, from the model's safetensors (the one place that needs torch).

`citedesk models prepare` runs it in the foreground; an audit that finds the file missing starts it
in a background process (niced, one at a time: a lock file) and embeds with torch meanwhile, so only
the first audit pays torch's price. The exporter is torch's TorchScript one (`dynamo=False`, which
needs the `onnx` package; the dynamo exporter would also need onnxscript), opset 17, batch and
sequence length dynamic. The model is exported with eager attention: the SDPA path decides on
the mask while tracing, which would bake the sample batch's padding into the graph.

A file is only ever published whole (written beside, checked, then renamed) and only when
onnxruntime's vectors for a few sentences of different lengths, padded in one batch, equal torch's
(cosine ≥ 0.9999). A failed export leaves a note with why (`onnx_embed.failure_file`) so audits
keep torch without trying again each time. Then an int8 copy is made beside it (`onnx_int8`), used
only where its vectors stay within cosine 0.99 of fp32's, the measure recorded next to it.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from citedesk.errors import ModelError
from citedesk.evidence.onnx_embed import (
    INPUTS,
    OPSET,
    Int8Agreement,
    OnnxEncoder,
    agreement_file,
    chosen_file,
    failure_file,
    fast_tokenizer,
    int8_file,
    onnx_file,
    runtime_installed,
    shipped,
)
from citedesk.evidence.onnx_int8 import METHOD, make_int8

CHECK_TEXTS = (
    "The bridge was completed in 1950.",
    "Vaccination rates rose by twelve percent after the campaign, according to the ministry's annual report.",
    "x",
)
MIN_COSINE = 0.9999
STALE_LOCK_S = 15 * 60
"""A lock older than this belongs to an export that died: it is taken over."""


class ExportFailed(ModelError):
    """The ONNX file could not be made; embeddings keep using torch."""


def prepare(model_dir: Path, *, force: bool = False) -> Path:
    """The model's ONNX file to embed with, exported now when missing (or when `force`): the int8
    copy where it agrees with fp32 (`onnx_int8`), else fp32's; ExportFailed says why not. The
    files the app shipped with (`onnx_embed.shipped`) are never made again: they are read-only."""
    if shipped(model_dir):
        return chosen_file(model_dir)
    target = onnx_file(model_dir)
    if force or not target.is_file():
        _export_checked(model_dir, target)
    if force or Int8Agreement.read(agreement_file(model_dir)) is None:
        _int8_copy(model_dir, target)
    return chosen_file(model_dir)


def _int8_copy(model_dir: Path, fp32: Path) -> None:
    """Make the int8 copy and its agreement record; one that cannot be made is recorded as unused
    (fp32 embeds, and it is not tried again until `citedesk models prepare --again`)."""

    try:
        make_int8(model_dir, fp32)
    except Exception as exc:  # onnxruntime's quantiser on a graph it does not expect
        int8_file(model_dir).unlink(missing_ok=True)
        Int8Agreement(f"{METHOD}: failed ({type(exc).__name__}: {exc})", 0.0, 0, False).save(
            agreement_file(model_dir)
        )


def _export_checked(model_dir: Path, target: Path) -> None:
    failed = failure_file(model_dir)
    try:
        export(model_dir, target)
    except Exception as exc:
        failed.parent.mkdir(parents=True, exist_ok=True)
        failed.write_text(f"{type(exc).__name__}: {exc}\n", encoding="utf-8")
        if isinstance(exc, ExportFailed):
            raise
        raise ExportFailed(f"the ONNX embedder could not be made: {type(exc).__name__}: {exc}") from exc
    failed.unlink(missing_ok=True)


def export(model_dir: Path, target: Path, *, max_length: int = 128) -> Path:
    """Export the model in `model_dir` to `target` (atomically), checked against torch."""
    if not runtime_installed():
        raise ExportFailed("onnxruntime is not installed (pip install onnxruntime)")
    import torch  # noqa: PLC0415 - the export is the one place the ONNX path needs torch
    from transformers import AutoModel, AutoTokenizer  # noqa: PLC0415
    from transformers.utils import logging as hf_logging  # noqa: PLC0415

    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]

    model = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    sample = tokenizer(
        list(CHECK_TEXTS), padding=True, truncation=True, max_length=max_length, return_tensors="pt"
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(prefix=target.stem, suffix=".onnx.part", dir=target.parent)
    os.close(handle)
    try:
        # no_grad, not inference_mode: a graph traced in inference mode may come out wrong
        with torch.no_grad(), warnings.catch_warnings():
            # the tracer's notes on Python booleans, the exporter's deprecation notice
            warnings.simplefilter("ignore")
            # torch's own answer first: after the export the same module answers differently
            expected = _pooled(model(**sample).last_hidden_state, sample["attention_mask"], torch)
            torch.onnx.export(
                _LastHiddenState(model, torch),
                tuple(sample[name] for name in INPUTS),
                partial,
                input_names=list(INPUTS),
                output_names=["last_hidden_state"],
                dynamic_axes={name: {0: "batch", 1: "sequence"} for name in (*INPUTS, "last_hidden_state")},
                opset_version=OPSET,
                dynamo=False,
            )
        got = OnnxEncoder(_plain_session(Path(partial)), fast_tokenizer(model_dir, max_length), max_length)
        cosines = (got.forward(list(CHECK_TEXTS)) * expected).sum(axis=1)
        if float(cosines.min()) < MIN_COSINE:
            raise ExportFailed(f"the ONNX model's vectors differ from torch's (cosine {cosines.min():.6f})")
        os.chmod(partial, 0o644)  # mkstemp's 0600 is for the unfinished file only
        os.replace(partial, target)
    finally:
        Path(partial).unlink(missing_ok=True)
    return target


def _LastHiddenState(model: Any, torch: Any) -> Any:  # noqa: N802 - builds a torch Module class lazily
    class LastHiddenState(torch.nn.Module):  # type: ignore[misc]
        """The transformer with one named output: pooling stays in numpy, where it is cheap."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    return LastHiddenState()


def _pooled(hidden: Any, attention_mask: Any, torch: Any) -> np.ndarray[Any, Any]:
    mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    return np.asarray(torch.nn.functional.normalize(pooled, p=2, dim=1).numpy())


def _plain_session(path: Path) -> Any:
    import onnxruntime as ort  # noqa: PLC0415

    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def start_background_export(
    model_dir: Path, *, target: Path | None = None, failed: Path | None = None, job: Sequence[str] = ()
) -> subprocess.Popen[bytes] | None:
    """Start `prepare` in a niced child process that outlives this one; None when one is already
    running (its lock file is fresh) or a previous export failed (`citedesk models prepare` retries).
    `target`, `failed` and `job` (module and arguments before the model folder's) make another
    file the same way: the judges' (`onnx_judge`)."""
    target = target or onnx_file(model_dir)
    if target.is_file() or (failed or failure_file(model_dir)).is_file():
        return None
    lock = target.with_suffix(".lock")
    target.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        if time.time() - lock.stat().st_mtime > STALE_LOCK_S:
            lock.unlink()
    try:
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return None
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            *(job or ["citedesk.evidence.onnx_export"]),
            str(model_dir),
            "--lock",
            str(lock),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # neither the window's nor the terminal's signals reach it
    )


def export_in_background(model_dir: Path, **job: Any) -> bool:
    """`start_background_export`, its end awaited by a daemon thread (no zombie in a long-lived
    process, no warning about a child still running); whether one was started."""
    process = start_background_export(model_dir, **job)
    if process is None:
        return False
    threading.Thread(target=process.wait, name="onnx-export-reaper", daemon=True).start()
    return True


def main(argv: list[str]) -> int:
    """`python -m citedesk.evidence.onnx_export MODEL_DIR [--lock FILE]`: the background export."""
    model_dir = Path(argv[0])
    lock = Path(argv[2]) if argv[1:2] == ["--lock"] else None
    with contextlib.suppress(OSError):
        os.nice(10)  # behind the audit that started it
    try:
        prepare(model_dir)
    except ExportFailed:
        return 1
    finally:
        if lock is not None:
            lock.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
