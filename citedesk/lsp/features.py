"""What the server answers: the lifecycle, text sync, diagnostics, code actions, hover, completion
and the review commands, each a thin handler over `CiteDeskServer` and the desk.

A quick fix is one of a finding's fixes, planned by the desk (`DocumentSession.plan`: checked, so
its edits touch only the citation); a safe fix is `isPreferred`, an unsafe one is titled "…
(verify first)"; `source.fixAll.citedesk` applies the safe ones together (`plan_most`). "Dismiss
(false alarm)" and "Needs a source" run `citedesk.review`, which records the decision as the window
and `citedesk review` do (`DocumentSession.decide`). Slow work (planning, the store, reading a
bibliography) runs in a worker thread (`asyncio.to_thread`), never on the protocol loop.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

from lsprotocol import types

from citedesk.core.bibliographies.search import Candidate, ranked
from citedesk.core.document.citekeys import is_simple_key
from citedesk.core.findings import Finding, Fix
from citedesk.core.review import Decision
from citedesk.errors import CiteDeskError
from citedesk.lsp import convert
from citedesk.lsp.documents import OpenDocument, path_of
from citedesk.lsp.positions import PositionMap
from citedesk.lsp.server import CiteDeskServer, parse_settings
from citedesk.lsp.wire import REFUSED

FIX_ALL = "source.fixAll.citedesk"
REVIEW = "citedesk.review"
REVIEWS = (("Dismiss (false alarm)", Decision.FALSE_ALARM), ("Needs a source", Decision.NEEDS_SOURCE))
# a key being typed right before the cursor: pandoc's `@` or `[@` (not in a word or an e-mail
# address), or a LaTeX citation command's braces (`\cite{`, `\citep[p.~4]{a, `)
_PANDOC_KEY = re.compile(r"(?<![\w.])-?@(\{?[\w:.#$%&\-+?<>~/]*)$")
_LATEX_KEY = re.compile(r"\\[A-Za-z]*cite[A-Za-z]*\*?(?:\[[^\]\n]*\]){0,2}\{(?:[^{}\n]*,)?\s*([^,{}\s]*)$")
TRIGGERS = ["@", "{", ","]


def build() -> CiteDeskServer:
    server = CiteDeskServer()
    _lifecycle(server)
    _diagnostics(server)
    _actions(server)
    _reading(server)
    return server


def _lifecycle(server: CiteDeskServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        server.settings = server.initial = parse_settings(server, params.initialization_options)
        folders = [f.uri for f in params.workspace_folders or []] or (
            [params.root_uri] if params.root_uri else []
        )
        server.roots = [p for p in (path_of(uri) for uri in folders) if p is not None]
        capabilities = params.capabilities
        text = capabilities.text_document
        server.pull = text is not None and text.diagnostic is not None
        workspace = capabilities.workspace
        server.refresh = bool(workspace and workspace.diagnostics and workspace.diagnostics.refresh_support)
        server.versioned_edits = bool(
            workspace and workspace.workspace_edit and workspace.workspace_edit.document_changes
        )
        server.asks_configuration = bool(workspace and workspace.configuration)

    @server.feature(types.INITIALIZED)
    def initialized(params: types.InitializedParams) -> None:
        server.runner_warm()

    @server.feature(types.SHUTDOWN)
    def shutdown(params: None) -> None:
        server.shutdown_audits()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def configuration(params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if not settings and server.asks_configuration:  # the "pull" model: the client says nothing
            settings = await _asked_configuration(server)
        server.reconfigure(settings)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        server.open(item.uri, item.language_id, item.version)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        server.changed(params.text_document.uri, params.text_document.version)

    @server.feature(REFUSED)
    def refused(params: Any) -> None:
        size, limit = getattr(params, "bytes", "?"), getattr(params, "limit", "?")
        server.log(f"citedesk: a message of {size} bytes was read past: longer than {limit} bytes")

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        server.close(params.text_document.uri)


async def _asked_configuration(server: CiteDeskServer) -> object:
    """The client's `citedesk` section (`workspace/configuration`), or None when it cannot say."""
    item = types.ConfigurationItem(section="citedesk")
    try:
        answer = await server.workspace_configuration_async(types.ConfigurationParams(items=[item]))
    except Exception as exc:  # a client that fails its own request: the settings stay as they are
        server.log(f"citedesk: the client's settings could not be read: {exc}", types.MessageType.Warning)
        return None
    return answer[0] if answer else None


def _diagnostics(server: CiteDeskServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier="citedesk", inter_file_dependencies=False, workspace_diagnostics=False
        ),
    )
    def diagnostic(params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
        document = server.documents.get(params.text_document.uri)
        if document is None:
            server.log(f"citedesk: diagnostics asked for {params.text_document.uri}, which is not open")
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        result_id = f"{document.generation}.{document.result_id}"
        if params.previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        return types.RelatedFullDocumentDiagnosticReport(
            items=server.diagnostics(document), result_id=result_id
        )


def _current(server: CiteDeskServer, uri: str) -> OpenDocument | None:
    """The document, if what is shown of it is about the text the editor has now (else nothing of
    it can be offered: its fixes' offsets are about another text)."""
    document = server.documents.get(uri)
    if document is None or document.session is None or document.shown_text is None:
        return None
    return document if document.shown_text == server.text_of(uri) else None


def _actions(server: CiteDeskServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]),
    )
    async def code_action(params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        document = _current(server, uri)
        if document is None or document.positions is None:
            return None
        only = params.context.only
        if only and not any(k in (types.CodeActionKind.QuickFix, "quickfix") for k in only):
            if any(str(k).startswith(("source.fixAll", "source")) for k in only):
                action = await asyncio.to_thread(_fix_all, server, document)
                return [action] if action is not None else []
            return []
        start = document.positions.offset(params.range.start.line, params.range.start.character)
        end = document.positions.offset(params.range.end.line, params.range.end.character)
        found = [(i, f) for i, f in enumerate(document.shown) if convert.overlaps(f, start, end)]
        return await asyncio.to_thread(_quick_fixes, server, document, found)

    @server.command(REVIEW)
    async def review(*arguments: Any) -> None:
        # pygls 2 passes a command's arguments one by one (a handler of one parameter refuses four)
        await _review(server, list(arguments))


def _quick_fixes(
    server: CiteDeskServer, document: OpenDocument, found: Sequence[tuple[int, Finding]]
) -> list[types.CodeAction]:
    report, session, positions = document.report_for_fixes(), document.session, document.positions
    if report is None or session is None or positions is None:
        return []
    actions: list[types.CodeAction] = []
    for index, finding in found:
        diagnostic = convert.diagnostic(positions, finding, index, document.folder)
        preferred = next((fix for fix in finding.fixes if fix.safe), None)
        for fix in finding.fixes:
            edit = _edit(server, document, [fix])
            if edit is None:
                continue
            actions.append(
                types.CodeAction(
                    title=convert.fix_title(fix),
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    is_preferred=fix is preferred or None,
                    edit=edit,
                )
            )
        if document.report is not None:  # a decision is kept on the finished report's findings
            for title, decision in REVIEWS:
                arguments = [document.uri, document.generation, index, decision.value]
                command = types.Command(title=title, command=REVIEW, arguments=arguments)
                actions.append(
                    types.CodeAction(
                        title=title,
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[diagnostic],
                        command=command,
                    )
                )
    return actions


def _edit(server: CiteDeskServer, document: OpenDocument, fixes: Sequence[Fix]) -> types.WorkspaceEdit | None:
    """The checked plan's edits for `fixes`, or None (the plan refused them: said in the log)."""
    report, session, positions = document.report_for_fixes(), document.session, document.positions
    if report is None or session is None or positions is None:
        return None
    try:
        plan = session.plan(report, fixes)
    except CiteDeskError as exc:
        server.log(
            f"citedesk: {', '.join(f.title for f in fixes)}: not offered: {exc.message}",
            types.MessageType.Info,
        )
        return None
    if not plan.changed:
        return None
    edits = convert.text_edits(positions, plan.edits)
    return convert.workspace_edit(
        document.uri, document.audit_version, edits, versioned=server.versioned_edits
    )


def _fix_all(server: CiteDeskServer, document: OpenDocument) -> types.CodeAction | None:
    report, session, positions = document.report_for_fixes(), document.session, document.positions
    if report is None or session is None or positions is None:
        return None
    fixes = session.fixes_of(document.shown)
    if not fixes:
        return None
    plan, refused = session.plan_most(report, fixes)
    for fix, why in refused:
        server.log(f"citedesk: {fix.title}: left out: {why}", types.MessageType.Info)
    if not plan.changed:
        return None
    edits = convert.text_edits(positions, plan.edits)
    edit = convert.workspace_edit(
        document.uri, document.audit_version, edits, versioned=server.versioned_edits
    )
    return types.CodeAction(title="Fix all safe citation problems", kind=FIX_ALL, edit=edit)


async def _review(server: CiteDeskServer, arguments: Any) -> None:
    """`citedesk.review [uri, generation, index, decision]`: keep the writer's decision on a finding."""
    try:
        uri, generation, index, decision = arguments
        chosen = Decision(decision)
    except (TypeError, ValueError):
        server.log(f"citedesk: {REVIEW} takes [uri, generation, index, decision], not {arguments!r}")
        return
    document = server.documents.get(uri)
    report = document.report if document is not None else None
    if document is None or report is None or document.generation != generation or document.session is None:
        server.log(
            f"citedesk: {REVIEW}: the finding has changed since; audit again", types.MessageType.Warning
        )
        return
    if not isinstance(index, int) or not 0 <= index < len(document.shown):
        server.log(f"citedesk: {REVIEW}: no finding {index!r}")
        return
    finding, session = document.shown[index], document.session
    try:
        review = await asyncio.to_thread(session.keep_decision, report, finding, chosen)
    except CiteDeskError as exc:
        server.log(f"citedesk: the decision could not be kept: {exc.message}")
        return
    report.record_review(finding, review)
    document.show(tuple(report.findings), document.shown_text or "", server.encoding())
    server.publish(document)


def _reading(server: CiteDeskServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(params: types.HoverParams) -> types.Hover | None:
        document = _current(server, params.text_document.uri)
        if document is None or document.positions is None:
            return None
        at = document.positions.offset(params.position.line, params.position.character)
        findings = [f for f in document.shown if convert.overlaps(f, at, at)]
        parsed = document.document
        keys = [k for m in (parsed.markers if parsed else ()) if m.start <= at <= m.end for k in m.keys]
        text = convert.hover_markdown(document.report, findings, keys)
        if not text:
            return None
        return types.Hover(types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

    @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=TRIGGERS))
    async def completion(params: types.CompletionParams) -> types.CompletionList | None:
        return await _complete(server, params)


async def _complete(server: CiteDeskServer, params: types.CompletionParams) -> types.CompletionList | None:
    uri = params.text_document.uri
    document = server.documents.get(uri)
    if document is None or document.session is None:
        return None
    text = server.text_of(uri)
    positions = PositionMap(text, server.encoding())
    at = positions.offset(params.position.line, params.position.character)
    before = text[max(0, text.rfind("\n", 0, at) + 1) : at]
    match = _PANDOC_KEY.search(before) or _LATEX_KEY.search(before)
    if match is None:
        return None
    typed, latex = match.group(1), match.re is _LATEX_KEY
    parsed = document.document
    works = parsed.bibliography if parsed is not None and parsed.bibliography else None
    if works is None:
        session = document.session
        works = await asyncio.to_thread(session.citation_works, text)
    start = positions.position(at - len(typed))
    replace = types.Range(types.Position(*start), params.position)
    items = []
    for rank, candidate in enumerate(ranked((Candidate.of(w) for w in works), typed)):
        key = candidate.key
        written = key if latex or (is_simple_key(key) and "://" not in key) else "{" + key + "}"
        items.append(
            types.CompletionItem(
                label=key,
                kind=types.CompletionItemKind.Reference,
                detail=candidate.shown,
                sort_text=f"{rank:05d}",
                filter_text=typed if typed else key,
                text_edit=types.TextEdit(range=replace, new_text=written),
            )
        )
    return types.CompletionList(is_incomplete=True, items=items)
