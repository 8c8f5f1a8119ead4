"""A text read as a document: its dialect chosen (`dialects.dialect_for`, from the file's path and
its bibliography) or given, then read by the document model (`core.document.model.read_structure`).

The one door from a text to a `Structure` or a `Document` for everything above the core's dialects:
the model itself never chooses a dialect (the dialects build on it), so the choice lives here,
above both.
"""

from __future__ import annotations

from collections.abc import Sequence

from citedesk.core.dialects import CitationDialect, dialect_for, notes_only
from citedesk.core.document.model import Document, Structure, document_of, read_structure
from citedesk.core.document.works import BibReference


def parse_structure(
    text: str,
    bibliography: Sequence[BibReference] | None = None,
    *,
    dialect: CitationDialect | None = None,
    path: str | None = None,
) -> Structure:
    """Markers and references of `text`, read in `dialect`, or the one `core.dialects.dialect_for`
    chooses from the file's `path` (`.tex` is LaTeX) and the `bibliography` (with one, even an empty
    one, a pandoc document)."""
    chosen = dialect if dialect is not None else dialect_for(bibliography, path)
    return read_structure(text, chosen, bibliography)


def parse_document(
    text: str,
    path: str | None = None,
    bibliography: Sequence[BibReference] | None = None,
    *,
    dialect: CitationDialect | None = None,
) -> Document:
    return document_of(parse_structure(text, bibliography, dialect=dialect, path=path), path)


def structure_without_bibliography(text: str, path: str | None = None) -> Structure:
    """How a document that names no bibliography is read. A LaTeX file (by its `path`) is LaTeX,
    every citation not checked. Otherwise numbered — unless it cites pandoc keys
    (`[@doe99]`) and has no numbered citations or reference list of its own (footnotes aside, when
    a key is cited in brackets: `dialects.notes_only`); then as a pandoc document whose citations
    are all not checked, instead of a numbered one with nothing to check. Each reading is parsed once."""
    if dialect_for(None, path) is not dialect_for(None):  # the file's syntax decides (`.tex`)
        return parse_structure(text, None, path=path)
    numbered = parse_structure(text)
    if not (numbered.markers or numbered.references.entries):
        keys = parse_structure(text, ())
        return keys if keys.markers else numbered
    if not notes_only(numbered):
        return numbered
    keys = parse_structure(text, ())
    return keys if any(group.bracket is not None for group in keys.citations) else numbered
