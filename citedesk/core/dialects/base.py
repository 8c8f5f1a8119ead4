"""The registry of citation dialects, the one rule that chooses a document's (`dialect_for`), and
what most dialects answer the same way (`PlainDialect`). What a dialect is (`CitationDialect`) and
what it reads (`Reading`) the document model says (`core.document.model`): a dialect is passed to it.

A dialect is one way of citing in Markdown: numbered markers against the document's own reference
list (`[3]`, `[^note]`), or pandoc keys of a bibliography kept elsewhere (`[see @doe99, p. 3]`).
Everything else — sentences, claims, coverage, verdicts, the repair plan, reports — works on the
one document model (`core.document.model.Structure`) and asks the document's dialect whatever depends
on the syntax. Dialects register themselves (`register`); nothing outside `core.dialects` names
one, and `dialect_for` is the one place that chooses which reads a document.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from citedesk.core.document.markdown import scan_markdown
from citedesk.core.formats import format_of
from citedesk.core.origins import Registry

if TYPE_CHECKING:
    from citedesk.core.document.markdown import Layout
    from citedesk.core.document.model import CitationDialect, Structure
    from citedesk.core.document.works import BibReference
    from citedesk.core.findings import TextEdit


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


REGISTRY: Registry[CitationDialect] = Registry()
"""The table: its entries, and which module registered each (`core.origins`)."""


def register(dialect: CitationDialect) -> CitationDialect:
    """Make `dialect` known by its name (a second registration under a name replaces the first)."""
    return REGISTRY.add(dialect)


def unregister(name: str) -> None:
    """Forget the dialect called `name` (a test's own, once it is done)."""
    REGISTRY.remove(name)


def dialect_named(name: str) -> CitationDialect:
    """The registered dialect called `name`; KeyError for one never registered."""
    return REGISTRY[name]


def registered() -> tuple[CitationDialect, ...]:
    return REGISTRY.entries()


def dialect_for(
    bibliography: Sequence[BibReference] | None, path: str | os.PathLike[str] | None = None
) -> CitationDialect:
    """The dialect a document is read in: its format's rule (`core.formats`). A format of a fixed
    syntax (a `.tex`/`.ltx` path is LaTeX) names its dialect with or without a bibliography
    (without one, every citation is not checked). Otherwise, with a bibliography (even an empty
    one), pandoc keys of it; without one, numbered markers against its own reference list."""
    return REGISTRY[format_of(path).dialect.choose(bibliography is not None)]
