"""What the end-to-end tests of `citedesk lsp` share: starting a client, opening a document,
waiting for what the server says, applying its edits as an editor would."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Union

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from citedesk.lsp.positions import PositionMap

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "citedesk", "lsp"])
WAIT_S = 120.0
"""A guard, not a timing: the first audit loads the audit child's stages (a few seconds here)."""
POLL_S = 0.05
EVIDENCE_AND_NINE = (
    (SAMPLES / "evidence.md")
    .read_text(encoding="utf-8")
    .replace("most often from drought.", "most often from drought [9].")
)
"""The evidence sample (a misattributed citation, judged) with a fabricated `[9]` (structural)."""


def initialize_params(
    root: Path, options: Any = None, *, pull: bool = False, edits: bool = True
) -> types.InitializeParams:
    """A client's `initialize`: pull diagnostics (with refresh) or push; versioned edits."""
    text = (
        types.TextDocumentClientCapabilities(diagnostic=types.DiagnosticClientCapabilities())
        if pull
        else None
    )
    workspace = types.WorkspaceClientCapabilities(
        workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=edits),
        configuration=True,
        diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True) if pull else None,
    )
    return types.InitializeParams(
        capabilities=types.ClientCapabilities(text_document=text, workspace=workspace),
        root_uri=root.as_uri(),
        initialization_options=options,
    )


def read_code_actions_right(client: LanguageClient) -> None:
    """Have the client tell a code action that runs a command from a bare command by the type of its
    `command` field (an object, a string), as an editor does: lsprotocol's own rule takes any item
    with a `command` field for a bare `Command`, so a review action would arrive garbled."""
    converter = client.protocol._converter

    def hook(item: Any, _: type) -> types.Command | types.CodeAction:
        kind = types.Command if isinstance(item.get("command"), str) else types.CodeAction
        return converter.structure(item, kind)  # type: ignore[return-value]

    converter.register_structure_hook(types.Command | types.CodeAction, hook)
    converter.register_structure_hook(Union[types.Command, types.CodeAction], hook)  # noqa: UP007


def open_document(client: LanguageClient, path: Path, text: str, language: str = "markdown") -> str:
    """Write `text` to `path` and open it in the client; its URI."""
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, language, 1, text))
    )
    return uri


async def pushed(
    client: LanguageClient, uri: str, wanted: Callable[[Sequence[types.Diagnostic]], bool]
) -> Sequence[types.Diagnostic]:
    """The first diagnostics pushed for `uri` that satisfy `wanted` (a guard of `WAIT_S`)."""

    async def until() -> Sequence[types.Diagnostic]:
        while True:
            shown = client.diagnostics.get(uri)
            if shown is not None and wanted(shown):
                return shown
            await asyncio.sleep(POLL_S)

    return await asyncio.wait_for(until(), WAIT_S)


async def logged(client: LanguageClient, *words: str) -> str:
    """Everything logged so far, once every one of `words` is in it."""

    async def until() -> str:
        while True:
            said = "\n".join(m.message for m in client.log_messages)
            if all(w in said for w in words):
                return said
            await asyncio.sleep(POLL_S)

    return await asyncio.wait_for(until(), WAIT_S)


def codes(diagnostics: Sequence[types.Diagnostic]) -> set[str]:
    return {str(d.code) for d in diagnostics}


def edits_of(
    action: types.CodeAction,
) -> Sequence[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit]:
    """The edits of a code action about one document (as `documentChanges` or `changes`)."""
    edit = action.edit
    assert edit is not None
    if edit.document_changes is not None:
        (change,) = edit.document_changes
        assert isinstance(change, types.TextDocumentEdit)
        return change.edits
    assert edit.changes is not None
    ((_, edits),) = edit.changes.items()
    return edits


def apply(
    text: str, edits: Sequence[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit]
) -> str:
    """`text` with the client's edits applied (the server sends plain text edits only)."""
    positions = PositionMap(text)
    spans = []
    for e in edits:
        assert isinstance(e, types.TextEdit)
        start = positions.offset(e.range.start.line, e.range.start.character)
        spans.append((start, positions.offset(e.range.end.line, e.range.end.character), e.new_text))
    spans.sort(reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def whole_change(uri: str, version: int, text: str) -> types.DidChangeTextDocumentParams:
    return types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(version=version, uri=uri),
        [types.TextDocumentContentChangeWholeDocument(text=text)],
    )
