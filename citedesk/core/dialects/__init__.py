"""Citation dialects: one module per citation syntax, on one document model (issue 24).

`base` says what a dialect is (`CitationDialect`) and keeps the registry; `numbered` (`[3]`
against the document's own reference list), `pandoc` (`[@doe99]` against a bibliography) and
`latex` (`\\cite{key}` in a `.tex` file) register themselves when imported here. A new dialect
(a Word field) is one new module implementing `CitationDialect` and calling `register`, plus
its tests; see docs/ARCHITECTURE.md.
"""

from __future__ import annotations

from citedesk.core.dialects.base import (
    PlainDialect,
    dialect_for,
    dialect_named,
    register,
    registered,
    unregister,
)
from citedesk.core.dialects.latex.dialect import LATEX
from citedesk.core.dialects.numbered.dialect import NUMBERED, notes_only
from citedesk.core.dialects.pandoc.dialect import PANDOC
from citedesk.core.document.model import CitationDialect, Reading

__all__ = [
    "LATEX",
    "NUMBERED",
    "PANDOC",
    "CitationDialect",
    "PlainDialect",
    "Reading",
    "dialect_for",
    "dialect_named",
    "notes_only",
    "register",
    "registered",
    "unregister",
]
