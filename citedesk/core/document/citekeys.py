"""Pandoc citations — `[@a]`, `[see @a, p. 3; -@b]`, `@a`, `@a [p. 33]`, `@{odd key}` — with offsets.

The rules are pandoc's own (its Markdown reader, `Text.Pandoc.Readers.Markdown.cite` and
`Text.Pandoc.Parsing.Citations.citeKey`, and MANUAL.txt "Citation syntax"):

- A key starts with a letter, digit, `_` (or `*`, the nocite wildcard) and goes on with letters,
  digits and `_`; one of `:.#$%&-+?<>~/` belongs to it only when a letter, digit or `_` follows
  (`@Foo_bar.baz.` cites `Foo_bar.baz`; `@a--b` cites `a`), and `:` or `/` also when `/` follows
  (`@https://x.org/a`). `@{…}` takes any characters but spaces, braces balanced; the braces are not
  part of the key.
- `@` (or `-@`) right after a word — letters, digits, a period, a closed emphasis — is not a
  citation: `john@example.com`, `a.@b`, `*x*@y`. `\\@` is an escaped `@`.
- A bracketed group is `[` items separated by `;` `]`; every item holds a key, with an optional
  prefix before it and suffix (locator) after it, and the group is not followed by `(`, `[` or `{`
  (that would make it a link, a reference link or a span). `[-@a]` suppresses the author.
- An in-text citation `@a` (or `-@a`) may be followed, after spaces and at most one line break, by a
  bracket: a group (`@a [see @b]`: one citation of a and b) or a locator with more items
  (`@a [p. 33; @b]`).
- `(@label)` at the start of a line is an example-list label, and `@label` refers to it.

Code spans and blocks, URLs, link targets and other opaque spans of `core.document.markdown` are skipped.
Inline math (`$…$`) is skipped too, as pandoc reads it as math.

Cross-references use the same syntax: pandoc-crossref's `[@fig:map]`, `@sec:intro`, and Quarto's
`@fig-map`, `@tbl-results`, `@sec-intro` … (`is_cross_reference`). They point into the document, not
at a work, so the document model leaves them out unless the bibliography has such a key.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from citedesk.core.document.locators import Locator, parse_locator
from citedesk.core.document.markdown import Layout, scan_markdown
from citedesk.core.spans import Span, SpanSet

KEY_PUNCTUATION = frozenset(":.#$%&-+?<>~/")
"""Characters a key may hold between letters and digits (pandoc's `simpleCiteIdentifier`)."""

MAX_GROUP = 2000
"""A bracket longer than this is not searched for a citation group (pandoc sets no limit; real
groups are far shorter, and the cap keeps the scan linear on text full of unclosed brackets)."""

_EXAMPLE_LABEL = re.compile(r"^[ \t]{0,3}\(@([\w-]*)\)(?=[ \t]|$)", re.MULTILINE)
_INLINE_MATH = re.compile(r"(?<!\\)(?:\$\$.+?\$\$|\$(?![\s$])[^$\n]*?(?<![\s\\])\$(?!\d))", re.DOTALL)
# What pandoc takes for a link destination after `]`: `(url "title")`, the url in <…> or with
# balanced parentheses. `[@a](url)` is a link, `[@a](, p. 3` is still a citation.
_LINK_SOURCE = re.compile(
    r"""\([ \t\n]*(?:<[^<>\n]*>|(?:[^\s()]|\([^\s()]*\))*)"""
    r"""(?:[ \t\n]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?[ \t\n]*\)"""
)
_ATTRIBUTES = re.compile(
    r"""\{[ \t]*(?:(?:[.#]?[\w:-]+|[\w:-]+=(?:"[^"\n]*"|'[^'\n]*'|[^\s}]+)|-)[ \t]*)*\}"""
)
_SIMPLE_KEY = re.compile(r"[\w*](?:\w|[:.#$%&\-+?<>~/](?=\w)|[:/](?=/))*")


_CROSS_REFERENCE = re.compile(
    r"(?:fig|sec|eq|tbl|lst):\w"  # pandoc-crossref's prefixes
    r"|(?:fig|tbl|lst|tip|nte|wrn|imp|cau|thm|lem|cor|prp|cnj|def|exm|exr|sol|rem|alg|eq|sec)-\w"  # Quarto's
)


def is_cross_reference(key: str) -> bool:
    """Whether `key` is a pandoc-crossref or Quarto cross-reference label (`fig:map`, `tbl-results`):
    the prefixes those tools reserve for figures, tables, sections, equations, listings, theorems,
    callouts and the like."""
    return _CROSS_REFERENCE.match(key) is not None


class CiteMode(StrEnum):
    """Pandoc's citation modes."""

    NORMAL = "normal"  # [@a]
    SUPPRESS_AUTHOR = "suppress_author"  # [-@a], -@a
    AUTHOR_IN_TEXT = "author_in_text"  # @a, @a [p. 33]


@dataclass(frozen=True, slots=True)
class CiteItem:
    """One cited key with its prefix, suffix and locator, all as spans of the document text.

    `start`/`end` cover the item as written: for an item in brackets, from its prefix to the end of
    its suffix (surrounding spaces excluded); for an in-text item, the `@key` token alone (its
    locator, if any, is in the bracket that follows: `suffix` points there).
    """

    key: str
    start: int
    end: int
    token: Span
    """`-@key`, `@key` or `@{key}` as written."""
    key_span: Span
    """The key's own characters (without `@`, `-` or braces)."""
    prefix: Span
    """Text before the key inside the bracket, trimmed (`see`); empty at the token's start if none."""
    suffix: Span
    """Text after the key up to `;` or `]`, trailing space trimmed (`, pp. 33-35`); empty if none."""
    suppress_author: bool
    in_text: bool
    """Outside brackets: `@a` in `@a says` (the author is part of the sentence)."""
    braced: bool
    locator: Locator | None = None

    @property
    def mode(self) -> CiteMode:
        if self.suppress_author:
            return CiteMode.SUPPRESS_AUTHOR
        return CiteMode.AUTHOR_IN_TEXT if self.in_text else CiteMode.NORMAL


@dataclass(frozen=True, slots=True)
class CitationGroup:
    """One pandoc citation: `[…]`, an in-text `@a`, or `@a [p. 33; @b]`.

    `bracket` is the `[…]` part (the whole group for a bracketed citation, the part after the key
    for an in-text one with a locator or more items, None for a bare in-text citation).
    """

    start: int
    end: int
    items: tuple[CiteItem, ...]
    bracket: Span | None
    separator: str = "; "
    """The first separator between items as written (`; `), reused when a key is added."""

    @property
    def keys(self) -> tuple[str, ...]:
        """Cited keys in order, each once."""
        return tuple(dict.fromkeys(item.key for item in self.items))

    @property
    def in_text(self) -> bool:
        return bool(self.items) and self.items[0].in_text


def find_citations(text: str, layout: Layout | None = None) -> list[CitationGroup]:
    """Every pandoc citation in the document's prose, footnotes and headings, in order.

    `layout` is `scan_markdown(text)` when the caller has it already. Citations are looked for in
    prose blocks, in footnote definitions (`[^1]: See @doe99.`) and in headings' titles
    (`## Results [@doe99]`: pandoc renders them, so they are checked like any other), never in
    code, front matter or other opaque spans.
    """
    layout = layout or scan_markdown(text)
    regions = sorted(
        [(b.start, b.end) for b in layout.blocks]
        + [(d.body_start, d.end) for d in layout.definitions if d.footnote]
        + list(layout.titles)
    )
    link_labels = frozenset(d.key.lower() for d in layout.definitions if not d.footnote)
    return find_citations_in(text, regions, layout.citable_opaque, link_labels=link_labels)


def find_citations_in(
    text: str,
    regions: Iterable[tuple[int, int]],
    opaque: SpanSet,
    *,
    link_labels: frozenset[str] = frozenset(),
) -> list[CitationGroup]:
    """Citations inside the given prose regions, skipping `opaque` spans (like `find_markers`).

    `link_labels` are the document's reference-link labels (lower case): `@a [label]` is a
    citation followed by a link when `label` is defined, as in pandoc.
    """
    examples = {m.group(1) for m in _EXAMPLE_LABEL.finditer(text) if not opaque.contains(m.start(1))}
    scanner = _Scanner(text, _unbraced(text, opaque), examples, link_labels)
    groups: list[CitationGroup] = []
    for start, end in regions:
        groups.extend(scanner.scan(start, end))
    return groups


def _unbraced(text: str, opaque: SpanSet) -> SpanSet:
    """`opaque` without what it took for a bare URL that is a key (`@{https://x.org/a}; …`,
    `@https://x.org/a;`): that is the key, and what follows it is read as pandoc reads it."""
    spans: list[Span] = []
    changed = False
    for start, end in opaque:
        key_end = -1
        if text[start - 2 : start] == "@{":
            close = text.find("}", start, end)
            key_end = close + 1 if close != -1 else -1
        elif text[start - 1 : start] == "@":
            key = _SIMPLE_KEY.match(text, start, end)
            key_end = key.end() if key else -1
        if key_end == -1:
            spans.append((start, end))
            continue
        changed = True  # what the URL pattern took after the key is not a URL on its own
    return SpanSet.of(spans) if changed else opaque


def cited_keys(groups: Iterable[CitationGroup]) -> list[str]:
    """Every key cited, in order of first citation, each once."""
    return list(dict.fromkeys(item.key for group in groups for item in group.items))


def is_simple_key(key: str) -> bool:
    """True when `@key` reads back as this key; otherwise it must be written `@{key}`."""
    return bool(key) and _SIMPLE_KEY.fullmatch(key) is not None


def render_key(key: str) -> str:
    """`@key`, or `@{key}` when the key holds characters a bare key cannot end with or hold, or
    is a URL (braces are what MANUAL.txt recommends for URL keys).

    Raises ValueError for a key pandoc cannot cite at all (empty, with spaces or unbalanced braces).
    """
    if is_simple_key(key) and "://" not in key:
        return "@" + key
    if not key or any(ch.isspace() for ch in key) or not _balanced_braces(key):
        raise ValueError(f"pandoc cannot cite the key {key!r}")
    return "@{" + key + "}"


def _balanced_braces(key: str) -> bool:
    depth = 0
    for ch in key:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


@dataclass(frozen=True, slots=True)
class _Token:
    start: int
    end: int
    key: str
    key_span: Span
    suppress: bool
    braced: bool


@dataclass(frozen=True, slots=True)
class _Bracket:
    open: int
    close: int
    segments: tuple[Span, ...]
    """Raw text between `[`, the top-level `;`s and `]`."""
    tokens: tuple[_Token | None, ...]
    """The first key in each segment, if any."""


class _Scanner:
    def __init__(self, text: str, skip: SpanSet, examples: set[str], link_labels: frozenset[str]) -> None:
        self.text = text
        self.skip = skip
        self.examples = examples
        self.link_labels = link_labels

    def skip_end(self, offset: int) -> int:
        """The end of the opaque span or inline math starting or holding `offset`, or `offset`."""
        i = bisect.bisect_right(self.skip.starts, offset) - 1
        if i >= 0 and offset < self.skip.ends[i]:
            return self.skip.ends[i]
        if self.text[offset : offset + 1] == "$":
            math = _INLINE_MATH.match(self.text, offset)
            if math is not None:
                return math.end()
        return offset

    def scan(self, start: int, end: int) -> list[CitationGroup]:
        text = self.text
        groups: list[CitationGroup] = []
        last_end = -1
        pos = start
        while pos < end:
            at = _next_of(text, "[@$", pos, end)
            if at == -1:
                break
            skipped = self.skip_end(at)
            if skipped != at:
                pos = skipped
                continue
            group: CitationGroup | None = None
            if text[at] == "$":
                pos = at + 1
                continue
            if text[at] == "[":
                if not _escaped(text, at, start) and text[at - 1 : at] != "^":
                    group = self.bracketed(at, start, end)
            else:
                token = self.token_at(at, start, end, last_end)
                if token is not None and not (not token.suppress and token.key in self.examples):
                    group = self.in_text(token, start, end)
            if group is None:
                pos = at + 1
                continue
            groups.append(group)
            last_end = group.end
            pos = group.end
        return groups

    # -- keys ---------------------------------------------------------------------------------

    def token_at(self, at: int, region_start: int, limit: int, last_end: int) -> _Token | None:
        """The citation key whose `@` is at `at`, with a `-` before it when that suppresses the author."""
        text = self.text
        start = at
        suppress = False
        if (
            at - 1 >= region_start
            and text[at - 1] == "-"
            and text[at - 2 : at - 1] != "-"
            and not self.after_string(at - 1, region_start, last_end)
        ):
            start, suppress = at - 1, True
        if not suppress and self.after_string(at, region_start, last_end):
            return None
        parsed = _key_at(text, at, limit)
        if parsed is None:
            return None
        key, key_span, end, braced = parsed
        # a key may run into what core.document.markdown took for a URL or a tag (`@{https://x.org/a}`,
        # `@a<b>c`): pandoc reads the key first, so does this
        return _Token(start, end, key, key_span, suppress, braced)

    def after_string(self, offset: int, region_start: int, last_end: int) -> bool:
        """Pandoc's `notAfterString`, negated: does a word (Str) end right before `offset`?"""
        if offset <= region_start or offset == last_end:
            return False
        text = self.text
        if _escaped(text, offset, region_start):
            return True
        previous = text[offset - 1]
        if previous.isalnum() or previous == ".":
            return True
        if previous in "*_":
            run = offset - 1
            while run > region_start and text[run - 1] == previous:
                run -= 1
            before = text[run - 1] if run > region_start else " "
            # a closing emphasis run: it follows a word, and an opening run came earlier
            return not before.isspace() and text.rfind(previous, region_start, run) != -1
        return False

    def first_token(self, start: int, end: int, region_start: int) -> _Token | None:
        """The first citation key in [start, end), outside nested brackets and opaque spans."""
        text = self.text
        depth = 0
        pos = start
        while pos < end:
            skipped = self.skip_end(pos)
            if skipped != pos:
                pos = skipped
                continue
            ch = text[pos]
            if ch == "\\":
                pos += 2
                continue
            if ch == "[":
                depth += 1
            elif ch == "]":
                depth -= 1
            elif ch == "@" and depth == 0:
                token = self.token_at(pos, region_start, end, -1)
                if token is not None and token.start >= start:
                    return token
            pos += 1
        return None

    # -- brackets -----------------------------------------------------------------------------

    def bracket_at(self, open_pos: int, region_start: int, limit: int) -> _Bracket | None:
        """The bracket opening at `open_pos`: its `;`-separated segments and the key in each."""
        text = self.text
        stop = min(limit, open_pos + MAX_GROUP)
        depth = 0
        separators: list[int] = []
        pos = open_pos + 1
        close = -1
        while pos < stop:
            skipped = self.skip_end(pos)
            if skipped != pos and not (text[pos] == "]" and depth == 0):
                pos = skipped  # (a link's `](target)` is opaque from its `]`: that `]` closes)
                continue
            ch = text[pos]
            if ch == "\\":
                pos += 2
                continue
            if ch == "[":
                depth += 1
            elif ch == "]":
                if depth == 0:
                    close = pos
                    break
                depth -= 1
            elif ch == ";" and depth == 0:
                separators.append(pos)
            pos += 1
        if close == -1:
            return None
        bounds = [open_pos, *separators, close]
        segments = tuple((bounds[i] + 1, bounds[i + 1]) for i in range(len(bounds) - 1))
        tokens = tuple(self.first_token(s, e, region_start) for s, e in segments)
        return _Bracket(open_pos, close, segments, tokens)

    def bracketed(self, open_pos: int, region_start: int, limit: int) -> CitationGroup | None:
        if "@" not in self.text[open_pos : min(limit, open_pos + MAX_GROUP)]:
            return None
        bracket = self.bracket_at(open_pos, region_start, limit)
        if bracket is None or any(t is None for t in bracket.tokens):
            return None
        if self.followed_by_link(bracket.close + 1):
            return None  # a link, a reference link or a bracketed span
        items = [
            self.item(token, segment)
            for token, segment in zip(bracket.tokens, bracket.segments, strict=True)
            if token is not None
        ]
        return CitationGroup(
            open_pos, bracket.close + 1, tuple(items), (open_pos, bracket.close + 1), self.separator(bracket)
        )

    def followed_by_link(self, after: int) -> bool:
        """Would pandoc read the bracket ending before `after` as a link or a span, not a citation?"""
        text = self.text
        following = text[after : after + 1]
        if following == "[":  # `[@a][label]` is a reference link, `[@a][^1]` a citation and a note
            return text[after + 1 : after + 2] != "^" and self.bracket_at(after, after, len(text)) is not None
        if following == "{":
            return _ATTRIBUTES.match(text, after) is not None
        return following == "(" and _LINK_SOURCE.match(text, after) is not None

    def in_text(self, token: _Token, region_start: int, limit: int) -> CitationGroup:
        text = self.text
        bare = CiteItem(
            key=token.key,
            start=token.start,
            end=token.end,
            token=(token.start, token.end),
            key_span=token.key_span,
            prefix=(token.start, token.start),
            suffix=(token.end, token.end),
            suppress_author=token.suppress,
            in_text=True,
            braced=token.braced,
        )
        single = CitationGroup(token.start, token.end, (bare,), None)
        open_pos = _after_spnl(text, token.end, limit)
        if open_pos >= limit or text[open_pos] != "[" or text[open_pos + 1 : open_pos + 2] == "^":
            return single
        bracket = self.bracket_at(open_pos, region_start, limit)
        if bracket is None:
            return single
        if self.followed_by_link(bracket.close + 1):
            return single
        rest = bracket.tokens[1:]
        if any(t is None for t in rest):
            return single
        span = (open_pos, bracket.close + 1)
        if text[open_pos + 1 : bracket.close].strip().lower() in self.link_labels:
            return single  # `@a [label]` with `[label]: url` defined: a citation, then a link
        first_token = bracket.tokens[0]
        items: list[CiteItem] = []
        if first_token is not None:
            items.append(bare)  # `@a [see @b]`: the bracket is a group joined to the in-text key
            segments = bracket.segments
            tokens = bracket.tokens
        else:
            seg_start, seg_end = bracket.segments[0]
            lead = _skip_spaces(text, seg_start, seg_end)
            suffix_end = _trim_end(text, lead, seg_end)
            locator = parse_locator(text, lead, suffix_end)
            items.append(
                CiteItem(
                    key=token.key,
                    start=token.start,
                    end=token.end,
                    token=(token.start, token.end),
                    key_span=token.key_span,
                    prefix=(token.start, token.start),
                    suffix=(lead, suffix_end) if suffix_end > lead else (seg_start, seg_start),
                    suppress_author=token.suppress,
                    in_text=True,
                    braced=token.braced,
                    locator=locator,
                )
            )
            segments = bracket.segments[1:]
            tokens = rest
        items.extend(
            self.item(t, segment) for t, segment in zip(tokens, segments, strict=True) if t is not None
        )
        return CitationGroup(token.start, bracket.close + 1, tuple(items), span, self.separator(bracket))

    def item(self, token: _Token, segment: Span) -> CiteItem:
        text = self.text
        seg_start, seg_end = segment
        start = _skip_spaces(text, seg_start, token.start)
        prefix_end = _trim_end(text, start, token.start)
        end = max(_trim_end(text, token.end, seg_end), token.end)
        return CiteItem(
            key=token.key,
            start=start,
            end=end,
            token=(token.start, token.end),
            key_span=token.key_span,
            prefix=(start, prefix_end) if prefix_end > start else (token.start, token.start),
            suffix=(token.end, end),
            suppress_author=token.suppress,
            in_text=False,
            braced=token.braced,
            locator=parse_locator(text, token.end, end),
        )

    def separator(self, bracket: _Bracket) -> str:
        if len(bracket.segments) < 2:
            return "; "
        first = bracket.segments[0][1]
        return ";" + self.text[first + 1 : _skip_spaces(self.text, first + 1, bracket.segments[1][1])]


def _key_at(text: str, at: int, limit: int) -> tuple[str, Span, int, bool] | None:
    """(key, key span, token end, braced) for the key after the `@` at `at`, or None."""
    start = at + 1
    if start >= limit:
        return None
    if text[start] == "{":
        depth = 0
        pos = start
        while pos < limit:
            ch = text[pos]
            if ch.isspace():
                return None
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    break
            pos += 1
        else:
            return None
        if pos == start + 1:
            return None  # `@{}`: pandoc cites an empty key; nothing to check
        return text[start + 1 : pos], (start + 1, pos), pos + 1, True
    match = _SIMPLE_KEY.match(text, start, limit)
    if match is None:
        return None
    return match.group(0), match.span(), match.end(), False


def _next_of(text: str, chars: str, start: int, end: int) -> int:
    found = [i for i in (text.find(ch, start, end) for ch in chars) if i != -1]
    return min(found) if found else -1


def _escaped(text: str, offset: int, region_start: int) -> bool:
    """Is the character at `offset` escaped by an odd run of backslashes?"""
    count = 0
    pos = offset - 1
    while pos >= region_start and text[pos] == "\\":
        count += 1
        pos -= 1
    return count % 2 == 1


def _skip_spaces(text: str, start: int, end: int) -> int:
    while start < end and text[start].isspace():
        start += 1
    return start


def _trim_end(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def _after_spnl(text: str, pos: int, limit: int) -> int:
    """Past pandoc's `spnl`: spaces and tabs, at most one line break, spaces and tabs."""
    while pos < limit and text[pos] in " \t":
        pos += 1
    if pos < limit and text[pos] == "\r":
        pos += 1
    if pos < limit and text[pos] == "\n":
        pos += 1
    while pos < limit and text[pos] in " \t":
        pos += 1
    return pos
