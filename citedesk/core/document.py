"""The document model: text → markers, references, sentences and claims, all with exact offsets.

Two kinds of document share it. A *numbered* one (`[1]`, `[^note]`) lists its references in its
own text. A *pandoc* one cites keys of a bibliography kept elsewhere (`[see @doe99, p. 3]`,
`@doe99 says`); it is parsed with that bibliography's entries (`bibliography=`), and each
citation group (`citations`) is also a marker at the same index (style `PANDOC`, one item per
cited key, the marker's span the group's), so sentences, claims, coverage, verdicts and the
checks that read markers work on both without knowing which they read. Its reference list is
empty: uncited bibliography entries are no one's business, and nothing of it is in the text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from citedesk.core.citekeys import CitationGroup, find_citations, is_cross_reference, render_key
from citedesk.core.claims import Claim, make_claims
from citedesk.core.markdown import Layout, scan_markdown
from citedesk.core.markers import MalformedMarker, Marker, MarkerItem, MarkerStyle, find_markers
from citedesk.core.references import Reference, ReferenceList, parse_references
from citedesk.core.sentences import Sentence, split_sentences
from citedesk.core.spans import SpanSet
from citedesk.core.text import LineIndex, unify_line_breaks
from citedesk.core.works import BibReference, CitedEntry


@dataclass(frozen=True)
class Structure:
    """Markers and references without sentences: all that repairs need, and cheap to compute."""

    text: str
    layout: Layout
    markers: tuple[Marker, ...]
    malformed: tuple[MalformedMarker, ...]
    references: ReferenceList
    prose_blocks: tuple[tuple[int, int], ...]
    citations: tuple[CitationGroup, ...] = field(default=(), kw_only=True)
    """A pandoc document's citation groups, at the same index as the markers made from them."""
    bibliography: tuple[BibReference, ...] | None = field(default=None, kw_only=True)
    """The entries of the bibliographies a pandoc document cites; None for a numbered document."""

    @property
    def pandoc(self) -> bool:
        """Whether the document cites keys of a bibliography (pandoc citations)."""
        return self.bibliography is not None

    @cached_property
    def works(self) -> tuple[CitedEntry, ...]:
        """The works the document can cite: its reference list's entries, or its bibliography's."""
        return self.bibliography if self.bibliography is not None else self.references.entries

    @cached_property
    def work_by_key(self) -> dict[str, CitedEntry]:
        """Key → the work a citation of that key reaches (the first, when a key is listed twice)."""
        found: dict[str, CitedEntry] = {}
        for work in self.works:
            found.setdefault(work.key, work)
        return found

    @cached_property
    def footnote_keys(self) -> frozenset[str]:
        """Keys whose entry is a footnote definition (`[^smith2020]: …`)."""
        return frozenset(e.key for e in self.references.entries if e.style.value == "footnote")

    def label(self, key: str) -> str:
        """How a citation of `key` is written in messages: `[3]`, `[^smith2020]` for a footnote, or
        `@doe99` in a pandoc document."""
        if not self.pandoc:
            return f"[^{key}]" if key in self.footnote_keys else f"[{key}]"
        try:
            return render_key(key)
        except ValueError:
            return "@" + key

    @cached_property
    def marker_spans(self) -> tuple[tuple[int, int, int], ...]:
        """(start, end, index) of every marker and (start, end, -1) of every malformed one, in order."""
        return tuple(
            sorted(
                [(m.start, m.end, i) for i, m in enumerate(self.markers)]
                + [(m.start, m.end, -1) for m in self.malformed]
            )
        )

    @cached_property
    def marker_span_ends(self) -> tuple[int, ...]:
        return tuple(end for _, end, _ in self.marker_spans)

    @cached_property
    def markers_citing(self) -> dict[str, tuple[int, ...]]:
        """Reference key → the indices of the markers that cite it (built once: repairs stay linear)."""
        found: dict[str, list[int]] = {}
        for index, marker in enumerate(self.markers):
            for key in marker.keys:
                found.setdefault(key, []).append(index)
        return {key: tuple(indices) for key, indices in found.items()}

    @cached_property
    def marker_ending_at(self) -> dict[int, int]:
        """Offset → the index of the marker that ends there."""
        return {m.end: i for i, m in enumerate(self.markers)}

    @cached_property
    def entry_by_key(self) -> dict[str, Reference]:
        """Reference key → the entry a marker with that key reaches (the first, when numbered twice)."""
        return self.references.by_key()

    @cached_property
    def entries_by_key(self) -> dict[str, tuple[Reference, ...]]:
        """Reference key → its entries (two when a number is used twice), in list order."""
        found: dict[str, list[Reference]] = {}
        for entry in self.references.entries:
            found.setdefault(entry.key, []).append(entry)
        return {key: tuple(entries) for key, entries in found.items()}

    @cached_property
    def unnumbered(self) -> bool:
        """Whether the list has entries keyed by position (removing one shifts the rest)."""
        from citedesk.core.references import LabelStyle  # noqa: PLC0415

        return any(e.style is LabelStyle.NONE for e in self.references.entries)


@dataclass(frozen=True)
class Document(Structure):
    path: str | None
    sentences: tuple[Sentence, ...]
    claims: tuple[Claim, ...]

    @cached_property
    def lines(self) -> LineIndex:
        return LineIndex(self.text)

    @property
    def entries(self) -> tuple[Reference, ...]:
        return self.references.entries

    @cached_property
    def claim_by_id(self) -> dict[str, Claim]:
        return {claim.id: claim for claim in self.claims}

    def cited_keys(self, claim: Claim) -> list[str]:
        """The reference keys the claim's markers cite, in order, each once (in a pandoc document, a
        cross-reference inside a group of citations, `[@fig-map; @doe99]`, is not one)."""
        keys = dict.fromkeys(k for m in claim.sentence.markers for k in self.markers[m].keys)
        if self.pandoc:
            known = self.work_by_key
            return [k for k in keys if k in known or not is_cross_reference(k)]
        return list(keys)

    @cached_property
    def claim_by_marker(self) -> dict[int, Claim]:
        """Marker index → the claim (sentence) it is attached to."""
        return {m: claim for claim in self.claims for m in claim.sentence.markers}


def parse_structure(text: str, bibliography: Sequence[BibReference] | None = None) -> Structure:
    """Markers and references of `text`; the scanners read it with every line break as LF or CRLF
    (`unify_line_breaks`, same length), so a lone CR ends a line and offsets stay offsets into `text`.
    With a `bibliography` (even an empty one), the document is read as a pandoc document."""
    scanned = unify_line_breaks(text)
    layout = scan_markdown(scanned)
    if bibliography is not None:
        return _pandoc_structure(text, scanned, layout, tuple(bibliography))
    references = parse_references(scanned, layout)
    section = references.section
    blocks = tuple(
        (b.start, b.end) for b in layout.blocks if section is None or not (section[0] <= b.start < section[1])
    )
    markers, malformed = find_markers(scanned, blocks, layout.opaque)
    return Structure(text, layout, tuple(markers), tuple(malformed), references, blocks)


def reparse(structure: Structure, text: str) -> Structure:
    """`text` read the way `structure` was read (numbered, or pandoc with the same bibliography):
    how a repair's result is checked."""
    return parse_structure(text, structure.bibliography)


def parse_document(
    text: str, path: str | None = None, bibliography: Sequence[BibReference] | None = None
) -> Document:
    return document_of(parse_structure(text, bibliography), path)


def document_of(structure: Structure, path: str | None = None) -> Document:
    """The document a parsed structure is: its sentences and claims added."""
    text = structure.text
    layout = structure.layout
    scanned = unify_line_breaks(text)
    hidden = [*layout.opaque, *layout.markup, *((m.start, m.end) for m in structure.malformed)]
    if structure.pandoc:
        hidden.extend(_note_references(scanned, layout, structure.prose_blocks))
    sentences = split_sentences(
        scanned,
        structure.prose_blocks,
        structure.markers,
        SpanSet.of(hidden),
        layout.code,
        spoken=_spoken(structure),
    )
    return Document(
        text=text,
        layout=layout,
        markers=structure.markers,
        malformed=structure.malformed,
        references=structure.references,
        prose_blocks=structure.prose_blocks,
        citations=structure.citations,
        bibliography=structure.bibliography,
        path=path,
        sentences=tuple(sentences),
        claims=tuple(make_claims(sentences)),
    )


# pandoc documents -----------------------------------------------------------------------------------
_NOTE_REFERENCE = re.compile(r"\[\^[^\[\]\s]+\](?!:)")
"""A `[^note]` of any length; a key holds no `[`, so the search from one `[^` stops at the next."""


def _pandoc_structure(
    text: str, scanned: str, layout: Layout, bibliography: tuple[BibReference, ...]
) -> Structure:
    """Citation groups as markers; footnotes are notes (their text is prose, their citations count)."""
    known = {work.key for work in bibliography}
    groups = tuple(
        g
        for g in find_citations(scanned, layout)
        if not all(is_cross_reference(key) and key not in known for key in g.keys)
    )  # `See @fig-map` points into the document: not a citation (a mixed group stays, see cited_keys)
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
    return Structure(
        text,
        layout,
        markers,
        (),
        ReferenceList((), None, None),
        tuple(sorted(blocks + notes)),
        citations=groups,
        bibliography=bibliography,
    )


def _note_references(text: str, layout: Layout, blocks: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """`[^1]` note references in the prose: not words of the sentence (as markers are not)."""
    return [
        m.span()
        for start, end in blocks
        for m in _NOTE_REFERENCE.finditer(text, start, end)
        if not layout.opaque.contains(m.start())
    ]


def _spoken(structure: Structure) -> list[tuple[int, int, str]]:
    """In-text citations (`@moreau2021 says`) as the words a reader hears: the first author's family
    name, or the key when the bibliography has no such entry or names no author. `-@key` (the
    author suppressed) says nothing, but still starts the sentence it opens."""
    if not structure.pandoc:
        return []
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


def structure_without_bibliography(text: str) -> Structure:
    """How a document that names no bibliography is read: numbered — unless it cites pandoc keys
    (`[@doe99]`) and has no numbered citations or reference list of its own; then as a pandoc
    document whose citations are all not checked, instead of a numbered one with nothing to check.
    Each reading is parsed once."""
    numbered = parse_structure(text)
    if numbered.markers or numbered.references.entries:
        return numbered
    keys = parse_structure(text, ())
    return keys if keys.markers else numbered
