"""Audits in a separate process, so loading torch and the models never stalls the caller.

Importing torch and reading model weights holds Python's GIL for hundreds of milliseconds at a
time; in a worker *thread* that freezes the window's event loop. A child process has its own GIL.
It is started on first use (spawn: a clean interpreter, no inherited Qt state), stays warm so its
loaded models and caches serve later audits, and is restarted if it dies.

Protocol: requests `(generation, text, path, options)` go in; `("progress", gen, stage, done,
total)`, `("finished", gen, report)`, `("failed", gen, message)` and `("cancelled", gen)` come out.
Cancelling is race-free: a shared counter says "every generation up to N is cancelled", and the
running audit checks it at each stage.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import queue
import traceback
from multiprocessing.process import BaseProcess
from multiprocessing.queues import Queue
from multiprocessing.sharedctypes import Synchronized
from typing import Any

from citedesk.errors import Cancelled
from citedesk.pipeline import AuditOptions, AuditState, audit_text

Message = tuple[Any, ...]


class _SharedCancelState(AuditState):
    """An AuditState whose cancellation is also read from the parent's shared counter."""

    def __init__(self, generation: int, cancelled_upto: Synchronized, results: Queue[Message]) -> None:  # type: ignore[type-arg]
        super().__init__(
            on_progress=lambda stage, done, total: results.put(("progress", generation, stage, done, total))
        )
        self._generation = generation
        self._upto = cancelled_upto

    @property
    def cancelled(self) -> bool:
        return super().cancelled or self._generation <= self._upto.value


def serve(requests: Queue[Message | None], results: Queue[Message], cancelled_upto: Synchronized) -> None:  # type: ignore[type-arg]
    """The child's loop: one audit at a time, until a `None` request."""
    while True:
        request = requests.get()
        if request is None:
            return
        generation, text, path, options = request
        if generation <= cancelled_upto.value:
            results.put(("cancelled", generation))
            continue
        state = _SharedCancelState(generation, cancelled_upto, results)
        try:
            report = audit_text(text, path, options, state)
        except Cancelled:
            results.put(("cancelled", generation))
        except Exception as exc:  # report every failure; the loop must survive it
            traceback.print_exc()
            results.put(("failed", generation, f"{type(exc).__name__}: {exc}"))
        else:
            results.put(("finished", generation, report))


class AuditProcess:
    """The parent's handle on the child: submit, cancel, read results, close."""

    def __init__(self) -> None:
        self._context = mp.get_context("spawn")
        self._process: BaseProcess | None = None
        self._requests: Queue[Message | None] | None = None
        self._results: Queue[Message] | None = None
        self._cancelled_upto: Synchronized | None = None  # type: ignore[type-arg]

    def _ensure_started(self) -> None:
        if self._process is not None and self._process.is_alive():
            return
        self._requests = self._context.Queue()
        self._results = self._context.Queue()
        upto = self._cancelled_upto.value if self._cancelled_upto is not None else 0
        self._cancelled_upto = self._context.Value("q", upto)
        self._process = self._context.Process(
            target=serve,
            args=(self._requests, self._results, self._cancelled_upto),
            name="citedesk-audit",
            daemon=True,
        )
        self._process.start()

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.is_alive()

    def submit(self, generation: int, text: str, path: str | None, options: AuditOptions) -> None:
        self._ensure_started()
        assert self._requests is not None
        self._requests.put((generation, text, path, options))

    def cancel_upto(self, generation: int) -> None:
        if self._cancelled_upto is not None:
            with self._cancelled_upto.get_lock():
                self._cancelled_upto.value = max(self._cancelled_upto.value, generation)

    def next_message(self, timeout: float) -> Message | None:
        """The next message from the child, or None after `timeout` seconds (or with no child)."""
        results = self._results
        if results is None:
            return None
        try:
            return results.get(timeout=timeout)
        except queue.Empty:
            return None
        except (EOFError, OSError, ValueError):  # the queue was closed under us
            return None

    def close(self, timeout: float = 5.0) -> None:
        process, requests = self._process, self._requests
        self._process = None
        if process is None:
            return
        if requests is not None and process.is_alive():
            self.cancel_upto(2**62)
            with contextlib.suppress(OSError, ValueError):
                requests.put(None)
            process.join(timeout)
        if process.is_alive():
            process.terminate()
            process.join(timeout)
        self._cancelled_upto = None  # a later submit starts a fresh child with nothing cancelled
