"""Process-wide settings for torch: how many CPU threads inference may use."""

from __future__ import annotations

import os
from typing import Any

_state = {"configured": False}


def configure_threads(torch: Any, threads: int | None = None) -> int:
    """Size torch's intra-op pool to the machine once (all cores, at most 8); returns the count.

    CITEDESK_THREADS overrides. Called by whoever loads a model first, never at import.
    """
    wanted = threads or int(os.environ.get("CITEDESK_THREADS", "0") or 0) or min(8, os.cpu_count() or 1)
    if not _state["configured"] or threads:
        torch.set_num_threads(max(1, wanted))
        _state["configured"] = True
    return int(torch.get_num_threads())
