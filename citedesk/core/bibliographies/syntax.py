"""Where pandoc would stop reading a .bib file: the exact line and column of each syntax error.

bibtexparser (what `core.bibliographies.readers` reads BibTeX with) is lenient: it reads `title = {A}
year = 2020` (a comma missing) as two fields, and when it gives up on an entry it says where the
*entry* starts, or where its splitter happened to stop (past the comma after the bad token). pandoc
is strict: its BibTeX reader (citeproc's `Citeproc.BibTeX`, a parser over the grammar below)
rejects the whole file at the first character it cannot take, and names that character's line and
column. A writer whose pandoc build fails needs that position, so this module walks the text with
pandoc's grammar and reports, for each entry, the first character that grammar cannot take:

    entry  = "@" letters spaces "{" spaces key spaces ("," spaces fields)? spaces "}"
    key    = one or more characters, none a space or ","
    fields = field ("," spaces field)* ","?            (a trailing comma is allowed)
    field  = name spaces "=" spaces value (spaces "#" spaces value)*
    name   = letters, digits, "-", "_", ":", "+"
    value  = "{" balanced "}" | '"' balanced '"' | a word (a number or an @string name)

`\\` escapes the next character inside a value (so `\\{` opens nothing). `@comment`, `@preamble` and
`@string` are read as pandoc reads them. An `@` not followed by letters and `{` (an address in a
comment line) starts nothing here: pandoc's reading of those is stricter, but a warning that is
wrong costs the writer more than one that is missing. Columns count characters from 1 (pandoc's
parser moves a tab to the next multiple of 8; an editor counts it as one character, and the
window and reports count as the editor does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citedesk.errors import CiteDeskError

_ENTRY = re.compile(r"@[^\W\d_]+[ \t\r\n]*\{")
"""What starts an entry: `@`, its type, and its opening brace."""
_SPACES = re.compile(r"\s*")
_TYPE = re.compile(r"[^\W\d_]+")
_KEY = re.compile(r"[^\s,]+")
_NAME = re.compile(r"[\w\-:+]+")
_WORD = re.compile(r"[\w\-:+.]+")
_PLAIN = re.compile(r"[^{}\\\"]+")
_SHOWN = re.compile(r"[\w\-:+.@]+|\S")


@dataclass(frozen=True, slots=True)
class SyntaxProblem:
    """The first character of one entry that pandoc's grammar cannot take, and why (a sentence)."""

    offset: int
    reason: str
    entry_offset: int
    """Where the entry's `@` is."""


def position(text: str, offset: int) -> tuple[int, int]:
    """(line, column) of `offset`, both from 1; a column counts characters (see the module)."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def syntax_problems(text: str) -> list[SyntaxProblem]:
    """The first syntax error of each entry that has one, in order. Reading goes on after an
    error at the next entry, so one broken entry does not hide another."""
    problems: list[SyntaxProblem] = []
    at = 0
    while (match := _ENTRY.search(text, at)) is not None:
        reader = _Reader(text, match.start())
        try:
            at = reader.entry()
        except _Stop as stop:
            problems.append(SyntaxProblem(stop.offset, stop.reason, match.start()))
            at = max(stop.offset, match.start() + 1)
    return problems


class _Stop(CiteDeskError):
    """Internal control flow: caught in `syntax_problems`, never leaves this module."""

    def __init__(self, offset: int, reason: str) -> None:
        super().__init__(reason)
        self.offset = offset
        self.reason = reason


class _Reader:
    """One entry read with pandoc's grammar (the module's docstring); `_Stop` at the first error."""

    def __init__(self, text: str, start: int) -> None:
        self.text = text
        self.at = start

    def entry(self) -> int:
        """Read the entry that starts at `self.at`; return where reading goes on."""
        self.at += 1  # "@"
        kind = self._take(_TYPE)
        self._spaces()
        if self._peek() != "{":
            self._stop(f"expected `{{` after `@{kind}`")
        self.at += 1
        lowered = kind.lower()
        if lowered == "comment":
            self._balanced("}", f"`@{kind}{{`", self.at - 1)
            return self.at
        if lowered == "preamble":
            self._spaces()
            self._value("@preamble")
            return self._close(kind)
        if lowered == "string":
            self._spaces()
            self._field()
            return self._close(kind)
        self._spaces()
        key = self._take(_KEY)
        if not key:
            self._stop(f"expected the entry's key after `@{kind}{{`")
        if key.endswith("}"):  # `@misc{key}`: an entry without fields
            return self.at
        self._spaces()
        if self._peek() == "}":
            self.at += 1
            return self.at
        if self._peek() != ",":
            self._stop(f"expected `,` after the key `{key}`")
        self.at += 1
        while True:
            self._spaces()
            if self._peek() == "}":
                self.at += 1
                return self.at
            name = self._field()
            self._spaces()
            if self._peek() == "}":
                self.at += 1
                return self.at
            if self._peek() != ",":
                still_open = self._peek() == "@"
                self._stop(
                    f"expected `,` or `}}` after the value of `{name}`",
                    hint="the entry is still open where the next one starts: is a `}` missing?"
                    if still_open
                    else "is a comma missing?",
                )
            self.at += 1

    def _close(self, kind: str) -> int:
        self._spaces()
        if self._peek() != "}":
            self._stop(f"expected `}}` to close `@{kind}`")
        self.at += 1
        return self.at

    def _field(self) -> str:
        name = self._take(_NAME)
        if not name:
            at_end = self.at >= len(self.text)
            self._stop(
                "expected a field name (such as `title`) or `}`",
                hint="the entry is never closed: is a `}` missing?" if at_end else "",
            )
        self._spaces()
        if self._peek() != "=":
            self._stop(f"expected `=` after the field name `{name}`")
        self.at += 1
        self._spaces()
        self._value(name)
        while True:
            before = self.at
            self._spaces()
            if self._peek() != "#":
                self.at = before
                return name
            self.at += 1
            self._spaces()
            self._value(name)

    def _value(self, name: str) -> None:
        start, first = self.at, self._peek()
        if first == "{":
            self.at += 1
            self._balanced("}", f"the `{{` that opens the value of `{name}`", start)
        elif first == '"':
            self.at += 1
            self._balanced('"', f'the `"` that opens the value of `{name}`', start)
        elif not self._take(_WORD):
            self._stop(f'expected a value (`{{…}}`, `"…"` or a number) for `{name}`')

    def _balanced(self, closing: str, opened: str, start: int) -> None:
        """Up to and past `closing` at brace depth 0; `\\` escapes one character."""
        depth = 0
        text = self.text
        while True:
            plain = _PLAIN.match(text, self.at)
            if plain is not None:
                self.at = plain.end()
            if self.at >= len(text):
                line, column = position(text, start)
                swallowed = _ENTRY.search(text, start + 1)
                hint = "is a `}` missing?" if closing == "}" else 'is a `"` missing?'
                if swallowed is not None:
                    hint = f"it runs on into the entry on line {position(text, swallowed.start())[0]}: {hint}"
                self._stop(f"{opened} (line {line}, column {column}) is never closed", hint=hint, found=False)
            char = text[self.at]
            self.at += 1
            if char == "\\":
                self.at += 1
            elif char == "{":
                depth += 1
            elif char == "}" and depth:
                depth -= 1
            elif char == closing and not depth:
                return
            elif char == "}":  # a stray `}` inside "…"
                self._stop(f"{opened} is closed by a `}}` before its `{closing}`", self.at - 1)

    def _spaces(self) -> None:
        match = _SPACES.match(self.text, self.at)
        self.at = match.end() if match else self.at

    def _take(self, pattern: re.Pattern[str]) -> str:
        match = pattern.match(self.text, self.at)
        if match is None:
            return ""
        self.at = match.end()
        return match.group()

    def _peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def _stop(self, reason: str, offset: int | None = None, *, hint: str = "", found: bool = True) -> None:
        at = self.at if offset is None else offset
        shown = _SHOWN.match(self.text, at)
        if at >= len(self.text):
            shown_as = "the end of the file"
        elif shown is None:
            shown_as = "a line break" if self.text[at] in "\r\n" else "a space"
        else:
            shown_as = f"`{shown.group()[:30]}`"
        said = f"{reason}, found {shown_as}" if found else reason
        raise _Stop(at, said + (f" ({hint})" if hint else ""))
