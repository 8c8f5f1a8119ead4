"""Slow work off the GUI thread, its result back on it: one runner for the window's store writes,
look-ups and exports (issue 24; after Anki's `QueryOp` / `CollectionOp`).

`run_op(parent, op, success, failure)` runs `op()` on a worker thread, then calls `success(result)`
— or `failure(error)` when it raised a `CiteDeskError` — on the GUI thread, through a queued
signal. Store work (`store=True`, the default) runs on one worker, in the order it was asked for,
so two writes never race and a read asked for after a write sees it; other work (`store=False`:
exports, look-ups on the network) runs in a small pool beside it. `op` runs on another thread: it
must not touch a widget, so its caller reads what it needs from the widgets first and passes plain
values in. Quick work never flashes: the runner says it is busy (`busy_changed`) only once some op
has run for `BUSY_AFTER_MS`. An exception that is not a `CiteDeskError` is a bug: it is raised
again on the GUI thread, as it would have been had the op run there.

The window owns one `OpRunner` (a child of it, found by `run_op` from any object under the
window); closing the window waits for the ops still running (`shutdown`), so no write is lost and
no worker thread outlives it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from citedesk.errors import CiteDeskError
from citedesk.gui.qt import QObject, Qt, QTimer, Signal

T = TypeVar("T")
BUSY_AFTER_MS = 600
"""An op shows the window busy only after running this long (quick work never flashes)."""
STORE_THREAD = "citedesk-store"
POOL_THREAD = "citedesk-work"
POOL_SIZE = 2


@dataclass(eq=False)
class _Op(Generic[T]):
    op: Callable[[], T]
    success: Callable[[T], object]
    failure: Callable[[CiteDeskError], object] | None
    label: str
    result: Any = None
    error: Exception | None = field(default=None)


class OpRunner(QObject):
    """Runs ops on worker threads (store work on one, in order; other work in a pool) and delivers
    their results on the GUI thread."""

    busy_changed = Signal(str)
    """What is running, once an op has run for BUSY_AFTER_MS; "" when all is done."""
    message = Signal(str)
    """The message of a CiteDeskError from an op that was given no `failure`."""
    _delivered = Signal(object)  # an _Op, done: emitted on a worker thread, queued to the GUI thread

    def __init__(self, parent: QObject | None = None, *, busy_after_ms: int = BUSY_AFTER_MS) -> None:
        super().__init__(parent)
        self._store = ThreadPoolExecutor(1, thread_name_prefix=STORE_THREAD)
        self._pool = ThreadPoolExecutor(POOL_SIZE, thread_name_prefix=POOL_THREAD)
        self._running: list[_Op[Any]] = []
        self._closed = False
        self.busy = ""
        """What the window says is running ("" while nothing has run for BUSY_AFTER_MS)."""
        self.busy_timer = QTimer(self)
        self.busy_timer.setSingleShot(True)
        self.busy_timer.setInterval(busy_after_ms)
        self.busy_timer.timeout.connect(self._show_busy)
        self._delivered.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    @staticmethod
    def of(obj: QObject) -> OpRunner:
        """The runner of the window `obj` belongs to (`obj` itself, a child of it or of a parent)."""
        node: QObject | None = obj
        while node is not None:
            if isinstance(node, OpRunner):
                return node
            found = node.findChild(OpRunner, "", Qt.FindChildOption.FindDirectChildrenOnly)
            if isinstance(found, OpRunner):
                return found
            node = node.parent()
        raise LookupError(f"no OpRunner above {obj!r}")

    @property
    def idle(self) -> bool:
        """Nothing is running or waiting to be delivered."""
        return not self._running

    def run(
        self,
        op: Callable[[], T],
        success: Callable[[T], object],
        failure: Callable[[CiteDeskError], object] | None = None,
        *,
        store: bool = True,
        label: str = "Working…",
    ) -> None:
        """Run `op` off the GUI thread (see the module's docstring); `label` says what it does."""
        if self._closed:
            raise RuntimeError("the window's ops were shut down")
        job: _Op[T] = _Op(op, success, failure, label)
        self._running.append(job)
        if not self.busy and not self.busy_timer.isActive():
            self.busy_timer.start()
        (self._store if store else self._pool).submit(self._work, job)

    def shutdown(self) -> None:
        """Wait for every op submitted (a write is never dropped), then end the worker threads.
        Results not delivered yet are dropped: the window is closing."""
        self._closed = True
        self.busy_timer.stop()
        self._store.shutdown(wait=True)
        self._pool.shutdown(wait=True)

    # on a worker thread ----------------------------------------------------------------------------
    def _work(self, job: _Op[Any]) -> None:
        try:
            job.result = job.op()
        except Exception as exc:  # delivered on the GUI thread: a failure, or raised again there
            job.error = exc
        with contextlib.suppress(RuntimeError):  # the runner was deleted meanwhile (the window is gone)
            self._delivered.emit(job)

    # on the GUI thread -----------------------------------------------------------------------------
    def _deliver(self, job: _Op[Any]) -> None:
        if job in self._running:
            self._running.remove(job)
        if self._closed:
            return  # the window is closing: results not delivered yet are dropped (`shutdown`)
        if not self._running:
            self.busy_timer.stop()
        shown = self._running[0].label if self._running and self.busy else ""
        if shown != self.busy:
            self.busy = shown
            self.busy_changed.emit(shown)
        if job.error is None:
            job.success(job.result)
        elif isinstance(job.error, CiteDeskError):
            if job.failure is not None:
                job.failure(job.error)
            else:
                self.message.emit(job.error.message)
        else:
            raise job.error

    def _show_busy(self) -> None:
        if self._running:
            self.busy = self._running[0].label
            self.busy_changed.emit(self.busy)


def run_op(
    parent: QObject,
    op: Callable[[], T],
    success: Callable[[T], object],
    failure: Callable[[CiteDeskError], object] | None = None,
    *,
    store: bool = True,
    label: str = "Working…",
) -> None:
    """Run `op` off the GUI thread with the runner of `parent`'s window; `success(result)` or
    `failure(error)` is called on the GUI thread (see the module's docstring)."""
    OpRunner.of(parent).run(op, success, failure, store=store, label=label)
