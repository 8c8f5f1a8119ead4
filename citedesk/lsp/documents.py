"""The open documents: each one's text, its desk session, its audit and what is shown of it.

A document is audited as the editor has it (never read from disk): `OpenDocument.text` is pygls's
copy, kept in step by `didOpen`/`didChange`. What is shown (`shown`) is always about one text
(`shown_text`): the findings of the latest audit's stages so far (`Staged`), then its report. A
fix is offered only while the editor still has that text; a diagnostic's range is computed in the
negotiated encoding on that text (`positions`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from citedesk.core.document.model import Document
from citedesk.core.findings import Finding
from citedesk.core.formats import language_ids
from citedesk.core.reports.report import Report
from citedesk.desk import AuditOptions, DocumentSession
from citedesk.desk.state import Staged
from citedesk.lsp.positions import PositionMap

LANGUAGES = language_ids()
"""The editors' language ids the server audits (`core.formats`; others are kept in step, and left
alone)."""


@dataclass
class OpenDocument:
    uri: str
    language: str
    path: Path | None
    version: int | None = None
    session: DocumentSession | None = None
    """None when the document may not be audited (`refused` says why)."""
    options: AuditOptions | None = None
    refused: str = ""
    generation: int = 0
    """The latest audit asked for (0: none yet)."""
    audit_text: str = ""
    """The text that audit is about (and the editor's version of it)."""
    audit_version: int | None = None
    staged: Staged | None = None
    report: Report | None = None
    """The latest finished (or provisional) report; None while a newer audit's stages come in."""
    shown: tuple[Finding, ...] = ()
    shown_text: str | None = None
    positions: PositionMap | None = None
    result_id: int = 0
    """Bumped each time `shown` changes (pull diagnostics' `resultId`)."""
    audited_at: float = float("-inf")
    """When (the event loop's clock) the latest audit was asked for: edits ask at most one audit
    per debounce interval."""
    timer: asyncio.TimerHandle | None = field(default=None, repr=False)

    @property
    def folder(self) -> Path | None:
        """Where the document's relative names (a local source's location) are read from."""
        return self.path.parent if self.path is not None else None

    @property
    def document(self) -> Document | None:
        """The parsed text of what is shown (the report's, or the first stage's)."""
        if self.report is not None:
            return self.report.document
        return self.staged.document if self.staged is not None else None

    def report_for_fixes(self) -> Report | None:
        """A report to plan fixes with: the finished one, or the stages' findings so far on their
        parsed document (structural fixes are offered before the judge has finished)."""
        if self.report is not None:
            return self.report
        document = self.document
        return Report(document, list(self.shown)) if document is not None else None

    def show(self, findings: tuple[Finding, ...], text: str, encoding: str) -> None:
        if self.shown_text != text or self.positions is None or self.positions.encoding != encoding:
            self.positions = PositionMap(text, encoding)
        self.shown, self.shown_text = findings, text
        self.result_id += 1


def path_of(uri: str) -> Path | None:
    """The file a `file:` URI names (None for another scheme: an unsaved buffer)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path))


def inside(path: Path, roots: list[Path]) -> bool:
    """Whether `path` lies in one of `roots` (links resolved on both sides)."""
    resolved = path.resolve()
    return any(resolved.is_relative_to(root.resolve()) for root in roots)
