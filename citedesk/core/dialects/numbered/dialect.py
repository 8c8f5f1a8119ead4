"""The numbered dialect: markers (`[3]`, `[1-4]`, `[^smith2020]`) against the document's own
reference list, which is in the text — its entries are checked, removed and renumbered.

Reading: `core.document.references.parse_references` and `core.document.markers.find_markers`; checks:
`core.dialects.numbered.checks` (fabricated, malformed, orphan, duplicate); edits: `core.dialects.numbered.repair`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from citedesk.core.dialects.base import PlainDialect, dialect_named, register
from citedesk.core.dialects.numbered.checks import (
    duplicate_references,
    fabricated_markers,
    malformed_markers,
    orphan_references,
)
from citedesk.core.dialects.numbered.repair import marker_edits
from citedesk.core.document.markers import MarkerStyle, find_markers
from citedesk.core.document.model import Reading
from citedesk.core.document.references import LabelStyle, parse_references

if TYPE_CHECKING:
    from citedesk.core.document.markdown import Layout
    from citedesk.core.document.model import Document, Structure
    from citedesk.core.document.works import BibReference
    from citedesk.core.findings import Finding, TextEdit
    from citedesk.core.operations import Operation


class NumberedDialect(PlainDialect):
    name = "numbered"
    works_in_text = True

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return dialect_named, (self.name,)  # one instance, across processes too

    def read(self, text: str, layout: Layout, bibliography: tuple[BibReference, ...] | None) -> Reading:
        """Markers in the prose outside the reference section; the list read from the text."""
        references = parse_references(text, layout)
        section = references.section
        blocks = tuple(
            (b.start, b.end)
            for b in layout.blocks
            if section is None or not (section[0] <= b.start < section[1])
        )
        markers, malformed = find_markers(text, blocks, layout.opaque)
        return Reading(tuple(markers), tuple(malformed), references, blocks)

    def label(self, structure: Structure, key: str) -> str:
        return f"[^{key}]" if key in structure.footnote_keys else f"[{key}]"

    def group_label(self, structure: Structure, keys: Sequence[str]) -> str:
        return f"[{', '.join(keys)}]"

    def structural_findings(self, document: Document) -> list[Finding]:
        return [
            *fabricated_markers(document),
            *malformed_markers(document),
            *orphan_references(document),
            *duplicate_references(document),
        ]

    def edits(self, structure: Structure, operations: Sequence[Operation]) -> list[TextEdit]:
        return marker_edits(structure, operations)


def notes_only(structure: Structure) -> bool:
    """Whether a numbered reading of a document found footnotes and nothing else: `[^1]` markers
    and `[^1]: …` definitions, no `[3]` and no reference section. In a document that also cites
    pandoc keys in brackets (`[@doe99]`) they are pandoc's notes, not a reference list: reading
    it as numbered would call every sentence with a key uncited (`core.document.model`'s choice)."""
    references = structure.references
    return (
        references.section is None
        and all(m.style is MarkerStyle.FOOTNOTE for m in structure.markers)
        and all(e.style is LabelStyle.FOOTNOTE for e in references.entries)
    )


NUMBERED = register(NumberedDialect())
