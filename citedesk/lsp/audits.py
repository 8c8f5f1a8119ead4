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
import threading
from collections.abc import Callable

from citedesk.desk import AuditOptions
from citedesk.desk.background import (
    AuditFailure,
    AuditMessage,
    AuditProcess,
    Cancelled,
    Failed,
    Finished,
    Progress,
    Provisional,
    StageDone,
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
]

READ_EVERY_S = 0.2


class AuditRunner:
    """The child and its reader; `deliver` is called on the event loop with each message."""

    def __init__(self, loop: asyncio.AbstractEventLoop, deliver: Callable[[AuditMessage], None]) -> None:
        self.process = AuditProcess()
        self._loop = loop
        self._deliver = deliver
        self._generations = itertools.count(1)
        self._pending: set[int] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._reader: threading.Thread | None = None

    def warm(self) -> None:
        """Start the child and the reader now (at `initialized`), so the first audit finds them."""
        self.process.start()
        self._ensure_reader()

    def submit(self, text: str, path: str | None, options: AuditOptions) -> int:
        """Ask for an audit; its generation number."""
        generation = next(self._generations)
        with self._lock:
            self._pending.add(generation)
        self.process.submit(generation, text, path, options)
        self._ensure_reader()
        return generation

    def cancel(self, generation: int) -> None:
        self.process.cancel_upto(generation)

    def _ensure_reader(self) -> None:
        if self._reader is None or not self._reader.is_alive():
            self._stop.clear()
            self._reader = threading.Thread(target=self._read, name="citedesk-lsp-reader", daemon=True)
            self._reader.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            message = self.process.next_message(READ_EVERY_S)
            if message is None:
                self._check_child()
                continue
            if not isinstance(message, Progress | StageDone | Provisional):
                with self._lock:
                    self._pending.discard(message.generation)
            self._post(message)

    def _post(self, message: AuditMessage) -> None:
        if not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._deliver, message)

    def _check_child(self) -> None:
        """A child that died answers nothing more: its audits fail, and the next request restarts it."""
        if self._stop.is_set() or self.process.alive:
            return
        with self._lock:
            lost, self._pending = sorted(self._pending), set()
        failure = AuditFailure(
            "process", "the audit process stopped unexpectedly; the next edit restarts it", True
        )
        for generation in lost:
            self._post(Failed(generation, failure))

    def close(self) -> None:
        self._stop.set()
        self.process.close()
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(5)
        self._reader = None


def last_of_generation(message: AuditMessage) -> bool:
    """Whether nothing more of its generation follows (a `Provisional` is followed by its re-read)."""
    return isinstance(message, Finished | Failed | Cancelled)
