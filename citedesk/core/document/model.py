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
from typing import TYPE_CHECKING, Protocol

from citedesk.core.document.citekeys import CitationGroup
from citedesk.core.document.claims import Claim, make_claims
from citedesk.core.document.markdown import Layout
from citedesk.core.document.markers import MalformedMarker, Marker
from citedesk.core.document.notes import attach_notes
from citedesk.core.document.references import LabelStyle, Reference, ReferenceList
from citedesk.core.document.sentences import Sentence, split_sentences
from citedesk.core.document.works import BibReference, CitedEntry
from citedesk.core.spans import SpanSet
from citedesk.core.text import LineIndex, unify_line_breaks

if TYPE_CHECKING:
    from citedesk.core.findings import Finding, TextEdit
    from citedesk.core.operations import Operation


@dataclass(frozen=True)
class Reading:
    """What a dialect finds in a document's text, every offset exact: its citations as markers (one
    item per cited key), the malformed ones, its reference list (empty when its works are kept
    elsewhere), the blocks that are prose, and the bibliography read with it (None when none)."""

    markers: tuple[Marker, ...]
    malformed: tuple[MalformedMarker, ...]
    references: ReferenceList
    prose_blocks: tuple[tuple[int, int], ...]
    citations: tuple[CitationGroup, ...] = ()
    """Citation groups in pandoc's sense, at the same index as their markers (pandoc only)."""
    bibliography: tuple[BibReference, ...] | None = None


class CitationDialect(Protocol):
    """One citation syntax: how citations are found, what the checks specific to it are, and how
    the repair plan's dialect-neutral operations (`core.operations.Operation`) are written in it."""

    @property
    def name(self) -> str:
        """The registry's name for it (`numbered`, `pandoc`); also how messages name documents."""

    @property
    def works_in_text(self) -> bool:
        """Whether the works it cites are entries of the document's own reference list (checks point
        at them, repairs remove and renumber them), rather than of a bibliography kept elsewhere
        (never edited: its entries are checked only when cited, found where they are cited)."""

    @property
    def no_bibliography_notice(self) -> str | None:
        """What a report says first when the document cites keys but names no bibliography, in
        its own syntax's words (None: the pandoc notice, whose advice is the front matter's)."""

    def layout(self, text: str) -> Layout:
        """Which parts of `text` (line breaks unified) are prose, headings, markup and never read:
        Markdown's reading for the Markdown dialects, LaTeX's for `.tex`. `parse_structure` asks it
        before `read`, so every later step (sentences, claims, titles) works on one `Layout`."""

    def read(self, text: str, layout: Layout, bibliography: tuple[BibReference, ...] | None) -> Reading:
        """The citations and reference list of `text` (line breaks unified, `layout` scanned)."""

    def label(self, structure: Structure, key: str) -> str:
        """How a citation of `key` is written in messages: `[3]`, `[^note]`, `@doe99`."""

    def group_label(self, structure: Structure, keys: Sequence[str]) -> str:
        """How a citation of several keys is written in messages: `[2, 3]`, `[@a; @b]`."""

    def is_citation(self, structure: Structure, key: str) -> bool:
        """Whether a key one of its markers holds cites a work (not a cross-reference, `@fig-map`)."""

    def in_text(self, structure: Structure, marker: int) -> bool:
        """Whether marker number `marker` is a word of its sentence (`@doe99 says`), not where
        citations go."""

    def not_words(self, structure: Structure, text: str) -> list[tuple[int, int]]:
        """Spans of the prose that are no words of a sentence, besides markers and markup."""

    def spoken(self, structure: Structure) -> list[tuple[int, int, str]]:
        """Markers that are read aloud as words of their sentence: (start, end, what is heard)."""

    def structural_findings(self, document: Document) -> list[Finding]:
        """The findings that need no source and are specific to it (fabricated, malformed, orphan,
        duplicate …); uncited claims are the same in every dialect and not its business."""

    def edits(self, structure: Structure, operations: Sequence[Operation]) -> list[TextEdit]:
        """The operations written as one consistent, sorted list of text edits; RepairError for one
        it cannot make safely (or that does not apply to it: a bibliography is never edited)."""

    def note_links(self, structure: Structure) -> list[tuple[int, int]]:
        """(where a note is called in the prose, where its text begins): a note-style citation
        (`Claim.[^1]` … `[^1]: See [@smith2020].`) cites for the sentence that calls it
        (`core.document.notes.attach_notes`)."""

    def listed(self, structure: Structure) -> dict[str, tuple[int, int]]:
        """The works the document lists without citing them (pandoc's `nocite:`, LaTeX's `\\nocite`):
        key → where it is listed (`@*`/`{*}`: every work of the bibliography, at the star). They are
        printed in the bibliography, so their truth is checked as a cited work's is."""

    def removal(self, text: str, edit: TextEdit) -> TextEdit:
        """How a run of markers is removed in it, given the removal `core.repair.removal_edit`
        makes (`edit`): what the prose is read as (`core.repair.prose_of`), so its own removals
        must end the same way (LaTeX also takes the line break before a command that began its line
        and was followed by punctuation: one line break is a space there)."""


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
    def claims_cite(self) -> frozenset[str]:
        """Every reference key some claim cites (`cited_keys`, over all claims)."""
        return frozenset(key for claim in self.claims for key in self.cited_keys(claim))

    @cached_property
    def claim_by_marker(self) -> dict[int, Claim]:
        """Marker index → the claim (sentence) it is attached to."""
        return {m: claim for claim in self.claims for m in claim.sentence.markers}


def read_structure(
    text: str, dialect: CitationDialect, bibliography: Sequence[BibReference] | None = None
) -> Structure:
    """Markers and references of `text` read in `dialect` (with `bibliography`'s entries, where it
    cites a bibliography); the scanners read it with every line break as LF or CRLF
    (`unify_line_breaks`, same length), so a lone CR ends a line and offsets stay offsets into `text`.
    The dialect says which parts are prose (`layout`: Markdown's reading, or LaTeX's). Which dialect
    a file is read in is chosen above the model (`core.reading`)."""
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
    return read_structure(text, structure.dialect, structure.bibliography)


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
