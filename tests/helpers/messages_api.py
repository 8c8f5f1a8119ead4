"""A local server that speaks the Anthropic Messages API's request and response shapes.

Each test sets `FakeMessages.respond`: request body (dict) → (HTTP status, JSON body). Every request
is recorded, so tests can prove what was (or was not) sent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar

from citedesk.assist import atoms
from citedesk.assist import insert as insertion
from citedesk.assist import judge as judging
from tests.helpers.server import running

Responder = Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]


def message(text: str, stop_reason: str = "end_turn") -> tuple[int, dict[str, Any]]:
    return 200, {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 120, "output_tokens": 30},
    }


def error(status: int, kind: str, text: str) -> tuple[int, dict[str, Any]]:
    return status, {"type": "error", "error": {"type": kind, "message": text}}


class FakeMessages(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict[str, Any]]] = []
    headers_seen: ClassVar[list[dict[str, str]]] = []
    respond: ClassVar[Responder] = staticmethod(lambda body: message("{}"))

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        FakeMessages.requests.append(body)
        FakeMessages.headers_seen.append({k.lower(): v for k, v in self.headers.items()})
        status, payload = FakeMessages.respond(body)
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if status in (429, 529):
            self.send_header("retry-after-ms", "10")
        self.end_headers()
        self.wfile.write(data)


def last_user_text(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


@contextmanager
def messages_api(respond: Responder) -> Iterator[str]:
    FakeMessages.requests = []
    FakeMessages.headers_seen = []
    FakeMessages.respond = staticmethod(respond)
    with running(FakeMessages) as base:
        yield base


def sentence_of(body: dict[str, Any]) -> str:
    """The sentence a decomposition or insertion request is about (the prompt's SENTENCE line)."""
    text = last_user_text(body)
    after = text[
        text.index("SENTENCE: ") if text.startswith("SENTENCE: ") else text.index("\nSENTENCE: ") + 1 :
    ]
    return after.removeprefix("SENTENCE: ").split("\n\nYOUR PREVIOUS ANSWER", 1)[0]


def one_fact(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    sentence = sentence_of(body)
    return message(json.dumps({"facts": [{"fact": sentence, "span": sentence}]}))


def unchanged(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return message(json.dumps({"sentence": sentence_of(body)}))


def by_task(
    *, facts: Responder = one_fact, insert: Responder = unchanged, judge: Responder | None = None
) -> Responder:
    """One responder for the three kinds of request, told apart by their system prompt as the real
    model would be: atomic facts, citation insertion, judging. Defaults: a sentence is one fact,
    no citation is added; an unexpected judging request fails the test loudly."""

    def respond(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        system = body.get("system")
        if system == atoms.SYSTEM:
            return facts(body)
        if insertion.is_insertion_system(system):
            return insert(body)
        if system == judging.SYSTEM and judge is not None:
            return judge(body)
        return error(400, "invalid_request_error", f"unexpected request: {str(system)[:60]}")

    return respond
