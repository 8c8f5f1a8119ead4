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
_LINK = re.compile(r"\[([^\[\]\n]{1,1000})\](\([^()\s\n]{0,2000}(?:[ \t]+\"[^\"\n]{0,500}\")?\))")
_REF_LINK = re.compile(r"\[([^\[\]\n]{1,1000})\](\[([^\[\]\n]{1,200})\])")


@dataclass(frozen=True, slots=True)
class Heading:
    start: int
    end: int
    level: int  # 1-6 for ATX and setext headings, 7 for a line that is all bold
    title: str


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


def scan_markdown(text: str) -> Layout:
    lines = iter_lines(text)
    headings: list[Heading] = []
    blocks: list[Block] = []
    definitions: list[Definition] = []
    opaque: list[Span] = []
    markup: list[Span] = []

    i = 0
    n = len(lines)
    if n and text.startswith("---") and text[lines[0][0] : lines[0][1]].rstrip() == "---":
        for j in range(1, n):
            s, e, _ = lines[j]
            if _FRONT_MATTER_END.match(text, s, e):
                opaque.append((0, lines[j][2]))
                i = j + 1
                break

    para_start: int | None = None
    para_end = 0
    para_kind = "paragraph"
    previous_blank = True
    in_list = False

    def close_paragraph() -> None:
        nonlocal para_start
        if para_start is not None and para_end > para_start:
            blocks.append(Block(para_start, para_end, para_kind))
        para_start = None

    while i < n:
        s, e, _nxt = lines[i]
        line = text[s:e]
        stripped = line.strip()
        if not stripped:
            close_paragraph()
            previous_blank = True
            i += 1
            continue

        fence = _FENCE.match(line)
        if fence:
            close_paragraph()
            marker = fence.group(1)
            j = i + 1
            end_offset = len(text)
            while j < n:
                fs, fe, fnext = lines[j]
                candidate = text[fs:fe].strip()
                if candidate.startswith(marker[0] * len(marker)) and set(candidate) == {marker[0]}:
                    end_offset = fnext
                    break
                j += 1
            opaque.append((s, end_offset))
            i = j + 1
            previous_blank = False
            continue

        comment_at = line.find(_HTML_COMMENT_OPEN)
        if comment_at != -1 and not line[:comment_at].strip():
            close_paragraph()
            close = text.find("-->", s + comment_at + 4)
            end_offset = len(text) if close == -1 else close + 3
            opaque.append((s + comment_at, end_offset))
            while i < n and lines[i][0] < end_offset:
                i += 1
            # text after the comment on its closing line is left alone (rare)
            previous_blank = False
            continue

        atx = _ATX.match(line)
        if atx:
            close_paragraph()
            title = line[atx.end() :].strip().rstrip("#").strip()
            headings.append(Heading(s, e, len(atx.group(1)), title))
            opaque.append((s, e))
            i += 1
            previous_blank = False
            in_list = False
            continue

        if _THEMATIC.match(line) and (para_start is None or line.strip()[0] != "-"):
            close_paragraph()
            opaque.append((s, e))
            i += 1
            previous_blank = True
            continue

        if para_start is not None and para_kind == "paragraph" and _SETEXT.match(line) and "|" not in line:
            level = 1 if line.strip()[0] == "=" else 2
            title = text[para_start:para_end].strip()
            headings.append(Heading(para_start, e, level, title))
            opaque.append((para_start, e))
            para_start = None
            i += 1
            previous_blank = False
            continue

        bold = _BOLD_LINE.match(line)
        if bold and para_start is None:
            nxt_blank = i + 1 >= n or not text[lines[i + 1][0] : lines[i + 1][1]].strip()
            if previous_blank or nxt_blank:
                headings.append(Heading(s, e, 7, bold.group(2).strip()))
                opaque.append((s, e))
                i += 1
                previous_blank = False
                continue

        definition = _DEFINITION.match(line)
        if definition and (para_start is None or definition.group(1)):
            close_paragraph()
            j = i + 1
            while j < n:
                ds, de, _ = lines[j]
                follow = text[ds:de]
                if follow.strip() and follow[:1].isspace():
                    j += 1
                    continue
                if not follow.strip() and definition.group(1):
                    # a footnote goes on past blank lines while what follows is indented (pandoc):
                    # its later paragraphs belong to it, and removing it removes them too
                    k = j
                    while k < n and not text[lines[k][0] : lines[k][1]].strip():
                        k += 1
                    if k < n and text[lines[k][0] : lines[k][1]].startswith(("    ", "\t")):
                        j = k
                        continue
                break
            end_offset = lines[j - 1][1]
            definitions.append(
                Definition(
                    s,
                    end_offset,
                    definition.group(2).strip(),
                    bool(definition.group(1)),
                    s + definition.end(),
                )
            )
            i = j
            previous_blank = False
            continue

        if "|" in line and i + 1 < n and _TABLE_SEP.match(text, lines[i + 1][0], lines[i + 1][1]):
            close_paragraph()
            sep = lines[i + 1]
            if "-" in text[sep[0] : sep[1]]:
                _table_row(text, s, e, blocks, markup)
                opaque.append((sep[0], sep[1]))
                j = i + 2
                while (
                    j < n
                    and "|" in text[lines[j][0] : lines[j][1]]
                    and text[lines[j][0] : lines[j][1]].strip()
                ):
                    _table_row(text, lines[j][0], lines[j][1], blocks, markup)
                    j += 1
                i = j
                previous_blank = False
                continue

        if previous_blank and not in_list and line.startswith("    ") and para_start is None:
            close_paragraph()
            j = i
            while j < n and (
                text[lines[j][0] : lines[j][1]].startswith("    ")
                or not text[lines[j][0] : lines[j][1]].strip()
            ):
                j += 1
            opaque.append((s, lines[j - 1][1]))
            i = j
            previous_blank = True
            continue

        content_start = s
        quote = _QUOTE.match(line)
        if quote and quote.end() > 0 and ">" in quote.group(0):
            markup.append((s, s + quote.end()))
            content_start = s + quote.end()
        item = _LIST_ITEM.match(text, content_start, e)
        if item and item.end() < e:
            close_paragraph()
            markup.append((content_start, item.end()))
            para_start = item.end()
            para_kind = "list_item"
            in_list = True
        elif para_start is None:
            para_start = content_start + (len(text[content_start:e]) - len(text[content_start:e].lstrip()))
            para_kind = "quote" if content_start != s else "paragraph"
            if not line[:1].isspace():
                in_list = False
        para_end = e
        previous_blank = False
        i += 1

    close_paragraph()

    inline_opaque, inline_markup, code = _scan_inline(text, blocks, definitions)
    opaque.extend(inline_opaque)
    markup.extend(inline_markup)
    return Layout(
        headings=tuple(headings),
        blocks=tuple(blocks),
        definitions=tuple(definitions),
        opaque=SpanSet.of(opaque),
        markup=SpanSet.of(markup),
        code=SpanSet.of(code),
    )


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
    text: str, blocks: list[Block], definitions: list[Definition]
) -> tuple[list[Span], list[Span], list[Span]]:
    opaque: list[Span] = []
    markup: list[Span] = []
    code: list[Span] = []
    link_labels = {d.key.lower() for d in definitions if not d.footnote}
    regions = [(b.start, b.end) for b in blocks] + [(d.body_start, d.end) for d in definitions]
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
