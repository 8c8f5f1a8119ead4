"""LaTeX citations as data, and the hand-written part of reading them (`core.dialects.latex.reading` walks the
document with latexwalker and hands each citation command's arguments here).

By hand, each for a reason: keys are split at commas inside the braces with their offsets
(latexwalker gives the group, not its keys); `\\cites`-style multi citations are read argument by
argument (their number of arguments varies, which an argument spec cannot say).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citedesk.core.spans import Span


def _names(names: str) -> tuple[str, ...]:
    return tuple(names.split())


SINGLE_COMMANDS = _names(
    "cite citep citet citealp citealt citeauthor citeyear citeyearpar citenum parencite textcite "
    "autocite footcite footcitetext smartcite supercite fullcite Cite Citep Citet Citealp Citealt "
    "Citeauthor Parencite Textcite Autocite Footcite Smartcite"
)
MULTI_COMMANDS = _names(
    "cites parencites textcites autocites footcites smartcites supercites Cites Parencites Textcites "
    "Autocites Smartcites"
)
CITE_COMMANDS = frozenset(SINGLE_COMMANDS) | frozenset(MULTI_COMMANDS)
"""Every command read as a citation (natbib's and biblatex's), starred or not."""
IN_TEXT_COMMANDS = frozenset(
    _names("citet Citet citealt Citealt citeauthor Citeauthor textcite Textcite textcites Textcites")
)
"""Citations that are words of their sentence (`\\citet{doe99} shows`): no new citation joins
them, and removing one would take a word out of the sentence."""


@dataclass(frozen=True, slots=True)
class CiteKey:
    key: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class KeyGroup:
    """One `{a, b}` of a citation with the optional notes before it (`[see][p.~4]`)."""

    start: int
    """Where its notes start (or its `{` when it has none)."""
    end: int
    """After its `}`."""
    brace: int
    """Where its `{` is."""
    keys: tuple[CiteKey, ...]
    notes: tuple[Span, ...] = ()
    """Each optional argument, brackets included."""

    @property
    def content(self) -> Span:
        return self.brace + 1, self.end - 1


@dataclass(frozen=True, slots=True)
class Cite:
    """A citation command: `\\citep[see][p.~4]{a,b}`, `\\cites{a}[p.~3]{b}`, `\\nocite{*}`."""

    start: int
    """Its tie `~` when one binds it to the word before (it goes with the citation), else its `\\`."""
    end: int
    command: str
    """The command's name without its backslash and star (`citep`, `Textcite`, `nocite`)."""
    groups: tuple[KeyGroup, ...]
    locator: bool = False
    """Whether a note that may be a locator goes with one of its groups (a swap would keep it for
    the wrong work)."""

    @property
    def keys(self) -> tuple[CiteKey, ...]:
        return tuple(k for g in self.groups for k in g.keys)

    @property
    def in_text(self) -> bool:
        return self.command in IN_TEXT_COMMANDS


_MULTI_NOTE = re.compile(r"[ \t]*(?:\r?\n[ \t]*)?")
"""The spaces LaTeX skips between a multi citation's arguments (one line break at most)."""


def blank(text: str, start: int, end: int, spans: list[Span]) -> str:
    """text[start:end] with `spans` (comments) turned to spaces: same length, same offsets."""
    chars = list(text[start:end])
    for s, e in spans:
        for i in range(max(s, start), min(e, end)):
            chars[i - start] = " "
    return "".join(chars)


def key_problem(content: str) -> str | None:
    if re.search(r"\n[ \t\r]*\n", content):
        return "a blank line is inside its braces (a brace left open?)"
    if re.search(r"[\\{}]", content):
        return "a command or brace is inside its keys (a brace left open?)"
    return None


def split_keys(content: str, offset: int) -> tuple[CiteKey, ...]:
    """The keys of a citation's braces (`content` starts at `offset`), each at its exact offsets:
    split at commas by hand, since latexwalker gives the group and not its keys; spaces around a
    key are LaTeX's to skip (`{ a , b }`), an empty place between commas cites nothing."""
    keys: list[CiteKey] = []
    for match in re.finditer(r"[^,\s]+(?:[ \t]+[^,\s]+)*", content):
        keys.append(CiteKey(match.group(0), offset + match.start(), offset + match.end()))
    return tuple(keys)


def _balanced(text: str, pos: int, close: str) -> int | None:
    """The offset after the `close` that ends the argument opened at `pos` (braces nested inside
    counted, `\\{` escaped), or None when it is not closed before a blank line."""
    depth = 0
    i = pos + 1
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char == "\n" and re.match(r"\n[ \t\r]*\n", text[i:]):
            return None
        if char == "{":
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
        elif char == close and depth == 0:
            return i + 1
        i += 1
    return None


def multi_groups(text: str, pos: int) -> tuple[list[KeyGroup], int, str | None]:
    """`\\cites(pre)(post)[pre][post]{a}[p.~3]{b}`: read by hand (module docstring), the global
    notes in parentheses skipped, then each key group with at most two notes before it."""
    for _ in range(2):
        at = pos + _MULTI_NOTE.match(text, pos).end() - pos  # type: ignore[union-attr]
        if text[at : at + 1] != "(":
            break
        closed = _balanced(text, at, ")")
        if closed is None:
            return [], pos, "a note in parentheses is never closed"
        pos = closed
    groups: list[KeyGroup] = []
    while True:
        at = _MULTI_NOTE.match(text, pos).end()  # type: ignore[union-attr]
        notes: list[Span] = []
        while text[at : at + 1] == "[" and len(notes) < 2:
            closed = _balanced(text, at, "]")
            if closed is None:
                break
            notes.append((at, closed))
            at = _MULTI_NOTE.match(text, closed).end()  # type: ignore[union-attr]
        if text[at : at + 1] != "{":
            break  # notes not followed by keys are text
        closed = _balanced(text, at, "}")
        if closed is None:
            return groups, len(text), "its brace is never closed"
        problem = key_problem(text[at + 1 : closed - 1])
        if problem is not None:
            return groups, closed, problem
        keys = split_keys(text[at + 1 : closed - 1], at + 1)
        groups.append(KeyGroup(notes[0][0] if notes else at, closed, at, keys, tuple(notes)))
        pos = closed
    if not groups:
        return [], pos, "it has no keys in braces"
    return groups, pos, None
