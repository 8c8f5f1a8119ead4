"""The local LLM server judge (`--judge server:MODEL`) against a fake OpenAI-compatible server on
127.0.0.1, built here: its verdicts follow the server's answers (with and without log-probabilities),
a 5xx is retried once, and a server that is down, slow or talking nonsense leaves the citations not
checked — never a finding. A server on another machine is refused without `--judge-remote`."""

from __future__ import annotations

import json
import math
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from citedesk.cli import main
from citedesk.config import read_file
from citedesk.core.coverage import NotChecked
from citedesk.core.findings import VerdictLabel
from citedesk.errors import UsageError
from citedesk.evidence.judges.base import Pair
from citedesk.evidence.judges.registry import JudgeContext, JudgeKind, find, resolve
from citedesk.evidence.judges.server import SYSTEM, support_from
from citedesk.pipeline import AuditOptions, audit_text
from citedesk.sources.llmserver import Completion, check_server_url

DOCUMENT = """# Trees and books

Street trees lower afternoon temperatures in dense neighbourhoods [1]. Public libraries lend more books in winter [2].

## References

1. City Climate Office. *Street trees and heat*. sources/trees.txt
2. Library Board. *Borrowing through the year*. sources/libraries.txt
"""
TREES = "Street trees lower afternoon temperatures in dense neighbourhoods, a survey of the city found."
LIBRARIES = "Borrowing figures rose during the cold months at every municipal reading room."


def contrary(document: str, claim: str) -> str:
    """The server's reading, against the words: the overlapping source does not support its claim,
    the one that shares no word with its claim does."""
    return "No" if "Street trees" in claim else "Yes"


@dataclass
class Fake:
    """What the fake server does: `answer(document, claim)` is the reply's text; with `logprobs`,
    the first token's alternatives come with it (P(Yes) = `p_yes` where the answer is Yes)."""

    answer: Callable[[str, str], str] = contrary
    logprobs: bool = False
    p_yes: float = 0.9
    fail_first: int = 0
    """Answer HTTP 500 to this many requests first."""
    delay: float = 0.0
    asked: list[dict[str, Any]] = field(default_factory=list)

    def reply(self, request: dict[str, Any]) -> tuple[int, bytes]:
        self.asked.append(request)
        if len(self.asked) <= self.fail_first:
            return 500, b'{"error": "overloaded"}'
        user = request["messages"][-1]["content"]
        document, _, claim = user.partition("\nClaim: ")
        text = self.answer(document.removeprefix("Document: "), claim)
        choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": text}}
        if self.logprobs:
            p = self.p_yes if text == "Yes" else 1 - self.p_yes
            choice["logprobs"] = {
                "content": [
                    {
                        "token": text,
                        "logprob": math.log(p if text == "Yes" else 1 - p),
                        "top_logprobs": [
                            {"token": "Yes", "logprob": math.log(p)},
                            {"token": "No", "logprob": math.log(1 - p)},
                        ],
                    }
                ]
            }
        return 200, json.dumps({"object": "chat.completion", "choices": [choice]}).encode()


@contextmanager
def fake_server(fake: Fake) -> Iterator[str]:
    """A real OpenAI-compatible endpoint on 127.0.0.1; yields its `/v1` URL, stopped after."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if fake.delay:
                time.sleep(fake.delay)
            if self.path != "/v1/chat/completions":
                status, out = 404, b"{}"
            else:
                status, out = fake.reply(json.loads(body))
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)
            except OSError:  # the client gave up waiting
                pass

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def document(tmp_path: Path) -> Path:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "trees.txt").write_text(TREES, encoding="utf-8")
    (tmp_path / "sources" / "libraries.txt").write_text(LIBRARIES, encoding="utf-8")
    target = tmp_path / "doc.md"
    target.write_text(DOCUMENT, encoding="utf-8")
    return target


def audit(document: Path, url: str, **options: Any) -> Any:
    settings = AuditOptions(
        offline=True,
        dense=False,
        judge="server:minicheck",
        judge_settings={"judge_url": url},
        document_dir=document.parent,
        **options,
    )
    return audit_text(document.read_text(encoding="utf-8"), str(document), settings)


def verdicts(report: Any) -> dict[str, Any]:
    return {v.reference: v for claim in report.verdicts.values() for v in claim}


def judged_references(report: Any) -> set[str | None]:
    return {f.reference for f in report.findings if f.kind.value in ("misattributed", "unsupported_part")}


# the verdicts follow the server -------------------------------------------------------------------
@pytest.mark.parametrize("logprobs", [False, True])
def test_an_audits_verdicts_follow_the_servers_answers(document: Path, logprobs: bool) -> None:
    fake = Fake(logprobs=logprobs, p_yes=0.9)
    with fake_server(fake) as url:
        report = audit(document, url)
    by_reference = verdicts(report)
    # the source whose words match its sentence is called unsupported: a finding all the same
    assert by_reference["1"].label is VerdictLabel.NOT_SUPPORTED
    assert "1" in judged_references(report)
    # the one that shares no word with its sentence is called supported: no finding
    assert by_reference["2"].label is VerdictLabel.SUPPORTED
    assert "2" not in judged_references(report)
    assert by_reference["2"].score == pytest.approx(0.9 if logprobs else 1.0)
    assert by_reference["1"].score == pytest.approx(0.1 if logprobs else 0.0)
    assert by_reference["1"].judge == "server:minicheck"
    assert report.coverage.checked == 2
    # MiniCheck's question, with the source's text as the document
    sent = fake.asked[0]
    assert sent["model"] == "minicheck"
    assert sent["logprobs"] is True
    assert sent["messages"][0] == {"role": "system", "content": SYSTEM}
    assert any(TREES in r["messages"][1]["content"] for r in fake.asked)


def test_a_server_error_is_retried_once(document: Path) -> None:
    fake = Fake(fail_first=1)
    with fake_server(fake) as url:
        report = audit(document, url)
    assert verdicts(report)["2"].label is VerdictLabel.SUPPORTED
    assert report.coverage.checked == 2


# no verdict, no finding ---------------------------------------------------------------------------
def unchecked_everywhere(report: Any) -> list[Any]:
    unchecked = [v for v in verdicts(report).values() if v.label is VerdictLabel.UNCHECKED]
    assert len(unchecked) == 2
    assert not judged_references(report)
    assert report.coverage.checked == 0
    assert {u.reason for u in report.coverage.unchecked} == {NotChecked.JUDGE_UNREACHABLE}
    return unchecked


def test_a_server_that_is_down_leaves_the_citations_not_checked(document: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    report = audit(document, f"http://127.0.0.1:{port}/v1")
    unchecked = unchecked_everywhere(report)
    assert "could not be reached" in (unchecked[0].detail or "")
    assert "judge server unreachable" in report.coverage.headline()


def test_a_server_that_keeps_failing_is_asked_twice_then_no_more(document: Path) -> None:
    fake = Fake(fail_first=100)
    with fake_server(fake) as url:
        report = audit(document, url)
    unchecked_everywhere(report)
    assert len(fake.asked) == 2  # one request and its retry: then the outage is known


def test_a_server_too_slow_for_the_audits_budget_leaves_the_citations_not_checked(document: Path) -> None:
    fake = Fake(delay=1.5)
    with fake_server(fake) as url:
        started = time.monotonic()
        report = audit(document, url, time_budget=1.0)
    assert time.monotonic() - started < 30  # the request's timeout is the budget (1 s), not a minute
    assert not judged_references(report)
    assert report.coverage.checked == 0


def test_a_garbage_answer_is_not_a_verdict(document: Path) -> None:
    fake = Fake(answer=lambda document, claim: "Perhaps, it depends.")
    with fake_server(fake) as url:
        report = audit(document, url)
    unchecked = unchecked_everywhere(report)
    assert "unreadable answer" in (unchecked[0].detail or "")


# reading an answer --------------------------------------------------------------------------------
def test_the_score_is_p_yes_from_the_first_tokens_logprobs_else_the_answer() -> None:
    both = ((" Yes", math.log(0.6)), ("No", math.log(0.2)), ("yes", math.log(0.2)))
    assert support_from(Completion("Yes", both)) == pytest.approx(0.8)
    assert support_from(Completion("No", None)) == 0.0
    assert support_from(Completion(" yes.", None)) == 1.0
    # alternatives that name neither fall back on the answer's word
    assert support_from(Completion("No", (("Maybe", -0.1),))) == 0.0
    assert support_from(Completion("I cannot tell", None)) is None


# where the server may be --------------------------------------------------------------------------
def test_a_server_on_another_machine_needs_judge_remote() -> None:
    with pytest.raises(UsageError, match="--judge-remote"):
        check_server_url("http://192.0.2.7:11434/v1", remote=False)
    with pytest.raises(UsageError, match="--judge-remote"):
        check_server_url("http://localhost.example.com/v1", remote=False)
    assert check_server_url("http://localhost:11434/v1/", remote=False) == "http://localhost:11434/v1"
    assert check_server_url("http://[::1]:8080/v1", remote=False) == "http://[::1]:8080/v1"
    assert check_server_url("https://gpu.example.org/v1", remote=True) == "https://gpu.example.org/v1"
    with pytest.raises(UsageError):
        check_server_url("file:///etc/passwd", remote=True)


def test_an_audit_refuses_a_remote_server_and_a_remote_one_is_named_in_the_report(document: Path) -> None:
    with pytest.raises(UsageError, match="--judge-remote"):
        audit(document, "http://192.0.2.7:11434/v1")
    choice = resolve("server:minicheck")
    judge = choice.load(
        JudgeContext(settings={"judge_url": "http://192.0.2.7:11434/v1", "judge_remote": True})
    )
    assert "source text was sent to 192.0.2.7:11434" in judge.policy.note
    local = choice.load(JudgeContext())
    assert local.policy.note == ""


def test_the_server_judge_is_registered_as_a_server_judge_named_with_its_model() -> None:
    spec = find("server")
    assert spec is not None
    assert spec.kind is JudgeKind.SERVER
    assert not spec.sends_text  # local by default: chosen without consent
    assert spec.available is None  # never chosen by `auto`
    with pytest.raises(UsageError, match="server:MODEL"):
        resolve("server").load(JudgeContext())
    assert resolve("server:bespoke-minicheck").load(JudgeContext()).name == "server:bespoke-minicheck"


def test_the_pairs_document_is_the_evidence_and_its_claim_the_sentence() -> None:
    fake = Fake(answer=lambda document, claim: "Yes" if document == "E." and claim == "C." else "No")
    with fake_server(fake) as url:
        judge = resolve("server:m").load(JudgeContext(settings={"judge_url": url}))
        assert [j.support for j in judge.judge([Pair("C.", "E."), Pair("C.", "F.")])] == [1.0, 0.0]


# settings and flags -------------------------------------------------------------------------------
def test_a_project_file_may_name_a_loopback_server_but_not_a_remote_one(tmp_path: Path) -> None:
    project = tmp_path / "citedesk.toml"
    project.write_text('judge_url = "http://127.0.0.1:8080/v1"\n', encoding="utf-8")
    assert read_file(project, "project").values == {"judge_url": "http://127.0.0.1:8080/v1"}
    project.write_text('judge_url = "http://gpu.example.org/v1"\njudge_remote = true\n', encoding="utf-8")
    layer = read_file(project, "project")
    assert layer.values == {}
    assert len(layer.notices) == 2
    assert "judge server on another machine" in layer.notices[0]
    # the writer's own file may allow it
    own = tmp_path / "config.toml"
    own.write_text('judge_url = "http://gpu.example.org/v1"\njudge_remote = true\n', encoding="utf-8")
    assert read_file(own, "user").values == {"judge_url": "http://gpu.example.org/v1", "judge_remote": True}


def test_the_judge_flags_reach_the_server(document: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake = Fake()
    with fake_server(fake) as url:
        args = ["audit", str(document), "--offline", "--no-dense", "--format", "json"]
        main([*args, "--judge", "server:minicheck", "--judge-url", url])
    report = json.loads(capsys.readouterr().out)
    assert report["judge"] == "server:minicheck"
    assert {f["reference"] for f in report["findings"] if f["kind"] == "misattributed"} == {"1"}
    assert fake.asked
    code = main([*args, "--judge", "server:minicheck", "--judge-url", "http://192.0.2.7/v1"])
    assert code == 2  # a usage error: nothing was sent
    assert "--judge-remote" in capsys.readouterr().err
