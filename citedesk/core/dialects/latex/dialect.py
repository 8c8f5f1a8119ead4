"""The LaTeX dialect: `\\cite{key}` and friends against a BibTeX/BibLaTeX bibliography (issue 29).

A `.tex` file is read in this dialect whatever its bibliography (`base.dialect_for`, by path);
with none, every citation is not checked. Its layout is LaTeX's (`core.dialects.latex.reading`: paragraphs,
headings, footnotes and captions as prose; comments, preamble, math, verbatim and figures never
read), each citation command is a marker (one item per key, at the key's offsets inside the
braces; the span the whole command, with its tie `~`), and `\\nocite` lists entries without citing
them. Like pandoc's, the bibliography is kept elsewhere: never edited, no orphans. Checks:
`core.dialects.latex.checks`; edits in LaTeX syntax: `core.dialects.latex.repair`.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from citedesk.core.dialects.base import PlainDialect, dialect_named, register
from citedesk.core.dialects.latex.checks import latex_findings, nocite_of
from citedesk.core.dialects.latex.reading import LatexReading, read_latex
from citedesk.core.dialects.latex.repair import latex_edits, soft_break
from citedesk.core.document.markers import Marker, MarkerItem, MarkerStyle
from citedesk.core.document.model import Reading
from citedesk.core.document.references import ReferenceList
from citedesk.core.document.works import BibReference
from citedesk.core.text import unify_line_breaks

if TYPE_CHECKING:
    from citedesk.core.document.markdown import Layout
    from citedesk.core.document.model import Document, Structure
    from citedesk.core.findings import Finding, TextEdit
    from citedesk.core.operations import Operation


@functools.lru_cache(maxsize=8)
def _reading(text: str) -> LatexReading:
    """The reading of a structure's (original) text: asked once per marker by `in_text`."""
    return read_latex(unify_line_breaks(text))


def _command_of(structure: Structure, key: str) -> str:
    """The command a message writes a citation of `key` with: the writer's own (`citep`, `textcite`,
    `autocite`) — that of its first citation, else the document's most used — never a `\\cite` they
    did not write."""
    first, usual = _commands(structure.text)
    return first.get(key, usual)


@functools.lru_cache(maxsize=8)
def _commands(text: str) -> tuple[dict[str, str], str]:
    """(key → the command of its first citation, the command the document uses most: `cite` when
    it cites nothing)."""
    first: dict[str, str] = {}
    counts: Counter[str] = Counter()
    for cite in _reading(text).cites:
        counts[cite.command] += 1
        for item in cite.keys:
            first.setdefault(item.key, cite.command)
    return first, counts.most_common(1)[0][0] if counts else "cite"


class LatexDialect(PlainDialect):
    name = "latex"
    works_in_text = False
    no_bibliography_notice = (
        "This LaTeX file cites keys (\\cite{key}) but names no bibliography, and no main file that names "
        "one was found, so none of its citations could be checked: add \\bibliography{refs} or "
        "\\addbibresource{refs.bib}, point a chapter at its main file with `% !TEX root = ../thesis.tex`, "
        "or pass --bibliography FILE."
    )
    """LaTeX has no front matter, so the pandoc notice's advice does not apply."""

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return dialect_named, (self.name,)  # one instance, across processes too

    def removal(self, text: str, edit: TextEdit) -> TextEdit:
        return soft_break(text, edit)

    def layout(self, text: str) -> Layout:
        return read_latex(text).layout

    def read(self, text: str, layout: Layout, bibliography: tuple[BibReference, ...] | None) -> Reading:
        """Each citation command a marker (the style is read by the numbered dialect only)."""
        reading = read_latex(text)
        markers = tuple(
            Marker(
                cite.start,
                cite.end,
                MarkerStyle.PANDOC,
                tuple(MarkerItem(key.start, key.end, (key.key,)) for key in cite.keys),
                ", ",
            )
            for cite in reading.cites
        )
        return Reading(
            markers,
            reading.malformed,
            ReferenceList((), None, None),
            tuple((b.start, b.end) for b in layout.blocks),
            bibliography=bibliography or (),
        )

    def label(self, structure: Structure, key: str) -> str:
        return f"\\{_command_of(structure, key)}{{{key}}}"

    def group_label(self, structure: Structure, keys: Sequence[str]) -> str:
        return f"\\{_command_of(structure, keys[0] if keys else '')}{{{','.join(keys)}}}"

    def in_text(self, structure: Structure, marker: int) -> bool:
        """`\\citet{doe99} shows`: a word of its sentence, not where citations go."""
        cites = _reading(structure.text).cites
        return 0 <= marker < len(cites) and cites[marker].in_text

    def spoken(self, structure: Structure) -> list[tuple[int, int, str]]:
        """In-text citations as the words a reader sees: the first author's family name (or the
        key, when the bibliography has no such entry or names no author); figures and units
        written as commands as their symbols (`\\SI{2.5}{\\celsius}` is "2.5 °C")."""
        works = structure.work_by_key
        reading = _reading(structure.text)
        spoken = list(reading.said)
        for cite in reading.cites:
            if not cite.in_text or not cite.keys:
                continue
            work = works.get(cite.keys[0].key)
            name = work.family_name if isinstance(work, BibReference) else None
            spoken.append((cite.start, cite.end, name or cite.keys[0].key))
        return sorted(spoken)

    def structural_findings(self, document: Document) -> list[Finding]:
        return latex_findings(document)

    def listed(self, structure: Structure) -> dict[str, tuple[int, int]]:
        return nocite_of(_reading(structure.text).nocites).works(structure.work_by_key)

    def edits(self, structure: Structure, operations: Sequence[Operation]) -> list[TextEdit]:
        return latex_edits(structure, operations)


LATEX = register(LatexDialect())
