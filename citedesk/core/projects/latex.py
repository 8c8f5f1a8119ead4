"""What a LaTeX file says about its project: the files it includes, the bibliographies it names,
whether it is a main file (or which one is), and what LaTeX's own last run left in `.aux`, `.bbl`,
`.blg` and `.log`.

The `.tex` text is read with pylatexenc's latexwalker (the parser the LaTeX dialect reads citations
with), so a command inside a comment, `\\verb|…|` or a `verbatim`-like environment is never taken
for one: `% \\input{old}` includes nothing. Each name comes with its offsets, so a message can say on
which line it was written. Paths are returned as written and as LaTeX would look for them (`.tex`
added to an included name without one, `.bib` to a `\\bibliography` name); finding the files,
following includes and refusing a path outside the project — a `.tex` may come with someone else's
project — is the desk's (`desk.projects`).

The files LaTeX writes (`.aux`, `.bbl`, logs) are read with regular expressions instead: they are
machine-written, one command per line, full of `@` names (`\\abx@aux@cite`) that latexwalker does
not read as one command, and a cross-check needs only their keys.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import PurePosixPath

from pylatexenc import latexwalker, macrospec  # type: ignore[import-untyped, unused-ignore]

from citedesk.core.dialects.latex.bounds import latex_nodes
from citedesk.core.formats import format_named

TEX = format_named("latex").suffixes[0]
"""What LaTeX adds to a name written without an ending (`\\input{intro}` reads `intro.tex`)."""
INCLUDE_COMMANDS = ("input", "include", "subfile", "import", "subimport", "subinputfrom", "subincludefrom")
"""Commands that read another `.tex` file where they stand (`import` and `subimport` take a folder
and a name, the `import` package's way)."""
BIBLIOGRAPHY_COMMANDS = ("bibliography", "nobibliography", "addbibresource", "addglobalbib", "addsectionbib")
"""BibTeX's `\\bibliography{a,b}` (names without `.bib`), biblatex's `\\addbibresource{x.bib}`."""
VERBATIM_ENVIRONMENTS = frozenset(
    {"verbatim", "verbatim*", "Verbatim", "BVerbatim", "lstlisting", "minted", "comment", "filecontents"}
)
"""Environments whose content is never read: code, listings, commented-out blocks."""

_EXTRA_MACROS = (
    macrospec.std_macro("addbibresource", "[{"),
    macrospec.std_macro("addglobalbib", "[{"),
    macrospec.std_macro("addsectionbib", "[{"),
    macrospec.std_macro("nobibliography", "{"),
    macrospec.std_macro("subfile", "{"),
    macrospec.std_macro("import", "*{{"),
    macrospec.std_macro("subimport", "*{{"),
    macrospec.std_macro("subinputfrom", "*{{"),
    macrospec.std_macro("subincludefrom", "*{{"),
    macrospec.std_macro("documentclass", "[{"),
    macrospec.std_macro("nocite", "{"),
)
_BARE_NAME = re.compile(r"[ \t]*([^\s{}%\\]+)")
_MAGIC_ROOT = re.compile(r"^[ \t]*%+[ \t]*!\s*TEX\s+root\s*=\s*(\S.*?)\s*$", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Named:
    """A file a `.tex` names: the command, the name as written, the path LaTeX looks for (relative
    to the main file's folder, as LaTeX resolves every name), and where the command is."""

    command: str
    written: str
    name: str
    start: int
    end: int


@cache
def _context() -> macrospec.LatexContextDb:
    db = latexwalker.get_default_latex_context_db()
    db.add_context_category("citedesk-project", macros=list(_EXTRA_MACROS), prepend=True)
    return db


def _nodes(text: str) -> list[latexwalker.LatexNode]:
    """The nodes, within depth and deadline (`core.dialects.latex.bounds`: LatexLimitError past them)."""
    try:
        return latex_nodes(text, _context())
    except latexwalker.LatexWalkerError:  # tolerant parsing raises nothing in practice; never crash
        return []


_NAMED = re.compile(
    r"\\(?:input|include|subfile|import|subimport|sub(?:input|include)from|(?:no)?bibliography"
    r"|add(?:bibresource|globalbib|sectionbib)|documentclass|nocite)(?![A-Za-z])"
)
_WANTED = frozenset({*INCLUDE_COMMANDS, *BIBLIOGRAPHY_COMMANDS, "documentclass", "nocite"})


@lru_cache(maxsize=64)
def _commands(text: str) -> tuple[latexwalker.LatexMacroNode, ...]:
    """The commands this module reads, outside comments and verbatim, in reading order. A text
    that does not spell any of them is not parsed at all (a chapter of prose rarely does), and a
    text is parsed once however many questions are asked of it: latexwalker reads a long chapter
    in a good fraction of a second, and the window asks on every audit."""
    if not _NAMED.search(text):
        return ()
    return tuple(node for node in _macros(_nodes(text)) if node.macroname in _WANTED)


def _macros(nodes: list[latexwalker.LatexNode] | None) -> Iterator[latexwalker.LatexMacroNode]:
    """Every command outside comments and verbatim content, in reading order."""
    for node in nodes or []:
        if isinstance(node, latexwalker.LatexMacroNode):
            yield node
            for arg in node.nodeargd.argnlist if node.nodeargd is not None else ():
                if isinstance(arg, latexwalker.LatexGroupNode):
                    yield from _macros(arg.nodelist)
        elif isinstance(node, latexwalker.LatexEnvironmentNode):
            if node.environmentname not in VERBATIM_ENVIRONMENTS:
                yield from _macros(node.nodelist)
        elif isinstance(node, latexwalker.LatexGroupNode):
            yield from _macros(node.nodelist)


def _args(node: latexwalker.LatexMacroNode) -> list[latexwalker.LatexNode | None]:
    return list(node.nodeargd.argnlist) if node.nodeargd is not None else []


def _group_text(arg: latexwalker.LatexNode | None) -> str | None:
    """The text inside a `{…}` argument, or None when the argument is not a group."""
    if not isinstance(arg, latexwalker.LatexGroupNode):
        return None
    return "".join(n.latex_verbatim() for n in arg.nodelist or []).strip()


def _with_suffix(name: str, suffix: str) -> str:
    return name if PurePosixPath(name).suffix else name + suffix


def includes(text: str) -> list[Named]:
    """The files `text` reads where it stands (`\\input{ch1}`, `\\include{chapters/ch1}`,
    `\\subfile{…}`, `\\import{dir/}{file}`, and `\\input ch1` without braces), in reading order,
    each with `.tex` added when it has no extension (`\\include` always reads a `.tex`)."""
    found: list[Named] = []
    for node in _commands(text):
        if node.macroname not in INCLUDE_COMMANDS:
            continue
        args = [a for a in _args(node) if a is not None and not _is_star(a)]
        if node.macroname in ("input", "include", "subfile"):
            written = _group_text(args[0]) if args else None
            end = node.pos + node.len
            if written is None and node.macroname == "input":  # `\input ch1`: TeX's own syntax
                bare = _BARE_NAME.match(text, node.pos + len("\\input"))
                written, end = (bare.group(1), bare.end()) if bare else (None, end)
        else:
            parts = [_group_text(a) for a in args[:2]]
            written = None if len(parts) < 2 or None in parts else f"{parts[0]}{parts[1]}"
            end = node.pos + node.len
        if written:
            name = written + TEX if node.macroname == "include" else _with_suffix(written, TEX)
            found.append(Named(node.macroname, written, name, node.pos, end))
    return found


def _is_star(node: latexwalker.LatexNode) -> bool:
    return isinstance(node, latexwalker.LatexCharsNode) and node.chars == "*"


def bibliography_names(text: str) -> list[Named]:
    """The bibliography files `text` names: `\\bibliography{a,b}` (`a.bib`, `b.bib`) and
    biblatex's `\\addbibresource[…]{x.bib}`, in order; a name given twice once. A remote resource
    (`\\addbibresource[location=remote]{https://…}`) is not a file, so it is left out."""
    found: dict[str, Named] = {}
    for node in _commands(text):
        if node.macroname not in BIBLIOGRAPHY_COMMANDS:
            continue
        args = _args(node)
        written = _group_text(args[-1]) if args else None
        if not written:
            continue
        end = node.pos + node.len
        if node.macroname in ("bibliography", "nobibliography"):
            for part in (p.strip() for p in written.split(",")):
                if part:
                    found.setdefault(
                        _with_suffix(part, ".bib"),
                        Named(node.macroname, part, _with_suffix(part, ".bib"), node.pos, end),
                    )
        elif "://" not in written:
            found.setdefault(written, Named(node.macroname, written, written, node.pos, end))
    return list(found.values())


def nocites(text: str) -> tuple[str, ...]:
    """The keys `\\nocite{a,b}` lists (`*`: every entry of the bibliography)."""
    keys: list[str] = []
    for node in _commands(text):
        if node.macroname == "nocite":
            args = _args(node)
            written = _group_text(args[-1]) if args else None
            keys.extend(k.strip() for k in (written or "").split(",") if k.strip())
    return tuple(dict.fromkeys(keys))


def root_magic(text: str) -> str | None:
    """The main file a `% !TEX root = ../thesis.tex` magic comment names (TeXstudio's, LaTeX
    Workshop's, TeXShop's), read in the file's first 40 lines as the editors do; or, for a
    `\\documentclass[../thesis.tex]{subfiles}` chapter, the main file it names."""
    head = "\n".join(text.splitlines()[:40])
    match = _MAGIC_ROOT.search(head)
    if match:
        return match.group(1)
    for node in _commands(text):
        if node.macroname == "documentclass":
            args = _args(node)
            if len(args) == 2 and _group_text(args[1]) == "subfiles":
                option = args[0]
                if isinstance(option, latexwalker.LatexGroupNode):
                    named = "".join(n.latex_verbatim() for n in option.nodelist or []).strip()
                    return _with_suffix(named, TEX) if named else None
            return None
    return None


def is_root(text: str) -> bool:
    """Whether `text` is a main file: it has a `\\documentclass` outside comments. A subfiles
    chapter (`\\documentclass[main.tex]{subfiles}`) compiles alone, but its main file is the root."""
    for node in _commands(text):
        if node.macroname == "documentclass":
            args = _args(node)
            return not (len(args) == 2 and _group_text(args[1]) == "subfiles")
    return False


def line_of(text: str, offset: int) -> int:
    """The 1-based line of `offset`, for messages."""
    return text.count("\n", 0, offset) + 1


# what LaTeX's last run left ---------------------------------------------------------------------
_AUX_CITATION = re.compile(r"^\\citation\{([^}]*)\}", re.MULTILINE)
_AUX_BIBLATEX = re.compile(r"^\\abx@aux@cite(?:\{[^}]*\})?\{([^}]*)\}", re.MULTILINE)
_AUX_BIBCITE = re.compile(r"^\\bibcite\{([^}]*)\}", re.MULTILINE)
_BBL_BIBITEM = re.compile(r"^\s*\\bibitem\s*(?:\[(?:[^\[\]]|\[[^\]]*\])*\])?\s*\{([^}]*)\}", re.MULTILINE)
_BBL_ENTRY = re.compile(r"^\s*\\entry\{([^}]*)\}", re.MULTILINE)
_UNDEFINED = (
    re.compile(r"Citation [`'\"]([^`'\"]+)['\"] (?:on page \d+ )?undefined"),  # LaTeX's .log
    re.compile(r"I didn't find a database entry for [\"']([^\"']+)[\"']"),  # BibTeX's and Biber's .blg
)


@dataclass(frozen=True, slots=True)
class AuxRecord:
    """What a `.aux` says: the keys cited (`\\citation`, biblatex's `\\abx@aux@cite`) and the keys
    BibTeX defined for the last run (`\\bibcite`)."""

    cited: tuple[str, ...]
    defined: tuple[str, ...]


def read_aux(text: str) -> AuxRecord:
    cited: list[str] = []
    for match in [*_AUX_CITATION.finditer(text), *_AUX_BIBLATEX.finditer(text)]:
        cited.extend(k.strip() for k in match.group(1).split(",") if k.strip())
    defined = [m.group(1).strip() for m in _AUX_BIBCITE.finditer(text)]
    return AuxRecord(tuple(dict.fromkeys(cited)), tuple(dict.fromkeys(defined)))


def read_bbl(text: str) -> tuple[str, ...]:
    """The keys of the entries a `.bbl` typesets (`\\bibitem[…]{key}`, biblatex's `\\entry{key}`)."""
    keys = [m.group(1).strip() for m in [*_BBL_BIBITEM.finditer(text), *_BBL_ENTRY.finditer(text)]]
    return tuple(dict.fromkeys(k for k in keys if k))


def undefined_citations(text: str) -> tuple[str, ...]:
    """The keys a `.log` or `.blg` says were undefined or not found in the bibliography."""
    keys = [m.group(1).strip() for pattern in _UNDEFINED for m in pattern.finditer(text)]
    return tuple(dict.fromkeys(keys))
