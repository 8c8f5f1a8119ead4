"""The server's audits: the window's audit child (`desk.background`), driven from asyncio.

One child process audits for every open document, one request at a time; a reader thread passes
its typed messages to the server's event loop (`call_soon_threadsafe`), so the protocol loop never
waits for an audit. Each request has a generation; the server keeps, per document, the one that
matters (the latest), and drops any message of an older one. The child's cancellation says "every
generation up to N" — an edit of one document may so stop another's audit, which the server then
asks again (`Documents`).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable

from citedesk.desk import AuditOptions
from citedesk.desk.background import (
    AuditChannel,
    AuditFailure,
    AuditMessage,
    Cancelled,
    Failed,
    Finished,
    Progress,
    Provisional,
    StageDone,
    last_of_generation,
)

__all__ = [
    "AuditFailure",
    "AuditMessage",
    "AuditRunner",
    "Cancelled",
    "Failed",
    "Finished",
    "Progress",
    "Provisional",
    "StageDone",
    "last_of_generation",
]


class AuditRunner:
    """The child and its reader (`desk.background.AuditChannel`); `deliver` is called on the event
    loop with each message."""

    def __init__(self, loop: asyncio.AbstractEventLoop, deliver: Callable[[AuditMessage], None]) -> None:
        self._loop = loop
        self._deliver = deliver
        self._generations = itertools.count(1)
        self.channel = AuditChannel(self._post, restarted_by="edit", name="citedesk-lsp-reader")

    def warm(self) -> None:
        """Start the child and the reader now (at `initialized`), so the first audit finds them."""
        self.channel.warm()

    def submit(self, text: str, path: str | None, options: AuditOptions) -> int:
        """Ask for an audit; its generation number."""
        generation = next(self._generations)
        self.channel.submit(generation, text, path, options)
        return generation

    def cancel(self, generation: int) -> None:
        self.channel.cancel(generation)

    def _post(self, message: AuditMessage) -> None:
        if not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._deliver, message)

    def close(self) -> None:
        self.channel.close()
