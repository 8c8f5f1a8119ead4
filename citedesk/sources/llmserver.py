"""The HTTP side of the local LLM server judge: one OpenAI-compatible `POST {url}/chat/completions`.

Ollama, llama.cpp's server, LM Studio and vLLM all answer this request, so one client serves them
all. It lives in the sources layer because only this layer may speak HTTP (import-linter); the
judge (`evidence.judges.server`) builds the prompt and reads the answer.

The address is checked before anything is sent: without `remote`, only a loopback address
(`127.0.0.0/8`, `::1`, `localhost`) is accepted, so a settings file or a typo can never send the
document's sentences and its sources' passages off the machine. Proxies from the environment are
ignored (a proxy would carry loopback traffic elsewhere) and redirects are not followed.

Each request has a timeout for the whole of it (never past the audit's deadline): a watchdog shuts
the connection when it passes, so a server that drips its answer a byte a second cannot hold the
audit (httpx's own timeouts are per read). It is retried once on a 5xx answer or a timeout. What a
server answers is read to at most `MAX_ANSWER_BYTES` (compression undone in bounded steps), refused
if nested deeper than JSON's parser can recurse, and its log-probabilities must be probabilities':
an answer that is none of these is no verdict (ServerAnswerError). A server that cannot be reached — connection refused, or a request that failed
twice — is an outage: said once, and every later request of this client fails at once, so a
server that is down costs one timeout, not one per citation.
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from citedesk.core.judge_settings import is_loopback
from citedesk.core.safeload import MAX_NESTING, json_too_deep
from citedesk.errors import NetworkError, UsageError
from citedesk.sources.decoding import (
    ACCEPT_ENCODING,
    BodyTooLarge,
    DecodingError,
    content_codings,
    decode_body,
)
from citedesk.sources.fetch import _Watchdog

DEFAULT_URL = "http://127.0.0.1:11434/v1"
"""Ollama's OpenAI-compatible endpoint."""
REQUEST_TIMEOUT = 60.0
"""Seconds one request may take (a 7B model on a laptop CPU answers one pair in a few seconds)."""
RETRIES = 1
"""Extra tries after a 5xx answer or a timeout."""
MAX_ANSWER_BYTES = 1024 * 1024
"""The most of one answer read (after its compression is undone): a one-token chat completion with
its five alternatives is under 2 KB; a larger answer is refused, not read on (a hostile or broken
server could send gigabytes)."""
LOGPROB_SLACK = 1e-3
"""A log-probability above 0 by at most this much is rounding (read as 0); above it, impossible."""


class ServerUnreachable(NetworkError):
    """The server could not be reached or failed every try: `repeated` for a request refused
    without being sent because an earlier one already found it so."""

    def __init__(self, message: str, *, repeated: bool = False) -> None:
        super().__init__(message)
        self.repeated = repeated


class ServerAnswerError(NetworkError):
    """The server answered, but not with a chat completion this client can read (one request)."""


def check_server_url(url: str, *, remote: bool) -> str:
    """The URL without its trailing slash, or UsageError: not http(s), or not loopback without
    `remote` (`--judge-remote`)."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"the judge server's URL must be http(s)://HOST[:PORT]/PATH, not {url!r}")
    if not remote and not is_loopback(url):
        raise UsageError(
            f"the judge server {parts.hostname} is not on this machine: sending the document's sentences "
            "and its sources' text there needs --judge-remote (or judge_remote = true in your settings file)"
        )
    return url.strip().rstrip("/")


@dataclass(frozen=True)
class Completion:
    """What the judge reads of a chat completion: the answer's text and, when the server sent them,
    the first token's alternatives with their log-probabilities."""

    text: str
    top_logprobs: tuple[tuple[str, float], ...] | None = None


class ChatClient:
    """`POST {url}/chat/completions`, checked, timed, retried once; an outage is said once."""

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        remote: bool = False,
        timeout: float = REQUEST_TIMEOUT,
        deadline: float | None = None,
    ) -> None:
        self.url = check_server_url(url, remote=remote)
        self.timeout = timeout
        self.deadline = deadline
        """`time.monotonic()` by which the audit must be done: no request is given longer."""
        self.unavailable: str | None = None
        self.requests = 0

    def complete(self, model: str, messages: list[dict[str, str]], *, max_tokens: int = 1) -> Completion:
        """The server's answer to `messages`, asking for the first token's top log-probabilities."""
        if self.unavailable is not None:
            raise ServerUnreachable(self.unavailable, repeated=True)
        payload = {
            "model": model,
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": 0,
            "logprobs": True,
            "top_logprobs": 5,
            "stream": False,
        }
        with httpx.Client(trust_env=False, follow_redirects=False) as client:  # closed with each request
            return self._send(client, payload)

    def _send(self, client: httpx.Client, payload: dict[str, Any]) -> Completion:
        failure = ""
        for _attempt in range(1 + RETRIES):
            limit = self._limit()
            if limit <= 0:  # what the last try met, if any, is the more telling
                failure = (
                    f"{failure}, then the audit's time budget ran out"
                    if failure
                    else "the audit's time budget ran out"
                )
                break
            self.requests += 1
            try:
                outcome = self._post(client, payload, limit)
            except httpx.HTTPError as exc:  # refused, reset, no route: the server is not there
                failure = f"{self.url} could not be reached ({type(exc).__name__})"
                break
            if isinstance(outcome, Completion):
                return outcome
            failure = outcome
        self.unavailable = failure
        raise ServerUnreachable(failure)

    def _post(self, client: httpx.Client, payload: dict[str, Any], limit: float) -> Completion | str:
        """One request, whole within `limit` seconds: its completion, or why it is worth another
        try (a timeout, a 5xx). ServerAnswerError for an answer that is no chat completion."""
        watchdog = _Watchdog(time.monotonic() + limit, _never)  # httpx's timeouts are per read
        timed_out = f"no whole answer within {round(limit, 1):g} s"
        try:
            with client.stream(
                "POST",
                f"{self.url}/chat/completions",
                json=payload,
                timeout=limit,
                headers={"Accept-Encoding": ACCEPT_ENCODING},
                extensions={"trace": watchdog.trace},
            ) as response:
                watchdog.watch(response.extensions.get("network_stream"))
                code = response.status_code
                body = _read_body(response) if code < 500 else b""
        except httpx.TimeoutException:
            return timed_out
        except (httpx.HTTPError, ServerAnswerError):
            if watchdog.fired:  # the watchdog shut the connection: the time was up
                return timed_out
            raise
        finally:
            watchdog.stop()
        if watchdog.fired:  # a body without a length ends where the watchdog cut it
            return timed_out
        if code >= 500:
            return f"{self.url} answered HTTP {code}"
        if code >= 400:
            raise _refused(code, body, response.reason_phrase)
        return read_completion(body)

    def _limit(self) -> float:
        if self.deadline is None:
            return self.timeout
        return min(self.timeout, self.deadline - time.monotonic())


def _never() -> bool:
    return False


def _read_body(response: httpx.Response) -> bytes:
    """The answer's body, undone of its compression, or ServerAnswerError past MAX_ANSWER_BYTES."""
    too_large = f"the answer was larger than the {MAX_ANSWER_BYTES / 2**20:.0f} MB limit for one answer"
    declared = response.headers.get("content-length", "")
    if declared.isdecimal() and int(declared) > MAX_ANSWER_BYTES:
        raise ServerAnswerError(too_large)
    try:
        codings = content_codings(response.headers.get("content-encoding"))
        return b"".join(decode_body(response.iter_raw(), codings, MAX_ANSWER_BYTES))
    except BodyTooLarge:
        raise ServerAnswerError(too_large) from None
    except DecodingError as exc:
        raise ServerAnswerError(f"the answer's compression could not be undone ({exc})") from None


def _refused(code: int, body: bytes, phrase: str) -> ServerAnswerError:
    """The error of a 4xx answer, with one short line of what it said (an unknown model,
    most often)."""
    said: object = None
    with contextlib.suppress(ServerAnswerError):
        data = _json(body)
        error = data.get("error") if isinstance(data, dict) else None
        said = error.get("message") if isinstance(error, dict) else error
    line = " ".join(str(said or phrase).split())
    return ServerAnswerError(f"HTTP {code}: {line[:160]}")


def _json(body: bytes) -> Any:
    """The answer's JSON, or ServerAnswerError: not UTF-8 JSON, or nested more than MAX_NESTING
    levels deep (refused before `json.loads` recurses into it, which would run out of stack)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ServerAnswerError("not a chat completion (not UTF-8 text)") from None
    if json_too_deep(text):
        raise ServerAnswerError(f"not a chat completion (nested more than {MAX_NESTING} levels deep)")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: the scan above should have caught it
        raise ServerAnswerError("not a chat completion") from None


def read_completion(body: bytes) -> Completion:
    """The first choice's text and first-token alternatives, or ServerAnswerError."""
    data = _json(body)
    try:
        choice = data["choices"][0]
        text = choice["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise ServerAnswerError("not a chat completion") from None
    if not isinstance(text, str):
        raise ServerAnswerError("the answer has no text")
    return Completion(text, _first_token_alternatives(choice.get("logprobs")))


def _first_token_alternatives(logprobs: object) -> tuple[tuple[str, float], ...] | None:
    """`logprobs.content[0].top_logprobs` as (token, log-probability) pairs (the first token itself
    among them), or None when the server sent none or in a shape this client does not know;
    ServerAnswerError for a log-probability that is no probability's (`logprob`)."""
    try:
        first = logprobs["content"][0]  # type: ignore[index]
        seen = [(str(first["token"]), logprob(first["logprob"]))]
        seen += [(str(t["token"]), logprob(t["logprob"])) for t in first.get("top_logprobs") or []]
    except (KeyError, IndexError, TypeError, AttributeError):
        return None
    return tuple(seen)


def logprob(value: object) -> float:
    """A log-probability as the server sent it: a JSON number at most 0 (up to LOGPROB_SLACK of
    rounding, read as 0; -inf and a vanishing one such as -1e300 are a probability of nothing), or
    ServerAnswerError — NaN, inf, a positive number (1000 would be e^1000), a string, a boolean."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ServerAnswerError(f"an impossible log-probability ({_shown(value)})")
    try:
        number = float(value)
    except OverflowError:  # an integer of hundreds of digits
        number = -math.inf if value < 0 else math.inf
    if not number <= LOGPROB_SLACK:  # NaN too
        raise ServerAnswerError(f"an impossible log-probability ({_shown(value)})")
    return min(number, 0.0)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 24 else f"{text[:20]}…"
