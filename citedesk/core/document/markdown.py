"""Which parts of a Markdown document are prose.

A deliberately small, line-based reading of CommonMark: enough to know that fenced and inline code,
front matter, headings, HTML comments and tags, link targets, images, bare URLs, definitions and
table separators are never prose, and where each prose block (paragraph, list item, table cell,
quote) begins and ends. Every scan is linear in the length of the text; malformed Markdown (an
unclosed fence or comment) is read the way CommonMark reads it, to the end of the document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citedesk.core.spans import Span, SpanSet
from citedesk.core.text import iter_lines

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+|$)")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*$")
_BOLD_LINE = re.compile(r"\s*(\*\*|__)([^*_\n]{1,120})\1\s*:?\s*$")
_THEMATIC = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?")
_QUOTE = re.compile(r"[ \t]{0,3}(?:>[ \t]?)+")
_DEFINITION = re.compile(r" {0,3}\[(\^?)([^\]\n]+)\]:")  # a label of any length (matched per line)
_TABLE_SEP = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_FRONT_MATTER_END = re.compile(r"(?:---|\.\.\.)[ \t]*$")

_HTML_COMMENT_OPEN = "<!--"
_INLINE_PATTERNS = re.compile(
    r"!\[(?:[^\[\]\n]|\[[^\[\]\n]{0,200}\]){0,1000}\]\([^)\n]{0,2000}\)(?:\{[^{}\n]{0,500}\})?"  # image,
    # with its pandoc attributes (`{#fig:map width=50%}`): all of it
    r"|<(?:https?|mailto|ftp):[^>\s]{1,2000}>"  # autolink
    r"|</?[A-Za-z][A-Za-z0-9-]{0,30}(?:\s[^<>\n]{0,500})?/?>"  # inline HTML tag
    r"|\bhttps?://[^\s<>\])\"'`]{1,2000}"  # bare URL
    r"|\bdoi:\s?10\.\d{4,9}/\S{1,500}"  # bare DOI
)
_ESCAPE = re.compile(r"\\[!-/:-@\[-`{-~]")
"""A backslash escape (CommonMark: a backslash before ASCII punctuation): the backslash is no word
and the character after it is read as itself (`a\\@b.org` is "a@b.org", `5 \\* 3` "5 * 3"); `\\\\`
is one escaped backslash, matched as a pair so the second one escapes nothing."""
_LINK = re.compile(r"\[([^\[\]\n]{1,1000})\](\([^()\s\n]{0,2000}(?:[ \t]+\"[^\"\n]{0,500}\")?\))")
_REF_LINK = re.compile(r"\[([^\[\]\n]{1,1000})\](\[([^\[\]\n]{1,200})\])")


NO_SPANS = SpanSet.of(())
"""No span at all (immutable, so one instance serves every default)."""


@dataclass(frozen=True, slots=True)
class Heading:
    start: int
    end: int
    level: int  # 1-6 for ATX and setext headings, 7 for a line that is all bold
    title: str
    content: Span
    """Where the title is in the text (`Results [@doe99]` of `## Results [@doe99]`): not prose, but
    a place a citation may stand (`Layout.titles`)."""


@dataclass(frozen=True, slots=True)
class Block:
    """A run of prose: a paragraph, a list item, a table cell or a quoted paragraph."""

    start: int
    end: int
    kind: str


@dataclass(frozen=True, slots=True)
class Definition:
    """A `[^key]: …` footnote or `[label]: …` link definition, with its continuation lines."""

    start: int
    end: int
    key: str
    footnote: bool
    body_start: int


@dataclass(frozen=True, slots=True)
class Layout:
    headings: tuple[Heading, ...]
    blocks: tuple[Block, ...]
    definitions: tuple[Definition, ...]
    opaque: SpanSet
    """Never prose and never markers: code, front matter, comments, HTML, URLs, link targets, images."""
    markup: SpanSet
    """Inside prose blocks but not words: list bullets, quote marks, table pipes, link brackets."""
    code: SpanSet
    """Inline code spans (a subset of `opaque`), whose content is shown as words in claims."""
    title_opaque: SpanSet
    """Inside headings' titles, what is no text (code, URLs, link targets): what `citable_opaque`
    keeps of a title."""
    joins: SpanSet = NO_SPANS
    """Markup read as nothing, not as a space, in a sentence's text: markup inside a word (LaTeX's
    `25\\%`, `\\emph{wo}rd`); none in Markdown."""

    @property
    def titles(self) -> tuple[Span, ...]:
        """Each heading's title: never prose (a heading is no claim), but citations there count."""
        return tuple(h.content for h in self.headings if h.content[1] > h.content[0])

    @property
    def citable_opaque(self) -> SpanSet:
        """`opaque` with the headings' titles opened up (but their code, URLs and link targets):
        what a search for citations in prose and titles skips."""
        return self.opaque.without(self.titles).union(self.title_opaque)


def scan_markdown(text: str) -> Layout:
    """The layout of `text`: its block structure line by line (`_BlockScanner`), then the inline
    constructs (code spans, links, images, URLs) inside the prose blocks and definitions it found."""
    scanner = _BlockScanner(text)
    scanner.scan()
    link_labels = {d.key.lower() for d in scanner.definitions if not d.footnote}
    regions = [(b.start, b.end) for b in scanner.blocks] + [
        (d.body_start, d.end) for d in scanner.definitions
    ]
    inline_opaque, inline_markup, code = _scan_inline(text, regions, link_labels)
    titles = [h.content for h in scanner.headings]
    title_opaque, _, _ = _scan_inline(text, titles, link_labels)
    opaque = SpanSet.of(scanner.opaque + inline_opaque)
    escapes = [
        (m.start(), m.start() + 1)
        for start, end in regions
        for m in _ESCAPE.finditer(text, start, end)
        if not opaque.contains(m.start())
    ]
    return Layout(
        headings=tuple(scanner.headings),
        blocks=tuple(scanner.blocks),
        definitions=tuple(scanner.definitions),
        opaque=opaque,
        markup=SpanSet.of(scanner.markup + inline_markup + escapes),
        code=SpanSet.of(code),
        title_opaque=SpanSet.of(title_opaque),
        joins=SpanSet.of(escapes),
    )


class _BlockScanner:
    """One pass over the lines of a text, collecting headings, prose blocks, definitions and the
    spans that are never prose.

    Each block construct has its own method (`_fence`, `_comment`, `_atx_heading` …), tried in a
    fixed order on a non-blank line: the first that recognises the line consumes it (and maybe the
    lines after it, advancing `line`) and answers True; a line none takes is prose (`_prose`). The
    order matters (a fence wins over everything, a setext underline over a thematic break only
    inside a paragraph), and so does the state they share: the open paragraph, whether the
    previous line was blank, whether a list is open."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = iter_lines(text)
        self.line = 0
        self.headings: list[Heading] = []
        self.blocks: list[Block] = []
        self.definitions: list[Definition] = []
        self.opaque: list[Span] = []
        self.markup: list[Span] = []
        self.para_start: int | None = None
        self.para_end = 0
        self.para_kind = "paragraph"
        self.previous_blank = True
        self.in_list = False

    def scan(self) -> None:
        self._front_matter()
        constructs = (
            self._fence,
            self._comment,
            self._atx_heading,
            self._thematic_break,
            self._setext_heading,
            self._bold_heading,
            self._definition,
            self._table,
            self._indented_code,
        )
        while self.line < len(self.lines):
            s, e, _ = self.lines[self.line]
            line = self.text[s:e]
            if not line.strip():
                self._close_paragraph()
                self.previous_blank = True
                self.line += 1
            elif not any(construct(s, e, line) for construct in constructs):
                self._prose(s, e, line)
        self._close_paragraph()

    def _line_text(self, index: int) -> str:
        return self.text[self.lines[index][0] : self.lines[index][1]]

    def _close_paragraph(self) -> None:
        if self.para_start is not None and self.para_end > self.para_start:
            self.blocks.append(Block(self.para_start, self.para_end, self.para_kind))
        self.para_start = None

    def _front_matter(self) -> None:
        """A `---` first line opens YAML front matter, closed by `---` or `...`; unclosed, it is text."""
        lines = self.lines
        if not lines or not self.text.startswith("---") or self._line_text(0).rstrip() != "---":
            return
        for j in range(1, len(lines)):
            s, e, _ = lines[j]
            if _FRONT_MATTER_END.match(self.text, s, e):
                self.opaque.append((0, lines[j][2]))
                self.line = j + 1
                return

    def _fence(self, s: int, e: int, line: str) -> bool:
        """A fenced code block, to its closing fence or (unclosed) the end of the text."""
        fence = _FENCE.match(line)
        if not fence:
            return False
        self._close_paragraph()
        marker = fence.group(1)
        j = self.line + 1
        end_offset = len(self.text)
        while j < len(self.lines):
            candidate = self._line_text(j).strip()
            if candidate.startswith(marker[0] * len(marker)) and set(candidate) == {marker[0]}:
                end_offset = self.lines[j][2]
                break
            j += 1
        self.opaque.append((s, end_offset))
        self.line = j + 1
        self.previous_blank = False
        return True

    def _comment(self, s: int, e: int, line: str) -> bool:
        """An HTML comment opening a line, to its `-->` or (unclosed) the end of the text."""
        comment_at = line.find(_HTML_COMMENT_OPEN)
        if comment_at == -1 or line[:comment_at].strip():
            return False
        self._close_paragraph()
        close = self.text.find("-->", s + comment_at + 4)
        end_offset = len(self.text) if close == -1 else close + 3
        self.opaque.append((s + comment_at, end_offset))
        while self.line < len(self.lines) and self.lines[self.line][0] < end_offset:
            self.line += 1
        # text after the comment on its closing line is left alone (rare)
        self.previous_blank = False
        return True

    def _atx_heading(self, s: int, e: int, line: str) -> bool:
        atx = _ATX.match(line)
        if not atx:
            return False
        self._close_paragraph()
        title = line[atx.end() :].strip().rstrip("#").strip()
        begin = s + atx.end() + len(line[atx.end() :]) - len(line[atx.end() :].lstrip())
        self.headings.append(Heading(s, e, len(atx.group(1)), title, (begin, begin + len(title))))
        self.opaque.append((s, e))
        self.line += 1
        self.previous_blank = False
        self.in_list = False
        return True

    def _thematic_break(self, s: int, e: int, line: str) -> bool:
        """`***`, `- - -`; a `---` under a paragraph is a setext underline instead."""
        if not _THEMATIC.match(line) or (self.para_start is not None and line.strip()[0] == "-"):
            return False
        self._close_paragraph()
        self.opaque.append((s, e))
        self.line += 1
        self.previous_blank = True
        return True

    def _setext_heading(self, s: int, e: int, line: str) -> bool:
        """`===` or `---` under a paragraph makes the paragraph a heading."""
        if self.para_start is None or self.para_kind != "paragraph":
            return False
        if not _SETEXT.match(line) or "|" in line:
            return False
        level = 1 if line.strip()[0] == "=" else 2
        title = self.text[self.para_start : self.para_end].strip()
        content = (self.para_start, self.para_end)  # a paragraph starts at a word and ends at one
        self.headings.append(Heading(self.para_start, e, level, title, content))
        self.opaque.append((self.para_start, e))
        self.para_start = None
        self.line += 1
        self.previous_blank = False
        return True

    def _bold_heading(self, s: int, e: int, line: str) -> bool:
        """A line that is all bold, standing apart from a paragraph, is used as a heading."""
        bold = _BOLD_LINE.match(line)
        if not bold or self.para_start is not None:
            return False
        i = self.line
        next_blank = i + 1 >= len(self.lines) or not self._line_text(i + 1).strip()
        if not (self.previous_blank or next_blank):
            return False
        title = bold.group(2).strip()
        begin = s + bold.start(2) + len(bold.group(2)) - len(bold.group(2).lstrip())
        self.headings.append(Heading(s, e, 7, title, (begin, begin + len(title))))
        self.opaque.append((s, e))
        self.line += 1
        self.previous_blank = False
        return True

    def _definition(self, s: int, e: int, line: str) -> bool:
        """`[^key]: …` or `[label]: …` with its continuation lines (a link definition cannot
        interrupt a paragraph; a footnote can)."""
        definition = _DEFINITION.match(line)
        if not definition or (self.para_start is not None and not definition.group(1)):
            return False
        self._close_paragraph()
        footnote = bool(definition.group(1))
        j = self._definition_end(self.line + 1, footnote)
        end_offset = self.lines[j - 1][1]
        key = definition.group(2).strip()
        self.definitions.append(Definition(s, end_offset, key, footnote, s + definition.end()))
        self.line = j
        self.previous_blank = False
        return True

    def _definition_end(self, j: int, footnote: bool) -> int:
        """The index of the first line after a definition whose continuation starts at line `j`."""
        n = len(self.lines)
        while j < n:
            follow = self._line_text(j)
            if follow.strip() and follow[:1].isspace():
                j += 1
                continue
            if not follow.strip() and footnote:
                # a footnote goes on past blank lines while what follows is indented (pandoc):
                # its later paragraphs belong to it, and removing it removes them too
                k = j
                while k < n and not self._line_text(k).strip():
                    k += 1
                if k < n and self._line_text(k).startswith(("    ", "\t")):
                    j = k
                    continue
            break
        return j

    def _table(self, s: int, e: int, line: str) -> bool:
        """A pipe table: a row with `|` over a separator row; each cell is a prose block."""
        i, n = self.line, len(self.lines)
        if "|" not in line or i + 1 >= n or not _TABLE_SEP.match(self.text, *self.lines[i + 1][:2]):
            return False
        self._close_paragraph()
        sep = self.lines[i + 1]
        if "-" not in self.text[sep[0] : sep[1]]:
            return False
        _table_row(self.text, s, e, self.blocks, self.markup)
        self.opaque.append((sep[0], sep[1]))
        j = i + 2
        while j < n and "|" in self._line_text(j) and self._line_text(j).strip():
            _table_row(self.text, self.lines[j][0], self.lines[j][1], self.blocks, self.markup)
            j += 1
        self.line = j
        self.previous_blank = False
        return True

    def _indented_code(self, s: int, e: int, line: str) -> bool:
        """Four spaces after a blank line, outside a list and a paragraph: an indented code block."""
        if not (self.previous_blank and not self.in_list and line.startswith("    ")):
            return False
        if self.para_start is not None:
            return False
        j = self.line
        while j < len(self.lines) and (
            self._line_text(j).startswith("    ") or not self._line_text(j).strip()
        ):
            j += 1
        self.opaque.append((s, self.lines[j - 1][1]))
        self.line = j
        self.previous_blank = True
        return True

    def _prose(self, s: int, e: int, line: str) -> None:
        """A line of prose: it opens a list item (after any quote marks) or a paragraph, or goes on
        the one open."""
        content_start = s
        quote = _QUOTE.match(line)
        if quote and quote.end() > 0 and ">" in quote.group(0):
            self.markup.append((s, s + quote.end()))
            content_start = s + quote.end()
        item = _LIST_ITEM.match(self.text, content_start, e)
        if item and item.end() < e:
            self._close_paragraph()
            self.markup.append((content_start, item.end()))
            self.para_start = item.end()
            self.para_kind = "list_item"
            self.in_list = True
        elif self.para_start is None:
            content = self.text[content_start:e]
            self.para_start = content_start + (len(content) - len(content.lstrip()))
            self.para_kind = "quote" if content_start != s else "paragraph"
            if not line[:1].isspace():
                self.in_list = False
        self.para_end = e
        self.previous_blank = False
        self.line += 1


def _table_row(text: str, start: int, end: int, blocks: list[Block], markup: list[Span]) -> None:
    cell_start = start
    pos = start
    while pos <= end:
        if pos == end or (text[pos] == "|" and (pos == start or text[pos - 1] != "\\")):
            raw = text[cell_start:pos]
            lead = len(raw) - len(raw.lstrip())
            trail = len(raw) - len(raw.rstrip())
            if raw.strip():
                blocks.append(Block(cell_start + lead, pos - trail, "table_cell"))
            if pos < end:
                markup.append((pos, pos + 1))
            cell_start = pos + 1
        pos += 1


def _scan_inline(
    text: str, regions: list[Span], link_labels: set[str]
) -> tuple[list[Span], list[Span], list[Span]]:
    """Opaque spans (code, images, autolinks, HTML, URLs, link targets), markup (a link's `[`) and
    code spans inside the given regions."""
    opaque: list[Span] = []
    markup: list[Span] = []
    code: list[Span] = []
    for start, end in regions:
        code_spans = _code_spans(text, start, end)
        code.extend(code_spans)
        opaque.extend(code_spans)
        masked = SpanSet.of(code_spans)
        for match in _INLINE_PATTERNS.finditer(text, start, end):
            if not masked.contains(match.start()):
                opaque.append(match.span())
        for match in _LINK.finditer(text, start, end):
            if masked.contains(match.start()):
                continue
            markup.append((match.start(), match.start() + 1))
            opaque.append((match.start(2) - 1, match.end()))
        for match in _REF_LINK.finditer(text, start, end):
            if match.group(3).lower() in link_labels and not match.group(3).strip().isdigit():
                markup.append((match.start(), match.start() + 1))
                opaque.append((match.start(2) - 1, match.end()))
    return opaque, markup, code


def _code_spans(text: str, start: int, end: int) -> list[Span]:
    """Backtick code spans in [start, end), matched run-length to run-length in linear time."""
    runs: list[tuple[int, int]] = []
    pos = text.find("`", start, end)
    while pos != -1:
        run_end = pos
        while run_end < end and text[run_end] == "`":
            run_end += 1
        runs.append((pos, run_end - pos))
        pos = text.find("`", run_end, end)
    by_length: dict[int, list[int]] = {}
    for index, (_, length) in enumerate(runs):
        by_length.setdefault(length, []).append(index)
    cursor = dict.fromkeys(by_length, 0)
    spans: list[Span] = []
    index = 0
    while index < len(runs):
        open_pos, length = runs[index]
        candidates = by_length[length]
        k = cursor[length]
        while k < len(candidates) and candidates[k] <= index:
            k += 1
        cursor[length] = k
        if k < len(candidates):
            close_index = candidates[k]
            close_pos = runs[close_index][0]
            spans.append((open_pos, close_pos + length))
            index = close_index + 1
        else:
            index += 1
    return spans


def strip_markup(text: str) -> str:
    """Heading text without emphasis marks or a trailing colon, for matching section titles."""
    return re.sub(r"[*_`]+", "", text).strip().rstrip(":").strip()
