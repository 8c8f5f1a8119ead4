"""The language server (`citedesk lsp`): CiteDesk's findings where the writing is.

Protocol only, like python-lsp-server's thin layer: findings become diagnostics, fixes code
actions, the card a hover; it decides nothing. It reaches the engine only through the desk (the
audit child of `desk.background`, `DocumentSession` for plans, fixes and review decisions), as
the CLI and the window do, and imports neither of them.

- `server.py` — the server's state: settings, documents, the audit child's messages → diagnostics.
- `serve.py` — `serve()`: the server over stdin/stdout (`citedesk lsp`); `wire.py` bounds what
  it reads (a message longer than any document it would check is read past and logged).
- `features.py` — the handlers: lifecycle, sync, pull diagnostics, code actions, hover, completion.
- `convert.py` — finding → diagnostic, fix → edit, finding → hover Markdown.
- `positions.py` — exact offsets ↔ UTF-16 / UTF-8 / UTF-32 positions.
- `audits.py`, `documents.py`, `settings.py` — the audit child from asyncio, open documents, the
  client's settings layered with `citedesk.toml`.
"""

from __future__ import annotations
