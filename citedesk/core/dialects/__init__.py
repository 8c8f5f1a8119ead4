"""Citation dialects: one folder per citation syntax, on one document model (issues 24, 39).

`base` keeps the registry and chooses a document's dialect (what a dialect is, `CitationDialect`,
the document model says); `numbered` (`[3]` against the document's own reference list), `pandoc`
(`[@doe99]` against a bibliography) and `latex` (`\\cite{key}` in a `.tex` file) each have a
folder whose `dialect` module registers itself when imported here. A new dialect (a Word field)
is one new folder implementing `CitationDialect` and calling `register`, plus its tests; see
docs/ARCHITECTURE.md.
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
