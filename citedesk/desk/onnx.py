"""Installed judge models made ready for ONNX Runtime: `citedesk models prepare NAME`, and what
`models pull` made.

A download exports its model right away (`evidence.download.prepare_onnx`); a model imported from
a folder, or one whose export failed, is exported here on request instead of by its first audit in
the background. A thin door over `evidence.download` (the front ends never import the evidence
package); the embedder's own door is `embedder.py`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from citedesk.evidence import download, local_models
from citedesk.evidence.onnx_embed import onnx_enabled


@dataclass(frozen=True)
class PreparedModel:
    name: str
    engine: str
    """`onnx-int8`, `onnx` or `torch`."""
    description: str
    """One line: what it judges with, and why torch where it is torch."""
    seconds: float
    used: bool
    """False when `CITEDESK_ONNX` turns ONNX off: the files are ready, but audits keep torch."""


def prepare_model(name: str, *, again: bool = False) -> PreparedModel:
    """Export an installed model (by name or folder) to ONNX unless it is (`again`: anew).

    ModelError (a CiteDeskError) when no such model is installed; a model that cannot be exported
    is no error: it stays on torch, and the description says why.
    """
    folder = local_models.find_model(name)
    started = time.perf_counter()
    prepared = download.prepare_onnx(folder, again=again)
    return PreparedModel(
        folder.name, prepared.engine, prepared.describe(), time.perf_counter() - started, onnx_enabled()
    )


def model_onnx_state(name: str) -> str:
    """What an installed model judges with now (nothing is exported), in one line."""
    return download.judged_with(local_models.find_model(name))
