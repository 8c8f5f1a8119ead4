"""LaTeX is parsed within bounds: nesting depth and the audit's time (issue 37).

pylatexenc's latexwalker parses by recursion: every brace, environment or command argument inside
another is a few more Python frames, so text nested a few hundred levels deep (`{{{…`, an unclosed
`\\cite{{{…`, `\\begin{itemize}` four hundred times) would raise RecursionError deep in the parser.
`latex_nodes` parses for `core.dialects.latex.reading` and `core.projects.latex` alike: a linear scan first refuses
text nested more than `MAX_LATEX_DEPTH` levels (braces and environments, outside comments and
verbatim; `LatexTooDeepError`, with the line), and a RecursionError the scan did not foresee
(optional arguments inside each other) is the same error. Real documents nest a dozen levels.

The parser is pure Python, a few seconds per MB of source, so a parse also stops at the deadline
that `parse_deadline` sets for the current thread (an audit's time budget, `--timeout`):
`LatexOutOfTimeError`; and past `MAX_LATEX_NODES` parts, which bounds its memory whatever the
text is made of (`LatexTooLargeError`). The caller that knows the file names it (`LatexLimitError.at`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Self

from pylatexenc import latexwalker as lw  # type: ignore[import-untyped, unused-ignore]

from citedesk.errors import CiteDeskError, DocumentError

MAX_LATEX_DEPTH = 100
"""Braces and environments inside each other, at most (pylatexenc recursed past ~160 commands deep)."""
MAX_LATEX_NODES = 1_200_000
"""Parts (commands, groups, runs of characters, `~`…) of one file's parse, at most: each holds about
500 bytes while the file is read, so this bounds the memory whatever the file is made of (a
thesis has under 100,000 per MB; 8 MB of `~` would have 8 million)."""
_TICKS = 4096
"""Tokens read between two looks at the clock."""

_VERBATIM = r"verbatim\*?|lstlisting|minted|comment|Verbatim|BVerbatim|alltt|filecontents\*?"
_DEPTH_TOKENS = re.compile(
    r"%[^\n]*"  # a comment
    r"|\\verb\*?([^A-Za-z\s*])[^\n]*?(?:\1|$)"  # \verb|…|: its braces are characters
    r"|\\begin[ \t]*\{(" + _VERBATIM + r")\}.*?(?:\\end[ \t]*\{\2\}|\Z)"  # a verbatim body
    r"|\\(begin|end)[ \t]*\{[^{}\n]*\}"  # an environment opened or closed
    r"|\\."  # an escaped character: `\{`, `\%`, `\\`
    r"|[{}]",
    re.DOTALL | re.MULTILINE,
)

_DEADLINE: ContextVar[float | None] = ContextVar("citedesk_latex_deadline", default=None)


class LatexLimitError(CiteDeskError):
    """A LaTeX text CiteDesk does not parse to the end; `at(source)` names the file."""

    kind = "latex_limit"

    def __init__(self, reason: str, *, line: int | None = None, source: str | None = None) -> None:
        self.reason = reason
        self.line = line
        self.source = source
        super().__init__(self.message)

    @property
    def message(self) -> str:
        where = (self.source or "") + (f", line {self.line}" if self.line is not None else "")
        return f"{where}: {self.reason}" if where else self.reason[:1].upper() + self.reason[1:]

    def at(self, source: object) -> Self:
        """The same error, naming the file it is in (kept when it names one already)."""
        if self.source is not None:
            return self
        return type(self)(self.reason, line=self.line, source=str(source))


class LatexTooDeepError(LatexLimitError, DocumentError):
    """Braces or environments nested more than MAX_LATEX_DEPTH levels: not parsed (exit 2)."""

    kind = "document"


class LatexTooLargeError(LatexLimitError, DocumentError):
    """More than MAX_LATEX_NODES parts in one file: not read (exit 2)."""

    kind = "document"


class LatexOutOfTimeError(LatexLimitError):
    """The parse did not finish before the audit's deadline (exit 2). Not an InputError: nothing
    that skips an unreadable file may skip this one, the time is gone for all of them."""

    kind = "timeout"


TOO_DEEP = (
    f"the LaTeX is nested more than {MAX_LATEX_DEPTH} levels deep (braces or environments inside "
    "each other, or a brace never closed), so it was not read: check for an unclosed `{` or "
    "`\\begin{…}` there"
)
TOO_MANY_PARTS = (
    f"the LaTeX has more than {MAX_LATEX_NODES:,} parts (commands, braces, special characters), more "
    "than CiteDesk reads in one file, so it was not read: split it into files the main file "
    "includes (\\input)"
)
OUT_OF_TIME = (
    "reading the LaTeX did not finish within the audit's time budget (--timeout), so nothing was "
    "audited: give it more time (--timeout SECONDS) or split the file into files the main file "
    "includes (\\input)"
)


def too_deep_at(text: str) -> int | None:
    """The 1-based line where `text` first nests deeper than MAX_LATEX_DEPTH, or None. One linear
    pass; braces in comments, `\\verb` and verbatim environments, and escaped ones, do not count; a
    stray closing brace or `\\end` never takes the depth below nothing."""
    if text.count("{") + text.count("\\begin") <= MAX_LATEX_DEPTH:
        return None
    braces = environments = 0
    for match in _DEPTH_TOKENS.finditer(text):
        token = match.group(0)
        if token == "{":
            braces += 1
        elif token == "}":
            braces = max(0, braces - 1)
        elif match.group(3) == "begin":
            environments += 1
        elif match.group(3) == "end":
            environments = max(0, environments - 1)
        else:
            continue
        if braces + environments > MAX_LATEX_DEPTH:
            return text.count("\n", 0, match.start()) + 1
    return None


@contextmanager
def parse_deadline(deadline: float | None) -> Iterator[None]:
    """LaTeX parsed on this thread inside the block stops at `deadline` (a `time.monotonic()`
    value; None: the one already set, if any, stays)."""
    if deadline is None:
        yield
        return
    earlier = _DEADLINE.get()
    token = _DEADLINE.set(deadline if earlier is None else min(earlier, deadline))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


@contextmanager
def naming(source: object) -> Iterator[None]:
    """A LaTeX limit reached inside the block names `source` (the file whose text was parsed)."""
    try:
        yield
    except LatexLimitError as exc:
        raise exc.at(source) from None


class _Walker(lw.LatexWalker):  # type: ignore[misc, unused-ignore]
    """latexwalker, counting the nodes it makes and looking at the clock every `_TICKS` tokens (a
    token is often one character)."""

    def __init__(self, text: str, deadline: float | None, **kwargs: Any) -> None:
        super().__init__(text, **kwargs)
        self._deadline = deadline
        self._ticks = 0
        self._nodes = 0

    def get_token(self, *args: Any, **kwargs: Any) -> Any:
        self._ticks += 1
        if self._deadline is not None and self._ticks % _TICKS == 0 and time.monotonic() >= self._deadline:
            raise LatexOutOfTimeError(OUT_OF_TIME)
        return super().get_token(*args, **kwargs)

    def make_node(self, *args: Any, **kwargs: Any) -> Any:
        self._nodes += 1
        if self._nodes > MAX_LATEX_NODES:
            raise LatexTooLargeError(TOO_MANY_PARTS)
        return super().make_node(*args, **kwargs)


def latex_nodes(text: str, context: Any) -> list[Any]:
    """latexwalker's nodes of `text` (tolerant parsing), within the depth, the number of nodes and
    the deadline."""
    line = too_deep_at(text)
    if line is not None:
        raise LatexTooDeepError(TOO_DEEP, line=line)
    deadline = _DEADLINE.get()
    if deadline is not None and time.monotonic() >= deadline:
        raise LatexOutOfTimeError(OUT_OF_TIME)
    walker = _Walker(text, deadline, latex_context=context, tolerant_parsing=True)
    try:
        nodes, _, _ = walker.get_latex_nodes()
    except RecursionError:
        raise LatexTooDeepError(TOO_DEEP) from None
    return list(nodes or [])
