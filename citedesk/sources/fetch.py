"""The one module that speaks HTTP: a guarded httpx client with typed outcomes.

Only http(s) links that parse as httpx will send them (a malformed link is an `invalid_url`
outcome, never an exception); a host that resolves to a loopback, private, link-local or reserved
address is refused unless the user allows it (a document must not be able to probe the writer's
network). The check is made where the connection is opened: each host name is resolved once, every
address is checked, and the socket connects to exactly the checked address, so a name whose DNS
answer changes between a check and the connection (DNS rebinding) never gets a byte sent to a
private address. Redirects are followed by hand, each hop checked, at most `max_redirects`; bodies
are read raw and decoded in bounded steps (`decoding`), cut off at `max_bytes` whatever chain of
compression they carry; a whole fetch has a deadline (and an audit may set an earlier one for all
its fetches), so a slow-loris server cannot hold it, and a body the deadline cut short is a
timeout, never a page; 429 and 503 are retried with backoff honouring Retry-After — never sooner than asked: a server asking for
more than `max_retry_wait` gets no retry, and the result carries its `retry_after` for the caller.

Failures are named for what happened, never lumped together: a timeout says which limit fired (no
data for `read_timeout` seconds, no connection in `connect_timeout`, the whole fetch over
`deadline`, or the audit's budget) and carries its seconds in `limit`; a server that closes the
connection before its answer is complete is a `reset`; an answer that arrived (even one whose body
then failed) keeps its `http_status`, so a caller can tell that the host was reached.
"""

from __future__ import annotations

import contextlib
import email.utils
import socket
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from urllib.parse import urljoin

import httpx

from citedesk import __version__
from citedesk.sources.decoding import (
    ACCEPT_ENCODING,
    BodyTooLarge,
    DamagedBody,
    UnsupportedEncoding,
    content_codings,
    decode_body,
)
from citedesk.sources.guard import (
    InvalidLink,
    _Blocked,
    _GuardedBackend,
    _GuardedTransport,
    _HostNotFound,
    _RefusedAddress,
    check_url,
)

USER_AGENT = f"CiteDesk/{__version__} (citation checker; +https://github.com/citedesk/citedesk)"

ACCEPTED_TYPES = (
    "text/html",
    "application/xhtml+xml",
    "text/plain",
    "text/markdown",
    "text/x-markdown",
    "application/pdf",
    "application/json",
    "application/vnd.citationstyles.csl+json",
    "application/xml",
    "text/xml",
)
PDF_ACCEPT = "application/pdf, */*;q=0.1"
BINARY_TYPES = (
    "application/octet-stream",
    "binary/octet-stream",
    "application/x-pdf",
    "application/download",
)
"""Content types that PDF hosts often send instead of application/pdf; read only when a PDF was asked for."""


class FetchStatus(StrEnum):
    OK = "ok"
    NOT_FOUND = "not_found"
    CLIENT_ERROR = "client_error"
    SERVER_ERROR = "server_error"
    TIMEOUT = "timeout"
    DNS_FAILURE = "dns_failure"
    CONNECTION_ERROR = "connection_error"
    RESET = "reset"
    """The server closed (or reset) the connection before its answer was complete."""
    TOO_LARGE = "too_large"
    TOO_MANY_REDIRECTS = "too_many_redirects"
    UNSUPPORTED_TYPE = "unsupported_type"
    BLOCKED = "blocked"
    INVALID_URL = "invalid_url"
    CANCELLED = "cancelled"

    @property
    def reachable(self) -> bool:
        return self is FetchStatus.OK


@dataclass(frozen=True)
class FetchPolicy:
    connect_timeout: float = 10.0
    read_timeout: float = 20.0
    deadline: float = 60.0
    """Seconds for a whole fetch, redirects and retries included."""
    max_bytes: int = 20 * 1024 * 1024
    max_redirects: int = 5
    max_retries: int = 2
    max_retry_wait: float = 30.0
    allow_private_network: bool = False
    concurrency: int = 6
    per_host: int = 2


@dataclass
class FetchResult:
    url: str
    status: FetchStatus
    final_url: str | None = None
    http_status: int | None = None
    content_type: str | None = None
    body: bytes = b""
    message: str = ""
    redirects: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    retry_after: float | None = None
    """Seconds the server asked to wait (Retry-After on a 429/503 still failing after the retries)."""
    limit: float | None = None
    """For a timeout, the seconds of the limit that fired (read, connect or the fetch's deadline);
    None when the audit's time budget ended it."""

    @property
    def ok(self) -> bool:
        return self.status is FetchStatus.OK


class Fetcher:
    """One shared client; thread-safe; `fetch_many` bounds concurrency overall and per host."""

    def __init__(
        self,
        policy: FetchPolicy | None = None,
        *,
        cancelled: Callable[[], bool] | None = None,
        stop_at: float | None = None,
    ) -> None:
        """`stop_at` (a `time.monotonic()` value) ends every fetch still running then, whatever
        its own deadline: an audit's time budget for all its sources."""
        self.policy = policy or FetchPolicy()
        self._cancelled = cancelled or (lambda: False)
        self.stop_at = stop_at
        self._wake = threading.Event()
        self._client = httpx.Client(
            follow_redirects=False,
            timeout=httpx.Timeout(self.policy.read_timeout, connect=self.policy.connect_timeout),
            headers={"User-Agent": USER_AGENT, "Accept-Encoding": ACCEPT_ENCODING},
            transport=_GuardedTransport(
                _GuardedBackend(allow_private_network=self.policy.allow_private_network),
                httpx.Limits(max_connections=self.policy.concurrency * 2),
            ),
            trust_env=False,
        )
        self._host_locks: dict[str, threading.Semaphore] = {}
        self._lock = threading.Lock()

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def fetch(self, url: str, *, accept: str | None = None) -> FetchResult:
        """Fetch one URL; at most `per_host` fetches to one host run at once, whoever calls.

        Never raises for what a link or a server does: every outcome is a FetchResult."""
        try:
            host = check_url(url).raw_host.decode("ascii")
        except _Blocked as exc:
            return FetchResult(url, FetchStatus.BLOCKED, url, message=str(exc))
        except InvalidLink as exc:
            return FetchResult(url, FetchStatus.INVALID_URL, url, message=f"not a valid web address: {exc}")
        with self._lock:
            gate = self._host_locks.setdefault(host, threading.Semaphore(self.policy.per_host))
        with gate:
            started = time.monotonic()
            result = self._fetch(url, accept, started)
            result.elapsed = time.monotonic() - started
            return result

    def fetch_many(self, urls: Iterable[str], *, accept: str | None = None) -> dict[str, FetchResult]:
        unique = list(dict.fromkeys(urls))
        with ThreadPoolExecutor(
            max_workers=max(1, self.policy.concurrency), thread_name_prefix="fetch"
        ) as pool:
            results = pool.map(lambda u: self.fetch(u, accept=accept), unique)
            return dict(zip(unique, results, strict=True))

    def _deadline(self, started: float) -> float:
        own = started + self.policy.deadline
        return own if self.stop_at is None else min(own, self.stop_at)

    def _fetch(self, url: str, accept: str | None, started: float) -> FetchResult:
        redirects: list[str] = []
        current = url
        attempt = 0
        deadline = self._deadline(started)
        while True:
            if self._cancelled():
                return FetchResult(url, FetchStatus.CANCELLED, message="cancelled")
            if time.monotonic() >= deadline:
                return self._timed_out(FetchResult(url, FetchStatus.TIMEOUT, current), started, "answer")
            try:
                target = check_url(current)
            except _Blocked as exc:
                return FetchResult(url, FetchStatus.BLOCKED, current, message=str(exc), redirects=redirects)
            except InvalidLink as exc:
                return FetchResult(
                    url,
                    FetchStatus.INVALID_URL,
                    current,
                    message=f"it redirected to an address that is not valid: {exc}",
                    redirects=redirects,
                )
            watchdog = _Watchdog(deadline, self._cancelled)
            try:
                outcome = self._one(url, target, accept, started, redirects, watchdog)
            except httpx.HTTPError as exc:
                return self._failure(
                    FetchResult(url, FetchStatus.CONNECTION_ERROR, current), exc, watchdog, started
                )
            finally:
                watchdog.stop()
            if isinstance(outcome, str):  # a redirect target
                redirects.append(outcome)
                if len(redirects) > self.policy.max_redirects or outcome in redirects[:-1] or outcome == url:
                    why = (
                        "a redirect loop"
                        if outcome in redirects[:-1] or outcome == url
                        else "too many redirects"
                    )
                    return FetchResult(
                        url,
                        FetchStatus.TOO_MANY_REDIRECTS,
                        outcome,
                        message=f"the link leads into {why}",
                        redirects=redirects,
                    )
                current = outcome
                continue
            if isinstance(outcome, _Retry) and attempt < self.policy.max_retries:
                asked = outcome.message_retry_after
                if asked > self.policy.max_retry_wait:
                    return outcome.result()  # asked to wait longer than we may: never retry sooner than asked
                wait = asked if asked > 0 else min(2.0**attempt, self.policy.max_retry_wait)
                if time.monotonic() + wait > deadline:
                    return outcome.result()
                attempt += 1
                self._wake.wait(wait)
                continue
            return outcome.result() if isinstance(outcome, _Retry) else outcome

    def _one(
        self,
        original: str,
        target: httpx.URL,
        accept: str | None,
        started: float,
        redirects: list[str],
        watchdog: _Watchdog,
    ) -> FetchResult | _Retry | str:
        deadline = self._deadline(started)
        headers = (
            {"Accept": accept}
            if accept
            else {
                "Accept": "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5"
            }
        )
        url = str(target)
        with self._client.stream(
            "GET", target, headers=headers, extensions={"trace": watchdog.trace}
        ) as response:
            watchdog.watch(response.extensions.get("network_stream"))
            code = response.status_code
            if code in (301, 302, 303, 307, 308):
                location = response.headers.get("location")
                if not location:
                    return FetchResult(
                        original, FetchStatus.CLIENT_ERROR, url, code, message="a redirect with no target"
                    )
                try:
                    return str(urljoin(url, location))
                except ValueError as exc:
                    return FetchResult(
                        original,
                        FetchStatus.INVALID_URL,
                        url,
                        code,
                        message=f"it redirected to an address that is not valid: {exc}",
                    )
            content_type = response.headers.get("content-type", "").split(";")[0].strip().lower() or None
            base = FetchResult(original, FetchStatus.OK, url, code, content_type, redirects=list(redirects))
            if code in (404, 410):
                base.status, base.message = FetchStatus.NOT_FOUND, f"the page does not exist (HTTP {code})"
                return base
            if code in (429, 503):
                base.status, base.message = FetchStatus.SERVER_ERROR, f"server busy (HTTP {code})"
                return _Retry(base, _retry_after(response.headers.get("retry-after")))
            if code >= 500:
                base.status, base.message = FetchStatus.SERVER_ERROR, f"server error (HTTP {code})"
                return base
            if code >= 400:
                base.status, base.message = FetchStatus.CLIENT_ERROR, f"refused by the server (HTTP {code})"
                return base
            declared = response.headers.get("content-length")
            if declared and declared.isdecimal() and int(declared) > self.policy.max_bytes:
                base.status, base.message = (
                    FetchStatus.TOO_LARGE,
                    f"the page is {int(declared) / 1e6:.1f} MB, over the limit",
                )
                return base
            if (
                content_type
                and not content_type.startswith(ACCEPTED_TYPES)
                and not (accept == PDF_ACCEPT and content_type in BINARY_TYPES)
            ):
                base.status, base.message = (
                    FetchStatus.UNSUPPORTED_TYPE,
                    f"CiteDesk cannot read {content_type} content",
                )
                return base
            try:
                codings = content_codings(response.headers.get("content-encoding"))
            except UnsupportedEncoding as exc:
                base.status, base.message = FetchStatus.UNSUPPORTED_TYPE, str(exc)
                return base
            chunks: list[bytes] = []
            try:
                for piece in decode_body(response.iter_raw(), codings, self.policy.max_bytes):
                    if self._cancelled():
                        base.status, base.message = FetchStatus.CANCELLED, "cancelled"
                        return base
                    if time.monotonic() > deadline:
                        return self._timed_out(base, started, "download")
                    chunks.append(piece)
            except BodyTooLarge as exc:
                base.status, base.message = FetchStatus.TOO_LARGE, str(exc)
                return base
            except DamagedBody as exc:
                if not watchdog.fired:
                    base.status, base.message = FetchStatus.CONNECTION_ERROR, str(exc)
                    return base
            except httpx.HTTPError as exc:
                if not watchdog.fired:  # the answer began and then failed: the host was reached
                    return self._failure(base, exc, watchdog, started)
            if watchdog.fired:
                # the watchdog shut the socket, and a body without a length reads that as its end:
                # what arrived is a truncated page, never the page
                if self._cancelled():
                    base.status, base.message = FetchStatus.CANCELLED, "cancelled"
                    return base
                return self._timed_out(base, started, "download")
            base.body = b"".join(chunks)
            return base

    def _timed_out(self, result: FetchResult, started: float, what: str) -> FetchResult:
        """`result` as a timeout of the whole fetch: its own deadline, or the audit's budget when
        that came first (`what`: the server had yet to `answer`, or was sending the page)."""
        result.status = FetchStatus.TIMEOUT
        own = started + self.policy.deadline
        if self.stop_at is not None and self.stop_at < own:
            result.message, result.limit = "timed out: the time budget for sources ran out", None
            return result
        doing = "to answer" if what == "answer" else "to send the page"
        result.limit = self.policy.deadline
        result.message = (
            f"timed out after {self.policy.deadline:g} s: the server took too long {doing} "
            "(the limit for one source)"
        )
        return result

    def _failure(
        self, result: FetchResult, exc: httpx.HTTPError, watchdog: _Watchdog, started: float
    ) -> FetchResult:
        """`result` (the fetch so far: an answer's status and type when one began) as the typed
        outcome of the error it raised."""
        answered = result.http_status is not None
        if watchdog.fired:  # the watchdog shut the connection: the deadline passed or the audit stopped
            if watchdog.cancelled():
                result.status, result.message = FetchStatus.CANCELLED, "cancelled"
                return result
            return self._timed_out(result, started, "download" if answered else "answer")
        if isinstance(exc, httpx.TimeoutException):
            result.status = FetchStatus.TIMEOUT
            result.limit, result.message = self._limit_of(exc, answered)
            return result
        cause = exc.__cause__
        if isinstance(cause, _RefusedAddress):
            result.status, result.message = FetchStatus.BLOCKED, str(cause)
        elif isinstance(cause, _HostNotFound):
            result.status, result.message = FetchStatus.DNS_FAILURE, str(cause)
        elif isinstance(exc, httpx.ConnectError):
            result.status, result.message = FetchStatus.CONNECTION_ERROR, f"could not connect: {exc}"
        elif isinstance(exc, httpx.RemoteProtocolError) and str(exc).startswith("Invalid URL in location"):
            # httpx reads a redirect's target even when it does not follow it
            result.status = FetchStatus.INVALID_URL
            result.message = f"it redirected to an address that is not valid ({exc})"
        elif _closed_early(exc):
            result.status = FetchStatus.RESET
            result.message = (
                "connection reset: the server closed the connection before the whole page arrived"
                if answered
                else "connection reset: the server closed the connection without answering"
            )
        else:
            result.status, result.message = FetchStatus.CONNECTION_ERROR, f"the connection failed: {exc}"
        return result

    def _limit_of(self, exc: httpx.TimeoutException, answered: bool) -> tuple[float, str]:
        """The seconds and the words of the httpx limit that fired."""
        if isinstance(exc, httpx.ConnectTimeout):
            seconds = self.policy.connect_timeout
            return seconds, f"timed out after {seconds:g} s: the server did not accept a connection"
        seconds = self.policy.read_timeout
        if isinstance(exc, httpx.ReadTimeout):
            what = "sent nothing more of the page" if answered else "did not answer"
            return seconds, f"timed out after {seconds:g} s: the server {what} (read timeout)"
        if isinstance(exc, httpx.WriteTimeout):
            return seconds, f"timed out after {seconds:g} s: the server did not take the request"
        return seconds, f"timed out after {seconds:g} s waiting for a free connection"


class _Watchdog:
    """Shuts a fetch's connection down when its deadline passes or the audit is cancelled.

    httpx's timeouts apply to each read, so a server that trickles its headers one byte at a time
    (slow-loris) would otherwise hold a fetch forever. The socket is learnt from httpcore's trace
    events as soon as the connection opens; shutting it down wakes the blocked read.
    """

    POLL_S = 0.2

    def __init__(self, deadline: float, cancelled: Callable[[], bool]) -> None:
        self.deadline = deadline
        self.cancelled = cancelled
        self.fired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fetch-watchdog", daemon=True)
        self._thread.start()

    def trace(self, event: str, info: dict[str, object]) -> None:
        if event == "connection.connect_tcp.complete":
            self.watch(info.get("return_value"))

    def watch(self, stream: object) -> None:
        get_extra_info = getattr(stream, "get_extra_info", None)
        sock = get_extra_info("socket") if get_extra_info is not None else None
        if not isinstance(sock, socket.socket):
            return
        with self._lock:
            self._sockets.append(sock)
            if self.fired:
                self._shut(sock)

    def stop(self) -> None:
        self._done.set()

    def _run(self) -> None:
        while not self._done.wait(self.POLL_S):
            if time.monotonic() >= self.deadline or self.cancelled():
                with self._lock:
                    self.fired = True
                    for sock in self._sockets:
                        self._shut(sock)
                return

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


@dataclass
class _Retry:
    base: FetchResult
    message_retry_after: float

    @property
    def http_status(self) -> int | None:
        return self.base.http_status

    def result(self) -> FetchResult:
        self.base.retry_after = self.message_retry_after or None
        return self.base


def _closed_early(exc: httpx.HTTPError) -> bool:
    """Whether the server closed or reset the connection before its answer was complete (h11's
    words for a peer that hung up, or the socket's own error)."""
    if isinstance(exc, (httpx.ReadError, httpx.WriteError)):
        return True
    closed = ("peer closed connection", "Server disconnected")
    return isinstance(exc, httpx.RemoteProtocolError) and str(exc).startswith(closed)


def _retry_after(value: str | None) -> float:
    if not value:
        return 0.0
    value = value.strip()
    if value.isdecimal():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return 0.0
    return max(0.0, when.timestamp() - time.time())
