"""The one module that speaks HTTP: a guarded httpx client with typed outcomes.

Only http(s); a host that resolves to a loopback, private, link-local or reserved address is refused
unless the user allows it (a document must not be able to probe the writer's network); redirects are
followed by hand, each hop checked, at most `max_redirects`; bodies are streamed and cut off at
`max_bytes`; a whole fetch has a deadline, so a slow-loris server cannot hold it; 429 and 503 are
retried with backoff honouring Retry-After — never sooner than asked: a server asking for more than
`max_retry_wait` gets no retry, and the result carries its `retry_after` for the caller.
"""

from __future__ import annotations

import contextlib
import email.utils
import ipaddress
import socket
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from urllib.parse import urljoin, urlsplit

import httpx

from citedesk import __version__

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
    TOO_LARGE = "too_large"
    TOO_MANY_REDIRECTS = "too_many_redirects"
    UNSUPPORTED_TYPE = "unsupported_type"
    BLOCKED = "blocked"
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

    @property
    def ok(self) -> bool:
        return self.status is FetchStatus.OK


class _Blocked(Exception):
    pass


class _DnsFailure(Exception):
    pass


def is_private(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_reserved
        or address.is_multicast
        or address.is_unspecified
    )


def check_url(url: str, *, allow_private_network: bool) -> None:
    """Raise _Blocked for a non-http(s) URL or, unless allowed, one that resolves to a private address.

    The address is checked again on the open connection (`_check_peer`), so a host whose DNS answer
    changes between this lookup and the connection (DNS rebinding) is still refused before any of
    the body is read.
    """
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        raise _Blocked(f"only http and https links are fetched, not {parts.scheme or 'this'}: links")
    host = parts.hostname
    if not host:
        raise _Blocked("the link has no host name")
    if allow_private_network:
        return
    try:
        infos = socket.getaddrinfo(host, parts.port or (443 if parts.scheme == "https" else 80))
    except (socket.gaierror, UnicodeError) as exc:
        raise _DnsFailure(f"the host name {host} could not be found") from exc
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        if is_private(address):
            raise _Blocked(
                f"{host} is on a private or local network ({address}); allow private addresses to fetch it"
            )


class Fetcher:
    """One shared client; thread-safe; `fetch_many` bounds concurrency overall and per host."""

    def __init__(
        self, policy: FetchPolicy | None = None, *, cancelled: Callable[[], bool] | None = None
    ) -> None:
        self.policy = policy or FetchPolicy()
        self._cancelled = cancelled or (lambda: False)
        self._wake = threading.Event()
        self._client = httpx.Client(
            follow_redirects=False,
            timeout=httpx.Timeout(self.policy.read_timeout, connect=self.policy.connect_timeout),
            headers={"User-Agent": USER_AGENT},
            limits=httpx.Limits(max_connections=self.policy.concurrency * 2),
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
        """Fetch one URL; at most `per_host` fetches to one host run at once, whoever calls."""
        host = (urlsplit(url).hostname or "").lower()
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

    def _fetch(self, url: str, accept: str | None, started: float) -> FetchResult:
        redirects: list[str] = []
        current = url
        attempt = 0
        while True:
            if self._cancelled():
                return FetchResult(url, FetchStatus.CANCELLED, message="cancelled")
            try:
                check_url(current, allow_private_network=self.policy.allow_private_network)
            except _Blocked as exc:
                return FetchResult(url, FetchStatus.BLOCKED, current, message=str(exc), redirects=redirects)
            except _DnsFailure as exc:
                return FetchResult(
                    url, FetchStatus.DNS_FAILURE, current, message=str(exc), redirects=redirects
                )
            watchdog = _Watchdog(started + self.policy.deadline, self._cancelled)
            try:
                outcome = self._one(url, current, accept, started, redirects, watchdog)
            except httpx.HTTPError as exc:
                return _failure(url, current, exc, watchdog)
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
                if time.monotonic() - started + wait > self.policy.deadline:
                    return outcome.result()
                attempt += 1
                self._wake.wait(wait)
                continue
            return outcome.result() if isinstance(outcome, _Retry) else outcome

    def _one(
        self,
        original: str,
        url: str,
        accept: str | None,
        started: float,
        redirects: list[str],
        watchdog: _Watchdog,
    ) -> FetchResult | _Retry | str:
        headers = (
            {"Accept": accept}
            if accept
            else {
                "Accept": "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5"
            }
        )
        with self._client.stream(
            "GET", url, headers=headers, extensions={"trace": watchdog.trace}
        ) as response:
            watchdog.watch(response.extensions.get("network_stream"))
            peer = self._check_peer(response)
            if peer is not None:
                return FetchResult(original, FetchStatus.BLOCKED, url, message=peer)
            code = response.status_code
            if code in (301, 302, 303, 307, 308):
                location = response.headers.get("location")
                if not location:
                    return FetchResult(
                        original, FetchStatus.CLIENT_ERROR, url, code, message="a redirect with no target"
                    )
                return str(urljoin(url, location))
            content_type = response.headers.get("content-type", "").split(";")[0].strip().lower() or None
            base = FetchResult(original, FetchStatus.OK, url, code, content_type, redirects=list(redirects))
            if code in (404, 410):
                base.status, base.message = FetchStatus.NOT_FOUND, f"the page does not exist (HTTP {code})"
                return base
            if code in (429, 503):
                base.status, base.message = FetchStatus.SERVER_ERROR, f"the server is busy (HTTP {code})"
                return _Retry(base, _retry_after(response.headers.get("retry-after")))
            if code >= 500:
                base.status, base.message = FetchStatus.SERVER_ERROR, f"the server failed (HTTP {code})"
                return base
            if code >= 400:
                base.status, base.message = (
                    FetchStatus.CLIENT_ERROR,
                    f"the server refused the request (HTTP {code})",
                )
                return base
            declared = response.headers.get("content-length")
            if declared and declared.isdigit() and int(declared) > self.policy.max_bytes:
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
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > self.policy.max_bytes:
                    base.status, base.message = (
                        FetchStatus.TOO_LARGE,
                        "the page is larger than the size limit",
                    )
                    return base
                if time.monotonic() - started > self.policy.deadline or self._cancelled():
                    base.status = FetchStatus.CANCELLED if self._cancelled() else FetchStatus.TIMEOUT
                    base.message = "cancelled" if self._cancelled() else "the page took too long to download"
                    return base
                chunks.append(chunk)
            base.body = b"".join(chunks)
            return base

    def _check_peer(self, response: httpx.Response) -> str | None:
        """Why the address actually connected to is refused, or None (see `check_url`)."""
        if self.policy.allow_private_network:
            return None
        stream = response.extensions.get("network_stream")
        peer = stream.get_extra_info("server_addr") if stream is not None else None
        if not peer:
            return None
        try:
            address = ipaddress.ip_address(peer[0])
        except ValueError:
            return None
        if is_private(address):
            host = response.request.url.host
            return f"{host} led to a private or local network address ({address}); it was not read"
        return None


def _failure(url: str, current: str, exc: httpx.HTTPError, watchdog: _Watchdog) -> FetchResult:
    """The typed outcome of a fetch that raised."""
    if watchdog.fired:  # the watchdog shut the connection: the deadline passed or the audit stopped
        if watchdog.cancelled():
            return FetchResult(url, FetchStatus.CANCELLED, current, message="cancelled")
        return FetchResult(url, FetchStatus.TIMEOUT, current, message="the server took too long to answer")
    if isinstance(exc, httpx.TimeoutException):
        return FetchResult(url, FetchStatus.TIMEOUT, current, message="the server took too long to answer")
    if isinstance(exc, httpx.ConnectError):
        if "Name or service not known" in str(exc) or "getaddrinfo" in str(exc):
            return FetchResult(
                url, FetchStatus.DNS_FAILURE, current, message=f"the host could not be found: {exc}"
            )
        return FetchResult(url, FetchStatus.CONNECTION_ERROR, current, message=f"could not connect: {exc}")
    return FetchResult(url, FetchStatus.CONNECTION_ERROR, current, message=f"the connection failed: {exc}")


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


def _retry_after(value: str | None) -> float:
    if not value:
        return 0.0
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return 0.0
    return max(0.0, when.timestamp() - time.time())
