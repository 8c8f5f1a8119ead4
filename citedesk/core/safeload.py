"""Guarded JSON and YAML loading for bibliographies and front matter, and bounds for TOML settings
files (`toml_excess`): never a RecursionError, never a parser's quadratic memory.

`json.loads` and PyYAML recurse once per level of nesting, so 100,000 nested brackets run out of
stack, which would read as a bug (exit 3). These loaders refuse such input first, with a
BibliographyError that names the file and line (exit 2): lists or mappings nested more than
`MAX_NESTING` levels deep, and numbers too long to convert.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate

import yaml

from citedesk.core.bibliographies.model import BibliographyError
from citedesk.errors import CiteDeskError

MAX_NESTING = 100
"""How deeply lists and mappings may sit inside each other in a bibliography or a document's YAML
front matter. No real bibliography nests past about 5 (the list of items, an item, its authors, an
author; a date's `date-parts`); deeper data is a broken or hostile file, refused before the parsers,
which recurse once a level, run out of stack (a RecursionError, which would read as a bug)."""

_TOO_DEEP = (
    f"the data is nested more than {MAX_NESTING} levels deep (lists or mappings inside each other), "
    "which no bibliography needs: is the file damaged?"
)
_TOO_LONG = "a number in it is thousands of digits long, which no bibliography needs: is the file damaged?"
_JSON_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL)
_JSON_TOKEN = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"|[\[\]{}]', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]++")


def safe_json(text: str, *, source: str | None = None) -> object:
    """`json.loads`, refusing what cannot be a bibliography with a BibliographyError (never a
    RecursionError or ValueError): text that is not JSON, data nested more than MAX_NESTING levels
    deep (checked by a linear scan before parsing), a number too long to convert."""
    too_deep = _json_too_deep(text)
    if too_deep is not None:
        raise BibliographyError(_TOO_DEEP, source=source, line=too_deep)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BibliographyError(
            f"this is not valid JSON ({exc.msg})", source=source, line=exc.lineno, column=exc.colno
        ) from exc
    except RecursionError as exc:  # the scan above should have caught it: a fallback
        raise BibliographyError(_TOO_DEEP, source=source) from exc
    except ValueError as exc:  # a number of thousands of digits (Python's int conversion limit)
        raise BibliographyError(_TOO_LONG, source=source) from exc


def json_too_deep(text: str) -> bool:
    """Whether JSON text nests lists and objects more than MAX_NESTING levels deep (strings
    skipped), by a linear scan: for JSON that is no bibliography (a judge server's answer, a Word
    citation field's data), checked before `json.loads` recurses into it."""
    return _json_too_deep(text) is not None


def _json_too_deep(text: str) -> int | None:
    """The line where JSON text first nests deeper than MAX_NESTING, or None: strings are skipped
    and the brackets left are counted, in linear time (the regexes run in C; the Python loop only
    over brackets, and over tokens only to find the line of a text that is too deep)."""
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return None
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    if max(accumulate(1 if c in "[{" else -1 for c in brackets), default=0) <= MAX_NESTING:
        return None
    depth = 0
    for token in _JSON_TOKEN.finditer(text):
        mark = token.group()
        if mark in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return text.count("\n", 0, token.start()) + 1
        elif mark in "]}":
            depth -= 1
    return None


class _TooDeepError(CiteDeskError):
    """Raised inside the loader at the first level too deep; turned into a BibliographyError."""

    def __init__(self, mark: yaml.Mark | None) -> None:
        super().__init__(_TOO_DEEP)
        self.mark = mark


class _GuardedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, which refuses a list or mapping nested more than MAX_NESTING levels deep
    as soon as it meets one (before its composer recurses any deeper)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.nesting = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if not self.check_event(yaml.SequenceStartEvent, yaml.MappingStartEvent):
            return super().compose_node(parent, index)
        if self.nesting >= MAX_NESTING:
            raise _TooDeepError(self.peek_event().start_mark)  # type: ignore[no-untyped-call]
        self.nesting += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.nesting -= 1


def _load_yaml(text: str, source: str | None, first_line: int) -> tuple[yaml.Node | None, object]:
    """The YAML document's node (for line numbers) and its data; BibliographyError for YAML that
    cannot be read, is nested too deep, or holds a number too long to convert."""
    loader = _GuardedLoader(text)
    try:
        node = loader.get_single_node()
        return node, loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or "it does not parse"
        line = mark.line + first_line if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        raise BibliographyError(
            f"this is not valid YAML ({problem})", source=source, line=line, column=column
        ) from exc
    except _TooDeepError as exc:
        line = exc.mark.line + first_line if exc.mark is not None else None
        raise BibliographyError(_TOO_DEEP, source=source, line=line) from exc
    except RecursionError as exc:  # the composer's guard should have refused it first: a fallback
        raise BibliographyError(_TOO_DEEP, source=source) from exc
    except ValueError as exc:  # a number of thousands of digits (Python's int conversion limit)
        raise BibliographyError(_TOO_LONG, source=source) from exc
    finally:
        loader.dispose()


def safe_yaml(text: str, *, source: str | None = None, first_line: int = 1) -> object:
    """`yaml.safe_load`, refusing what cannot be a bibliography or front matter with a
    BibliographyError (never a RecursionError or ValueError): YAML that does not parse ("this is
    not valid YAML (…)"), lists or mappings nested more than MAX_NESTING levels deep, a number too
    long to convert. `first_line` is the line of the file `text` starts on (2 for front matter
    after its `---`), so that the error's line is the file's."""
    return _load_yaml(text, source, first_line)[1]


# --- TOML (settings files) -------------------------------------------------------------------------------
MAX_TOML_KEYS = 1000
"""Keys (`=` outside strings) in one settings file; CiteDesk has a few dozen."""
MAX_TOML_KEY_PARTS = 16
"""Dotted parts of one key (`a.b.c`): tomllib's memory grows with their square (a 120 KB key of
60,000 parts took 3.8 GB)."""
MAX_TOML_DEPTH = 16
"""Arrays and tables inside one another: tomllib recurses once per level."""

_QUOTES = "\"'"


def toml_excess(text: str) -> str | None:
    """Why `text` is too much for `tomllib` to read safely (more than MAX_TOML_KEYS keys, a key of
    more than MAX_TOML_KEY_PARTS dotted parts, arrays and tables nested more than MAX_TOML_DEPTH
    deep), or None. One pass over the characters outside strings and comments, which are what TOML
    reads as structure; a dot in a number (`1.5`) counts as a part, harmlessly."""
    keys = depth = dots = 0
    at, end = 0, len(text)
    while at < end:
        char = text[at]
        if char in _QUOTES:
            at = _string_end(text, at)
            continue
        if char == "#":
            at = text.find("\n", at)
            at = end if at < 0 else at
            continue
        if char in "[{":
            depth += 1
            if depth > MAX_TOML_DEPTH:
                return f"arrays or tables nested more than {MAX_TOML_DEPTH} deep"
        elif char in "]}":
            depth = max(0, depth - 1)
        elif char == ".":
            dots += 1
            if dots >= MAX_TOML_KEY_PARTS:
                return f"a key of more than {MAX_TOML_KEY_PARTS} dotted parts"
        if char in "\n=,{}":
            dots = 0
        if char == "=":
            keys += 1
            if keys > MAX_TOML_KEYS:
                return f"more than {MAX_TOML_KEYS} keys"
        at += 1
    return None


def _string_end(text: str, start: int) -> int:
    """Where the TOML string that opens at `start` ends (just past its closing quote; the end of the
    text when it never closes). Basic strings (`"`) have backslash escapes; literal ones (`'`) do not."""
    quote = text[start]
    escapes = quote == '"'
    if text.startswith(quote * 3, start):  # multi-line: closed by the last three of a run of quotes
        at = start + 3
        while True:
            at = _next_quote(text, at, quote, escapes)
            if at < 0:
                return len(text)
            if text.startswith(quote * 3, at):
                while at < len(text) and text[at] == quote:
                    at += 1
                return at
            at += 1
    at = _next_quote(text, start + 1, quote, escapes)
    return len(text) if at < 0 else at + 1


def _next_quote(text: str, at: int, quote: str, escapes: bool) -> int:
    """The index of the next unescaped `quote` from `at`, or -1."""
    while True:
        found = text.find(quote, at)
        if found < 0 or not escapes:
            return found
        slashes = 0
        while text[found - 1 - slashes] == "\\":
            slashes += 1
        if slashes % 2 == 0:
            return found
        at = found + 1
