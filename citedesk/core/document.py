"""The document model: text → markers, references, sentences and claims, all with exact offsets.

One model for every citation syntax. A document is read in a *dialect* (`core.dialects`): a
*numbered* one (`[1]`, `[^note]`) lists its references in its own text; a *pandoc* one cites keys
of a bibliography kept elsewhere (`[see @doe99, p. 3]`, `@doe99 says`) and is parsed with that
bibliography's entries (`bibliography=`). Either way its citations are markers (one item per
cited key), so sentences, claims, coverage, verdicts and the checks that read markers work on
every dialect without knowing which they read; what does depend on the syntax (how a key is
written, what a repair edits) they ask `Structure.dialect`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from citedesk.core.citekeys import CitationGroup
from citedesk.core.claims import Claim, make_claims
from citedesk.core.markdown import Layout
from citedesk.core.markers import MalformedMarker, Marker
from citedesk.core.notes import attach_notes
from citedesk.core.references import LabelStyle, Reference, ReferenceList
from citedesk.core.sentences import Sentence, split_sentences
from citedesk.core.spans import SpanSet
from citedesk.core.text import LineIndex, unify_line_breaks
from citedesk.core.works import BibReference, CitedEntry

if TYPE_CHECKING:
    from citedesk.core.dialects import CitationDialect


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
    dialect: CitationDialect = field(kw_only=True)
    """The citation syntax it was read in: what depends on the syntax is asked of it."""

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
        return self.dialect.label(self, key)

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
        return [k for k in keys if self.dialect.is_citation(self, k)]

    @cached_property
    def claim_by_marker(self) -> dict[int, Claim]:
        """Marker index → the claim (sentence) it is attached to."""
        return {m: claim for claim in self.claims for m in claim.sentence.markers}


def parse_structure(
    text: str,
    bibliography: Sequence[BibReference] | None = None,
    *,
    dialect: CitationDialect | None = None,
    path: str | None = None,
) -> Structure:
    """Markers and references of `text`; the scanners read it with every line break as LF or CRLF
    (`unify_line_breaks`, same length), so a lone CR ends a line and offsets stay offsets into `text`.
    It is read in `dialect`, or the one `core.dialects.dialect_for` chooses from the file's `path`
    (`.tex` is LaTeX) and the `bibliography` (with one, even an empty one, a pandoc document). The
    dialect says which parts are prose (`layout`: Markdown's reading, or LaTeX's)."""
    if dialect is None:
        from citedesk.core.dialects import dialect_for  # noqa: PLC0415 - the dialects build on this module

        dialect = dialect_for(bibliography, path)
    scanned = unify_line_breaks(text)
    layout = dialect.layout(scanned)
    found = dialect.read(scanned, layout, tuple(bibliography) if bibliography is not None else None)
    return Structure(
        text,
        layout,
        found.markers,
        found.malformed,
        found.references,
        found.prose_blocks,
        citations=found.citations,
        bibliography=found.bibliography,
        dialect=dialect,
    )


def reparse(structure: Structure, text: str) -> Structure:
    """`text` read the way `structure` was read (in its dialect, with the same bibliography):
    how a repair's result is checked."""
    return parse_structure(text, structure.bibliography, dialect=structure.dialect)


def parse_document(
    text: str,
    path: str | None = None,
    bibliography: Sequence[BibReference] | None = None,
    *,
    dialect: CitationDialect | None = None,
) -> Document:
    return document_of(parse_structure(text, bibliography, dialect=dialect, path=path), path)


def document_of(structure: Structure, path: str | None = None) -> Document:
    """The document a parsed structure is: its sentences and claims added."""
    text = structure.text
    layout = structure.layout
    scanned = unify_line_breaks(text)
    hidden = [
        *layout.opaque,
        *layout.markup,
        *((m.start, m.end) for m in structure.malformed),
        *structure.dialect.not_words(structure, scanned),
    ]
    sentences = split_sentences(
        scanned,
        structure.prose_blocks,
        structure.markers,
        SpanSet.of(hidden),
        layout.code,
        spoken=structure.dialect.spoken(structure),
        joined=layout.joins,
    )
    sentences = attach_notes(sentences, structure.dialect.note_links(structure))
    return Document(
        text=text,
        layout=layout,
        markers=structure.markers,
        malformed=structure.malformed,
        references=structure.references,
        prose_blocks=structure.prose_blocks,
        citations=structure.citations,
        bibliography=structure.bibliography,
        dialect=structure.dialect,
        path=path,
        sentences=tuple(sentences),
        claims=tuple(make_claims(sentences)),
    )


def structure_without_bibliography(text: str, path: str | None = None) -> Structure:
    """How a document that names no bibliography is read. A LaTeX file (by its `path`) is LaTeX,
    every citation not checked. Otherwise numbered — unless it cites pandoc keys
    (`[@doe99]`) and has no numbered citations or reference list of its own (footnotes aside, when
    a key is cited in brackets: `dialects.notes_only`); then as a pandoc document whose citations
    are all not checked, instead of a numbered one with nothing to check. Each reading is parsed once."""
    from citedesk.core.dialects import dialect_for, notes_only  # noqa: PLC0415 - the dialects build on this module

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
