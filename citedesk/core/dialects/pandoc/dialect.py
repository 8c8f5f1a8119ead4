"""The pandoc dialect: keys of a bibliography kept elsewhere (`[see @doe99, p. 3]`, `@doe99 says`).

Each citation group (`core.document.citekeys.find_citations`) is also a marker at the same index (style
`PANDOC`, one item per cited key, the marker's span the group's). The reference list is empty:
uncited bibliography entries are no one's business, and nothing of the bibliography is in the
text, so nothing of it is ever edited. Footnotes are notes: their text is prose, their citations
count. Checks: `core.dialects.pandoc.checks`; edits in citation syntax: `core.dialects.pandoc.repair`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from citedesk.core.dialects.base import PlainDialect, dialect_named, register
from citedesk.core.dialects.pandoc.checks import citekey_findings, nocite
from citedesk.core.dialects.pandoc.repair import pandoc_edits
from citedesk.core.document.citekeys import find_citations, is_cross_reference, render_key
from citedesk.core.document.markers import Marker, MarkerItem, MarkerStyle
from citedesk.core.document.model import Reading
from citedesk.core.document.references import ReferenceList
from citedesk.core.document.works import BibReference
from citedesk.core.spans import SpanSet

if TYPE_CHECKING:
    from citedesk.core.document.markdown import Layout
    from citedesk.core.document.model import Document, Structure
    from citedesk.core.findings import Finding, TextEdit
    from citedesk.core.operations import Operation

_NOTE_REFERENCE = re.compile(r"\[\^[^\[\]\s]+\](?!:)")
"""A `[^note]` of any length; a key holds no `[`, so the search from one `[^` stops at the next."""


class PandocDialect(PlainDialect):
    name = "pandoc"
    works_in_text = False

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return dialect_named, (self.name,)  # one instance, across processes too

    def read(self, text: str, layout: Layout, bibliography: tuple[BibReference, ...] | None) -> Reading:
        """Citation groups as markers; footnotes are notes (their text is prose, their citations count)."""
        bibliography = bibliography or ()
        known = {work.key for work in bibliography}
        groups = tuple(
            g
            for g in find_citations(text, layout)
            if not all(is_cross_reference(key) and key not in known for key in g.keys)
        )  # `See @fig-map` points into the document: not a citation (a mixed group stays, see is_citation)
        markers = tuple(
            Marker(
                g.start,
                g.end,
                MarkerStyle.PANDOC,
                tuple(MarkerItem(item.start, item.end, (item.key,)) for item in g.items),
                g.separator,
            )
            for g in groups
        )
        blocks = [(b.start, b.end) for b in layout.blocks]
        covered = SpanSet.of(blocks)
        notes = [
            (d.body_start, d.end)
            for d in layout.definitions
            if d.footnote and d.end > d.body_start and not covered.overlaps(d.body_start, d.end)
        ]
        return Reading(
            markers,
            (),
            ReferenceList((), None, None),
            tuple(sorted(blocks + notes)),
            citations=groups,
            bibliography=bibliography,
        )

    def label(self, structure: Structure, key: str) -> str:
        try:
            return render_key(key)
        except ValueError:
            return "@" + key

    def group_label(self, structure: Structure, keys: Sequence[str]) -> str:
        return "[" + "; ".join(self.label(structure, k) for k in keys) + "]"

    def is_citation(self, structure: Structure, key: str) -> bool:
        """A cross-reference inside a group of citations (`[@fig-map; @doe99]`) is not one."""
        return key in structure.work_by_key or not is_cross_reference(key)

    def in_text(self, structure: Structure, marker: int) -> bool:
        return structure.citations[marker].in_text

    def not_words(self, structure: Structure, text: str) -> list[tuple[int, int]]:
        """`[^1]` note references in the prose: not words of the sentence (as markers are not)."""
        opaque = structure.layout.opaque
        return [
            m.span()
            for start, end in structure.prose_blocks
            for m in _NOTE_REFERENCE.finditer(text, start, end)
            if not opaque.contains(m.start())
        ]

    def note_links(self, structure: Structure) -> list[tuple[int, int]]:
        """Each `[^note]` called in the prose, and where its definition's text begins."""
        notes = {d.key: d.body_start for d in structure.layout.definitions if d.footnote}
        if not notes:
            return []
        return [
            (start, notes[structure.text[start + 2 : end - 1]])
            for start, end in self.not_words(structure, structure.text)
            if structure.text[start + 2 : end - 1] in notes
        ]

    def spoken(self, structure: Structure) -> list[tuple[int, int, str]]:
        """In-text citations (`@moreau2021 says`) as the words a reader hears: the first author's
        family name, or the key when the bibliography has no such entry or names no author.
        `-@key` (the author suppressed) says nothing, but still starts the sentence it opens."""
        works = structure.work_by_key
        spoken = []
        for group in structure.citations:
            item = group.items[0] if group.items else None
            if item is None or not item.in_text:
                continue
            work = works.get(item.key)
            name = work.family_name if isinstance(work, BibReference) else None
            spoken.append((item.token[0], item.token[1], "" if item.suppress_author else name or item.key))
        return spoken

    def structural_findings(self, document: Document) -> list[Finding]:
        return citekey_findings(document)

    def listed(self, structure: Structure) -> dict[str, tuple[int, int]]:
        return nocite(structure.text).works(structure.work_by_key)

    def edits(self, structure: Structure, operations: Sequence[Operation]) -> list[TextEdit]:
        return pandoc_edits(structure, operations)


PANDOC = register(PandocDialect())
