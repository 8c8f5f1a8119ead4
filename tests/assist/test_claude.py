"""Claude assistance against a local Messages API server: checked insertions, a checked judge."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from citedesk.assist.client import ClaudeClient, parse_json_answer
from citedesk.assist.insert import MAX_PASSES, check_insertion, prose
from citedesk.assist.judge import judgement_from_answer
from citedesk.cli import main
from citedesk.errors import AssistError
from tests.conftest import SAMPLES
from tests.helpers.messages_api import (
    FakeMessages,
    by_task,
    error,
    last_user_text,
    message,
    messages_api,
    sentence_of,
)

SENTENCE = "Young street trees need regular watering during their first three summers"


@pytest.fixture
def document(tmp_path: Path) -> Path:
    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    shutil.copy(SAMPLES / "evidence.md", tmp_path / "evidence.md")
    return tmp_path / "evidence.md"


@pytest.fixture
def claude_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret")


def _cite(
    body: dict[str, Any], marker: str, change: tuple[str, str] | None = None
) -> tuple[int, dict[str, Any]]:
    """Answer an insertion request by adding `marker` before the sentence's full stop."""
    sentence = sentence_of(body)
    cited = re.sub(r"\.(\s*)$", f" {marker}.\\1", sentence, count=1)
    if change:
        cited = cited.replace(*change)
    return message(json.dumps({"sentence": cited}))


def _audit(document: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, Any]]:
    args = ["audit", str(document), "--offline", "--judge", "heuristic", "--no-dense", "--format", "json"]
    code = main([*args, "--assist", "claude", *extra])
    return code, json.loads(capsys.readouterr().out)


def _uncited(report: dict[str, Any]) -> dict[str, Any]:
    return next(f for f in report["findings"] if f["kind"] == "uncited")


# --- the deterministic checks -------------------------------------------------------------------
def test_insertion_check_accepts_only_new_markers_of_real_references() -> None:
    original = "Trees cool streets [1]. Parks help too.\n\n## References\n\n[1] A.\n[2] B.\n"
    assert check_insertion(original, original.replace("too.", "too [2]."), {"1", "2"}).added == ("2",)
    changed = check_insertion(original, original.replace("help too.", "help a lot [2]."), {"1", "2"})
    assert not changed.accepted
    assert "changed the prose" in changed.reason
    assert (
        "do not exist" in check_insertion(original, original.replace("too.", "too [7]."), {"1", "2"}).reason
    )
    assert "removed" in check_insertion(original, original.replace(" [1]", ""), {"1", "2"}).reason
    # a space or a comma is prose too: byte-identical means byte-identical
    assert not check_insertion(original, original.replace("too.", "too [2]. "), {"1", "2"}).accepted
    assert prose(original.replace("too.", "too [2].")) == prose(original)
    assert prose(original).startswith("Trees cool streets. Parks help too.")


def test_judge_quotes_must_be_verbatim_or_the_verdict_is_downgraded() -> None:
    evidence = "About 20% of newly planted trees die within five years, mostly from drought."
    good = judgement_from_answer(
        {"label": "entailment", "confidence": 0.9, "quote": "20% of newly  planted trees die"}, evidence
    )
    assert good.support == 0.9
    invented = judgement_from_answer(
        {"label": "entailment", "confidence": 0.95, "quote": "half of all trees die"}, evidence
    )
    assert invented.support < 0.5
    assert invented.quote is None
    with pytest.raises(AssistError, match="unknown label"):
        judgement_from_answer({"label": "probably"}, evidence)
    assert parse_json_answer('Sure!\n```json\n{"label": "neutral"}\n```') == {"label": "neutral"}
    with pytest.raises(AssistError, match="not JSON"):
        parse_json_answer("I cannot help with that.")


# --- against the local Messages API --------------------------------------------------------------
def test_claude_citation_is_checked_confirmed_and_offered_as_a_fix(
    document: Path, claude_env: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with messages_api(by_task(insert=lambda body: _cite(body, "[3]"))) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        _code, report = _audit(document, capsys)
    insertions = [r for r in FakeMessages.requests if "REFERENCES:" in last_user_text(r)]
    assert len(insertions) == 1
    sent = insertions[0]
    assert SENTENCE in last_user_text(sent)
    assert "[3] Street tree survival after planting" in last_user_text(sent)
    assert "Cities are warmer" not in json.dumps(sent)  # only the uncited sentence is sent
    seen = FakeMessages.headers_seen[0]
    assert "sk-ant-test-secret" in seen.get("x-api-key", "") + seen.get("authorization", "")
    uncited = _uncited(report)
    assert uncited["fixes"][0]["title"] == "Cite [3] (suggested by Claude, confirmed locally)"
    assert report["assist"]["suggested"] == {uncited["claim"]: ["3"]}
    requests = len(FakeMessages.requests)  # the insertion and one decomposition per long cited sentence
    assert (
        f"{requests} Claude requests, {120 * requests} input + {30 * requests} output"
        in report["assist"]["usage"]
    )
    assert "sk-ant-test-secret" not in json.dumps(report)


def test_an_answer_that_changes_the_prose_is_rejected(
    document: Path, claude_env: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    before = document.read_bytes()
    with messages_api(
        by_task(insert=lambda body: _cite(body, "[3]", ("regular watering", "daily watering")))
    ) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        _code, report = _audit(document, capsys)
    assert any("changed the prose" in reason for reason in report["assist"]["rejected"])
    assert report["assist"]["suggested"] == {}
    assert all("Claude" not in fix["title"] for fix in _uncited(report)["fixes"])
    assert document.read_bytes() == before


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (by_task(insert=lambda body: _cite(body, "[9]")), "do not exist"),
        (lambda body: message("Here are my thoughts, no JSON."), "not JSON"),
        (lambda body: message("", stop_reason="refusal"), "declined"),
        (by_task(insert=lambda body: _cite(body, "[1]")), "not confirmed by the local judge"),
    ],
)
def test_bad_answers_are_reported_not_applied(
    answer: Any,
    reason: str,
    document: Path,
    claude_env: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with messages_api(answer) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        _code, report = _audit(document, capsys)
    assert any(reason in r for r in report["assist"]["rejected"]), report["assist"]["rejected"]
    assert report["assist"]["suggested"] == {}


def _insertions() -> list[dict[str, Any]]:
    return [r for r in FakeMessages.requests if "REFERENCES:" in last_user_text(r)]


def _until_told(first: Any, then: Any) -> Any:
    """Answer with `first` until a request says the previous answer was refused, then `then`."""
    return lambda body: then(body) if "WAS REFUSED" in last_user_text(body) else first(body)


@pytest.mark.parametrize(
    ("insert", "requests", "suggested", "told"),
    [
        # the prose changed: told why, the second answer is right, and the audit ends the passes
        (
            _until_told(
                lambda b: _cite(b, "[3]", ("regular watering", "daily watering")), lambda b: _cite(b, "[3]")
            ),
            2,
            ["3"],
            "changed the prose",
        ),
        # the local judge refused [1]: told so, the model cites [3] instead
        (_until_told(lambda b: _cite(b, "[1]"), lambda b: _cite(b, "[3]")), 2, ["3"], "[1] do not support"),
        # never learns: bounded by MAX_PASSES, nothing applied
        (
            lambda b: _cite(b, "[3]", ("regular watering", "daily watering")),
            MAX_PASSES,
            None,
            "changed the prose",
        ),
        # "no reference supports this" (the sentence unchanged) is asked once
        (lambda b: message(json.dumps({"sentence": sentence_of(b)})), 1, None, None),
    ],
)
def test_refused_answers_are_sent_back_with_the_reason_in_bounded_passes(
    insert: Any,
    requests: int,
    suggested: list[str] | None,
    told: str | None,
    document: Path,
    claude_env: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = document.read_bytes()
    with messages_api(by_task(insert=insert)) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        _code, report = _audit(document, capsys)
    sent = _insertions()
    assert len(sent) == requests
    assert report["assist"]["passes"] == requests
    claim = _uncited(report)["claim"]
    assert report["assist"]["suggested"] == ({claim: suggested} if suggested else {})
    if told:
        assert told in last_user_text(sent[1])
        assert "WAS REFUSED" not in last_user_text(sent[0])
    if suggested:
        assert (
            _uncited(report)["fixes"][0]["title"]
            == f"Cite [{suggested[0]}] (suggested by Claude, confirmed locally)"
        )
    assert document.read_bytes() == before


def test_answers_are_kept_so_a_second_audit_sends_nothing_new(
    document: Path, claude_env: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with messages_api(by_task(insert=lambda body: _cite(body, "[3]"))) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        _code, first = _audit(document, capsys)
        sent = len(FakeMessages.requests)
        _code, second = _audit(document, capsys)
        assert len(FakeMessages.requests) == sent  # nothing new was sent
        document.write_text(
            document.read_text(encoding="utf-8").replace("first three summers", "first two summers"),
            encoding="utf-8",
        )
        _code, _third = _audit(document, capsys)
    assert second["assist"]["suggested"] == first["assist"]["suggested"]
    assert f"{sent} earlier answers reused" in second["assist"]["usage"]
    # only the edited sentence is asked about again
    again = FakeMessages.requests[sent:]
    assert again
    assert all("first two summers" in last_user_text(r) for r in again)


def test_overload_is_retried(claude_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    answers = iter([error(529, "overloaded_error", "Overloaded"), message('{"label": "neutral"}')])
    with messages_api(lambda body: next(answers)) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        client = ClaudeClient("claude-test")
        assert client.ask_json(_request()) == {"label": "neutral"}
    assert len(FakeMessages.requests) == 2
    assert client.usage.requests == 1


def test_persistent_errors_give_a_clear_message_without_the_key(
    claude_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    with messages_api(lambda body: error(401, "authentication_error", "invalid x-api-key")) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        client = ClaudeClient("claude-test", max_retries=0)
        with pytest.raises(AssistError, match="HTTP 401") as caught:
            client.ask_json(_request())
    assert "sk-ant-test-secret" not in str(caught.value)


def test_claude_judge_verdicts_carry_its_name_and_checked_quotes(
    document: Path, claude_env: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def judge(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        evidence = last_user_text(body).split("EVIDENCE: ", 1)[1]
        quote = evidence.split(".")[0]  # a real sentence of the passage: verbatim
        return message(json.dumps({"label": "entailment", "confidence": 0.8, "quote": quote}))

    with messages_api(judge) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        code = main(
            ["audit", str(document), "--offline", "--no-dense", "--judge", "claude", "--format", "json"]
        )
        report = json.loads(capsys.readouterr().out)
    assert code == 1
    verdicts = [v for c in report["claims"] for v in c["verdicts"] if v["label"] != "unchecked"]
    assert verdicts
    assert {v["judge"] for v in verdicts} == {"claude:claude-sonnet-5"}
    assert all(v["label"] == "supported" for v in verdicts)


def test_without_a_key_assistance_exits_2_and_sends_nothing(
    document: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("citedesk.assist.keys.api_key", lambda: None)
    with messages_api(lambda body: message("{}")) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        assert main(["audit", str(document), "--offline", "--assist", "claude"]) == 2
        assert "ANTHROPIC_API_KEY" in capsys.readouterr().err
        assert main(["audit", str(document), "--offline", "--judge", "heuristic", "--no-dense"]) == 1
        assert main(["audit", str(document), "--assist", "claude", "--assist-preview"]) == 0
    preview = capsys.readouterr().out
    assert SENTENCE in preview
    assert "nothing was sent" in preview
    assert FakeMessages.requests == []


def _request() -> Any:
    from citedesk.assist.client import Request

    return Request("Answer with JSON.", "Is this a test?")


def test_pairs_claude_cannot_judge_are_judged_locally_under_the_local_name_and_asked_again(
    document: Path, claude_env: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["audit", str(document), "--offline", "--no-dense", "--judge", "claude", "--format", "json"]
    with messages_api(lambda body: error(400, "invalid_request_error", "the model is unavailable")) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        main(args)
        report = json.loads(capsys.readouterr().out)
        asked = len(FakeMessages.requests)
        main(args)
        capsys.readouterr()
    verdicts = [v for c in report["claims"] for v in c["verdicts"]]
    assert {v["judge"] for v in verdicts} == {"heuristic:words"}  # the stand-in, named as such
    local = json.loads(_local_report(document, capsys))
    assert {f["kind"] for f in report["findings"]} == {f["kind"] for f in local["findings"]}
    assert any("HTTP 400" in r for r in report["assist"]["rejected"])
    assert len(FakeMessages.requests) == 2 * asked  # a stand-in's verdict is not kept as Claude's


def _local_report(document: Path, capsys: pytest.CaptureFixture[str]) -> str:
    main(["audit", str(document), "--offline", "--no-dense", "--judge", "heuristic", "--format", "json"])
    return capsys.readouterr().out


def test_a_file_read_from_outside_the_documents_folder_is_never_sent_to_claude(
    tmp_path: Path, claude_env: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "elsewhere" / "private.txt"
    secret.parent.mkdir()
    secret.write_text(
        "Confidential interview notes. Street trees lowered summer temperatures in the old town by "
        "two degrees, the planner said.",
        encoding="utf-8",
    )
    folder = tmp_path / "doc"
    folder.mkdir()
    (folder / "public.txt").write_text(
        "Parks reduce heat in the surrounding streets by several degrees in summer.", encoding="utf-8"
    )
    document = folder / "draft.md"
    document.write_text(
        "Street trees lowered summer temperatures in the old town [1]. Parks reduce heat nearby [2].\n\n"
        f"## References\n\n[1] My notes. {secret}\n[2] A report. public.txt\n",
        encoding="utf-8",
    )

    def judge(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        evidence = last_user_text(body).split("EVIDENCE: ", 1)[1]
        return message(
            json.dumps({"label": "entailment", "confidence": 0.8, "quote": evidence.split(".")[0]})
        )

    with messages_api(judge) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        args = ["audit", str(document), "--offline", "--no-dense", "--judge", "claude", "--format", "json"]
        main([*args, "--allow-local-path"])
        report = json.loads(capsys.readouterr().out)
    sent = " ".join(last_user_text(r) for r in FakeMessages.requests)
    assert "Parks reduce heat" in sent  # the document's own sources go to the Claude judge
    assert "Confidential" not in sent  # the outside file never does
    assert "planner" not in sent
    judges = {v["reference"]: v["judge"] for c in report["claims"] for v in c["verdicts"]}
    assert judges["1"].startswith("heuristic")  # judged here instead, and shown as such
    assert judges["2"] == "claude:claude-sonnet-5"
