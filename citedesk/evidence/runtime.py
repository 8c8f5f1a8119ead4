"""Process-wide state for inference: how many CPU threads torch and onnxruntime may use, and the
loaded models.

A model is read from disk once per process and then serves every audit: the window's audit
process stays warm, so a re-audit after an edit costs the judging, not another load.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

TORCH_LIBRARIES = ("torch", "transformers")
"""What the `models` extra adds (pyproject.toml): not installed for the default audit, which runs
on ONNX Runtime; needed to export an ONNX file and to run a model on torch."""

_state = {"configured": False}
_loaded: dict[tuple[Hashable, ...], Any] = {}
_loading = threading.Lock()


def configure_threads(torch: Any, threads: int | None = None) -> int:
    """Size torch's intra-op pool to the machine once (all cores, at most 8); returns the count.

    CITEDESK_THREADS overrides. Called by whoever loads a model first, never at import.
    """
    wanted = threads or int(os.environ.get("CITEDESK_THREADS", "0") or 0) or min(8, os.cpu_count() or 1)
    if not _state["configured"] or threads:
        torch.set_num_threads(max(1, wanted))
        _state["configured"] = True
    return int(torch.get_num_threads())


def onnx_threads(threads: int | None = None) -> int:
    """onnxruntime's intra-op threads: every core this process may run on (CITEDESK_THREADS overrides).

    Unlike torch's pool, a session's threads are its own, so no process-wide setting is kept.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, threads or int(os.environ.get("CITEDESK_THREADS", "0") or 0) or cores)


def shared_model(kind: str, folder: Path, variant: Hashable, load: Callable[[], T]) -> T:
    """`load()` once per (kind, folder, variant) in this process, then the same object every time.

    The key includes the folder's config.json modification time, so a model re-imported under the
    same name is read again. Loading holds a lock: two audits never read the same weights twice.
    """
    try:
        stamp = (Path(folder) / "config.json").stat().st_mtime_ns
    except OSError:
        stamp = 0
    key = (kind, str(Path(folder).resolve()), variant, stamp)
    with _loading:
        if key not in _loaded:
            _loaded[key] = load()
        return _loaded[key]  # type: ignore[no-any-return]


def torch_installed() -> bool:
    """Whether torch and transformers can be imported, without importing them (seconds)."""
    return all(importlib.util.find_spec(name) is not None for name in TORCH_LIBRARIES)


def needs_torch(what: str) -> str:
    """One line for the writer: `what` runs on torch, which this install does not have, and how to
    get it (the app bundle has no pip: the Python install does)."""
    if getattr(sys, "frozen", False):
        return (
            f"{what} needs torch, which the app bundle leaves out: install CiteDesk for Python with "
            "the models extra (pip install 'citedesk[models]')"
        )
    return f"{what} needs torch, which is not installed: it needs the models extra: pip install 'citedesk[models]'"
