"""Word documents (.docx) read as a pandoc Markdown view, and the view's edits written back.

Why a view: every check, judge and repair of CiteDesk reads text in a citation dialect. A .docx
is read into the text `pandoc paper.docx -t markdown` would give — a YAML front matter whose
`references:` holds the CSL-JSON items of the Zotero and Mendeley citation fields, each under a
readable key (`smith2020`), then one line per body paragraph (`#`×N for headings), each citation
field written as a pandoc group (`[@smith2020; @lee2019]`) where its displayed text was — so the
pandoc dialect reads it unchanged. A .docx without citation fields but with `[1]`-style text and
a "References" section gives the same view without front matter, which the numbered dialect
reads. The bibliography field Zotero and Mendeley generate is left out: it is no prose.

Footnotes and endnotes (`word/footnotes.xml`, `word/endnotes.xml`, found through the document's
relationships) are read as pandoc writes notes: a reference `[^1]` where the note's mark is in the
body, and after the body one definition line per note, `[^1]: …`, its paragraphs joined by a
space, its citation fields pandoc groups with the same keys as the body's. In a note style
(Chicago notes, OSCOLA) Zotero puts every citation in a note, so without them such a thesis
would cite nothing. Notes are numbered in the order their marks appear in the body (footnotes and
endnotes alike, as pandoc does); Word's separator notes, a note no mark refers to, and a mark
whose note is missing are left out (the mark, then, is not shown). Still not read: text boxes,
comments, headers and footers.

The Mendeley Cite add-in (which replaced Mendeley Desktop's plugin) writes no field: each citation
is a content control (`w:sdt`) whose tag is `MENDELEY_CITATION_v3_` and the base64 of the same
CSL citation JSON, its content the displayed text; its bibliography one tagged
`MENDELEY_BIBLIOGRAPHY`. Mendeley publishes no description of it (it is read as the tools that
convert such documents read it), so these citations are read and checked, but never edited: a
repair of one is refused (`core.containers.word_write`). Any other content control is read through as text.

Characters Markdown would misread in plain text are backslash-escaped, so a word like `a@b.org`
or `[draft]` stays text. The view keeps, for every character of plain text, the `w:t` element
and index it came from (in document.xml or a notes part), so `core.containers.word_write` can write the repair
plan's edits back into the runs, and for every field the elements of its instruction and displayed
text.

Pure: bytes in, bytes out (`core.containers.word_package` checks the package before anything is parsed).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from citedesk.core.containers.word_csl import assign_keys, front_matter, group_text, identity, references_of
from citedesk.core.containers.word_package import (
    DOCUMENT_PART,
    ENDNOTES,
    FOOTNOTES,
    Package,
    heading_levels,
    open_package,
    parse_xml,
)
from citedesk.core.safeload import MAX_NESTING, json_too_deep
from citedesk.core.text import DocumentError

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
WQ = "{" + W + "}"
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"

ZOTERO = "zotero"
MENDELEY = "mendeley"
_BIBLIOGRAPHY = "bibliography"
_ORDINARY = "ordinary"

_ESCAPED = frozenset("\\<>`$")
"""Escaped wherever they are in plain text: they would start HTML, code or math (emphasis is not
read, so `*` and `_` stay as they are: `snake_case`, `5 * 3`)."""
_ESCAPED_CITING = frozenset("[]@")
"""Escaped too when the view has citation groups, so plain text never reads as a citation — `@`
only where pandoc would take it for one: not right after a letter, digit or period (`a@b.org`)."""
_LINE_START = frozenset("#-+=:|~")
"""Escaped at the start of a line: headings, lists, tables, fences."""
_MENDELEY_CITE = "MENDELEY_CITATION_v3_"
_MENDELEY_CITE_BIBLIOGRAPHY = "MENDELEY_BIBLIOGRAPHY"
_NOTE_REFERENCES = {WQ + "footnoteReference": FOOTNOTES, WQ + "endnoteReference": ENDNOTES}
_REFERENCE_TITLES = frozenset(
    {"references", "reference list", "bibliography", "works cited", "literature cited", "sources"}
)


@dataclass
class Token:
    """One unit of a paragraph's line in the view: a character of plain text (its `element` the
    `w:t` it is in, `at` its index there), a character nobody may edit (a tab, a heading's `#`),
    or a citation group (`field` its index)."""

    view: str
    element: Any = None
    at: int = 0
    field: int = -1


@dataclass
class OpenField:
    """A field while it is read: its instruction's elements, its displayed text's."""

    begin: Any
    paragraph: int
    simple: bool = False
    instr_parts: list[str] = field(default_factory=list)
    instr_elements: list[Any] = field(default_factory=list)
    result: bool = False
    result_elements: list[Any] = field(default_factory=list)
    kind: str = ""
    index: int = -1
    end: Any = None
    end_paragraph: int = -1
    control: bool = False
    """A Mendeley Cite content control (`begin` is its `w:sdt`): read, never edited."""

    @property
    def instruction(self) -> str:
        return "".join(self.instr_parts)


@dataclass(frozen=True)
class WordItem:
    """One item of a citation field: its key in the view and its citationItem as the field has it."""

    key: str
    item: dict[str, Any]


@dataclass(frozen=True)
class WordField:
    """A Zotero or Mendeley citation field as the view shows it.

    `start`/`end` are the view span of its pandoc group; `citation` the field's JSON; `displayed`
    the text Word shows for it; `location` where it is in its `part` (document.xml, or the notes
    part of a field in a footnote or endnote; for messages)."""

    index: int
    kind: str
    start: int
    end: int
    citation: dict[str, Any]
    items: tuple[WordItem, ...]
    citation_id: str | None
    displayed: str
    paragraph: int
    location: str
    part: str = DOCUMENT_PART

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(item.key for item in self.items)


@dataclass(frozen=True)
class WordView:
    """A .docx read as pandoc Markdown: `text`, its citation `fields`, the CSL items of the front
    matter by key (`references`), and each line's view span with its paragraph index (body
    paragraphs in document order; a note's definition line is -1)."""

    name: str
    text: str
    fields: tuple[WordField, ...]
    references: dict[str, dict[str, Any]]
    paragraphs: tuple[tuple[int, int, int], ...]
    works: dict[str, str] = field(default_factory=dict)
    """Which work each key is (its URIs, else its id and title): keys are derived afresh at each
    read, so two reads are compared by work (`core.containers.word_write`)."""

    @property
    def citing(self) -> bool:
        """Whether the view cites by fields (pandoc dialect) rather than by `[1]` text (numbered)."""
        return bool(self.fields)

    @cached_property
    def shown_alone(self) -> dict[str, str]:
        """How each key is displayed where a field cites it alone (brackets included), by the first
        such field: found once per view, not once per field a repair rewrites (quadratic)."""
        shown: dict[str, str] = {}
        for cited in self.fields:
            if len(cited.items) == 1 and cited.displayed.strip():
                shown.setdefault(cited.items[0].key, cited.displayed)
        return shown


@dataclass
class Scan:
    """Everything a read found, the XML elements included (what `core.containers.word_write` edits)."""

    package: Package
    tree: Any
    parts: dict[str, Any]
    """Each part read, by name (document.xml and the notes parts), its parsed tree."""
    view: WordView
    lines: list[list[Token]]
    line_paragraphs: list[Any]
    fields: list[OpenField]


class DocxReadError(DocumentError):
    """A citation field whose JSON cannot be read (never raised out of `read_docx`: the field is
    then read as an ordinary one, its displayed text as plain text)."""


class DocxTooDeepError(DocumentError):
    """A citation field whose JSON nests deeper than any citation (`safeload.MAX_NESTING`): the
    parser would run out of stack. Raised out of `read_docx` with the document's name (exit 2)."""


def read_docx(data: bytes, name: str = "document.docx") -> WordView:
    """The pandoc Markdown view of a .docx's bytes (DocumentError for a file that is no safe .docx)."""
    return scan_docx(data, name).view


def scan_docx(data: bytes, name: str = "document.docx") -> Scan:
    """The view of a .docx with the XML elements behind every character (fresh elements each call)."""
    package = open_package(data, name)
    tree = parse_xml(package.document, name, DOCUMENT_PART)
    parts = {DOCUMENT_PART: tree}
    notes: dict[tuple[str, str], Any] = {}
    for kind, part, payload in package.notes:
        parts[part] = parse_xml(payload, name, part)
        for note in parts[part].getroot().iterchildren(WQ + kind[:-1]):
            if note.get(WQ + "type", "normal") == "normal" and note.get(WQ + "id") is not None:
                notes.setdefault((kind, note.get(WQ + "id")), note)
    walker = _Walker(heading_levels(package.styles, name), notes)
    body = tree.getroot().find(WQ + "body")
    try:
        if body is not None:
            walker.walk_body(body)
        walker.walk_notes()
    except DocxTooDeepError as exc:
        raise DocxTooDeepError(f"{name} is damaged: {exc.message}. Not read.") from exc
    citing = [f for f in walker.fields if f.kind in (ZOTERO, MENDELEY)]
    citations = [_citation_json(f) for f in citing]
    keys = assign_keys(citations)
    lines = walker.finish(citing, bool(citing))
    text, spans, field_spans = _render(lines, citations, keys, walker)
    part_of = {t.getroot(): part for part, t in parts.items()}
    fields = []
    for index, (raw, citation) in enumerate(zip(citing, citations, strict=True)):
        items = tuple(WordItem(keys[identity(item)], item) for item in citation.get("citationItems", ()))
        start, end = field_spans[index]
        fields.append(
            WordField(
                index=index,
                kind=raw.kind,
                start=start,
                end=end,
                citation=citation,
                items=items,
                citation_id=_str_or_none(citation.get("citationID")),
                displayed=_displayed(raw),
                paragraph=raw.paragraph,
                location=raw.begin.getroottree().getpath(raw.begin),
                part=part_of[raw.begin.getroottree().getroot()],
            )
        )
    references = references_of(citations, keys)
    front = front_matter(references) if citing else ""
    shift = len(front)
    view = WordView(
        name=name,
        text=front + text,
        fields=tuple(
            WordField(**{**f.__dict__, "start": f.start + shift, "end": f.end + shift}) for f in fields
        ),
        references=references,
        paragraphs=tuple((s + shift, e + shift, p) for s, e, p in spans),
        works={key: ident for ident, key in keys.items()},
    )
    return Scan(package, tree, parts, view, lines, walker.line_paragraphs, citing)


# the walk over document.xml and its notes ------------------------------------------------------------
class _Walker:
    """Reads the body's paragraphs in order into lines of tokens, following fields across runs and
    paragraphs (a field's state persists: Zotero's bibliography spans many paragraphs), then each
    note the body refers to into one line."""

    def __init__(self, headings: dict[str, int], notes: dict[tuple[str, str], Any]) -> None:
        self.headings = headings
        self.notes = notes
        self.note_order: dict[tuple[str, str], int] = {}
        """The notes the body refers to, each with its label (1, 2, … in the order of first marks)."""
        self.in_note = False
        self.prefixes: list[str] = []
        self.stack: list[OpenField] = []
        self.fields: list[OpenField] = []
        self.paragraph = -1
        self.raw_lines: list[list[Token | OpenField]] = []
        self.levels: list[int] = []
        self.line_paragraphs: list[Any] = []
        self.current: list[Token | OpenField] = []

    def walk_body(self, body: Any) -> None:
        for p in body.iter(WQ + "p"):
            if any(True for _ in p.iterancestors(WQ + "p")):
                continue  # a text box's paragraph: not body text
            if any(_sdt_tag(sdt) == _MENDELEY_CITE_BIBLIOGRAPHY for sdt in p.iterancestors(WQ + "sdt")):
                continue  # Mendeley Cite's bibliography: generated, no prose
            self.paragraph += 1
            self.current = []
            self._children(p)
            self.raw_lines.append(self.current)
            self.levels.append(self._level(p))
            self.line_paragraphs.append(p)
            self.prefixes.append("")

    def walk_notes(self) -> None:
        """One line per note referred to: its paragraphs joined by a space (a note's mark inside a
        note is not followed; a field left open in the body does not swallow the notes)."""
        self.in_note = True
        for ident, label in self.note_order.items():
            note = self.notes[ident]
            self.stack = []
            self.current = []
            for p in note.iter(WQ + "p"):
                if any(True for _ in p.iterancestors(WQ + "p")):
                    continue
                if self.current:
                    self.current.append(Token(" "))
                self.paragraph += 1
                self._children(p)
            self.stack = []
            self.raw_lines.append(self.current)
            self.levels.append(0)
            self.line_paragraphs.append(note)
            self.prefixes.append(f"[^{label}]: ")

    def _level(self, p: Any) -> int:
        style = p.find(f"{WQ}pPr/{WQ}pStyle")
        if style is None:
            return 0
        return self.headings.get(style.get(WQ + "val", ""), 0)

    def _children(self, parent: Any) -> None:
        for child in parent:
            tag = child.tag
            if tag == WQ + "r":
                self._run(child)
            elif tag == WQ + "fldSimple":
                opened = OpenField(child, self.paragraph, simple=True)
                opened.instr_parts.append(child.get(WQ + "instr", ""))
                self._begin(opened)
                self._separate()
                self._children(child)
                self._end(child)
            elif tag == WQ + "sdt" and _sdt_tag(child).startswith(_MENDELEY_CITE):
                self._content_control(child)
            elif tag == WQ + "sdt" and _sdt_tag(child) == _MENDELEY_CITE_BIBLIOGRAPHY:
                continue  # generated, no prose
            elif tag in _TRANSPARENT:
                self._children(child)

    def _content_control(self, sdt: Any) -> None:
        """A Mendeley Cite citation as a field: its tag's JSON the instruction, its content the
        displayed text (undecodable, it is an ordinary field: its text read as text)."""
        opened = OpenField(sdt, self.paragraph, control=True)
        try:
            encoded = _sdt_tag(sdt)[len(_MENDELEY_CITE) :]
            citation = base64.b64decode(encoded + "=" * (-len(encoded) % 4)).decode("utf-8")
        except (binascii.Error, ValueError):
            citation = ""
        opened.instr_parts.append("ADDIN CSL_CITATION " + citation if citation else "")
        self._begin(opened)
        self._separate()
        content = sdt.find(WQ + "sdtContent")
        if content is not None:
            self._children(content)
        self._end(sdt)

    def _run(self, run: Any) -> None:
        for child in run:
            tag = child.tag
            if tag == WQ + "t":
                for at, char in enumerate(child.text or ""):
                    self._char(Token(char, child, at))
            elif tag == WQ + "instrText":
                if self.stack and not self.stack[-1].result:
                    self.stack[-1].instr_parts.append(child.text or "")
                    self.stack[-1].instr_elements.append(child)
            elif tag == WQ + "fldChar":
                kind = child.get(WQ + "fldCharType")
                if kind == "begin":
                    self._begin(OpenField(child, self.paragraph))
                elif kind == "separate":
                    self._separate()
                elif kind == "end":
                    self._end(child)
            elif tag in (WQ + "tab", WQ + "br", WQ + "cr"):
                self._char(Token(" "))
            elif tag == WQ + "noBreakHyphen":
                self._char(Token("-"))
            elif tag in _NOTE_REFERENCES and not self.in_note and self._visible():
                ident = (_NOTE_REFERENCES[tag], child.get(WQ + "id", ""))
                if ident in self.notes:
                    label = self.note_order.setdefault(ident, len(self.note_order) + 1)
                    self.current.append(Token(f"[^{label}]"))

    def _begin(self, opened: OpenField) -> None:
        self.stack.append(opened)

    def _separate(self) -> None:
        if self.stack and not self.stack[-1].result:
            top = self.stack[-1]
            top.result = True
            self._classify(top)

    def _end(self, element: Any) -> None:
        if not self.stack:
            return  # an end without a begin: ignored
        top = self.stack.pop()
        if not top.result:
            self._classify(top)
        top.end = element
        top.end_paragraph = self.paragraph

    def _classify(self, opened: OpenField) -> None:
        opened.kind = _field_kind(opened.instruction)
        nested = any(f.kind in (ZOTERO, MENDELEY, _BIBLIOGRAPHY) for f in self.stack if f is not opened)
        if nested or (opened.kind in (ZOTERO, MENDELEY) and not _readable(opened)):
            opened.kind = _ORDINARY if not nested else "nested"
        self.fields.append(opened)
        if opened.kind in (ZOTERO, MENDELEY):
            self.current.append(opened)

    def _owner(self) -> OpenField | None:
        return next((f for f in self.stack if f.kind in (ZOTERO, MENDELEY, _BIBLIOGRAPHY)), None)

    def _visible(self) -> bool:
        """Whether what comes now is shown as prose: not in a citation or bibliography field's
        displayed text, nor in any field's instruction."""
        return self._owner() is None and all(f.result for f in self.stack)

    def _char(self, token: Token) -> None:
        owner = self._owner()
        if owner is not None:
            if owner.result and token.element is not None:
                owner.result_elements.append((token.element, token.at))
            return
        if any(not f.result for f in self.stack):
            return  # text inside an instruction: not displayed
        self.current.append(token)

    def finish(self, citing: list[OpenField], escape_citing: bool) -> list[list[Token]]:
        """The lines: tokens escaped for Markdown, heading prefixes added, empty lines dropped."""
        for index, opened in enumerate(citing):
            opened.index = index
        lines: list[list[Token]] = []
        kept: list[Any] = []
        self.kept_numbers: list[int] = []
        for number, (raw, level, p, prefix) in enumerate(
            zip(self.raw_lines, self.levels, self.line_paragraphs, self.prefixes, strict=True)
        ):
            tokens = [t if isinstance(t, Token) else Token("", field=t.index) for t in raw]
            _escape(tokens, escape_citing, heading=level > 0)
            if prefix:  # a note's definition: kept even when empty, its mark refers to it
                lines.append([Token(prefix), *tokens])
                kept.append(p)
                self.kept_numbers.append(-1)
                continue
            if not any(t.view.strip() or t.field >= 0 for t in tokens):
                continue
            if level == 0 and _plain_text(tokens).strip().rstrip(":").lower() in _REFERENCE_TITLES:
                level = 1
            if level:
                tokens = [Token("#" * level + " "), *tokens]
            lines.append(tokens)
            kept.append(p)
            self.kept_numbers.append(number)
        self.line_paragraphs = kept
        return lines


_TRANSPARENT = frozenset(
    WQ + tag for tag in ("hyperlink", "ins", "moveTo", "smartTag", "sdt", "sdtContent", "customXml")
)


def _sdt_tag(sdt: Any) -> str:
    tag = sdt.find(f"{WQ}sdtPr/{WQ}tag")
    return "" if tag is None else str(tag.get(WQ + "val", ""))


def _field_kind(instruction: str) -> str:
    words = instruction.split()
    head = " ".join(words[:3]).upper()
    if head.startswith("ADDIN ZOTERO_ITEM"):
        return ZOTERO
    if head.startswith("ADDIN ZOTERO_BIBL") or "CSL_BIBLIOGRAPHY" in instruction.upper():
        return _BIBLIOGRAPHY
    if head.startswith("ADDIN CSL_CITATION"):
        return MENDELEY
    return _ORDINARY


def _readable(opened: OpenField) -> bool:
    try:
        _citation_json(opened)
    except DocxReadError:
        return False
    return True


def _citation_json(opened: OpenField) -> dict[str, Any]:
    """The JSON of a citation field's instruction (after `ADDIN … CSL_CITATION`)."""
    instruction = opened.instruction
    brace = instruction.find("{")
    if brace < 0:
        raise DocxReadError("no JSON")
    if json_too_deep(instruction[brace:]):
        raise DocxTooDeepError(
            f"a citation field's data is nested more than {MAX_NESTING} levels deep, which no "
            "citation needs (the JSON reader would run out of stack)"
        )
    try:
        value, _ = json.JSONDecoder().raw_decode(instruction, brace)
    except ValueError as exc:
        raise DocxReadError(str(exc)) from exc
    if not isinstance(value, dict) or not isinstance(value.get("citationItems"), list):
        raise DocxReadError("no citationItems")
    if not value["citationItems"] or not all(isinstance(i, dict) for i in value["citationItems"]):
        raise DocxReadError("empty citationItems")
    return value


def _displayed(opened: OpenField) -> str:
    return "".join(element.text[at] for element, at in opened.result_elements)


# escaping -------------------------------------------------------------------------------------------
def _escape(tokens: list[Token], citing: bool, *, heading: bool) -> None:
    """Backslash-escape what Markdown would misread; leading white space is dropped from the line."""
    previous = ""
    for token in tokens:
        char = token.view
        in_word = char == "@" and (previous.isalnum() or previous in "._")
        if (
            char in _ESCAPED
            or (citing and char in _ESCAPED_CITING and not in_word)
            or (heading and char == "#")
        ):
            token.view = "\\" + char
        previous = char
    first = 0
    while first < len(tokens) and tokens[first].field < 0 and not tokens[first].view.strip():
        tokens[first].view = ""
        first += 1
    if first == len(tokens) or tokens[first].field >= 0:
        return
    if tokens[first].element is None and tokens[first].view.startswith("[^"):
        if first + 1 < len(tokens) and tokens[first + 1].view == ":":
            tokens[first + 1].view = "\\:"  # `[^1]:` at a line's start would define a note
        return
    if tokens[first].view in _LINE_START:
        tokens[first].view = "\\" + tokens[first].view
        return
    digits = first
    while digits < len(tokens) and tokens[digits].view.isdigit():
        digits += 1
    if digits > first and digits < len(tokens) and tokens[digits].view in (".", ")"):
        tokens[digits].view = "\\" + tokens[digits].view


def _plain_text(tokens: list[Token]) -> str:
    return "".join(t.view for t in tokens if t.field < 0)


def unescape(view: str) -> str:
    """Plain text of a view's text: a backslash before punctuation dropped."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", view)


def _render(
    lines: list[list[Token]], citations: list[dict[str, Any]], keys: dict[str, str], walker: _Walker
) -> tuple[str, list[tuple[int, int, int]], list[tuple[int, int]]]:
    """The body text, each line's span and paragraph number, each field's group span."""
    parts: list[str] = []
    spans: list[tuple[int, int, int]] = []
    field_spans: dict[int, tuple[int, int]] = {}
    offset = 0
    for tokens, number in zip(lines, walker.kept_numbers, strict=True):
        start = offset
        for token in tokens:
            if token.field >= 0:
                token.view = group_text(citations[token.field], keys)
                field_spans[token.field] = (offset, offset + len(token.view))
            offset += len(token.view)
        line = "".join(t.view for t in tokens)
        parts.append(line)
        spans.append((start, offset, number))
        offset += 2
    text = "\n\n".join(parts) + ("\n" if parts else "")
    return text, spans, [field_spans.get(i, (-1, -1)) for i in range(len(citations))]


def _str_or_none(value: object) -> str | None:
    return None if value is None else str(value)
