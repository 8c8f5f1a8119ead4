"""Audits in a separate process, so loading torch and the models never stalls the caller.

Importing torch and reading model weights holds Python's GIL for hundreds of milliseconds at a
time; in a worker *thread* that freezes the window's event loop. A child process has its own GIL.
It is started on first use (spawn: a clean interpreter, no inherited Qt state), stays warm so its
loaded models and caches serve later audits, and is restarted if it dies. It never outlives its
parent: it watches its parent's process id and exits as soon as the parent is gone (a window
killed with SIGKILL leaves nothing behind), and on Linux the kernel also sends it SIGKILL then.

Protocol, typed (frozen dataclasses, defined at module level so they pickle): an `AuditRequest`
goes in (or `None`: stop); `Progress`, `StageDone`, `Finished`, `Failed` and `Cancelled` come out,
each with the request's generation (`AuditMessage`). `StageDone` carries each stage's findings the
moment the stage is done (issue 26: the window paints the structural findings while the judge is
still loading). Cancelling is race-free: a shared counter says "every generation up to N is
cancelled", and the running audit checks it at each stage.

With a cascade (`AuditOptions.strong_judge`, issue 27) a request is audited twice: first without
the strong judge, whose report goes out as `Provisional` (the fast judge's reading, shown at once
and not the last message), then with it — the sources, the retrieval and the fast judge's verdicts
are cached in this warm child by then, so the second pass costs about the strong judge's re-reads —
whose report is the `Finished`. The second pass sends `Progress` ("re-reading with NAME",
done/total) but no `StageDone` (its stages' findings are the report's), and it stops (`Cancelled`)
at its next check once its generation is cancelled or a newer request is waiting. In the
provisional report every fix a judge drives is unsafe (`provisional`): **Fix all** leaves what the
strong judge has not confirmed yet.

The window starts the child as it opens (`AuditProcess.start`, "warm"), and the child imports the
audit's stages while it waits for its first request, so the first audit does not pay for either.
"""

from __future__ import annotations

import contextlib
import gc
import io
import multiprocessing as mp
import os
import pickle
import queue
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field, replace
from multiprocessing.process import BaseProcess
from multiprocessing.queues import Queue
from multiprocessing.sharedctypes import Synchronized
from typing import TYPE_CHECKING

from citedesk import errors
from citedesk.core.findings import Applicability
from citedesk.desk.entry import AuditInput, audit_document
from citedesk.desk.lifeline import die_with_parent
from citedesk.desk.registrations import Adopted, Registrations, plugged_in
from citedesk.evidence.judges.registry import resolve
from citedesk.pipeline import AuditOptions, AuditState, StageResult

if TYPE_CHECKING:
    from collections.abc import Callable

    from citedesk.core.document.model import Document
    from citedesk.core.findings import Finding
    from citedesk.core.reports.report import Report

LOAD_AT_ONCE_BYTES = 64 * 1024
"""A message pickled larger than this (a long document's report) is unpickled by Python's own
unpickler, not the C one: the C one holds the GIL for the whole message (a 100,000-word report:
a few hundred milliseconds in which the window cannot run a line of Python), the Python one lets
the window's thread in every few milliseconds, at a few times the cost, on the reader thread."""
ENVIRONMENT_PREFIXES = ("ANTHROPIC_", "CITEDESK_")
"""The environment variables an audit reads (service addresses, Claude's): each request carries
them as the parent has them then, since the child, started warm, was spawned with an older copy."""


@dataclass(frozen=True)
class AuditFailure:
    """Why an audit failed, as the window needs it: a known condition (`known`, with its kind:
    `document`, `store`, `model`, …) is shown as its message; anything else is a bug."""

    kind: str
    message: str
    known: bool
    detail: str = ""
    """The traceback, for a bug report."""
    folder: str = ""
    """For a file outside the allowed folders (kind `outside`): the folder that would allow it."""

    @classmethod
    def of(cls, exc: BaseException) -> AuditFailure:
        if isinstance(exc, errors.CiteDeskError):
            return cls(exc.kind, exc.message, True, folder=str(getattr(exc, "folder", "") or ""))
        return cls(type(exc).__name__, str(exc) or type(exc).__name__, False, traceback.format_exc())


@dataclass(frozen=True)
class AuditRequest:
    """Audit `text` (its document's `path`, None when unsaved) with `options`."""

    generation: int
    text: str
    path: str | None
    options: AuditOptions
    environment: tuple[tuple[str, str], ...] = ()
    """The parent's `ENVIRONMENT_PREFIXES` variables when it asked (`audit_environment`)."""
    registrations: Registrations = field(default_factory=Registrations)
    """The formats, containers, dialects and report formats a module outside CiteDesk registered
    in the parent by then (`desk.registrations`): the child registers them before it audits."""


def audit_environment() -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith(ENVIRONMENT_PREFIXES)))


def _adopt(environment: tuple[tuple[str, str], ...]) -> None:
    """Make this process's audit variables the ones the parent had when it asked."""
    given = dict(environment)
    for name in [k for k in os.environ if k.startswith(ENVIRONMENT_PREFIXES) and k not in given]:
        del os.environ[name]
    os.environ.update(given)


@dataclass(frozen=True)
class Progress:
    """The audit of `generation` reached `done` of `total` in `stage` (total 0: not counted)."""

    generation: int
    stage: str
    done: int
    total: int


@dataclass(frozen=True)
class StageDone:
    """The audit of `generation` finished `stage`: the findings it added (or changed) and those it
    withdrew (`engine.state.StageResult`). The first carries the parsed `document` (what the
    findings' offsets and claim ids are about); the later ones leave it out (None), since it is
    the same and pickling a book's parse again for every stage would cost the window time."""

    generation: int
    stage: str
    seconds: float
    findings: tuple[Finding, ...] = ()
    withdrawn: tuple[Finding, ...] = ()
    document: Document | None = None


@dataclass(frozen=True)
class Finished:
    generation: int
    report: Report


@dataclass(frozen=True)
class Provisional:
    """The fast judge's report of `generation`, while the cascade's `strong_judge` re-reads what
    matters: shown as any report is, then replaced by the `Finished` of the same generation (or
    left as it is after a `Failed` or `Cancelled`)."""

    generation: int
    report: Report
    strong_judge: str


STILL_CHECKING = " (the strong judge is still checking)"
"""What a provisional judged fix's title ends with: why **Fix all** leaves it for now."""


def provisional(report: Report) -> Report:
    """`report` with every fix a judge drives (the fix of a judged finding, or of an offered
    citation) made unsafe and saying why: the strong judge re-reads exactly those claims
    (`engine.judging.to_reread`), and a guess it has not confirmed must not be applied by **Fix
    all**. Structural fixes stay as they are."""

    def held(finding: Finding) -> Finding:
        if (finding.judged_by is None and finding.suggestion is None) or not any(
            fix.safe for fix in finding.fixes
        ):
            return finding
        fixes = tuple(
            replace(fix, title=fix.title + STILL_CHECKING, applicability=Applicability.UNSAFE)
            if fix.safe
            else fix
            for fix in finding.fixes
        )
        return replace(finding, fixes=fixes)

    return replace(
        report, findings=[held(f) for f in report.findings], dismissed=[held(f) for f in report.dismissed]
    )


@dataclass(frozen=True)
class Failed:
    generation: int
    failure: AuditFailure


@dataclass(frozen=True)
class Cancelled:
    """The audit of `generation` stopped (or never started) because it was cancelled."""

    generation: int


AuditMessage = Progress | StageDone | Provisional | Finished | Failed | Cancelled
"""What comes back from the child, in order: any number of `Progress` and `StageDone` (with a
cascade: then a `Provisional` and more `Progress`), then one of `Finished`, `Failed` or `Cancelled`
(the last of its generation)."""


class _SharedCancelState(AuditState):
    """An AuditState whose cancellation is also read from the parent's shared counter, and whose
    progress and stage results go to the parent as messages."""

    def __init__(
        self,
        generation: int,
        cancelled_upto: Synchronized,  # type: ignore[type-arg]
        results: Queue[AuditMessage | bytes],
        newer: Callable[[], bool] | None = None,
    ) -> None:
        """`newer`: whether a newer request is waiting (the cascade's second pass gives it: that
        pass stops for one, and sends no `StageDone`)."""
        super().__init__(
            on_progress=lambda stage, done, total: results.put(Progress(generation, stage, done, total)),
            on_stage=self._stage_done if newer is None else None,
        )
        self._generation = generation
        self._upto = cancelled_upto
        self._results = results
        self._sent_document = False
        self._newer = newer

    def _stage_done(self, result: StageResult) -> None:
        document = None if self._sent_document else result.document
        self._sent_document = self._sent_document or document is not None
        message = StageDone(
            self._generation, result.stage, result.seconds, result.findings, result.withdrawn, document
        )
        # pickled here, on the auditing thread: the queue's feeder thread would pickle it later,
        # while the next stages go on filling the document's caches and the findings' details
        self._results.put(pickle.dumps(message))

    @property
    def cancelled(self) -> bool:
        return (
            super().cancelled
            or self._generation <= self._upto.value
            or (self._newer is not None and self._newer())
        )


def serve(
    requests: Queue[AuditRequest | None],
    results: Queue[AuditMessage | bytes],
    cancelled_upto: Synchronized,  # type: ignore[type-arg]
    parent: int,
    setup: Callable[[], object] | None = None,
) -> None:
    """The child's loop: one audit at a time, until a `None` request (or the parent's death).
    `setup` runs first (a test registers its own judge here: the child is a fresh interpreter)."""
    die_with_parent(parent)
    if setup is not None:
        setup()
    import citedesk.engine.stages  # noqa: F401, PLC0415 - warm: the stages' imports before the first request

    adopted = Adopted()
    while True:
        request = requests.get()
        if request is None:
            return
        generation = request.generation
        if generation <= cancelled_upto.value:
            results.put(Cancelled(generation))
            continue
        _adopt(request.environment)
        adopted.adopt(request.registrations)
        _answer(request, cancelled_upto, results, lambda: not requests.empty())


def _answer(
    request: AuditRequest,
    cancelled_upto: Synchronized,  # type: ignore[type-arg]
    results: Queue[AuditMessage | bytes],
    newer: Callable[[], bool],
) -> None:
    """Audit one request and send its messages; with a cascade, in two passes (module docstring)."""
    generation, options = request.generation, request.options
    document = AuditInput(request.text, request.path)
    state = _SharedCancelState(generation, cancelled_upto, results)
    try:
        if _two_passes(options):
            fast = audit_document(document, replace(options, strong_judge=""), state)
            results.put(pickle.dumps(Provisional(generation, provisional(fast), options.strong_judge)))
            state = _SharedCancelState(generation, cancelled_upto, results, newer)
            state.check()  # an edit while the first pass ran: no second one
        report = audit_document(document, options, state)
    except errors.Cancelled:
        results.put(Cancelled(generation))
    except Exception as exc:  # report every failure; the loop must survive it
        failure = AuditFailure.of(exc)
        if not failure.known:
            print(failure.detail, file=sys.stderr)
        results.put(Failed(generation, failure))
    else:
        results.put(pickle.dumps(Finished(generation, report)))  # see `_loads`


def _two_passes(options: AuditOptions) -> bool:
    """Whether a request's cascade is answered in two passes: only with a strong judge beside a
    fast one that reads on this machine (the engine's cascade re-reads nothing Claude judged, and
    with judging off there is nothing to re-read; those audits are one pass, as on the CLI)."""
    if not options.strong_judge:
        return False

    try:
        fast = resolve(options.judge)
    except errors.CiteDeskError:
        return False  # the audit says what is wrong with the setting
    return not (fast.off or fast.sends_text)


def _loads(payload: bytes) -> AuditMessage:
    """A message the child pickled itself (a `StageDone`, `Provisional` or `Finished`), unpickled so that the
    window's thread is never kept waiting for the GIL (`LOAD_AT_ONCE_BYTES`)."""
    if len(payload) <= LOAD_AT_ONCE_BYTES:
        message: AuditMessage = pickle.loads(payload)
        return message
    # A book's report is a million objects: allocating them sets off the cycle collector again and
    # again, and each full collection walks every object the window holds with the GIL held (60-80
    # ms at 100,000 words). A report has no reference cycles (frozen dataclasses, ids not links),
    # so its objects are moved out of the collector's sight as they arrive (`gc.freeze`); they are
    # still freed the moment the window lets go of them (reference counting).
    collecting = gc.isenabled()
    gc.disable()
    try:
        message = pickle._Unpickler(io.BytesIO(payload)).load()  # pure Python
        gc.freeze()
    finally:
        if collecting:
            gc.enable()
    return message


class AuditProcess:
    """The parent's handle on the child: submit, cancel, read results, close."""

    def __init__(self, setup: Callable[[], object] | None = None) -> None:
        """`setup`: a picklable callable the child runs before it serves (tests: a toy judge)."""
        self._setup = setup
        self._context = mp.get_context("spawn")
        self._process: BaseProcess | None = None
        self._requests: Queue[AuditRequest | None] | None = None
        self._results: Queue[AuditMessage | bytes] | None = None
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
            args=(self._requests, self._results, self._cancelled_upto, os.getpid(), self._setup),
            name="citedesk-audit",
            daemon=True,
        )
        self._process.start()

    def start(self) -> None:
        """Start the child now, if it is not running ("warm": before the first audit needs it)."""
        self._ensure_started()

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.is_alive()

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs (tests and diagnostics)."""
        return self._process.pid if self._process is not None and self._process.is_alive() else None

    def submit(self, generation: int, text: str, path: str | None, options: AuditOptions) -> None:
        self._ensure_started()
        assert self._requests is not None
        self._requests.put(AuditRequest(generation, text, path, options, audit_environment(), plugged_in()))

    def cancel_upto(self, generation: int) -> None:
        if self._cancelled_upto is not None:
            with self._cancelled_upto.get_lock():
                self._cancelled_upto.value = max(self._cancelled_upto.value, generation)

    def next_message(self, timeout: float) -> AuditMessage | None:
        """The next message from the child, or None after `timeout` seconds (or with no child)."""
        results = self._results
        if results is None:
            return None
        try:
            message = results.get(timeout=timeout)
            return _loads(message) if isinstance(message, bytes) else message
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
        for channel in (self._requests, self._results):
            if channel is not None:
                channel.cancel_join_thread()  # nothing is waiting for what was not delivered
                channel.close()
        self._requests = self._results = None
        self._cancelled_upto = None  # a later submit starts a fresh child with nothing cancelled


CHILD_DIED = "the audit process stopped unexpectedly; the next {} restarts it"
"""The failure every unanswered audit gets when the child dies (`AuditChannel`)."""


class AuditChannel:
    """A front end's line to the audit child: the `AuditProcess` and a reader thread that hands
    each of its messages to `deliver` (on the reader thread: the window queues it to the GUI
    thread as a signal, the language server to its event loop). It keeps the generations asked
    and not answered yet; a child that dies answers nothing more, so each of them is delivered as
    `Failed` (kind `process`), and the next request starts a new child."""

    def __init__(
        self,
        deliver: Callable[[AuditMessage], None],
        *,
        restarted_by: str = "audit",
        name: str = "citedesk-audit-reader",
    ) -> None:
        """`restarted_by`: what the writer does that starts a new child (the window's next
        audit, the editor's next edit), for the message of a child that died."""
        self.process = AuditProcess()
        self._deliver = deliver
        self._died = CHILD_DIED.format(restarted_by)
        self._name = name
        self._pending: set[int] = set()
        self._idle = threading.Condition()
        self._stop = threading.Event()
        self._reader: threading.Thread | None = None

    def submit(self, generation: int, text: str, path: str | None, options: AuditOptions) -> None:
        with self._idle:
            self._pending.add(generation)
        self.process.submit(generation, text, path, options)
        self._ensure_reader()

    def warm(self) -> None:
        """Start the child and the reader now, so the first audit finds them running."""
        self.process.start()
        self._ensure_reader()

    def use_process(self, process: AuditProcess) -> None:
        """Audit in `process` from now on (the one before is closed): tests give one whose child
        registers their own judge."""
        self.process.close()
        self.process = process

    def cancel(self, generation: int) -> None:
        self.process.cancel_upto(generation)

    def wait_idle(self, timeout: float) -> bool:
        """Whether every audit asked was answered within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
        return True

    def close(self) -> None:
        self._stop.set()
        self.process.close()
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(5)
        self._reader = None

    def _ensure_reader(self) -> None:
        if self._reader is None or not self._reader.is_alive():
            self._stop.clear()
            self._reader = threading.Thread(target=self._read, name=self._name, daemon=True)
            self._reader.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            message = self.process.next_message(0.2)
            if message is None:
                self._check_child()
                continue
            if last_of_generation(message):
                self._answered(message.generation)
            self._deliver(message)

    def _answered(self, *generations: int) -> None:
        with self._idle:
            self._pending.difference_update(generations)
            self._idle.notify_all()

    def _check_child(self) -> None:
        """A child that died answers nothing more: its audits fail, and the next request restarts it."""
        if self._stop.is_set() or self.process.alive:
            return
        with self._idle:
            lost = sorted(self._pending)
        self._answered(*lost)
        failure = AuditFailure("process", self._died, True)
        for generation in lost:
            self._deliver(Failed(generation, failure))


def last_of_generation(message: AuditMessage) -> bool:
    """Whether nothing more of its generation follows (a `Provisional` is followed by its re-read)."""
    return isinstance(message, Finished | Failed | Cancelled)
