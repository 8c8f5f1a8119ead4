"""The reference list and the identifiers in each entry (URL, DOI, arXiv id, local path)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from citedesk.core.document.markdown import Definition, Heading, Layout, strip_markup
from citedesk.core.text import iter_lines

SECTION_TITLES = re.compile(
    r"(?:references?|sources?|bibliography|works\s+cited|notes|footnotes|citations|"
    r"literature(?:\s+cited)?|cited\s+works|endnotes)",
    re.IGNORECASE,
)

_BRACKET = re.compile(r"[ \t]*(?:[-*+][ \t]+)?\[(\d{1,6})\][ \t]*:?[ \t]*")
_FOOTNOTE = re.compile(r"[ \t]*\[\^([^\]\s]+)\]:[ \t]*")  # a key of any length, as markers read it
_DOTTED = re.compile(r"[ \t]*(\d{1,6})([.)])[ \t]+")
_BULLET = re.compile(r"[ \t]*[-*+][ \t]+")

_URL = re.compile(r"https?://[^\s<>\"'`\]]+", re.IGNORECASE)
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)")
_DOI_URL = re.compile(r"https?://(?:dx\.)?doi\.org/(10\.\d{4,9}/[^\s\"<>]+)", re.IGNORECASE)
_ARXIV = re.compile(
    r"(?:arxiv:\s*|arxiv\.org/(?:abs|pdf)/)((?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?)",
    re.IGNORECASE,
)
_PATH = re.compile(
    r"(?<![\w/:.])((?:\.{0,2}/)?(?:[\w.-]+/)*[\w.-]+\.(?:md|markdown|txt|html?|pdf))\b", re.IGNORECASE
)
_MD_LINK = re.compile(r"\[([^\[\]\n]{1,500})\]\(([^()\s]{1,2000})\)")
_QUOTED = re.compile(r"[\"“]([^\"”\n]{3,400})[\"”]")
_ITALIC = re.compile(r"(?<![*_\w])[*_]([^*_\n]{3,400})[*_](?![*_\w])")
_YEAR = re.compile(r"\b(1[5-9]\d{2}|20\d{2})\b")
_TRAILING = ".,;:)]>"


class LabelStyle(StrEnum):
    BRACKET = "bracket"  # [1] Smith …
    DOTTED = "dotted"  # 1. Smith …   or 1) Smith …
    FOOTNOTE = "footnote"  # [^1]: Smith …
    NONE = "none"  # unnumbered: bullets or paragraphs, keyed by position


@dataclass(frozen=True, slots=True)
class Reference:
    key: str
    start: int
    end: int
    """The entry's span, from its label to the end of its last line (line ending excluded)."""
    label_start: int
    label_end: int
    """The number inside the label (`3` of `[3]`, `3.` or `[^3]:`); empty for unnumbered entries."""
    style: LabelStyle
    text: str
    title: str | None = None
    url: str | None = None
    doi: str | None = None
    arxiv: str | None = None
    path: str | None = None
    year: str | None = None
    authors: str | None = None
    in_section: bool = True

    @property
    def numeric(self) -> bool:
        return self.key.isdecimal()


@dataclass(frozen=True, slots=True)
class ReferenceList:
    entries: tuple[Reference, ...]
    section: tuple[int, int] | None
    """The reference section's span, heading included; None when the document has none."""
    heading: Heading | None

    def by_key(self) -> dict[str, Reference]:
        found: dict[str, Reference] = {}
        for entry in self.entries:
            found.setdefault(entry.key, entry)
        return found


def find_reference_section(text: str, layout: Layout) -> tuple[Heading | None, tuple[int, int] | None]:
    """The last heading titled References / Sources / … and the span it governs."""
    chosen: int | None = None
    for index, heading in enumerate(layout.headings):
        if SECTION_TITLES.fullmatch(strip_markup(heading.title)):
            chosen = index
    if chosen is None:
        return None, None
    heading = layout.headings[chosen]
    end = len(text)
    for later in layout.headings[chosen + 1 :]:
        if later.level <= heading.level or heading.level == 7:
            end = later.start
            break
    return heading, (heading.start, end)


def parse_references(text: str, layout: Layout) -> ReferenceList:
    heading, section = find_reference_section(text, layout)
    entries: list[Reference] = []
    if section is not None:
        entries.extend(_section_entries(text, heading, section))
    for definition in layout.definitions:
        if section is not None and section[0] <= definition.start < section[1]:
            continue
        reference = _definition_entry(text, definition)
        if reference is not None:
            entries.append(reference)
    return ReferenceList(tuple(entries), section, heading)


def _definition_entry(text: str, definition: Definition) -> Reference | None:
    if not definition.footnote and not definition.key.isdecimal():
        return None  # an ordinary link definition such as [docs]: https://…
    label_start = text.find(definition.key, definition.start)
    body = text[definition.body_start : definition.end]
    style = LabelStyle.FOOTNOTE if definition.footnote else LabelStyle.BRACKET
    return _entry(
        key=definition.key,
        start=definition.start,
        end=definition.end,
        label=(label_start, label_start + len(definition.key)),
        style=style,
        body=body,
        in_section=False,
    )


def _section_entries(text: str, heading: Heading | None, section: tuple[int, int]) -> list[Reference]:
    body_start = heading.end if heading else section[0]
    lines = [ln for ln in iter_lines(text[: section[1]]) if ln[0] >= body_start]
    raw: list[tuple[str | None, int, tuple[int, int], LabelStyle, int, int]] = []
    # (key, start, label span, style, body start, end)
    numbered = any(
        _BRACKET.match(text, s, e) or _FOOTNOTE.match(text, s, e) or _DOTTED.match(text, s, e)
        for s, e, _ in lines
    )
    previous_blank = True
    for s, e, _ in lines:
        line = text[s:e]
        if not line.strip():
            previous_blank = True
            continue
        if line.lstrip().startswith(("```", "~~~", "<!--")):
            previous_blank = False
            continue
        match: re.Match[str] | None
        if match := _FOOTNOTE.match(text, s, e):
            raw.append((match.group(1), s, match.span(1), LabelStyle.FOOTNOTE, match.end(), e))
        elif match := _BRACKET.match(text, s, e):
            raw.append((match.group(1), s, match.span(1), LabelStyle.BRACKET, match.end(), e))
        elif match := _DOTTED.match(text, s, e):
            raw.append((match.group(1), s, match.span(1), LabelStyle.DOTTED, match.end(), e))
        elif not numbered and ((match := _BULLET.match(text, s, e)) or previous_blank):
            body = match.end() if match else s + len(line) - len(line.lstrip())
            raw.append((None, s, (body, body), LabelStyle.NONE, body, e))
        elif raw:
            key, start, label, style, body, _ = raw[-1]
            raw[-1] = (key, start, label, style, body, e)
        previous_blank = False

    entries: list[Reference] = []
    for position, (key, start, label, style, body, end) in enumerate(raw, start=1):
        entry = _entry(
            key=key if key is not None else str(position),
            start=start + len(text[start:end]) - len(text[start:end].lstrip()),
            end=end,
            label=label,
            style=style,
            body=text[body:end],
            in_section=True,
        )
        entries.append(entry)
    return entries


def _entry(
    *, key: str, start: int, end: int, label: tuple[int, int], style: LabelStyle, body: str, in_section: bool
) -> Reference:
    fields = extract_fields(body)
    return Reference(
        key=str(int(key)) if key.isdecimal() else key,
        start=start,
        end=end,
        label_start=label[0],
        label_end=label[1],
        style=style,
        text=" ".join(body.split()),
        in_section=in_section,
        **fields,
    )


def extract_fields(body: str) -> dict[str, str | None]:
    """Title, URL, DOI, arXiv id, local path, year and authors from one entry's text."""
    url = doi = arxiv = path = title = None
    link = _MD_LINK.search(body)
    links_to_path = False
    if link:
        target = link.group(2)
        if _URL.fullmatch(target):
            url = target
        elif _PATH.fullmatch(target):
            path = target
            links_to_path = True
    if url is None and (found := _URL.search(body)):
        url = found.group(0).rstrip(_TRAILING)
    if (found := _DOI_URL.search(body)) or (found := _DOI.search(body)):
        doi = found.group(1).rstrip(_TRAILING)
    if found := _ARXIV.search(body):
        arxiv = found.group(1)
    if path is None:
        without_urls = _URL.sub(" ", body)
        if found := _PATH.search(without_urls):
            path = found.group(1)

    if found := _QUOTED.search(body):
        title = found.group(1)
    elif link and not _URL.fullmatch(link.group(1)) and (url or links_to_path):
        title = link.group(1)
    elif found := _ITALIC.search(body):
        title = found.group(1)
    else:
        title = _plain_title(body)
    title = title.strip().strip(" .,;:") if title else None

    year_match = _YEAR.search(_URL.sub(" ", body))
    year = year_match.group(1) if year_match else None
    authors = None
    if year_match and year_match.start() > 0:
        before = body[: year_match.start()].strip(" (,.")
        if before and len(before) < 300 and not _URL.search(before):
            authors = before
    return {
        "title": title or None,
        "url": url,
        "doi": doi,
        "arxiv": arxiv,
        "path": path,
        "year": year,
        "authors": authors,
    }


def _plain_title(body: str) -> str | None:
    text = _URL.sub(" ", body)
    text = _DOI.sub(" ", text)
    text = _PATH.sub(" ", text)
    text = re.sub(r"\b(?:doi|arxiv)\s*:\s*\S*", " ", text, flags=re.IGNORECASE)
    text = re.sub(r"\b(?:retrieved from|available at|accessed)\b.*$", " ", text, flags=re.IGNORECASE)
    dated = re.search(r"\((?:1[5-9]|20)\d{2}[a-z]?\)\.?\s*", text)
    if dated and text[dated.end() :].strip(" .,;:"):
        text = text[dated.end() :]
        text = re.split(r"(?<=[a-z0-9])\.\s", text, maxsplit=1)[0]
    text = re.sub(r"[<>\[\]()]", " ", text)
    text = " ".join(text.split()).strip(" .,;:-–")
    return text or None


def normalise_url(url: str) -> str:
    """A comparable form of a URL: scheme-less, lower-case host, no fragment or trailing slash."""
    url = url.strip().split("#", 1)[0]
    url = re.sub(r"^https?://", "", url, flags=re.IGNORECASE)
    host, _, rest = url.partition("/")
    host = host.lower().removeprefix("www.")
    return (host + ("/" + rest if rest else "")).rstrip("/")


def normalise_doi(doi: str) -> str:
    return doi.strip().lower()
