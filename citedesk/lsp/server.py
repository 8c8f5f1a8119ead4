"""`citedesk lsp`: the language server's lifecycle, documents and audits (pygls over stdio).

The protocol loop only translates: a `didOpen` or `didChange` asks the audit child for an audit of
the editor's text (an edit cancels the running one, after a short debounce), and each message the
child sends back — a stage's findings, a report — becomes diagnostics: pushed
(`textDocument/publishDiagnostics`) to a client that cannot pull, or kept for
`textDocument/diagnostic` with a `workspace/diagnostic/refresh` when they change. Anything a client
sends that cannot be served (a document never opened, one outside the allowed folders, one too
large, a bad setting) is said in `window/logMessage`; the server goes on. The code actions, hover,
completion and review commands are `citedesk.lsp.features`.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from citedesk import __version__
from citedesk.core.text import MAX_DOCUMENT_BYTES
from citedesk.desk import Desk, DocumentSession
from citedesk.desk.state import Staged
from citedesk.errors import CiteDeskError
from citedesk.lsp import convert
from citedesk.lsp.audits import (
    AuditMessage,
    AuditRunner,
    Cancelled,
    Failed,
    Finished,
    Provisional,
    StageDone,
    last_of_generation,
)
from citedesk.lsp.documents import LANGUAGES, OpenDocument, inside, path_of
from citedesk.lsp.settings import ClientSettings

DEBOUNCE_S = 0.03
"""Edits start at most one audit in this long (the running audit is cancelled at once): the first
edit after a pause starts its audit at once, the later ones of a burst are taken as one, this long
after the audit before. Long enough to take a burst of changes as one, short enough that the
structural findings follow the writer (a trailing-only debounce made every edit wait this long)."""
MAX_DOCUMENT_CHARS = MAX_DOCUMENT_BYTES // 4
"""A document longer than this is not audited (a message says so); its diagnostics are cleared."""


class CiteDeskServer(LanguageServer):
    """The server's state: the client's settings and folders, the open documents, the audit child."""

    def __init__(self) -> None:
        super().__init__("citedesk", __version__)
        self.settings = ClientSettings()
        self.initial = ClientSettings()
        """What `initializationOptions` gave: the layer under each `didChangeConfiguration`."""
        self.roots: list[Path] = []
        self.documents: dict[str, OpenDocument] = {}
        self.by_generation: dict[int, str] = {}
        self.runner: AuditRunner | None = None
        self.pull = False
        """The client pulls diagnostics (`textDocument/diagnostic`); else they are pushed."""
        self.refresh = False
        """The client takes `workspace/diagnostic/refresh`."""
        self.versioned_edits = False
        self.asks_configuration = False
        """The client answers `workspace/configuration` (asked when a settings change says nothing)."""
        self.debounce_s = DEBOUNCE_S

    # messages to the client ---------------------------------------------------------------------------
    def log(self, message: str, kind: types.MessageType = types.MessageType.Error) -> None:
        with contextlib.suppress(Exception):  # a client gone mid-message: nothing to tell
            self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls's own errors (a malformed message, a handler's exception, a notification about a
        document never opened): logged, and the server goes on."""
        self.log(f"citedesk: {type(error).__name__}: {error}")

    # documents ----------------------------------------------------------------------------------------
    def encoding(self) -> str:
        encoding = self.workspace.position_encoding or types.PositionEncodingKind.Utf16
        return encoding.value if isinstance(encoding, types.PositionEncodingKind) else str(encoding)

    def text_of(self, uri: str) -> str:
        return self.workspace.get_text_document(uri).source

    def open(self, uri: str, language: str, version: int | None) -> None:
        document = OpenDocument(uri, language, path_of(uri), version)
        self.documents[uri] = document
        self.prepare(document)
        self.audit_now(document)

    def prepare(self, document: OpenDocument) -> None:
        """The document's desk session and options under the current settings, or why it is refused."""
        document.session, document.options, document.refused = None, None, ""
        if document.language not in LANGUAGES:
            document.refused = f"{document.language} documents are not checked"
            return
        try:
            configuration = self.settings.configuration(document.path)
            allowed = [*self.roots, *configuration.settings.allow_folders]
            if document.path is not None and self.roots and not inside(document.path, allowed):
                document.refused = (
                    f"{document.path} is outside the workspace and the allowed folders: not checked "
                    "(add its folder to `allow_folders`)"
                )
                return
            for notice in configuration.notices:
                self.log(f"citedesk: {notice}", types.MessageType.Warning)
            desk = Desk.from_environment(configuration.audit_options(), notice=self.log)
            text = self.text_of(document.uri)
            folder = document.path.parent if document.path is not None else None
            document.session = DocumentSession(desk, document.path, text, folder=folder)
            document.options = document.session.options()
        except CiteDeskError as exc:
            document.refused = exc.message

    def audit_now(self, document: OpenDocument) -> None:
        document.timer = None
        if document.session is None or document.options is None:
            self.log(f"citedesk: {document.uri}: {document.refused}", types.MessageType.Warning)
            return
        text = self.text_of(document.uri)
        if len(text) > MAX_DOCUMENT_CHARS:
            self.log(f"citedesk: {document.uri} is too large to check ({len(text):,} characters)")
            document.report, document.staged = None, None
            document.show((), text, self.encoding())
            self.publish(document)
            return
        if self.runner is None:
            self.runner = AuditRunner(asyncio.get_running_loop(), self.received)
        if document.generation:
            self.runner.cancel(document.generation)
        path = str(document.path) if document.path is not None else None
        document.generation = self.runner.submit(text, path, document.options)
        document.audited_at = asyncio.get_running_loop().time()
        document.audit_text, document.audit_version = text, document.version
        self.by_generation[document.generation] = document.uri

    def changed(self, uri: str, version: int | None) -> None:
        document = self.documents.get(uri)
        if document is None:
            self.log(f"citedesk: a change to {uri}, which was never opened: ignored")
            return
        document.version = version
        if document.generation and self.runner is not None:
            self.runner.cancel(document.generation)
        if document.timer is not None:
            document.timer.cancel()
            document.timer = None
        loop = asyncio.get_running_loop()
        wait = document.audited_at + self.debounce_s - loop.time()
        if wait <= 0:  # the first edit after a pause: at once
            self.audit_now(document)
        else:  # within a burst: once, when the interval is over
            document.timer = loop.call_later(wait, self.audit_now, document)

    def close(self, uri: str) -> None:
        document = self.documents.pop(uri, None)
        if document is None:
            return
        if document.timer is not None:
            document.timer.cancel()
        if document.generation and self.runner is not None:
            self.runner.cancel(document.generation)
        if not self.pull:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def reconfigure(self, raw: object) -> None:
        """New settings (None: the same ones; the project files are read again): every document
        prepared and audited again under them."""
        if raw is not None:
            self.settings = parse_settings(self, raw).over(self.initial)
        for document in self.documents.values():
            self.prepare(document)
            self.audit_now(document)

    # what the audit child says --------------------------------------------------------------------------
    def received(self, message: AuditMessage) -> None:
        """A message of the audit child, on the event loop: shown if its audit is still the latest."""
        uri = self.by_generation.get(message.generation)
        document = self.documents.get(uri) if uri is not None else None
        if document is None or document.generation != message.generation:
            if last_of_generation(message):
                self.by_generation.pop(message.generation, None)
            return  # superseded, cancelled or closed: never show stale findings
        try:
            self._take(document, message)
        except Exception as exc:  # a message the server cannot show must not stop the others
            self.log(f"citedesk: {type(exc).__name__}: {exc}")

    def _take(self, document: OpenDocument, message: AuditMessage) -> None:
        encoding = self.encoding()
        match message:
            case StageDone():
                staged = document.staged
                first = staged is None or staged.generation != message.generation
                if staged is None or first:
                    staged = Staged(message.generation)
                    document.report = None
                elif not message.findings and not message.withdrawn:
                    document.staged = staged.after(message.stage, ())
                    return  # nothing new to show
                document.staged = staged.after(
                    message.stage, message.findings, message.withdrawn, message.document
                )
                document.show(document.staged.findings, document.audit_text, encoding)
                self.publish(document)
            case Provisional(report=report) | Finished(report=report):
                document.report = report
                document.show(tuple(report.findings), document.audit_text, encoding)
                self.publish(document)
            case Failed(failure=failure):
                self.log(f"citedesk: {document.uri}: the audit failed: {failure.message}")
            case Cancelled() if document.timer is None:  # stopped by another document's edit
                self.audit_now(document)  # (cancellation is "every generation up to N")

    def publish(self, document: OpenDocument) -> None:
        if self.pull:
            if self.refresh:
                self.workspace_diagnostic_refresh(None)
            return
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=document.uri, diagnostics=self.diagnostics(document), version=document.audit_version
            )
        )

    def diagnostics(self, document: OpenDocument) -> list[types.Diagnostic]:
        if document.positions is None:
            return []
        return convert.diagnostics(document.positions, document.shown, document.folder)

    def runner_warm(self) -> None:
        """Start the audit child now, so the first document's audit finds it running."""
        if self.runner is None:
            self.runner = AuditRunner(asyncio.get_running_loop(), self.received)
        self.runner.warm()

    def shutdown_audits(self) -> None:
        for document in self.documents.values():
            if document.timer is not None:
                document.timer.cancel()
        if self.runner is not None:
            self.runner.close()
            self.runner = None


def parse_settings(server: CiteDeskServer, raw: object) -> ClientSettings:
    settings = ClientSettings.parse(raw)
    for problem in settings.problems:
        server.log(f"citedesk: {problem}", types.MessageType.Warning)
    return settings
