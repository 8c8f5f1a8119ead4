"""`citedesk lsp`: the language server over stdin/stdout (the entry point's way in)."""

from __future__ import annotations

from citedesk.lsp.features import build


def serve() -> int:
    """Serve over stdin/stdout until the client says exit; the exit code (0 after a shutdown)."""
    server = build()
    try:
        server.start_io()
    finally:
        server.shutdown_audits()
    return 0
