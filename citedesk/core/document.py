"""The document model: text → markers, references, sentences and claims, all with exact offsets."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from citedesk.core.claims import Claim, make_claims
from citedesk.core.markdown import Layout, scan_markdown
from citedesk.core.markers import MalformedMarker, Marker, find_markers
from citedesk.core.references import Reference, ReferenceList, parse_references
from citedesk.core.sentences import Sentence, split_sentences
from citedesk.core.spans import SpanSet
from citedesk.core.text import LineIndex, unify_line_breaks


@dataclass(frozen=True)
class Structure:
    """Markers and references without sentences: all that repairs need, and cheap to compute."""

    text: str
    layout: Layout
    markers: tuple[Marker, ...]
    malformed: tuple[MalformedMarker, ...]
    references: ReferenceList
    prose_blocks: tuple[tuple[int, int], ...]

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
        """The reference keys the claim's markers cite, in order, each once."""
        return list(dict.fromkeys(k for m in claim.sentence.markers for k in self.markers[m].keys))

    @cached_property
    def claim_by_marker(self) -> dict[int, Claim]:
        """Marker index → the claim (sentence) it is attached to."""
        return {m: claim for claim in self.claims for m in claim.sentence.markers}


def parse_structure(text: str) -> Structure:
    """Markers and references of `text`; the scanners read it with every line break as LF or CRLF
    (`unify_line_breaks`, same length), so a lone CR ends a line and offsets stay offsets into `text`."""
    scanned = unify_line_breaks(text)
    layout = scan_markdown(scanned)
    references = parse_references(scanned, layout)
    section = references.section
    blocks = tuple(
        (b.start, b.end) for b in layout.blocks if section is None or not (section[0] <= b.start < section[1])
    )
    markers, malformed = find_markers(scanned, blocks, layout.opaque)
    return Structure(text, layout, tuple(markers), tuple(malformed), references, blocks)


def parse_document(text: str, path: str | None = None) -> Document:
    structure = parse_structure(text)
    layout = structure.layout
    not_words = SpanSet.of([*layout.opaque, *layout.markup, *((m.start, m.end) for m in structure.malformed)])
    sentences = split_sentences(
        unify_line_breaks(text), structure.prose_blocks, structure.markers, not_words, layout.code
    )
    return Document(
        text=text,
        layout=layout,
        markers=structure.markers,
        malformed=structure.malformed,
        references=structure.references,
        prose_blocks=structure.prose_blocks,
        path=path,
        sentences=tuple(sentences),
        claims=tuple(make_claims(sentences)),
    )
