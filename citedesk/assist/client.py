"""A small wrapper over the official `anthropic` SDK: JSON answers, usage and cost, clear errors.

The SDK honours ANTHROPIC_BASE_URL (tests point it at a local server); timeouts and retries on
overload (429/5xx/529) are the SDK's own, with our limits.

An error is said in one short line — the HTTP status and its reason (the API's own message, or
"an HTML error page" for a proxy's), never the body pasted in, never the key. A failure that every
request would meet (the endpoint down or behind a failing gateway, the key refused, no connection)
ends the client's requests for the audit: it is raised once as `ClaudeUnavailable`, and every later
request fails at once with a `repeated` copy that callers do not report again.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, Protocol

from citedesk.assist.keys import redact, require_key
from citedesk.errors import AssistError

DEFAULT_MODEL = "claude-sonnet-5"
MAX_ERROR_CHARS = 200
"""The longest an error from the endpoint is said (its reason cut to fit)."""
_PER_REQUEST = frozenset({400, 409, 413, 422})
"""Statuses about one request (malformed, too large): the next request may well be answered."""
PRICES_PER_MTOK = {"input": 3.0, "output": 15.0}
"""US$ per million tokens used for the running cost estimate (a Sonnet-class model)."""


@dataclass
class Usage:
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    reused: int = 0
    """Answers taken from the store instead of asked again (the same request as an earlier audit)."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, input_tokens: int, output_tokens: int) -> None:
        with self._lock:
            self.requests += 1
            self.input_tokens += input_tokens
            self.output_tokens += output_tokens

    @property
    def cost_usd(self) -> float:
        return (
            self.input_tokens * PRICES_PER_MTOK["input"] + self.output_tokens * PRICES_PER_MTOK["output"]
        ) / 1e6

    def describe(self) -> str:
        reused = f"; {self.reused} earlier answers reused" if self.reused else ""
        return (
            f"{self.requests} Claude requests, {self.input_tokens} input + {self.output_tokens} output "
            f"tokens (about ${self.cost_usd:.4f}){reused}"
        )


@dataclass(frozen=True)
class Request:
    """Exactly what would be sent: shown to the writer before anything leaves the machine."""

    system: str
    prompt: str
    max_tokens: int = 1024

    def preview(self) -> str:
        return f"--- system ---\n{self.system}\n--- user ---\n{self.prompt}\n"

    def key(self, model: str) -> str:
        payload = "\x00".join((model, self.system, self.prompt, str(self.max_tokens)))
        return hashlib.blake2b(payload.encode("utf-8"), digest_size=20).hexdigest()


class ClaudeUnavailable(AssistError):
    """Claude cannot answer any request now (the endpoint failed, refused the key or could not be
    reached): said once; `repeated` for each request refused after it without being sent."""

    def __init__(self, message: str, *, repeated: bool = False) -> None:
        super().__init__(message)
        self.repeated = repeated


def is_repeat(error: AssistError) -> bool:
    """Whether `error` only repeats an outage already reported in this audit (say nothing)."""
    return isinstance(error, ClaudeUnavailable) and error.repeated


class AnswerCache(Protocol):
    """Where answers are kept between audits (the store), so the window's re-audit after each edit
    sends only what changed."""

    def get(self, key: str) -> str | None: ...

    def put(self, key: str, answer: str) -> None: ...


class ClaudeClient:
    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
    ) -> None:
        import anthropic  # noqa: PLC0415 - only when the writer turned assistance on

        self.model = model
        self._key = api_key or require_key()
        self._client = anthropic.Anthropic(api_key=self._key, timeout=timeout, max_retries=max_retries)
        self.usage = Usage()
        self.sent: list[Request] = []
        self.cache: AnswerCache | None = None
        self.unavailable: str | None = None
        """Why Claude cannot answer any request now (set by the first such failure)."""

    def ask_json(self, request: Request) -> Any:
        """The JSON object in Claude's answer to `request` (an earlier usable answer to the very same
        request when the cache has one), or AssistError. Failures are never cached."""
        key = request.key(self.model)
        if self.cache is not None and (kept := self.cache.get(key)) is not None:
            self.usage.reused += 1
            return json.loads(kept)
        answer = self._send(request)
        if self.cache is not None:
            self.cache.put(key, json.dumps(answer))
        return answer

    def _send(self, request: Request) -> Any:
        import anthropic  # noqa: PLC0415

        if self.unavailable is not None:  # said once already: nothing more is sent in this audit
            raise ClaudeUnavailable(self.unavailable, repeated=True)
        self.sent.append(request)
        try:
            message = self._client.messages.create(
                model=self.model,
                max_tokens=request.max_tokens,
                system=request.system,
                messages=[{"role": "user", "content": request.prompt}],
            )
        except anthropic.APIStatusError as exc:
            # the key is taken out before anything is cut short, so no part of it can remain
            body = redact(exc.body, self._key) if isinstance(exc.body, str) else exc.body
            api = redact(exc.api_message, self._key) if isinstance(exc.api_message, str) else None
            said = redact(status_message(exc.status_code, body, api), self._key)
            if exc.status_code in _PER_REQUEST:
                raise AssistError(said) from None
            raise self._outage(said) from None
        except anthropic.APIConnectionError as exc:  # no connection, a timeout
            raise self._outage(
                f"Claude could not be reached: {_one_line(redact(str(exc), self._key))}"
            ) from None
        except anthropic.APIError as exc:  # an answer the SDK could not read
            raise AssistError(
                f"Claude's answer could not be read: {_one_line(redact(str(exc), self._key))}"
            ) from None
        usage = getattr(message, "usage", None)
        if usage is not None:
            self.usage.add(int(usage.input_tokens or 0), int(usage.output_tokens or 0))
        if message.stop_reason == "refusal":
            raise AssistError("Claude declined to answer this request")
        text = "".join(getattr(block, "text", "") for block in message.content)
        return parse_json_answer(text)

    def _outage(self, said: str) -> ClaudeUnavailable:
        self.unavailable = f"{said}; no further requests were sent in this audit"
        return ClaudeUnavailable(self.unavailable)


def status_message(status: int, body: object, api_message: str | None = None) -> str:
    """`Claude answered HTTP 502 (Bad Gateway): an HTML error page, not the API's answer (a proxy or
    gateway in between?)` — the status, its name and one short line of reason; never a page."""
    try:
        name = HTTPStatus(status).phrase
    except ValueError:
        name = {529: "Overloaded"}.get(status, "")
    head = f"Claude answered HTTP {status}" + (f" ({name})" if name else "")
    reason = api_message if isinstance(api_message, str) and api_message.strip() else None
    if reason is None and isinstance(body, str) and body.strip():
        text = body.strip()
        if text.startswith("<") or re.search(r"<(?:html|body|head|title)\b", text[:2000], re.IGNORECASE):
            reason = "an HTML error page, not the API's answer (a proxy or gateway in between?)"
        else:
            reason = text
    if not reason:
        return head
    room = max(40, MAX_ERROR_CHARS - len(head) - 2)
    return f"{head}: {_one_line(reason, room)}"


def _one_line(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    """`text` on one line, cut to `limit` characters (with an ellipsis)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def parse_json_answer(text: str) -> Any:
    """The first JSON object or array in a model's answer (fenced or bare), else AssistError."""
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    candidate = fenced.group(1) if fenced else text
    start = min((i for i in (candidate.find("{"), candidate.find("[")) if i != -1), default=-1)
    if start == -1:
        raise AssistError(f"Claude's answer was not JSON: {text[:120]!r}")
    try:
        value, _end = json.JSONDecoder().raw_decode(candidate[start:])
    except json.JSONDecodeError as exc:
        raise AssistError(f"Claude's answer was malformed JSON ({exc.msg}): {text[:120]!r}") from None
    return value
