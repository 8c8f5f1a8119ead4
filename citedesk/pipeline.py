"""`audit()`: the audit's stages in order (`engine.stages`: structure, sources, reference truth,
retrieval, judging, findings). The CLI and the window both call this, and nothing else.

`AuditState` is the token handed to a running audit: it carries progress, each stage's new findings
(`on_stage`, as soon as that stage is done) and partial results out, and a cancellation request in.
A cancelled audit raises `Cancelled`, which callers never show as an error. The options, the state
and the stages live in `citedesk.engine`; this module is their front door, and the one seam between
what opens the window and what runs an audit: it imports the options and the state, which are
cheap, and the stages (with them the sources, the store and the evidence layer: httpx,
sqlite-utils, numpy) only when an audit runs. Below this seam every module imports at top level.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from citedesk.assist import judge as _claude_judge  # noqa: F401 - registers the Claude judge
from citedesk.core.dialects.latex.bounds import naming, parse_deadline
from citedesk.core.document.model import Document, document_of
from citedesk.core.reading import parse_document, structure_without_bibliography
from citedesk.core.reports.report import Report
from citedesk.engine.state import AuditOptions, AuditState, ProgressCallback, StageResult

__all__ = [
    "AuditOptions",
    "AuditState",
    "ProgressCallback",
    "StageResult",
    "audit",
    "audit_text",
]


def audit_text(
    text: str, path: str | None = None, options: AuditOptions | None = None, state: AuditState | None = None
) -> Report:
    """Audit a document's text: a pandoc document (one that names a bibliography, or is given one
    in `options.bibliographies`) against its bibliography's entries, any other as numbered."""
    state = state or AuditState()
    options = options or AuditOptions()
    state.progress("parsing")
    from citedesk.sources.citeworks import (  # noqa: PLC0415 - the seam: YAML and Zotero when an audit runs
        EMPTY_BIBLIOGRAPHY_NOTICE,
        NO_BIBLIOGRAPHY_NOTICE,
        cited_works,
    )

    named = Path(path) if path else (options.document_dir / "Untitled" if options.document_dir else None)
    # the time budget starts here: reading the document (a LaTeX parse) counts, as the stages do
    with parse_deadline(state.start_budget(options.time_budget)), naming(path or "the document"):
        cited = cited_works(
            text,
            named,
            options.bibliographies,
            zotero_dir=options.zotero_dir,
            use_zotero=options.zotero,
            roots=(options.sources_dir, *options.local_roots),
            anywhere=options.allow_local_paths,
        )
        document = (
            document_of(structure_without_bibliography(text, path), path)
            if cited is None
            else parse_document(text, path, cited.works)
        )
    if cited is None:
        report = audit(document, options, state)
        if not document.dialect.works_in_text:  # it cites keys of a bibliography it does not name
            report.notices.insert(0, document.dialect.no_bibliography_notice or NO_BIBLIOGRAPHY_NOTICE)
        report.notices[:0] = list(options.notices)
        return report
    report = audit(document, replace(options, local_roots=(*options.local_roots, *cited.folders)), state)
    report.notices[:0] = [*options.notices, *cited.notices]
    if not cited.works and document.markers:
        report.notices.append(EMPTY_BIBLIOGRAPHY_NOTICE)
    return report


def audit(document: Document, options: AuditOptions, state: AuditState) -> Report:
    """Run the stages on `document`; each publishes its findings to `state.on_stage` when done."""
    from citedesk.engine.stages import run_stages  # noqa: PLC0415 - the seam (module docstring)

    with parse_deadline(state.deadline):  # a LaTeX text the stages parse again, in the same budget
        return run_stages(document, options, state)
