"""`citedesk lsp` end to end: a real client (pytest-lsp) talks to the server in its own process.

The server is started as writers start it (`python -m citedesk lsp`), audits in its audit child,
and every answer is read off the wire: diagnostics on exact ranges, quick fixes that touch only the
citation, hover with the evidence, completion of keys, and a clean shutdown.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcMethodNotFound
from pytest_lsp import ClientServerConfig, LanguageClient

from citedesk.lsp.positions import PositionMap
from tests.lsp.helpers import apply

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"
WAIT_S = 120.0
"""A guard, not a timing: the first audit loads the audit child's stages (a few seconds here)."""
DRAFT = (
    "# Draft\n\n"
    "Street trees cool the pavement below them by several degrees in summer [1]. "
    "Shade also lowers what households spend on cooling [9].\n\n"
    "## References\n\n"
    "1. Moreau, L. (2021). Tree canopy and afternoon heat. sources/canopy-survey.txt\n"
)
PANDOC = "---\nbibliography: refs.bib\n---\n\nCanopy cover cools streets in the afternoon [@moreau2012].\n"
BIB = "@article{moreau2021,\n  author = {Moreau, Léa and Okafor, Tunde},\n  title = {Tree canopy and afternoon heat},\n  year = {2021}\n}\n"


@pytest_lsp.fixture(  # type: ignore[untyped-decorator]
    config=ClientServerConfig(server_command=[sys.executable, "-m", "citedesk", "lsp"]),
)
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    params = types.InitializeParams(
        capabilities=types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(
                workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True)
            )
        ),
        root_uri=tmp_path.as_uri(),
        initialization_options={"citedesk": {"offline": True, "judge": "heuristic"}},
    )
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


async def _open(client: LanguageClient, path: Path, text: str, language: str = "markdown") -> str:
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, language, 1, text))
    )
    return uri


async def _diagnostics_with(client: LanguageClient, uri: str, code: str | None) -> Sequence[types.Diagnostic]:
    """Wait until the diagnostics of `uri` include `code` (None: until they hold no error)."""
    return await asyncio.wait_for(_until(client, uri, code), WAIT_S)


async def _until(client: LanguageClient, uri: str, code: str | None) -> Sequence[types.Diagnostic]:
    while True:
        shown = client.diagnostics.get(uri)
        if shown is not None:
            codes = {d.code for d in shown}
            if (code in codes) if code is not None else not any(d.severity == 1 for d in shown):
                return shown
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


@pytest.mark.asyncio(loop_scope="function")
async def test_a_fabricated_marker_is_an_error_on_exactly_it_and_its_fix_removes_only_it(
    client: LanguageClient, tmp_path: Path
) -> None:
    uri = await _open(client, tmp_path / "draft.md", DRAFT)
    shown = await _diagnostics_with(client, uri, "fabricated")
    (fabricated,) = [d for d in shown if d.code == "fabricated"]
    start = DRAFT.index("[9]")
    positions = PositionMap(DRAFT)
    assert fabricated.severity == types.DiagnosticSeverity.Error
    assert fabricated.source == "citedesk"
    assert fabricated.code_description is not None
    assert (fabricated.range.start.line, fabricated.range.start.character) == positions.position(start)
    assert (fabricated.range.end.line, fabricated.range.end.character) == positions.position(start + 3)

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            fabricated.range,
            types.CodeActionContext(diagnostics=[fabricated]),
        )
    )
    assert actions is not None
    preferred = [a for a in actions if isinstance(a, types.CodeAction) and a.is_preferred]
    assert len(preferred) == 1
    edit = preferred[0].edit
    assert edit is not None
    assert edit.document_changes is not None
    (change,) = edit.document_changes
    assert isinstance(change, types.TextDocumentEdit)
    fixed = apply(DRAFT, change.edits)
    assert fixed == DRAFT.replace(" [9]", "")  # the marker (and its space), nothing else

    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=2, uri=uri),
            [
                types.TextDocumentContentChangePartial(range=e.range, text=e.new_text)  # type: ignore[union-attr]
                for e in reversed(change.edits)
            ],
        )
    )
    after = await _diagnostics_with(client, uri, None)
    assert not any(d.code == "fabricated" for d in after)


@pytest.mark.asyncio(loop_scope="function")
async def test_a_typoed_pandoc_key_gets_did_you_mean_with_a_fix(
    client: LanguageClient, tmp_path: Path
) -> None:
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    uri = await _open(client, tmp_path / "chapter.md", PANDOC)
    shown = await _diagnostics_with(client, uri, "unknown_key")
    (typo,) = [d for d in shown if d.code == "unknown_key"]
    assert "moreau2021" in typo.message
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), typo.range, types.CodeActionContext([typo]))
    )
    assert actions is not None
    fixes = [a for a in actions if isinstance(a, types.CodeAction) and a.edit is not None]
    assert fixes
    assert "moreau2021" in fixes[0].title
    edit = fixes[0].edit
    assert edit is not None
    assert edit.document_changes is not None
    (change,) = edit.document_changes
    assert isinstance(change, types.TextDocumentEdit)
    assert apply(PANDOC, change.edits) == PANDOC.replace("@moreau2012", "@moreau2021")


@pytest.mark.asyncio(loop_scope="function")
async def test_hover_on_a_misattributed_citation_quotes_the_evidence(
    client: LanguageClient, tmp_path: Path
) -> None:
    text = (SAMPLES / "evidence.md").read_text(encoding="utf-8")
    uri = await _open(client, tmp_path / "evidence.md", text)
    shown = await _diagnostics_with(client, uri, "misattributed")
    (wrong,) = [d for d in shown if d.code == "misattributed"]
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), wrong.range.start)
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert "Misattributed" in hover.contents.value
    assert "\n> " in hover.contents.value  # the evidence, quoted
    assert wrong.related_information  # the evidence sentence in the local source file
    assert wrong.related_information[0].location.uri.endswith(".txt") or wrong.related_information[
        0
    ].location.uri.endswith(".md")


@pytest.mark.asyncio(loop_scope="function")
async def test_completion_offers_keys_by_author_after_an_at(client: LanguageClient, tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    text = "---\nbibliography: refs.bib\n---\n\nCanopy cools streets [@okaf"
    uri = await _open(client, tmp_path / "chapter.md", text)
    await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), WAIT_S)
    result = await client.text_document_completion_async(
        types.CompletionParams(
            types.TextDocumentIdentifier(uri), types.Position(4, len("Canopy cools streets [@okaf"))
        )
    )
    assert isinstance(result, types.CompletionList)
    assert [item.label for item in result.items] == ["moreau2021"]


@pytest.mark.asyncio(loop_scope="function")
async def test_hostile_messages_are_logged_and_the_server_goes_on(
    client: LanguageClient, tmp_path: Path
) -> None:
    never = (tmp_path / "never.md").as_uri()
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=2, uri=never),
            [types.TextDocumentContentChangeWholeDocument(text="x")],
        )
    )
    outside = Path("/tmp/citedesk-outside-the-workspace.md")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(outside.as_uri(), "markdown", 1, DRAFT))
    )
    with pytest.raises(JsonRpcMethodNotFound):  # an unknown method is refused, not a crash
        await client.protocol.send_request_async(  # type: ignore[no-untyped-call]
            "citedesk/noSuchMethod", {}
        )
    while len(client.log_messages) < 2:
        await asyncio.wait_for(client.wait_for_notification(types.WINDOW_LOG_MESSAGE), WAIT_S)
    said = " ".join(m.message for m in client.log_messages)
    assert "never" in said
    assert "outside" in said
    uri = await _open(client, tmp_path / "draft.md", DRAFT)  # and it still audits
    await _diagnostics_with(client, uri, "fabricated")
