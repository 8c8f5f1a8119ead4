"""`citedesk lsp` end to end, the parts a client negotiates: pull diagnostics with refresh, the
settings (`initializationOptions`, `workspace/didChangeConfiguration`) over the project's
`citedesk.toml`, fix-all of the safe fixes, and the review commands the CLI then reads."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.helpers import (
    EVIDENCE_AND_NINE,
    POLL_S,
    SAMPLES,
    SERVER,
    WAIT_S,
    apply,
    codes,
    edits_of,
    initialize_params,
    logged,
    open_document,
    pushed,
    read_code_actions_right,
)

CLI_TIMEOUT_S = 300


@pytest_lsp.fixture(config=SERVER)  # type: ignore[untyped-decorator]
async def puller(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    """A client that pulls diagnostics and takes `workspace/diagnostic/refresh`."""
    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    options = {"citedesk": {"offline": True, "judge": "heuristic"}}
    read_code_actions_right(lsp_client)
    await lsp_client.initialize_session(initialize_params(tmp_path, options, pull=True))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)  # type: ignore[untyped-decorator]
async def pusher(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    """A client without pull; offline, its judge left to the project's `citedesk.toml`."""
    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    (tmp_path / "citedesk.toml").write_text('judge = "none"\n', encoding="utf-8")
    await lsp_client.initialize_session(initialize_params(tmp_path, {"offline": True}))
    yield
    await lsp_client.shutdown_session()


async def _pull(
    client: LanguageClient, uri: str, previous: str | None = None
) -> types.DocumentDiagnosticReport:
    return await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri), previous_result_id=previous)
    )


@pytest.mark.asyncio(loop_scope="function")
async def test_a_pulling_client_is_told_to_refresh_as_the_structural_then_the_judged_findings_land(
    puller: LanguageClient, tmp_path: Path
) -> None:
    uri = open_document(puller, tmp_path / "evidence.md", EVIDENCE_AND_NINE)

    async def until_judged() -> types.RelatedFullDocumentDiagnosticReport:
        while True:
            seen = puller.diagnostic_refresh_count
            report = await _pull(puller, uri)
            assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
            if "misattributed" in codes(report.items):
                return report
            while puller.diagnostic_refresh_count == seen:  # nothing new until the server says so
                await asyncio.sleep(POLL_S)

    report = await asyncio.wait_for(until_judged(), WAIT_S)
    assert {"fabricated", "misattributed"} <= codes(report.items)
    assert puller.diagnostic_refresh_count >= 2  # the structural stage's findings, then the judge's
    assert uri not in puller.diagnostics  # nothing pushed to a client that pulls
    assert report.result_id is not None
    again = await _pull(puller, uri, report.result_id)
    assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport)
    assert again.result_id == report.result_id


def _cli_kinds(path: Path, *flags: str) -> set[str]:
    """The kinds `citedesk audit` reports for `path`, its project file found as the editor's is."""
    done = subprocess.run(
        [sys.executable, "-m", "citedesk", "audit", str(path), "--format", "json", *flags],
        capture_output=True,
        text=True,
        cwd=path.parent,
        timeout=CLI_TIMEOUT_S,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return {f["kind"] for f in json.loads(done.stdout)["findings"]}


@pytest.mark.asyncio(loop_scope="function")
async def test_the_project_file_applies_as_on_the_cli_and_a_changed_setting_changes_the_next_diagnostics(
    pusher: LanguageClient, tmp_path: Path
) -> None:
    path = tmp_path / "evidence.md"
    uri = open_document(pusher, path, EVIDENCE_AND_NINE)
    cli = _cli_kinds(path, "--offline")  # the project file's `judge = "none"`: nothing judged
    assert "fabricated" in cli
    assert "misattributed" not in cli
    await pushed(pusher, uri, lambda shown: codes(shown) == cli)

    pusher.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"citedesk": {"judge": "heuristic"}})
    )
    shown = await pushed(pusher, uri, lambda shown: "misattributed" in codes(shown))
    assert codes(shown) == _cli_kinds(path, "--offline", "--judge", "heuristic")

    # a client of the "pull" model says nothing in the notification: the server asks for its section
    pusher.set_configuration({"judge": "none"}, section="citedesk")
    pusher.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await pushed(pusher, uri, lambda shown: codes(shown) == cli)

    pusher.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"citedesk": {"judge": 7}})  # a bad value
    )
    said = await logged(pusher, "judge")
    assert "left out" in said


async def _actions(
    client: LanguageClient, uri: str, diagnostic: types.Diagnostic | None, only: list[str] | None = None
) -> list[types.CodeAction]:
    where = (
        diagnostic.range
        if diagnostic is not None
        else types.Range(types.Position(0, 0), types.Position(0, 0))
    )
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            where,
            types.CodeActionContext(diagnostics=[diagnostic] if diagnostic else [], only=only),
        )
    )
    return [a for a in found or [] if isinstance(a, types.CodeAction)]


@pytest.mark.asyncio(loop_scope="function")
async def test_fix_all_applies_the_safe_fixes_only_and_an_unsafe_one_says_verify_first(
    puller: LanguageClient, tmp_path: Path
) -> None:
    uri = open_document(puller, tmp_path / "evidence.md", EVIDENCE_AND_NINE)
    wrong = await _pulled(puller, uri, "misattributed")
    (fix,) = [a for a in await _actions(puller, uri, wrong) if a.edit is not None]
    assert fix.title == "Cite [2] instead of [3] (verify first)"
    assert not fix.is_preferred
    swapped = EVIDENCE_AND_NINE.replace("canopy [3]", "canopy [2]")
    unused = swapped[swapped.index("3. Municipal") :]  # [3], cited nowhere now, leaves the list
    assert apply(EVIDENCE_AND_NINE, edits_of(fix)) == swapped.replace(unused, "")

    (fix_all,) = await _actions(puller, uri, None, ["source.fixAll.citedesk"])
    assert fix_all.kind == "source.fixAll.citedesk"
    fixed = apply(EVIDENCE_AND_NINE, edits_of(fix_all))
    assert fixed == EVIDENCE_AND_NINE.replace(" [9]", "")  # the safe removal; not the judge's swap


async def _pulled(client: LanguageClient, uri: str, code: str) -> types.Diagnostic:
    async def until() -> types.Diagnostic:
        while True:
            report = await _pull(client, uri)
            assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
            found = [d for d in report.items if d.code == code]
            if found:
                return found[0]
            await asyncio.sleep(POLL_S)

    return await asyncio.wait_for(until(), WAIT_S)


@pytest.mark.asyncio(loop_scope="function")
async def test_dismiss_and_needs_a_source_are_kept_where_the_cli_reads_them(
    puller: LanguageClient, tmp_path: Path
) -> None:
    path = tmp_path / "evidence.md"
    uri = open_document(puller, path, EVIDENCE_AND_NINE)
    wrong = await _pulled(puller, uri, "misattributed")

    async def review_action(diagnostic: types.Diagnostic, title: str) -> types.CodeAction:
        while True:  # offered once the report is finished
            found = [a for a in await _actions(puller, uri, diagnostic) if a.title == title]
            if found:
                return found[0]
            await asyncio.sleep(POLL_S)

    dismiss = await asyncio.wait_for(review_action(wrong, "Dismiss (false alarm)"), WAIT_S)
    assert dismiss.command is not None
    await puller.workspace_execute_command_async(
        types.ExecuteCommandParams(dismiss.command.command, dismiss.command.arguments)
    )
    fabricated = await _pulled(puller, uri, "fabricated")
    needs = await review_action(fabricated, "Needs a source")
    assert needs.command is not None
    await puller.workspace_execute_command_async(
        types.ExecuteCommandParams(needs.command.command, needs.command.arguments)
    )
    report = await _pull(puller, uri)
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert "misattributed" not in codes(report.items)  # a false alarm is hidden, as in the window

    listed = subprocess.run(
        [sys.executable, "-m", "citedesk", "review", str(path), "--offline", "--judge", "heuristic"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=CLI_TIMEOUT_S,
        check=True,
    ).stdout
    lines = {line.split()[2]: line for line in listed.splitlines() if line[:4].strip().rstrip(".").isdigit()}
    assert "[False alarm]" in lines["misattributed"]
    assert "[Needs a source]" in lines["fabricated"]
