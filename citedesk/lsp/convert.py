"""Findings as diagnostics, fixes as code actions, a finding as a hover card: translation only.

Nothing here decides: a diagnostic is a finding (its span, its severity, its kind as the code), a
quick fix is one of its fixes planned by the desk (`DocumentSession.plan`: the checked plan's
edits, so a fix touches only its citation), and the hover is what the window's card says — the
finding, the judge and its confidence, the evidence quoted, the source's status.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types

from citedesk.core.findings import Evidence, Finding, Fix, Severity, TextEdit, judged_line
from citedesk.core.formats import TEXT_SOURCE_SUFFIXES
from citedesk.core.reports.report import Report
from citedesk.lsp.positions import PositionMap

SOURCE = "citedesk"
EXPLANATIONS = "https://github.com/citedesk/citedesk/blob/main/README.md#findings"
"""Where each finding kind is explained (the README's table of findings)."""
VERIFY_FIRST = " (verify first)"
MAX_EVIDENCE_FILE_BYTES = 4 * 1024 * 1024
"""A local source larger than this is not read to place its evidence sentence."""
SNIPPET_CHARS = 400
SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def lsp_range(positions: PositionMap, start: int, end: int) -> types.Range:
    line, character = positions.position(start)
    end_line, end_character = positions.position(end)
    return types.Range(types.Position(line, character), types.Position(end_line, end_character))


def diagnostic(
    positions: PositionMap, finding: Finding, index: int, folder: Path | None = None
) -> types.Diagnostic:
    """The finding as a diagnostic; `data` names it (its index in the list published) for code
    actions and review commands."""
    return types.Diagnostic(
        range=lsp_range(positions, finding.start, finding.end),
        message=finding.message,
        severity=SEVERITIES[finding.severity],
        code=finding.kind.value,
        code_description=types.CodeDescription(href=EXPLANATIONS),
        source=SOURCE,
        related_information=_related(finding.evidence, folder),
        data={"index": index},
    )


def diagnostics(
    positions: PositionMap, findings: Sequence[Finding], folder: Path | None = None
) -> list[types.Diagnostic]:
    return [diagnostic(positions, finding, i, folder) for i, finding in enumerate(findings)]


def _related(
    evidence: Evidence | None, folder: Path | None
) -> list[types.DiagnosticRelatedInformation] | None:
    """The evidence sentence, where the source is a local file (a place the editor can open)."""
    if evidence is None or not evidence.location or not evidence.passage:
        return None
    path = _local_file(evidence.location, folder)
    if path is None:
        return None
    where = types.Range(types.Position(0, 0), types.Position(0, 0))
    text = _text_of(path)
    if text is not None:
        start = (
            evidence.start
            if text[evidence.start : evidence.end] == evidence.passage
            else text.find(evidence.passage)
        )
        if start >= 0:
            where = lsp_range(PositionMap(text), start, start + len(evidence.passage))
    return [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=path.as_uri(), range=where), message=snippet(evidence.passage)
        )
    ]


def _local_file(location: str, folder: Path | None) -> Path | None:
    """The local file a source's location names (relative: to the document's folder), or None."""
    if location.startswith("file:"):
        location = unquote(urlparse(location).path)
    elif "://" in location:
        return None
    if not os.path.isabs(location):
        if folder is None:
            return None
        location = str(folder / location)
    path = Path(location)
    return path if path.is_file() else None


def _text_of(path: Path) -> str | None:
    """A local source's text, when it is plain text of a bounded size (a PDF's offsets are in its
    extracted text, not the file: the evidence is then placed at the file's start)."""
    if not path.name.lower().endswith(TEXT_SOURCE_SUFFIXES):
        return None
    try:
        if path.stat().st_size > MAX_EVIDENCE_FILE_BYTES:
            return None
        return path.read_text("utf-8", errors="replace")
    except OSError:
        return None


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def fix_title(fix: Fix) -> str:
    """A safe fix is named as it is; an unsafe one (a judge's suggestion) says to verify it first."""
    return fix.title if fix.safe else fix.title + VERIFY_FIRST


def text_edits(positions: PositionMap, edits: Iterable[TextEdit]) -> list[types.TextEdit]:
    return [types.TextEdit(range=lsp_range(positions, e.start, e.end), new_text=e.replacement) for e in edits]


def workspace_edit(
    uri: str, version: int | None, edits: list[types.TextEdit], *, versioned: bool
) -> types.WorkspaceEdit:
    """The edits of one document: versioned (the client refuses them once the text has changed)
    where the client takes `documentChanges`, else as plain `changes`."""
    if versioned:
        document = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(document, edits)])
    return types.WorkspaceEdit(changes={uri: edits})


def overlaps(finding: Finding, start: int, end: int) -> bool:
    """Whether the finding's span meets [start, end] (a cursor inside or at either end counts)."""
    return finding.start <= end and start <= finding.end


def hover_markdown(report: Report | None, findings: Sequence[Finding], keys: Sequence[str]) -> str:
    """The card's content: each finding (kind, citation, message, judge and confidence, evidence
    quoted, its source's status), then the status of any other cited source at this place."""
    parts = [_finding_card(report, f) for f in findings]
    shown = {f.reference for f in findings if f.reference}
    for key in keys:
        if key not in shown:
            line = _source_line(report, key)
            if line:
                parts.append(line)
    return "\n\n---\n\n".join(p for p in parts if p)


def _finding_card(report: Report | None, finding: Finding) -> str:
    label = finding.kind.label
    cited = f" — {_cite(report, finding.reference)}" if finding.reference else ""
    lines = [f"**{_escape(label)}**{_escape(cited)} `{finding.kind.value}`", "", _escape(finding.message)]
    judged = judged_line(finding)
    if judged:
        lines += ["", f"*{_escape(judged)}*"]
    if finding.evidence is not None and finding.evidence.passage:
        where = _cite(report, finding.evidence.source) if finding.evidence.source else "the source"
        lines += ["", f"Evidence, {_escape(where)}:", "", "> " + _escape(snippet(finding.evidence.passage))]
    for fix in finding.fixes:
        lines += ["", f"Fix: {_escape(fix_title(fix))}"]
    if finding.reference:
        status = _source_line(report, finding.reference)
        if status:
            lines += ["", status]
    return "\n".join(lines)


def _source_line(report: Report | None, key: str) -> str:
    if report is None:
        return ""
    for source in report.sources:
        if source.key == key:
            where = f" ({source.location})" if source.location else ""
            said = f": {source.message}" if source.message else ""
            return _escape(f"Source of {_cite(report, key)}: {source.status}{where}{said}")
    return ""


def _cite(report: Report | None, key: str | None) -> str:
    if key is None:
        return ""
    return report.document.label(key) if report is not None else key


def _escape(text: str) -> str:
    """Markdown's special characters written as themselves."""
    return "".join("\\" + c if c in "\\`*_{}[]<>#|" else c for c in text)
