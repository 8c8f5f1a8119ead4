"""What a citation dialect is (`CitationDialect`), what it reads (`Reading`), and the registry.

A dialect is one way of citing in Markdown: numbered markers against the document's own reference
list (`[3]`, `[^note]`), or pandoc keys of a bibliography kept elsewhere (`[see @doe99, p. 3]`).
Everything else — sentences, claims, coverage, verdicts, the repair plan, reports — works on the
one document model (`core.document.Structure`) and asks the document's dialect whatever depends
on the syntax. Dialects register themselves (`register`); nothing outside `core.dialects` names
one, and `dialect_for` is the one place that chooses which reads a document.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from citedesk.core.formats import format_of
from citedesk.core.markdown import scan_markdown

if TYPE_CHECKING:
    from citedesk.core.citekeys import CitationGroup
    from citedesk.core.document import Document, Structure
    from citedesk.core.findings import Finding, TextEdit
    from citedesk.core.markdown import Layout
    from citedesk.core.markers import MalformedMarker, Marker
    from citedesk.core.references import ReferenceList
    from citedesk.core.repair import Operation
    from citedesk.core.works import BibReference


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
    the repair plan's dialect-neutral operations (`core.repair.Operation`) are written in it."""

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
        (`core.notes.attach_notes`)."""

    def listed(self, structure: Structure) -> dict[str, tuple[int, int]]:
        """The works the document lists without citing them (pandoc's `nocite:`, LaTeX's `\\nocite`):
        key → where it is listed (`@*`/`{*}`: every work of the bibliography, at the star). They are
        printed in the bibliography, so their truth is checked as a cited work's is."""

    def removal(self, text: str, edit: TextEdit) -> TextEdit:
        """How a run of markers is removed in it, given the removal `core.repair.removal_edit`
        makes (`edit`): what the prose is read as (`core.repair.prose_of`), so its own removals
        must end the same way (LaTeX also takes the line break before a command that began its line
        and was followed by punctuation: one line break is a space there)."""


class PlainDialect:
    """The members most dialects answer the same way, to inherit: every key it holds is a citation,
    no citation is a word of its sentence, nothing else in the prose is skipped, and a group is its
    labels side by side, and the text is Markdown (`layout`). A dialect adds `name`,
    `works_in_text`, `read`, `label`, `structural_findings` and `edits` (LaTeX's `\\cite{a,b}`
    overrides `group_label` and `layout`)."""

    no_bibliography_notice: str | None = None

    def layout(self, text: str) -> Layout:
        return scan_markdown(text)

    def label(self, structure: Structure, key: str) -> str:
        raise NotImplementedError

    def group_label(self, structure: Structure, keys: Sequence[str]) -> str:
        return " ".join(self.label(structure, key) for key in keys)

    def is_citation(self, structure: Structure, key: str) -> bool:
        return True

    def in_text(self, structure: Structure, marker: int) -> bool:
        return False

    def not_words(self, structure: Structure, text: str) -> list[tuple[int, int]]:
        return []

    def spoken(self, structure: Structure) -> list[tuple[int, int, str]]:
        return []

    def removal(self, text: str, edit: TextEdit) -> TextEdit:
        return edit

    def listed(self, structure: Structure) -> dict[str, tuple[int, int]]:
        return {}

    def note_links(self, structure: Structure) -> list[tuple[int, int]]:
        return []


_REGISTRY: dict[str, CitationDialect] = {}


def register(dialect: CitationDialect) -> CitationDialect:
    """Make `dialect` known by its name (a second registration under a name replaces the first)."""
    _REGISTRY[dialect.name] = dialect
    return dialect


def unregister(name: str) -> None:
    """Forget the dialect called `name` (a test's own, once it is done)."""
    _REGISTRY.pop(name, None)


def dialect_named(name: str) -> CitationDialect:
    """The registered dialect called `name`; KeyError for one never registered."""
    return _REGISTRY[name]


def registered() -> tuple[CitationDialect, ...]:
    return tuple(_REGISTRY.values())


def dialect_for(
    bibliography: Sequence[BibReference] | None, path: str | os.PathLike[str] | None = None
) -> CitationDialect:
    """The dialect a document is read in: its format's rule (`core.formats`). A format of a fixed
    syntax (a `.tex`/`.ltx` path is LaTeX) names its dialect with or without a bibliography
    (without one, every citation is not checked). Otherwise, with a bibliography (even an empty
    one), pandoc keys of it; without one, numbered markers against its own reference list."""
    return _REGISTRY[format_of(path).dialect.choose(bibliography is not None)]
