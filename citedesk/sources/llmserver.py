"""The HTTP side of the local LLM server judge: one OpenAI-compatible `POST {url}/chat/completions`.

Ollama, llama.cpp's server, LM Studio and vLLM all answer this request, so one client serves them
all. It lives in the sources layer because only this layer may speak HTTP (import-linter); the
judge (`evidence.judges.server`) builds the prompt and reads the answer.

The address is checked before anything is sent: without `remote`, only a loopback address
(`127.0.0.0/8`, `::1`, `localhost`) is accepted, so a settings file or a typo can never send the
document's sentences and its sources' passages off the machine. Proxies from the environment are
ignored (a proxy would carry loopback traffic elsewhere) and redirects are not followed.

Each request has a timeout (never past the audit's deadline) and is retried once on a 5xx answer
or a timeout. A server that cannot be reached — connection refused, or a request that failed
twice — is an outage: said once, and every later request of this client fails at once, so a
server that is down costs one timeout, not one per citation.
"""

from __future__ import annotations

import ipaddress
import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from citedesk.errors import NetworkError, UsageError

DEFAULT_URL = "http://127.0.0.1:11434/v1"
"""Ollama's OpenAI-compatible endpoint."""
REQUEST_TIMEOUT = 60.0
"""Seconds one request may take (a 7B model on a laptop CPU answers one pair in a few seconds)."""
RETRIES = 1
"""Extra tries after a 5xx answer or a timeout."""


class ServerUnreachable(NetworkError):
    """The server could not be reached or failed every try: `repeated` for a request refused
    without being sent because an earlier one already found it so."""

    def __init__(self, message: str, *, repeated: bool = False) -> None:
        super().__init__(message)
        self.repeated = repeated


class ServerAnswerError(NetworkError):
    """The server answered, but not with a chat completion this client can read (one request)."""


def is_loopback(url: str) -> bool:
    """Whether `url`'s host is this machine by its address (`127.x`, `::1`) or `localhost`: no
    name is resolved, so a DNS answer cannot turn a name into a loopback address or away from it."""
    host = (urlsplit(url).hostname or "").strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


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
            if limit <= 0:
                failure = "the audit's time budget ran out"
                break
            try:
                self.requests += 1
                response = client.post(f"{self.url}/chat/completions", json=payload, timeout=limit)
            except httpx.TimeoutException:
                failure = f"no answer after {limit:.0f} s"
                continue
            except httpx.TransportError as exc:  # refused, reset, no route: the server is not there
                failure = f"{self.url} could not be reached ({type(exc).__name__})"
                break
            if response.status_code >= 500:
                failure = f"{self.url} answered HTTP {response.status_code}"
                continue
            if response.status_code >= 400:
                raise ServerAnswerError(f"HTTP {response.status_code}: {_reason(response)}")
            return read_completion(response.content)
        self.unavailable = failure
        raise ServerUnreachable(failure)

    def _limit(self) -> float:
        if self.deadline is None:
            return self.timeout
        return min(self.timeout, self.deadline - time.monotonic())


def _reason(response: httpx.Response) -> str:
    """One short line of what a 4xx answer said (an unknown model, most often)."""
    try:
        data = response.json()
        error = data.get("error") if isinstance(data, dict) else None
        said = error.get("message") if isinstance(error, dict) else error
        text = str(said or response.reason_phrase)
    except (ValueError, UnicodeDecodeError):
        text = response.reason_phrase
    line = " ".join(text.split())
    return line[:160]


def read_completion(body: bytes) -> Completion:
    """The first choice's text and first-token alternatives, or ServerAnswerError."""
    try:
        data: Any = json.loads(body)
        choice = data["choices"][0]
        text = choice["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise ServerAnswerError("not a chat completion") from None
    if not isinstance(text, str):
        raise ServerAnswerError("the answer has no text")
    return Completion(text, _first_token_alternatives(choice.get("logprobs")))


def _first_token_alternatives(logprobs: object) -> tuple[tuple[str, float], ...] | None:
    """`logprobs.content[0].top_logprobs` as (token, log-probability) pairs (the first token itself
    among them), or None when the server sent none or something unreadable."""
    try:
        first = logprobs["content"][0]  # type: ignore[index]
        seen = [(str(first["token"]), float(first["logprob"]))]
        seen += [(str(t["token"]), float(t["logprob"])) for t in first.get("top_logprobs") or []]
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    return tuple(seen)
