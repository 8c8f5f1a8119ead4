"""Hostile judge servers (`--judge server:MODEL`), end to end: an answer of gigabytes, one that drips
a byte a second, impossible log-probabilities, JSON nested 200,000 deep. Each leaves its citations
"not checked (judge server …)" with what happened, within the audit's time budget and bounded
memory, and never ends the audit in an internal error (exit 3).

The judge server is a real HTTP server on 127.0.0.1 (a thread of this test, stopped at its end);
memory is measured in a child process under an address-space limit (RLIMIT_AS), time with generous
margins (the machine is shared and slow).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from citedesk.cli import main
from citedesk.evidence.judges.base import Pair
from citedesk.evidence.judges.server import ServerJudge, support_from
from citedesk.sources.llmserver import ChatClient, Completion
from tests.conftest import REPO

MEMORY_LIMIT_MIB = 1024
"""The child's whole address space (the issue's 3 GB answer needs three times as much)."""
DOCUMENT = """# Trees and books

Street trees lower afternoon temperatures in dense neighbourhoods [1]. Public libraries lend more books in winter [2].

## References

1. City Climate Office. *Street trees and heat*. sources/trees.txt
2. Library Board. *Borrowing through the year*. sources/libraries.txt
"""
TREES = "Street trees lower afternoon temperatures in dense neighbourhoods, a survey of the city found."
LIBRARIES = "Borrowing figures rose during the cold months at every municipal reading room."


class _Judge(BaseHTTPRequestHandler):
    """Answers `POST /v1/chat/completions` as the test's `behave(handler)` says."""

    protocol_version = "HTTP/1.1"
    behave: Callable[[_Judge], None]
    stop: threading.Event
    asked: list[str]

    def log_message(self, *args: object) -> None:
        pass

    def handle(self) -> None:
        with contextlib.suppress(OSError):  # the client gave up on us: the point of most answers
            super().handle()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.asked.append(self.path)
        self.behave(self)
        self.close_connection = True

    def answer(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextlib.contextmanager
def judge_server(behave: Callable[[_Judge], None]) -> Iterator[tuple[str, list[str]]]:
    """A judge server on 127.0.0.1 behaving as `behave` says; yields its `/v1` URL and the paths
    asked. At the end every answer still being sent is stopped and its thread joined."""
    stop = threading.Event()
    asked: list[str] = []
    handler = type("Handler", (_Judge,), {"behave": staticmethod(behave), "stop": stop, "asked": asked})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = False  # server_close joins the handlers' threads
    thread = threading.Thread(target=server.serve_forever, name="judge-server")
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", asked
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        thread.join()


def completion(text: str = "Yes", logprobs: Any = None) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": text}}
    if logprobs is not None:
        choice["logprobs"] = logprobs
    return {"object": "chat.completion", "choices": [choice]}


@pytest.fixture
def document(tmp_path: Path) -> Path:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "trees.txt").write_text(TREES, encoding="utf-8")
    (tmp_path / "sources" / "libraries.txt").write_text(LIBRARIES, encoding="utf-8")
    target = tmp_path / "doc.md"
    target.write_text(DOCUMENT, encoding="utf-8")
    return target


def audit_args(document: Path, url: str, *extra: str) -> list[str]:
    store = document.parent / "store.sqlite3"
    args = ["audit", str(document), "--offline", "--no-dense", "--format", "json", "--store", str(store)]
    return [*args, "--judge", "server:minicheck", "--judge-url", url, *extra]


def run_audit(document: Path, url: str, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    code = main(audit_args(document, url, *extra))
    captured = capsys.readouterr()
    assert code in (0, 1), captured.err
    assert "Traceback" not in captured.err
    report: dict[str, Any] = json.loads(captured.out)
    return report


def judged(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [v for claim in report["claims"] for v in claim["verdicts"]]


def not_checked_by_the_judge_server(report: dict[str, Any]) -> list[str]:
    """Every citation not checked because of the judge server (no finding): the details."""
    verdicts = judged(report)
    assert len(verdicts) == 2
    assert {v["label"] for v in verdicts} == {"unchecked"}
    assert {v["evidence"]["reason"] for v in verdicts} == {"judge server unreachable"}
    assert not [f for f in report["findings"] if f["kind"] in ("misattributed", "unsupported_part")]
    assert report["summary"]["checked"] == 0
    return [str(v["evidence"]["detail"]) for v in verdicts]


# --- 3. an answer of gigabytes ---------------------------------------------------------------------


def _gigabytes(how: str) -> Callable[[_Judge], None]:
    """The start of a chat completion, then 3 GB of its text, with or without a Content-Length,
    sent until the client hangs up (or the test ends); or `gzip`: 2 GB of it compressed to 2 MB."""
    block = b"a" * (1 << 20)
    head = b'{"choices": [{"message": {"role": "assistant", "content": "Yes'
    bomb = b""
    if how == "gzip":  # one compressed megabyte, repeated (a full flush makes each the same)
        packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        first = packer.compress(head) + packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
        again = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
        bomb = first + again * 2047 + packer.flush()  # its checksum is wrong, and never reached

    def behave(handler: _Judge) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        if how == "gzip":
            handler.send_header("Content-Encoding", "gzip")
            handler.send_header("Content-Length", str(len(bomb)))
            handler.end_headers()
            handler.wfile.write(bomb)
            return
        if how == "sized":
            handler.send_header("Content-Length", str(len(head) + 3 * 1024 * len(block)))
        handler.end_headers()
        handler.wfile.write(head)
        for _ in range(3 * 1024):
            if handler.stop.is_set():
                return
            handler.wfile.write(block)

    return behave


@pytest.mark.slow
@pytest.mark.parametrize("how", ["unsized", "sized", "gzip"])
def test_an_answer_of_gigabytes_is_refused_in_bounded_memory(document: Path, how: str) -> None:
    with judge_server(_gigabytes(how)) as (url, asked):
        started = time.monotonic()
        args = audit_args(document, url, "--out", str(document.parent / "report.json"))
        child = subprocess.run(
            [sys.executable, "-m", "tests.reliability.limited_child", str(MEMORY_LIMIT_MIB), *args],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "MALLOC_ARENA_MAX": "2"},  # glibc's per-thread arenas reserve address space
            check=False,
        )
        elapsed = time.monotonic() - started
    assert "Traceback" not in child.stderr, child.stderr[-3000:]
    outcome = json.loads(child.stderr.strip().splitlines()[-1])
    assert outcome["code"] in (0, 1)  # the issue: MemoryError, exit 3
    assert outcome["max_rss_mib"] < 600
    assert elapsed < 120
    assert asked
    report = json.loads((document.parent / "report.json").read_text(encoding="utf-8"))
    details = not_checked_by_the_judge_server(report)
    assert all("larger than the 1 MB limit" in d for d in details), details


# --- 4. an answer that drips ------------------------------------------------------------------------

DRIP_S = 90
"""How long the dripping server goes on: far past the audit's budget (5 s)."""


def _drip(what: str) -> Callable[[_Judge], None]:
    """A byte a second for DRIP_S seconds: of the headers, or of a body whose length is declared."""

    def behave(handler: _Judge) -> None:
        if what == "headers":
            handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
            text = b"X-Padding: " + b"a" * DRIP_S
        else:
            text = json.dumps(completion("Yes")).encode().ljust(DRIP_S)
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(text)))
            handler.end_headers()
        for byte in text:
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
            if handler.stop.wait(1.0):
                return

    return behave


@pytest.mark.parametrize("what", ["headers", "body"])
def test_a_judge_server_that_drips_is_cut_at_the_audits_budget(
    document: Path, capsys: pytest.CaptureFixture[str], what: str
) -> None:
    with judge_server(_drip(what)) as (url, asked):
        started = time.monotonic()
        report = run_audit(document, url, capsys, "--timeout", "5")
        elapsed = time.monotonic() - started
    # the issue: a 30 s budget held for 109 s; here it would be held for the whole drip
    assert elapsed < 50
    assert asked
    verdicts = judged(report)
    assert {v["label"] for v in verdicts} == {"unchecked"}
    assert not [f for f in report["findings"] if f["kind"] in ("misattributed", "unsupported_part")]
    # what the server did is said (a pair the budget ran out before is "time budget ran out")
    for verdict in verdicts:
        if verdict["evidence"]["reason"] == "judge server unreachable":
            detail = str(verdict["evidence"]["detail"])
            assert detail.startswith("no whole answer within "), detail
            assert detail.endswith(" s, then the audit's time budget ran out"), detail


def test_a_dripping_answer_is_cut_at_the_requests_own_limit(document: Path) -> None:
    # without an audit budget: one request's limit is the whole request, not the gap between bytes
    with judge_server(_drip("body")) as (url, asked):
        judge = ServerJudge("minicheck", ChatClient(url, timeout=2.0))
        started = time.monotonic()
        results = judge.judge([Pair("C.", "E."), Pair("D.", "F.")])
        elapsed = time.monotonic() - started
    assert elapsed < 40  # two tries of 2 s each, then the outage is known
    assert len(asked) == 2
    details = [r.unchecked[1] if r.unchecked else None for r in results]
    assert details == ["no whole answer within 2 s"] * 2


# --- 5. impossible log-probabilities ----------------------------------------------------------------


def _answer(body: bytes) -> Callable[[_Judge], None]:
    return lambda handler: handler.answer(body)


def _logprobs(value: str) -> bytes:
    """A Yes answer whose first token's log-probabilities are `value` (JSON text, as sent)."""
    alternatives = f'[{{"token": "Yes", "logprob": {value}}}, {{"token": "No", "logprob": -2.0}}]'
    first = f'{{"token": "Yes", "logprob": {value}, "top_logprobs": {alternatives}}}'
    choice = f'{{"index": 0, "message": {{"role": "assistant", "content": "Yes"}}, "logprobs": {{"content": [{first}]}}}}'
    return f'{{"object": "chat.completion", "choices": [{choice}]}}'.encode()


@pytest.mark.parametrize(
    "value", ["1000", "1e300", "1" + "0" * 400, "1e400", "Infinity", "NaN", '"-0.1"', "true", "0.5"]
)
def test_an_impossible_log_probability_is_not_a_verdict(
    document: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    with judge_server(_answer(_logprobs(value))) as (url, _asked):
        report = run_audit(document, url, capsys)
    details = not_checked_by_the_judge_server(report)
    assert all("impossible log-probability" in d for d in details), details


def test_the_score_never_rests_on_an_impossible_log_probability() -> None:
    # however a completion came to hold one, its word decides: no OverflowError from e^1000
    for impossible in (1000.0, 1e300, math.inf, math.nan):
        alternatives = (("Yes", impossible), ("No", -2.0))
        assert support_from(Completion("No", alternatives)) == 0.0
        assert support_from(Completion("Yes", alternatives)) == 1.0
    assert support_from(Completion("Yes", (("Yes", -math.inf), ("No", -2.0)))) == 0.0
    assert support_from(Completion("Yes", (("Yes", 1e-9), ("No", -math.inf)))) == 1.0


@pytest.mark.parametrize("value", ["-1e300", "-Infinity", "-1" + "0" * 400])
def test_a_log_probability_of_nearly_nothing_is_a_probability_of_nothing(
    document: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    # P(Yes) is nothing against No's e^-2: the citations are read as not supported
    with judge_server(_answer(_logprobs(value))) as (url, _asked):
        report = run_audit(document, url, capsys)
    verdicts = judged(report)
    assert {v["label"] for v in verdicts} == {"not_supported"}, verdicts
    assert {v["score"] for v in verdicts} == {0.0}


# --- 6. an answer nested 200,000 deep ---------------------------------------------------------------


@pytest.mark.parametrize("where", ["answer", "error"])
def test_an_answer_nested_200000_deep_is_refused(
    document: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    deep = "[" * 200_000 + "]" * 200_000
    if where == "answer":
        body = json.dumps(completion("Yes")).replace('"index": 0', f'"index": {deep}').encode()
        behave = _answer(body)
    else:  # a 4xx answer's error, read for its message

        def behave(handler: _Judge) -> None:
            out = f'{{"error": {deep}}}'.encode()
            handler.send_response(404)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(out)))
            handler.end_headers()
            handler.wfile.write(out)

    with judge_server(behave) as (url, _asked):
        report = run_audit(document, url, capsys)
    details = not_checked_by_the_judge_server(report)
    if where == "answer":
        assert all("nested more than 100 levels deep" in d for d in details), details
    else:
        assert all(d.startswith("HTTP 404") for d in details), details
