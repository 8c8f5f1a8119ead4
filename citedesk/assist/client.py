"""A small wrapper over the official `anthropic` SDK: JSON answers, usage and cost, clear errors.

The SDK honours ANTHROPIC_BASE_URL (tests point it at a local server); timeouts and retries on
overload (429/5xx/529) are the SDK's own, with our limits.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Protocol

from citedesk.assist.keys import redact, require_key
from citedesk.errors import AssistError

DEFAULT_MODEL = "claude-sonnet-5"
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

        self.sent.append(request)
        try:
            message = self._client.messages.create(
                model=self.model,
                max_tokens=request.max_tokens,
                system=request.system,
                messages=[{"role": "user", "content": request.prompt}],
            )
        except anthropic.APIStatusError as exc:
            raise AssistError(
                redact(f"Claude answered HTTP {exc.status_code}: {exc.message}", self._key)
            ) from None
        except anthropic.APIError as exc:  # connection errors, timeouts
            raise AssistError(redact(f"Claude could not be reached: {exc}", self._key)) from None
        usage = getattr(message, "usage", None)
        if usage is not None:
            self.usage.add(int(usage.input_tokens or 0), int(usage.output_tokens or 0))
        if message.stop_reason == "refusal":
            raise AssistError("Claude declined to answer this request")
        text = "".join(getattr(block, "text", "") for block in message.content)
        return parse_json_answer(text)


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
