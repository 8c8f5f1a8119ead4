"""The LaTeX dialect: `\\cite{key}` and friends against a BibTeX/BibLaTeX bibliography (issue 29).

A `.tex` file is read in this dialect whatever its bibliography (`base.dialect_for`, by path);
with none, every citation is not checked. Work in progress: this first step registers the dialect
so that the path rule can be used; the reading (`core.latex`) and edits (`core.latex_repair`)
follow.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from citedesk.core.dialects.base import PlainDialect, Reading, dialect_named, register
from citedesk.core.markdown import Layout
from citedesk.core.references import ReferenceList
from citedesk.core.spans import SpanSet
from citedesk.errors import RepairError

if TYPE_CHECKING:
    from citedesk.core.document import Document, Structure
    from citedesk.core.findings import Finding, TextEdit
    from citedesk.core.repair import Operation
    from citedesk.core.works import BibReference


class LatexDialect(PlainDialect):
    name = "latex"
    works_in_text = False

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return dialect_named, (self.name,)  # one instance, across processes too

    def layout(self, text: str) -> Layout:
        empty = SpanSet.of([])
        return Layout((), (), (), SpanSet.of([(0, len(text))]), empty, empty, empty)

    def read(self, text: str, layout: Layout, bibliography: tuple[BibReference, ...] | None) -> Reading:
        return Reading((), (), ReferenceList((), None, None), (), bibliography=bibliography or ())

    def label(self, structure: Structure, key: str) -> str:
        return "\\cite{" + key + "}"

    def group_label(self, structure: Structure, keys: Sequence[str]) -> str:
        return "\\cite{" + ",".join(keys) + "}"

    def structural_findings(self, document: Document) -> list[Finding]:
        return []

    def edits(self, structure: Structure, operations: Sequence[Operation]) -> list[TextEdit]:
        if operations:
            raise RepairError("LaTeX repairs are not written yet")
        return []


LATEX = register(LatexDialect())
