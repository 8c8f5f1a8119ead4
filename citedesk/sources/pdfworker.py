"""PDF text extraction in a child process that can be stopped: bounded in time and in memory.

pypdf is pure Python: a hostile or merely huge PDF can keep it busy for minutes (50,000 pages
sharing one content stream) or make it inflate a small file into hundreds of megabytes (a
decompression bomb), and nothing inside one interpreter can interrupt it. So every PDF is read in
a worker process (started with spawn: the app runs threads, Qt and torch, which fork would copy
half-alive) that is

- killed when it runs past its time limit: `PDF_TIME_LIMIT_S` per PDF (`CITEDESK_PDF_TIME_LIMIT`
  seconds when set), and never later than the caller's deadline (what is left of an audit's time
  budget);
- capped in address space (`PDF_MEMORY_LIMIT_MIB`, RLIMIT_AS), so an allocation past it fails
  there, not in the app;
- quiet: pypdf's log records and warnings are collected there and logged here (at INFO, or DEBUG),
  never printed.

Whatever happens there, `read_pdf` returns a `PdfText` (its `problem` saying why there is no text)
and never raises. Starting a process costs a fraction of a second, so a worker is kept for the next
PDF (an audit may read forty) and at most `MAX_WORKERS` read side by side. Nothing is left behind:
an idle worker exits by itself after `IDLE_EXIT_S`, or as soon as this process is gone; a worker
that ran out of time is killed; at exit, multiprocessing ends its daemonic children.

This module imports nothing of CiteDesk, so the worker starts with pypdf and the standard library.
"""

from __future__ import annotations

import contextlib
import io
import logging
import multiprocessing
import os
import signal
import threading
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from multiprocessing.connection import Connection
from multiprocessing.context import SpawnContext, SpawnProcess
from typing import Any

from citedesk.errors import CiteDeskError

log = logging.getLogger(__name__)

PDF_TIME_LIMIT_S = 30.0
"""The longest one PDF may take to read (unless `TIME_LIMIT_ENV` says otherwise)."""
TIME_LIMIT_ENV = "CITEDESK_PDF_TIME_LIMIT"
"""Seconds, overriding `PDF_TIME_LIMIT_S` (a slow machine, or a test)."""
PDF_MEMORY_LIMIT_MIB = 1024
"""The address space a worker may use; reading a PDF that needs more fails there."""
MAX_WORKERS = 2
"""PDFs read side by side at most (sources are fetched in parallel); more wait their turn."""
IDLE_EXIT_S = 5.0
"""A worker given nothing to read for this long exits by itself."""
_REUSE_WITHIN_S = IDLE_EXIT_S - 1.5
"""An idle worker is given a PDF only this soon after its last one, never racing its own exit."""
_KEEP_IDLE = 1
"""Workers kept waiting for the next PDF; any more are closed once they are done."""
_MAX_LOG_RECORDS = 50
"""pypdf's messages passed on per PDF (a damaged file can produce thousands)."""
_PARENT_CHECK_S = 1.0

NO_TEXT_LAYER = "the PDF has no text layer (a scan?)"
DAMAGED = "unreadable PDF: it is damaged and could not be read"


@dataclass(frozen=True)
class PdfText:
    text: str = ""
    pages: list[tuple[int, int]] = field(default_factory=list)
    """(start offset, page number) for each page, in order."""
    title: str | None = None
    author: str | None = None
    problem: str = ""
    """Why there is no text: a damaged or hostile PDF, no text layer, a limit reached."""


def pdf_time_limit() -> float:
    """Seconds one PDF may take to read: `CITEDESK_PDF_TIME_LIMIT` when it is a positive number,
    else `PDF_TIME_LIMIT_S`."""
    raw = os.environ.get(TIME_LIMIT_ENV, "").strip()
    try:
        value = float(raw) if raw else PDF_TIME_LIMIT_S
    except ValueError:
        return PDF_TIME_LIMIT_S
    return value if 0 < value < float("inf") else PDF_TIME_LIMIT_S


def too_slow(limit: float) -> str:
    shown = f"{limit:.0f}" if limit >= 10 else f"{max(limit, 0.1):.1f}".removesuffix(".0")
    return f"the PDF took longer than {shown} s to read"


def too_big() -> str:
    return f"the PDF needs more than {PDF_MEMORY_LIMIT_MIB} MiB to read"


OUT_OF_TIME = "the PDF was not read: the time budget ran out"


def read_pdf(data: bytes, deadline: float | None = None) -> PdfText:
    """The text, pages and metadata of a PDF (bytes starting `%PDF`), read in a worker process
    within `pdf_time_limit()` seconds and by `deadline` (a `time.monotonic()` value) if given.
    Never raises: whatever goes wrong is the result's `problem`."""
    limit = pdf_time_limit()
    if deadline is not None:
        limit = min(limit, deadline - time.monotonic())
    if limit <= 0:
        return PdfText(problem=OUT_OF_TIME)
    ends = time.monotonic() + limit
    try:
        for _ in range(2):  # a worker that exited just as it was handed the PDF: once more, fresh
            outcome = _POOL.read(data, ends)
            if outcome is not _Gone.STALE:
                break
        else:
            return PdfText(problem="unreadable PDF: the PDF reader stopped before reading it")
    except _NoWorker as exc:  # no process can be started here: read it in this one, unbounded
        log.info("no PDF worker could be started (%s): reading the PDF in this process", exc.reason)
        return _read_here(data)
    except Exception as exc:  # never stop an audit for one PDF
        log.info("reading a PDF failed", exc_info=True)
        return PdfText(problem=f"unreadable PDF: {_short(exc)}")
    if outcome is _Gone.TIMED_OUT:
        return PdfText(problem=too_slow(limit))
    return outcome


def close_workers() -> None:
    """End the idle workers now (they would end by themselves after `IDLE_EXIT_S`)."""
    _POOL.close_idle()


# the reading itself (in the worker) ---------------------------------------------------------------
def _parse(data: bytes) -> PdfText:
    """Read a PDF with pypdf; every failure is a `problem` (MemoryError is left to the caller)."""
    from pypdf import PdfReader  # noqa: PLC0415 - only the worker loads pypdf

    complaints = _Complaints()
    try:
        reader = PdfReader(io.BytesIO(data))
        pieces: list[str] = []
        pages: list[tuple[int, int]] = []
        offset = 0
        for number, page in enumerate(reader.pages, start=1):
            page_text = (page.extract_text() or "").strip()
            pages.append((offset, number))
            pieces.append(page_text)
            offset += len(page_text) + 2
        info = reader.metadata
        title = str(info.title) if info and info.title else None
        author = str(info.author) if info and info.author else None
    except MemoryError:
        raise
    except Exception as exc:  # pypdf raises far more than its own errors on hostile input
        log.info("unreadable PDF: %s: %s", type(exc).__name__, exc)
        return PdfText(problem=_why_unreadable(exc))
    finally:
        complaints.close()
    text = "\n\n".join(pieces)
    if text.strip():
        return PdfText(text, pages, title, author)
    if complaints.first:  # no text, and pypdf had to repair or skip something: damaged, not a scan
        log.info("no text, and pypdf warned: %s", _shorten(complaints.first))
        return PdfText(problem=DAMAGED)
    return PdfText(problem=NO_TEXT_LAYER)


class _Complaints(logging.Handler):
    """What pypdf warned about while reading one PDF (its first message kept)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.first = ""
        self.loggers = [logging.getLogger("pypdf"), logging.getLogger("py.warnings")]
        for logger in self.loggers:
            logger.addHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        self.first = self.first or record.getMessage()

    def close(self) -> None:
        for logger in self.loggers:
            logger.removeHandler(self)
        super().close()


def _shorten(message: str, limit: int = 120) -> str:
    first = message.split("Warning: ", 1)[-1].splitlines()[0] if message.strip() else ""
    line = " ".join(first.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _why_unreadable(exc: Exception) -> str:
    from pypdf.errors import (  # noqa: PLC0415
        DependencyError,
        FileNotDecryptedError,
        LimitReachedError,
        PdfReadError,
    )

    if isinstance(exc, LimitReachedError):
        if "decompress" in str(exc).lower():
            return "unreadable PDF: it expands past a safe size when decompressed (a decompression bomb)"
        return f"unreadable PDF: it goes past a safety limit ({_short(exc)})"
    if isinstance(exc, FileNotDecryptedError):
        return "unreadable PDF: it is encrypted with a password"
    if isinstance(exc, DependencyError):
        return f"unreadable PDF: {_short(exc)}"
    if isinstance(exc, RecursionError):
        return "unreadable PDF: its objects nest too deeply"
    if isinstance(exc, PdfReadError | ValueError | KeyError | TypeError | OSError):
        return DAMAGED
    return f"unreadable PDF: the reader failed on it ({type(exc).__name__}: {_short(exc)})"


def _short(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    first = lines[0] if lines else type(exc).__name__
    return first if len(first) <= 120 else first[:119] + "…"


class _Collect(logging.Handler):
    """Keeps what pypdf logs (and warns, through logging) while reading one PDF."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[tuple[int, str, str]] = []
        self.dropped = 0

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.records) >= _MAX_LOG_RECORDS:
            self.dropped += 1
            return
        try:
            message = record.getMessage()
        except Exception:  # a malformed record says nothing worth a crash
            message = str(record.msg)
        self.records.append((record.levelno, record.name, message[:500]))

    def take(self) -> list[tuple[int, str, str]]:
        taken, dropped = self.records, self.dropped
        self.records, self.dropped = [], 0
        if dropped:
            taken.append((logging.INFO, "pypdf", f"… and {dropped} more messages"))
        return taken


def _serve(conn: Connection, parent: int, memory_limit: int) -> None:
    """The worker's loop: bytes in, `(PdfText | "memory", log records)` out, until its parent is
    gone, it is closed, or it has been idle `IDLE_EXIT_S`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource  # noqa: PLC0415 - POSIX only

        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = memory_limit if hard == resource.RLIM_INFINITY else min(memory_limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    collect = _Collect()
    root = logging.getLogger()
    root.handlers[:] = [collect]
    root.setLevel(logging.WARNING)
    logging.captureWarnings(True)  # warnings.warn → the "py.warnings" logger → collected
    warnings.simplefilter("default")

    def watch() -> None:  # a parent killed while a PDF is being read: stop at once
        while True:
            time.sleep(_PARENT_CHECK_S)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="citedesk-pdf-parent-watch", daemon=True).start()
    while True:
        try:
            if not conn.poll(IDLE_EXIT_S):
                return
            data = conn.recv_bytes()
        except (EOFError, OSError):  # the parent closed its end, or is gone
            return
        result: PdfText | str
        try:
            result = _parse(data)
        except MemoryError:
            result = "memory"
        del data
        try:
            conn.send((result, collect.take()))
        except (OSError, ValueError):
            return
        if result == "memory":
            return  # a fresh worker for the next PDF, not one that ran out of memory mid-way


def _read_here(data: bytes) -> PdfText:
    """`_parse` in this process, where no worker can be had: no limits, but never raises."""
    _quiet_pypdf()
    try:
        return _parse(data)
    except MemoryError:
        return PdfText(problem=too_big())


_quieted = False


def _quiet_pypdf() -> None:
    """pypdf's log records go to this module's logger at INFO, not to standard error."""
    global _quieted  # noqa: PLW0603 - once per process
    if not _quieted:
        pypdf = logging.getLogger("pypdf")
        pypdf.addHandler(_Forward())
        pypdf.propagate = False
        _quieted = True


class _Forward(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        _relog([(record.levelno, record.name, record.getMessage())])


def _relog(records: list[tuple[int, str, str]]) -> None:
    for level, name, message in records:
        log.log(logging.INFO if level >= logging.WARNING else logging.DEBUG, "%s: %s", name, message)


# the workers (in this process) --------------------------------------------------------------------
class _NoWorker(CiteDeskError):
    """No worker process can be started here (the PDF is then read in this process)."""

    kind = "no_worker"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Gone(Enum):
    STALE = "the worker was gone before it read the PDF"
    TIMED_OUT = "the worker ran out of time, and was killed"


class _Worker:
    def __init__(self, context: SpawnContext) -> None:
        ours, theirs = context.Pipe()
        process = context.Process(
            target=_serve,
            args=(theirs, os.getpid(), PDF_MEMORY_LIMIT_MIB * 1024 * 1024),
            name="citedesk-pdf",
            daemon=True,  # ended by multiprocessing when this process exits
        )
        try:
            with _children_allowed():
                process.start()
        except Exception as exc:
            ours.close()
            theirs.close()
            raise _NoWorker(f"{type(exc).__name__}: {_short(exc)}") from exc
        theirs.close()  # the child's end: only the child holds it now, so its exit is an EOF here
        self.process: SpawnProcess = process
        self.conn = ours
        self.last_used = time.monotonic()
        self.killed = False

    def fresh(self) -> bool:
        return self.process.is_alive() and time.monotonic() - self.last_used < _REUSE_WITHIN_S

    def read(self, data: bytes, ends: float) -> PdfText | _Gone:
        """The worker's reading of `data`, or why there is none."""
        try:
            self.conn.send_bytes(data)
        except (OSError, ValueError):
            return _Gone.STALE
        try:
            if not self.conn.poll(max(0.0, ends - time.monotonic())):
                self.kill()
                return _Gone.TIMED_OUT
            result, records = self.conn.recv()
        except (EOFError, OSError):
            return self._died()
        finally:
            self.last_used = time.monotonic()
        _relog(records)
        if isinstance(result, PdfText):
            return result
        return PdfText(problem=too_big())  # "memory"

    def _died(self) -> PdfText | _Gone:
        self.process.join(2)
        code = self.process.exitcode
        if code == 0:  # it exited idle, before reading
            return _Gone.STALE
        if code == -signal.SIGKILL:  # not by us: the kernel's out-of-memory killer
            return PdfText(problem=too_big())
        log.info("the PDF worker stopped with exit code %s", code)
        return PdfText(problem=f"unreadable PDF: the PDF reader stopped (exit code {code})")

    def kill(self) -> None:
        self.killed = True
        self.process.kill()

    def close(self) -> None:
        """End the worker (closing its pipe ends an idle one; one that does not go is killed)."""
        self.conn.close()
        self.process.join(1.0)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5.0)
        if self.process.exitcode is not None:
            self.process.close()


@contextlib.contextmanager
def _children_allowed() -> Iterator[None]:
    """Let a daemonic process (the window's audit process) start a worker.

    multiprocessing refuses children to a daemonic process because it may be ended without
    waiting for them, leaving them orphaned; a worker never outlives its parent (it watches for its
    parent's exit), so that is not a worry here."""
    me: Any = multiprocessing.current_process()
    if not me.daemon:
        yield
        return
    with _DAEMON_FLAG:
        me.daemon = False
        try:
            yield
        finally:
            me.daemon = True


_DAEMON_FLAG = threading.Lock()


class _Pool:
    def __init__(self) -> None:
        self._turn = threading.Condition()
        self._idle: list[_Worker] = []
        self._busy = 0
        self._context: SpawnContext | None = None

    def read(self, data: bytes, ends: float) -> PdfText | _Gone:
        worker = self._acquire(ends)
        if worker is None:
            return _Gone.TIMED_OUT
        keep = False
        try:
            outcome = worker.read(data, ends)
            keep = isinstance(outcome, PdfText) and outcome.problem != too_big() and not worker.killed
            return outcome
        finally:
            self._release(worker, keep)

    def _acquire(self, ends: float) -> _Worker | None:
        stale: list[_Worker] = []
        with self._turn:
            while self._busy >= MAX_WORKERS:
                left = ends - time.monotonic()
                if left <= 0:
                    return None
                self._turn.wait(left)
            self._busy += 1
            worker = None
            while self._idle and worker is None:
                candidate = self._idle.pop()
                if candidate.fresh():
                    worker = candidate
                else:
                    stale.append(candidate)
        for old in stale:
            old.close()
        if worker is not None:
            return worker
        try:
            if self._context is None:
                self._context = multiprocessing.get_context("spawn")
            return _Worker(self._context)
        except BaseException:
            self._release(None, keep=False)
            raise

    def _release(self, worker: _Worker | None, keep: bool) -> None:
        with self._turn:
            self._busy -= 1
            if worker is not None and keep and len(self._idle) < _KEEP_IDLE:
                self._idle.append(worker)
                worker = None
            self._turn.notify()
        if worker is not None:
            worker.close()

    def close_idle(self) -> None:
        with self._turn:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.close()


_POOL = _Pool()
