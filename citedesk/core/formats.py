"""The one table of document formats: what kind of document a path is, decided once (issue 39).

pandoc keeps one table from a file's suffix to its reader; napari's readers declare their file
patterns once and the open dialogs derive from them. CiteDesk does the same: each kind of document
is one `DocumentFormat` row — its suffixes, its container (plain text, or a package such as a Word
.docx: `core.containers`), how its citation dialect is chosen, the editor's colouring for it, its
Open/Save filter label — and `format_for(path)` is the one function that decides a path's format.
The CLI's and `batch`'s file discovery, the window's Open/Save filters and its highlighter,
recovery copies, the dialect choice (`core.dialects.dialect_for`) and the read limits all read this
table; no other module of CiteDesk writes a document suffix (`tests/test_formats.py` checks it).

A new format, dialect or container registers from one module: `register(DocumentFormat(...))`
(with its own `Container` and a `DialectRule` naming a registered dialect); `unregister` takes it
back. Bibliography files have their own table (`core.bibliographies.model.format_for`), and the texts of
cited works theirs (`SOURCE_SUFFIXES`, below): neither is a document.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from citedesk.core.origins import Registry

__all__ = [
    "MAX_LATEX_BYTES",
    "SOURCE_SUFFIXES",
    "TEXT_SOURCE_SUFFIXES",
    "DialectRule",
    "DocumentFormat",
    "batch_suffixes",
    "document_suffixes",
    "format_for",
    "format_named",
    "format_of",
    "format_of_filter",
    "formats",
    "is_format",
    "language_ids",
    "matches",
    "open_filter",
    "register",
    "save_filters",
    "unregister",
]

MAX_LATEX_BYTES = 8_000_000
"""The limit for every LaTeX source file — a main file, a file it includes, a chapter opened alone —
checked before it is parsed. LaTeX is read with pylatexenc, which takes about 90 MB of memory and a
few seconds per MB of source (Markdown takes a fraction of that), so a LaTeX file is held to 8 MB
where other documents may have `core.text.MAX_DOCUMENT_BYTES`: a whole thesis in one file is 1-3 MB."""


@dataclass(frozen=True)
class DialectRule:
    """How a format's citation dialect is chosen: `with_bibliography` when the document has a
    bibliography (even an empty one), `without` when it has none. A fixed rule names one dialect
    for both: the file's syntax decides, whatever its bibliography."""

    with_bibliography: str
    without: str

    @classmethod
    def fixed(cls, dialect: str) -> DialectRule:
        return cls(dialect, dialect)

    @property
    def is_fixed(self) -> bool:
        return self.with_bibliography == self.without

    def choose(self, has_bibliography: bool) -> str:
        """The name of the dialect a document of this format is read in."""
        return self.with_bibliography if has_bibliography else self.without


BY_CONTENT = DialectRule(with_bibliography="pandoc", without="numbered")
"""Markdown's rule: pandoc keys against a bibliography when there is one, else numbered markers
against the document's own reference list."""


@dataclass(frozen=True)
class DocumentFormat:
    """One kind of document."""

    name: str
    label: str
    """How the Open and Save dialogs name it (`LaTeX`): the filter is `LaTeX (*.tex *.ltx)`."""
    suffixes: tuple[str, ...]
    """File name endings, lower case, dot included (`.tex`; `.cite.txt` is one ending too). The
    first is the one Save as adds to a name typed without one."""
    container: str = "text"
    """The name of its container (`core.containers`): `text`, or a package's (`docx`)."""
    editable: bool = True
    """Whether its text is edited and saved in place (a Word package's is not: fixes only)."""
    dialect: DialectRule = BY_CONTENT
    syntax: str = "markdown"
    """The editor's colouring (`gui.editor.highlighter`): `markdown` (none but the marks), `latex`."""
    max_bytes: int | None = None
    """The most bytes a file of it may have; None: the documents' limit (`core.text`)."""
    refused: tuple[str, ...] = ()
    """Endings read only to be refused with why (a macro-enabled `.docm`): no filter or discovery."""
    languages: tuple[str, ...] = ()
    """The editors' language ids for it (the language server's `languageId`: `latex`, `quarto`)."""

    @property
    def filter(self) -> str:
        """Its Qt file dialog filter: `LaTeX (*.tex *.ltx)`."""
        return f"{self.label} ({_patterns(self.suffixes)})"

    def ending(self, path: str | os.PathLike[str]) -> str | None:
        """The ending of `path` that is one of this format's (any case), the longest; None if none."""
        name = os.fspath(path).lower()
        found = [s for s in (*self.suffixes, *self.refused) if name.endswith(s) and len(name) > len(s)]
        return max(found, key=len) if found else None


REGISTRY: Registry[DocumentFormat] = Registry()
"""The table: its entries, and which module registered each (`core.origins`)."""


def register(fmt: DocumentFormat) -> DocumentFormat:
    """Make `fmt` known (a second registration under its name replaces the first)."""
    return REGISTRY.add(fmt)


def unregister(name: str) -> None:
    """Forget the format called `name` (a test's own, once it is done)."""
    REGISTRY.remove(name)


MARKDOWN = register(
    DocumentFormat(
        "markdown",
        "Markdown or text",
        (".md", ".markdown", ".txt", ".text"),
        languages=("markdown", "pandoc", "plaintext"),
    )
)
register(
    DocumentFormat(
        "quarto", "Quarto or R Markdown", (".qmd", ".rmd"), languages=("quarto", "rmd", "rmarkdown")
    )
)
register(
    DocumentFormat(
        "latex",
        "LaTeX",
        (".tex", ".ltx"),
        dialect=DialectRule.fixed("latex"),
        syntax="latex",
        max_bytes=MAX_LATEX_BYTES,
        languages=("latex", "tex"),
    )
)
register(DocumentFormat("word", "Word", (".docx",), container="docx", editable=False, refused=(".docm",)))


def formats() -> tuple[DocumentFormat, ...]:
    """Every registered format, in the order registered (the dialogs' order)."""
    return REGISTRY.entries()


def format_named(name: str) -> DocumentFormat:
    """The registered format called `name`; KeyError for one never registered."""
    return REGISTRY[name]


def format_for(path: str | os.PathLike[str] | None) -> DocumentFormat | None:
    """The one rule deciding a path's format: the format with the longest ending the name has
    (`notes.cite.txt` is a `.cite.txt` package where one is registered, else text); None for a
    path that ends in none (and for no path)."""
    if path is None:
        return None
    best: tuple[int, DocumentFormat] | None = None
    for fmt in REGISTRY.entries():
        ending = fmt.ending(path)
        if ending is not None and (best is None or len(ending) > best[0]):
            best = (len(ending), fmt)
    return best[1] if best is not None else None


def format_of(path: str | os.PathLike[str] | None) -> DocumentFormat:
    """`format_for`, Markdown for a path of no format (and for an untitled document): how a
    document that is read anyway is read."""
    return format_for(path) or MARKDOWN


def is_format(path: str | os.PathLike[str] | None, name: str) -> bool:
    """Whether `path` is a document of the format called `name` (`is_format(p, "latex")`)."""
    fmt = format_for(path)
    return fmt is not None and fmt.name == name


def matches(path: str | os.PathLike[str], fmts: Iterable[DocumentFormat] | None = None) -> bool:
    """Whether `path` is a document of one of `fmts` (of any format by default) by one of their
    suffixes (an ending read only to be refused is not one)."""
    fmt = format_for(path)
    chosen = formats() if fmts is None else tuple(fmts)
    return fmt is not None and fmt in chosen and fmt.ending(path) in fmt.suffixes


def document_suffixes(*, editable: bool | None = None) -> tuple[str, ...]:
    """Every format's suffixes in the table's order (only the editable formats', or only the
    others', when `editable` says so)."""
    return tuple(s for f in formats() if editable in (None, f.editable) for s in f.suffixes)


def language_ids() -> frozenset[str]:
    """The editors' language ids of every format: what the language server audits."""
    return frozenset(language for f in formats() for language in f.languages)


def batch_suffixes() -> tuple[str, ...]:
    """What `citedesk batch` discovers in a folder: every document format's suffixes."""
    return document_suffixes()


def open_filter() -> str:
    """The window's Open filter: every document first, then each format on its own."""
    return ";;".join([f"Documents ({_patterns(document_suffixes())})", *(f.filter for f in formats())])


def save_filters(own: DocumentFormat | None) -> str:
    """Save as's filters for a document of format `own`: its own first (the dialog's default, so
    a .tex stays a .tex), then Markdown; a package's text is saved as Markdown."""
    first = own if own is not None and own.editable else MARKDOWN
    return ";;".join(dict.fromkeys([first.filter, MARKDOWN.filter]))


def format_of_filter(chosen: str) -> DocumentFormat:
    """The format whose filter a Save dialog returned (Markdown for one not of the table)."""
    return next((f for f in formats() if f.filter == chosen), MARKDOWN)


def _patterns(suffixes: Iterable[str]) -> str:
    return " ".join(f"*{s}" for s in suffixes)


SOURCE_SUFFIXES = (".txt", ".md", ".markdown", ".html", ".htm", ".pdf")
"""What a cited work's text may be, found in a local folder or dropped on the sources panel: not
documents (a source is read, never audited)."""
TEXT_SOURCE_SUFFIXES = (".txt", ".md", ".markdown", ".text", ".rst", ".tex")
"""A local source whose offsets are the file's own (plain text, read as it is): the language
server's evidence locations point into it (a PDF's are in its extracted text)."""
