"""Which parts of a LaTeX source are prose, and where its citations are, every offset exact.

A `.tex` file is read with pylatexenc's `latexwalker` (a maintained parser that gives every node
its position), in one walk that fills a `core.document.markdown.Layout` — the model every later step reads:
prose blocks (paragraphs split at blank lines, list items, footnotes as notes, captions as
captions), headings (`\\section{…}`: titles, never body text), what is never read (`opaque`:
comments, the preamble, verbatim and listings, math, `\\label`/`\\ref`, figure and table bodies,
bibliography commands) and what is markup inside prose (command names, braces, `~`, `\\%`'s
backslash) — together with the citations (`Cite`: every key with its offsets) and `\\nocite`s.

Hand-written, for a reason: the listings (`lstlisting`, `minted`, `comment`, `Verbatim`) are
blanked before parsing, since pylatexenc 2 parses their bodies as LaTeX and one stray brace in code
would swallow the rest of the document. Splitting keys and reading `\\cites`-style arguments are
hand-written too, in `core.dialects.latex.cites`, which says why.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from pylatexenc import latexwalker as lw  # type: ignore[import-untyped, unused-ignore]
from pylatexenc.macrospec import MacroSpec  # type: ignore[import-untyped, unused-ignore]

from citedesk.core.dialects.latex.bounds import TOO_DEEP, LatexTooDeepError, latex_nodes
from citedesk.core.dialects.latex.cites import (
    CITE_COMMANDS,
    MULTI_COMMANDS,
    SINGLE_COMMANDS,
    Cite,
    KeyGroup,
    blank,
    key_problem,
    multi_groups,
    split_keys,
)
from citedesk.core.dialects.latex.text import DEGREE, QUANTITY_MACROS, mask_switched_off, said_quantity
from citedesk.core.document.markdown import Block, Heading, Layout
from citedesk.core.document.markers import MalformedMarker
from citedesk.core.spans import Span, SpanSet


def _names(names: str) -> tuple[str, ...]:
    return tuple(names.split())


_HEADINGS = {
    "part": 1,
    "chapter": 1,
    "section": 2,
    "subsection": 3,
    "subsubsection": 4,
    "paragraph": 5,
    "subparagraph": 6,
}
_OPAQUE_MACROS = frozenset(
    _names(
        "label ref eqref autoref cref Cref pageref nameref vref input include subfile includeonly import "
        "bibliography addbibresource bibliographystyle printbibliography nocite includegraphics url "
        "verb vspace hspace setlength setcounter addtocounter newcommand renewcommand "
        "providecommand usepackage documentclass pagestyle thispagestyle bibitem hyperref"
    )
)
"""Commands whose arguments are never words: references, files, layout, definitions."""
_ESCAPED = frozenset("%&#$_{}")
"""`\\%` and friends: the character itself, escaped."""
_NOTE_MACROS = {"footnote": "note", "footnotetext": "note", "caption": "caption"}
_LISTINGS = ("lstlisting", "minted", "comment", "Verbatim", "BVerbatim", "alltt")
_VERBATIM_ENVIRONMENTS = frozenset(("verbatim", "verbatim*", *_LISTINGS))
_MATH_ENVIRONMENTS = frozenset(
    _names(
        "equation equation* align align* alignat alignat* gather gather* multline multline* "
        "flalign flalign* eqnarray eqnarray* displaymath math"
    )
)
_FLOAT_ENVIRONMENTS = frozenset(
    _names(
        "figure figure* table table* wrapfigure wraptable sidewaysfigure sidewaystable algorithm "
        "tabular tabular* tabularx longtable tikzpicture subfigure"
    )
)
_LISTING = re.compile(r"\\begin\{(" + "|".join(_LISTINGS) + r")\}.*?(?:\\end\{\1\}|\Z)", re.DOTALL)
_BLANK_LINE = re.compile(r"\n[ \t\r\f]*(?=\n)")


@dataclass(frozen=True)
class LatexReading:
    """A LaTeX source read: its layout, its citations in order, its `\\nocite`s and the citation
    commands that are not well formed (an empty `\\cite{}`, an unclosed brace, no braces at all)."""

    layout: Layout
    cites: tuple[Cite, ...]
    nocites: tuple[Cite, ...]
    malformed: tuple[MalformedMarker, ...]
    body: Span = (0, 0)
    """Where the document's body is (all of it when it has no `\\begin{document}`)."""
    said: tuple[tuple[int, int, str], ...] = ()
    """Figures and units written as commands, as a reader sees them: `\\SI{2.5}{\\celsius}` is
    "2.5 °C", `\\qty{25}{\\percent}` "25%", `\\textdegree C` "°C" (start, end, words)."""


def _context() -> lw.LatexContextDb:
    """pylatexenc's macros, with every citation command's arguments (star, two notes, keys) and the
    multi citations' star only (their arguments are read by `_multi_groups`)."""
    context = lw.get_default_latex_context_db()
    macros = [MacroSpec(name, "*[[{") for name in SINGLE_COMMANDS]
    macros += [MacroSpec(name, "*") for name in MULTI_COMMANDS]
    macros += [MacroSpec("nocite", "{"), MacroSpec("footcitetext", "*[[{")]
    macros += [MacroSpec(name, "*[{") for name in _HEADINGS]
    macros += [MacroSpec(name, "[{") for name in ("footnote", "footnotetext", "caption")]
    macros += [MacroSpec(name, "{") for name in ("addbibresource", "autoref", "cref", "Cref", "subfile")]
    macros += [MacroSpec(name, "[" + "{" * count) for name, count in QUANTITY_MACROS.items()]
    context.add_context_category("citedesk-latex", prepend=True, macros=macros)
    return context


_CONTEXT = _context()


@functools.lru_cache(maxsize=8)
def read_latex(text: str) -> LatexReading:
    """The reading of `text` (line breaks unified). Cached: the dialect's layout, citations,
    checks and edits all ask for the same text's reading."""
    masked, listings = _mask_listings(text)
    masked, switched_off = mask_switched_off(masked)
    nodes = latex_nodes(masked, _CONTEXT)  # within depth and deadline (`core.dialects.latex.bounds`)
    reader = _Reader(masked, listings)  # offsets are the same: listings are blanked in place
    reader.opaque += switched_off
    try:
        reader.read(nodes)
    except RecursionError:  # nesting the depth scan does not count (options in options)
        raise LatexTooDeepError(TOO_DEEP) from None
    return reader.result()


def _mask_listings(text: str) -> tuple[str, list[Span]]:
    """`text` with the bodies of listings blanked (module docstring: why by hand), and their spans.
    A `\\begin{lstlisting}` after a `%` on its line is a comment's, not a listing."""
    spans: list[Span] = []
    pieces: list[str] = []
    cursor = 0
    for match in _LISTING.finditer(text):
        line = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
        if re.search(r"(?<!\\)%", line):
            continue
        pieces.append(text[cursor : match.start()])
        pieces.append(re.sub(r"[^\n]", " ", match.group(0)))
        spans.append(match.span())
        cursor = match.end()
    pieces.append(text[cursor:])
    return "".join(pieces), spans


def _end(node: lw.LatexNode) -> int:
    return int(node.pos + node.len)


def _end_tag(text: str, node: lw.LatexEnvironmentNode) -> int:
    """Where an environment's `\\end{name}` starts: its end when it has none (left open, read to
    the end of the text: what follows its last inner `\\end{…}` is still its text)."""
    tag = "\\end{" + node.environmentname + "}"
    end = _end(node)
    return end - len(tag) if text.startswith(tag, end - len(tag)) else end


class _Reader:
    """One walk over the node tree (`read`), collecting the layout's spans and the citations.

    Prose is gathered into the open block (`_touch`), closed at a blank line (`_breaks`), at a
    display construct (a heading, a display environment, `\\par`, `\\item`), and around a footnote
    or caption, whose text is a block of its own."""

    def __init__(self, text: str, listings: list[Span]) -> None:
        self.text = text
        self.opaque: list[Span] = list(listings)
        self.markup: list[Span] = []
        self.spaces: list[Span] = []
        """Markup read as a space (`~`, `\\\\`, `\\,`, `&`); the rest of `markup` (braces, command names,
        an escape's backslash) is read as nothing, so `25\\%` is "25%" and `\\emph{wo}rd` "word"."""
        self.code: list[Span] = []
        self.headings: list[Heading] = []
        self.blocks: list[Block] = []
        self.cites: list[Cite] = []
        self.nocites: list[Cite] = []
        self.malformed: list[MalformedMarker] = []
        self.breaks = sorted([m.start() + 1 for m in _BLANK_LINE.finditer(text)] + [s for s, _ in listings])
        self.block: list[int] | None = None
        self.kind = "paragraph"
        self.body: Span = (0, len(text))
        self.said: list[tuple[int, int, str]] = []

    def result(self) -> LatexReading:
        self._close()
        empty = SpanSet.of([])
        layout = Layout(
            headings=tuple(self.headings),
            blocks=tuple(sorted(self.blocks, key=lambda b: b.start)),
            definitions=(),
            opaque=SpanSet.of(self.opaque),
            markup=SpanSet.of(self.markup),
            code=SpanSet.of(self.code),
            title_opaque=empty,
            joins=SpanSet.of(self.markup).without(self.spaces),
        )
        return LatexReading(
            layout,
            tuple(sorted(self.cites, key=lambda c: c.start)),
            tuple(self.nocites),
            tuple(sorted(self.malformed, key=lambda m: m.start)),
            self.body,
            tuple(self.said),
        )

    # blocks

    def _touch(self, start: int, end: int) -> None:
        """Prose at [start, end): it goes on the open block unless a blank line came between."""
        if end <= start:
            return
        if self.block is not None:
            i = bisect.bisect_right(self.breaks, self.block[1])
            if i < len(self.breaks) and self.breaks[i] < start:
                self._close()
        if self.block is None:
            self.block = [start, end]
        else:
            self.block[1] = max(self.block[1], end)

    def _close(self, kind: str = "paragraph") -> None:
        if self.block is not None:
            self.blocks.append(Block(self.block[0], self.block[1], self.kind))
        self.block = None
        self.kind = kind

    # the walk

    def read(self, nodes: list[lw.LatexNode]) -> None:
        """The body: inside `\\begin{document}` when there is one (the preamble and what follows
        `\\end{document}` never read, but for their `\\nocite`s), else the whole file."""
        for node in nodes:
            if isinstance(node, lw.LatexEnvironmentNode) and node.environmentname == "document":
                begin = self.text.find("}", node.pos) + 1
                end = max(begin, _end_tag(self.text, node))
                self.body = (begin, end)
                self.opaque += [(0, begin), (end, len(self.text))]
                self._find_nocites([n for n in nodes if n is not node])
                self.walk(node.nodelist)
                return
        self.walk(nodes)

    def _find_nocites(self, nodes: list[lw.LatexNode | None]) -> None:
        for node in nodes:
            if isinstance(node, lw.LatexMacroNode) and node.macroname == "nocite":
                self._cite(node)
            elif isinstance(node, lw.LatexGroupNode | lw.LatexEnvironmentNode):
                self._find_nocites(node.nodelist)

    def walk(self, nodes: list[lw.LatexNode | None], skip_to: int = 0) -> None:
        """Each node read by its kind; nodes before `skip_to` were read already (a multi
        citation's arguments, which latexwalker gives as the nodes after the command)."""
        for node in nodes:
            if node is None or _end(node) <= skip_to:
                continue
            if isinstance(node, lw.LatexCharsNode):
                self._chars(max(node.pos, skip_to), _end(node))
            elif isinstance(node, lw.LatexCommentNode):
                self.opaque.append((node.pos, _end(node)))
            elif isinstance(node, lw.LatexGroupNode):
                self._group(node)
            elif isinstance(node, lw.LatexMathNode):
                self._math(node)
            elif isinstance(node, lw.LatexSpecialsNode):
                self._specials(node)
            elif isinstance(node, lw.LatexEnvironmentNode):
                self._environment(node)
            elif isinstance(node, lw.LatexMacroNode):
                skip_to = max(skip_to, self._macro(node))

    def _chars(self, start: int, end: int) -> None:
        raw = self.text[start:end]
        for match in re.finditer(r"\S+(?:[ \t]+\S+)*", raw):
            self._touch(start + match.start(), start + match.end())

    def _group(self, node: lw.LatexGroupNode) -> None:
        """`{…}` (or an unknown command's argument): the braces are markup, the inside is read."""
        end = _end(node)
        self.markup.append((node.pos, node.pos + 1))
        if self.text[end - 1 : end] == "}":
            self.markup.append((end - 1, end))
        self.walk(node.nodelist)

    def _math(self, node: lw.LatexMathNode) -> None:
        """Inline math is shown as it is written in a claim (like inline code); display math is
        never prose and ends the block."""
        span = (node.pos, _end(node))
        self.opaque.append(span)
        if node.displaytype == "inline":
            self.code.append(span)
            self._touch(*span)
        else:
            self._close(self.kind)

    def _specials(self, node: lw.LatexSpecialsNode) -> None:
        """`~` reads as a space; TeX quotes and `&` are markup; dashes are read as written."""
        span = (node.pos, _end(node))
        if node.specials_chars in ("~", "``", "''", "&", "`", "'"):
            self.markup.append(span)
            if node.specials_chars in ("~", "&"):
                self.spaces.append(span)
        self._touch(*span)

    def _environment(self, node: lw.LatexEnvironmentNode) -> None:
        name = node.environmentname
        span = (node.pos, _end(node))
        self._close(self.kind)
        if name in _VERBATIM_ENVIRONMENTS or name in _MATH_ENVIRONMENTS:
            self.opaque.append(span)
        elif name in _FLOAT_ENVIRONMENTS:
            self._float(node)
        else:
            first = node.nodelist[0].pos if node.nodelist else span[1]
            self.opaque += [(node.pos, first), (max(first, _end_tag(self.text, node)), span[1])]
            self.walk(node.nodelist)
        self._close()

    def _float(self, node: lw.LatexEnvironmentNode) -> None:
        """A figure or table: never read, but its captions, each a block of its own."""
        captions: list[lw.LatexMacroNode] = []
        _collect(node.nodelist, "caption", captions)
        cursor = node.pos
        for caption in captions:
            self.opaque.append((cursor, caption.pos))
            self._macro(caption)
            cursor = _end(caption)
        self.opaque.append((cursor, _end(node)))

    def _macro(self, node: lw.LatexMacroNode) -> int:
        """A command by its kind; answers where reading goes on (after a multi citation's arguments)."""
        name = node.macroname
        span = (node.pos, _end(node))
        if name in CITE_COMMANDS:
            return self._cite(node, touch=True)
        if name in _OPAQUE_MACROS:
            if name == "nocite":
                self._cite(node)
            self.opaque.append(span)
        elif name in _HEADINGS:
            self._heading(node, _HEADINGS[name])
        elif name in _NOTE_MACROS:
            self._note(node, _NOTE_MACROS[name])
        elif name in ("item", "par"):
            self._close("list_item" if name == "item" else "paragraph")
            self.opaque.append(span)
        elif name in _ESCAPED:
            self.markup.append((node.pos, node.pos + 1))  # `\%`: the sign is read, not its backslash
            self._touch(*span)
        elif len(name) == 1 and not name.isalpha() and not (node.nodeargd and node.nodeargd.argnlist):
            self.markup.append(span)  # `\\`, `\,`: a break or a space, no word
            self.spaces.append(span)
            self._touch(*span)
        elif name in QUANTITY_MACROS or name in ("textdegree", "degree"):
            return self._quantity(node)
        else:
            self._command(node)
        return span[1]

    def _quantity(self, node: lw.LatexMacroNode) -> int:
        """A figure or unit written as a command: markup, said as the reader sees it (`said`), so
        the figure checks read `\\SI{2.5}{\\celsius}` as "2.5 °C". Answers where reading goes on
        (after the letter of `\\textdegree C`)."""
        end = _end(node)
        if node.macroname in ("textdegree", "degree"):
            found = DEGREE.match(self.text, node.pos)
            end = found.end() if found and found.group(1) else end
            words = "°" + (found.group(1) or "" if found else "")
        else:
            args = [a for a in (node.nodeargd.argnlist if node.nodeargd else []) if a is not None]
            groups = [
                self.text[a.pos + 1 : _end(a) - 1]
                for a in args
                if getattr(a, "delimiters", None) == ("{", "}")
            ]
            if len(groups) != QUANTITY_MACROS[node.macroname]:
                self._command(node)  # not as siunitx writes it: read as any command
                return end
            words = said_quantity(node.macroname, groups)
        self.markup.append((node.pos, end))
        self.said.append((node.pos, end, words))
        self._touch(node.pos, end)
        return end

    def _command(self, node: lw.LatexMacroNode) -> None:
        """`\\emph{…}` and any other command: its name and braces are markup, the text of its
        arguments is read; an optional argument (`[width=…]`) is an option, not words."""
        args = [a for a in (node.nodeargd.argnlist if node.nodeargd else []) if a is not None]
        first = args[0].pos if args else _end(node)
        self.markup.append((node.pos, first))
        for arg in args:
            if isinstance(arg, lw.LatexGroupNode) and arg.delimiters == ("{", "}"):
                self._group(arg)
            elif isinstance(arg, lw.LatexGroupNode) or getattr(arg, "chars", None) == "*":
                self.markup.append((arg.pos, _end(arg)))  # an option or a star
            else:
                self._touch(arg.pos, _end(arg))  # an accent's letter (`\'e`): a word's

    def _heading(self, node: lw.LatexMacroNode, level: int) -> None:
        """`\\section{Title}`: a title, never body text; a citation in it counts."""
        self._close()
        span = (node.pos, _end(node))
        self.opaque.append(span)
        title = _last_group(node)
        if title is not None:
            content = (title.pos + 1, max(title.pos + 1, _end(title) - 1))
            self.headings.append(Heading(span[0], span[1], level, _plain(title.nodelist), content))
            saved = self.block
            self._find_cites(title.nodelist)
            self.block = saved

    def _find_cites(self, nodes: list[lw.LatexNode | None]) -> None:
        """The citations inside a heading's title (nothing else of it is read)."""
        skip_to = 0
        for node in nodes:
            if node is None or node.pos < skip_to:
                continue
            if isinstance(node, lw.LatexMacroNode) and node.macroname in CITE_COMMANDS:
                skip_to = self._cite(node, touch=False)
            elif isinstance(node, lw.LatexGroupNode):
                self._find_cites(node.nodelist)
            elif isinstance(node, lw.LatexMacroNode) and node.nodeargd:
                self._find_cites([a for a in node.nodeargd.argnlist if isinstance(a, lw.LatexGroupNode)])

    def _note(self, node: lw.LatexMacroNode, kind: str) -> None:
        """A footnote or caption: its text is a block of its own (a note, a caption), inside the
        paragraph around it, which goes on after it (`sentences.split_sentences` reads a block
        without the blocks inside it)."""
        outer, around = self.kind, self.block
        self.block, self.kind = None, kind
        text = _last_group(node)
        end = _end(node)
        if text is None:
            self.opaque.append((node.pos, end))
        else:
            self.opaque.append((node.pos, text.pos + 1))
            if self.text[end - 1 : end] == "}":
                self.opaque.append((end - 1, end))
            self.walk(text.nodelist)
        self._close(outer)
        self.block = around  # the paragraph goes on around its footnote: one sentence, not two

    # citations

    def _cite(self, node: lw.LatexMacroNode, *, touch: bool = False) -> int:
        """A citation command read into `cites` (or `nocites`), or a malformed one; answers where
        reading goes on. With `touch`, it is part of the open block (not in a title)."""
        name = node.macroname
        start = node.pos
        if (
            name != "nocite"
            and self.text[start - 1 : start] == "~"
            and self.text[start - 2 : start - 1] != "\\"
        ):
            start -= 1  # the tie binds the citation to the word before: it goes with it
        if name in MULTI_COMMANDS:
            groups, end, problem = multi_groups(self.text, _end(node))
        else:
            groups, end, problem = self._single_group(node)
        if problem is None and not any(g.keys for g in groups):
            problem = "it cites no key"
        if name == "nocite":
            if problem is None:
                self.nocites.append(Cite(start, end, name, tuple(groups)))
            return end
        if problem is not None:
            line_end = self.text.find("\n", node.pos)
            bad_end = end if line_end == -1 or end <= line_end else line_end  # an open brace: its line
            self.malformed.append(MalformedMarker(start, bad_end, problem))
            if touch:
                self._touch(start, bad_end)
            if end > bad_end:  # an unclosed brace swallowed the rest: read it as the text it is
                last = _last_group(node)
                self.walk(last.nodelist if last is not None else [], skip_to=bad_end)
            return end
        locator = any(g.notes and self.text[g.notes[-1][0] + 1 : g.notes[-1][1] - 1].strip() for g in groups)
        self.cites.append(Cite(start, end, name, tuple(groups), locator=bool(locator)))
        if touch:
            self._touch(start, end)
        return end

    def _single_group(self, node: lw.LatexMacroNode) -> tuple[list[KeyGroup], int, str | None]:
        """The keys of `\\cite*[pre][post]{a, b}` (latexwalker's arguments)."""
        args = list(node.nodeargd.argnlist) if node.nodeargd else []
        group = args[-1] if args else None
        end = _end(node)
        if not isinstance(group, lw.LatexGroupNode) or group.delimiters != ("{", "}"):
            return [], end, "it has no keys in braces"
        notes = tuple(
            (a.pos, _end(a))
            for a in args[1:-1]
            if isinstance(a, lw.LatexGroupNode) and a.delimiters == ("[", "]")
        )
        if self.text[end - 1 : end] != "}":
            return [], end, "its brace is never closed"
        comments = [(c.pos, _end(c)) for c in group.nodelist if isinstance(c, lw.LatexCommentNode)]
        content = blank(self.text, group.pos + 1, end - 1, comments)
        problem = key_problem(content)
        if problem is not None:
            return [], end, problem
        keys = split_keys(content, group.pos + 1)
        return [KeyGroup(notes[0][0] if notes else group.pos, end, group.pos, keys, notes)], end, None


def _last_group(node: lw.LatexMacroNode) -> lw.LatexGroupNode | None:
    args = node.nodeargd.argnlist if node.nodeargd else []
    groups = [a for a in args if isinstance(a, lw.LatexGroupNode) and a.delimiters == ("{", "}")]
    return groups[-1] if groups else None


def _collect(nodes: list[lw.LatexNode | None], name: str, found: list[lw.LatexMacroNode]) -> None:
    """Every command called `name` inside `nodes`, however deep (a caption in a minipage)."""
    for node in nodes:
        if isinstance(node, lw.LatexMacroNode):
            if node.macroname == name:
                found.append(node)
            elif node.nodeargd:
                _collect([a for a in node.nodeargd.argnlist if isinstance(a, lw.LatexGroupNode)], name, found)
        elif isinstance(node, lw.LatexGroupNode | lw.LatexEnvironmentNode):
            _collect(node.nodelist, name, found)


def _plain(nodes: list[lw.LatexNode | None]) -> str:
    """A title's words (`Results for \\emph{Ae.} aegypti \\cite{x}` → `Results for Ae. aegypti`):
    the text of its characters and of its commands' arguments, citations and math left out."""
    words: list[str] = []
    for node in nodes:
        if isinstance(node, lw.LatexCharsNode):
            words.append(node.chars)
        elif isinstance(node, lw.LatexSpecialsNode):
            words.append(" " if node.specials_chars == "~" else "")
        elif isinstance(node, lw.LatexGroupNode):
            words.append(_plain(node.nodelist))
        elif isinstance(node, lw.LatexMacroNode) and node.macroname not in CITE_COMMANDS | _OPAQUE_MACROS:
            if len(node.macroname) == 1 and not node.macroname.isalpha():
                words.append(node.macroname)
            elif (group := _last_group(node)) is not None:
                words.append(_plain(group.nodelist))
    return " ".join("".join(words).split())
