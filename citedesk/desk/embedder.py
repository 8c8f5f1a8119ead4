"""The embedder's fast start for the front ends: its ONNX file made now (`citedesk models prepare`).

Without the file the first audit embeds with torch (a slow start) and makes it in the background;
preparing it ahead — after an install, in a provisioning script — makes even that first audit
start without torch. A thin door over `evidence.onnx_export` (the front ends never import the
evidence package).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from citedesk.evidence.embed import default_model_dir
from citedesk.evidence.onnx_embed import onnx_enabled, ready


@dataclass(frozen=True)
class PreparedEmbedder:
    path: Path
    made: bool
    """False: the file was there already (nothing was exported)."""
    seconds: float
    used: bool
    """False when `CITEDESK_ONNX` turns ONNX off: the file is ready, but audits keep torch."""


def prepare_embedder(*, again: bool = False) -> PreparedEmbedder:
    """Make the default embedding model's ONNX file unless it exists (`again`: make it anyway).

    ModelMissing when the model is not installed, ExportFailed (both CiteDeskErrors) with why it
    could not be made; audits then keep using torch.
    """
    from citedesk.evidence.onnx_export import prepare  # noqa: PLC0415 - imports torch when it exports

    model_dir = default_model_dir()
    existed = ready(model_dir)
    started = time.perf_counter()
    path = prepare(model_dir, force=again)
    return PreparedEmbedder(path, again or not existed, time.perf_counter() - started, onnx_enabled())
