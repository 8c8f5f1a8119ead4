"""`citedesk lsp`: the language server over stdin/stdout (the entry point's way in)."""

from __future__ import annotations

import sys

from citedesk.lsp.features import build
from citedesk.lsp.wire import BoundedInput


def serve() -> int:
    """Serve over stdin/stdout until the client says exit; the exit code (0 after a shutdown)."""
    server = build()
    try:
        server.start_io(stdin=BoundedInput(sys.stdin.buffer))  # type: ignore[arg-type]
    finally:
        server.shutdown_audits()
    return 0
