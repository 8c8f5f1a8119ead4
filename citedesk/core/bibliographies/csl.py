"""CSL-JSON and CSL-YAML bibliographies (pandoc's `references:` form) → `BibEntry`.

Read through the guarded loaders (`core.safeload`), so hostile nesting is a clear error. Fields of
the wrong type are read where the meaning is plain (a list of strings joined, an author written as
text taken as one name) and otherwise ignored, each with a warning naming the entry and its line.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from typing import Any

from citedesk.core.bibliographies.model import (
    BibEntry,
    BibliographyError,
    arxiv_id,
    bare_arxiv,
    bare_doi,
    first_isbn,
    year_of,
)
from citedesk.core.safeload import _load_yaml, safe_json

Read = tuple[list[BibEntry], list[str]]
_TAGS = re.compile(r"<[^<>\n]{0,200}>")
_MARKDOWN_EMPHASIS = re.compile(r"(\*{1,3}|_{1,3})(?=\S)(.+?)(?<=\S)\1")


def read_csl_json(text: str, source: str | None) -> Read:
    """Entries of a CSL-JSON file (an array of items, as Zotero and Better BibTeX export)."""
    if not text.lstrip("\ufeff \t\r\n"):
        return [], []  # an empty file: an empty bibliography (the caller says it has no entries)
    data = safe_json(text, source=source)
    items = data.get("items", data.get("references")) if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise BibliographyError(
            'no entries: a CSL-JSON bibliography is a list of items (`[{"id": …}, …]`); '
            "is it a CSL-JSON file?",
            source=source,
            line=1,
        )
    lines = _json_id_lines(text)
    warnings: list[str] = []
    entries = [_csl_entry(item, i, source, lines, warnings, markdown=False) for i, item in enumerate(items)]
    return entries, warnings


def read_csl_yaml(text: str, source: str | None) -> Read:
    """Entries of a CSL-YAML file: `references:` with a list of items (pandoc's form), or the list."""
    node, data = _load_yaml(text, source, 1)
    if data is None:
        return [], []  # empty, or only comments: an empty bibliography
    items_node: Any = node
    if isinstance(data, dict) and "references" in data:
        data = data["references"]
        items_node = next((v for k, v in node.value if k.value == "references"), None) if node else None
        if data is None:
            return [], []  # `references:` and nothing under it
    if not isinstance(data, list):
        raise BibliographyError(
            "no entries: a CSL-YAML bibliography holds `references:` with a list of items; "
            "is it a CSL-YAML file?",
            source=source,
        )
    lines = {i: n.start_mark.line + 1 for i, n in enumerate(getattr(items_node, "value", []) or [])}
    warnings: list[str] = []
    entries = [
        _csl_entry(item, i, source, {}, warnings, markdown=True, line=lines.get(i))
        for i, item in enumerate(data)
    ]
    return entries, warnings


def _json_id_lines(text: str) -> dict[str, int]:
    lines: dict[str, int] = {}
    line, counted = 1, 0
    for match in re.finditer(r'"id"\s*:\s*"((?:[^"\\]|\\.)*)"', text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        lines.setdefault(match.group(1), line)
    return lines


_CSL_TEXT_FIELDS = (
    "type",
    "title",
    "container-title",
    "collection-title",
    "publisher",
    "volume",
    "issue",
    "page",
    "doi",
    "url",
    "number",
    "archive",
    "isbn",
)
"""The CSL variables `BibEntry` reads as text."""
_CSL_IDENTIFIERS = frozenset(["type", "doi", "url", "number", "archive", "isbn"])
"""Of those, the ones where a list is read as its first item; the others join their items."""
_SHOWN = 60
"""How much of a value a warning quotes."""


def _csl_entry(
    item: object,
    index: int,
    source: str | None,
    lines: Mapping[str, int],
    warnings: list[str],
    *,
    markdown: bool,
    line: int | None = None,
) -> BibEntry:
    """One CSL item. What it holds in the wrong type is read where the intent is clear (a title
    as a list of strings, a number for text, one author as text) and ignored otherwise; either way
    a warning in `warnings` names the entry, its line and the field."""
    if not isinstance(item, dict) or item.get("id") in (None, ""):
        raise BibliographyError(f"item {index + 1} has no `id` (its citation key)", source=source, line=line)
    key = _scalar_text(item["id"])
    if key is None:
        raise BibliographyError(
            f"item {index + 1}: its `id` (its citation key) is {_kind(item['id'])}, not text",
            source=source,
            line=line,
        )
    line = line if line is not None else lines.get(key)
    where = f"entry {key!r}" + (f" (line {line})" if line is not None else "")
    fields = {str(k).lower(): v for k, v in item.items()}

    def note(name: str, problem: str) -> None:
        warnings.append(f"{where}: {name!r} {problem}")

    texts: dict[str, str | None] = {}
    for name in _CSL_TEXT_FIELDS:
        value, problem = _csl_text(fields.get(name), first=name in _CSL_IDENTIFIERS)
        if problem:
            note(name, problem)
        if value is not None:
            value = _TAGS.sub("", value)
            if markdown:
                value = _MARKDOWN_EMPHASIS.sub(r"\2", value)
            value = " ".join(value.split())
        texts[name] = value or None

    def text_of(name: str) -> str | None:
        return texts[name]

    authors: list[str] = []
    for name in ("author", "editor"):
        if fields.get(name) in (None, "", [], {}):
            continue
        names, problem = _csl_names(fields[name])
        if problem:
            note(name, problem)
        if names:
            authors = names
            break
    year, problem = _csl_year(fields.get("issued"))
    if problem:
        note("issued", problem)
    url = text_of("url")
    doi = bare_doi(text_of("doi"))
    return BibEntry(
        key=key,
        entry_type=text_of("type") or "",
        title=text_of("title"),
        authors=tuple(authors),
        year=year,
        container=text_of("container-title") or text_of("collection-title") or text_of("publisher"),
        volume=text_of("volume"),
        issue=text_of("issue"),
        pages=text_of("page"),
        doi=doi,
        url=url,
        arxiv=arxiv_id(url, text_of("doi"), text_of("number"), text_of("container-title"))
        or (bare_arxiv(text_of("number")) if (text_of("archive") or "").lower() == "arxiv" else None),
        isbn=first_isbn(text_of("isbn")),
        files=(),
        line=line,
    )


def _scalar_text(value: object) -> str | None:
    """A string, a number or a date (YAML reads `2020-05-01` as one) as text; None for anything
    else: true/false (YAML's `yes`, `off` …), lists, mappings."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return None


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "empty" if value is None else f"a {type(value).__name__}"


def _shown(text: str) -> str:
    return repr(text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…")


def _csl_text(value: object, *, first: bool) -> tuple[str | None, str | None]:
    """A CSL text variable's value, and what was wrong with its type (None when nothing was): a
    list of texts is read as its first item (`first`, for identifiers) or as its items joined."""
    if value is None:
        return None, None
    text = _scalar_text(value)
    if text is not None:
        return text, None
    if isinstance(value, list):
        parts = [_scalar_text(v) for v in value]
        written = [p.strip() for p in parts if p is not None and p.strip()]
        if all(p is not None for p in parts):
            if not written:
                return None, None  # `[]`, `[""]`: nothing written
            read = written[0] if first else " ".join(written)
            return read, f"is a list, not text; read as {_shown(read)}"
    return None, f"is {_kind(value)}, not text; ignored"


def _csl_names(value: object) -> tuple[list[str], str | None]:
    """The names of a CSL name variable (a list of `{family, given}` or `{literal}` mappings, or of
    texts), and what was wrong with its type: one name as text or as a mapping is read as that name."""
    if isinstance(value, dict):
        one, problem = _csl_names([value])
        read = f"read as {_shown(one[0])}" if one else "ignored"
        return one, problem or f"is one name, not a list of names; {read}"
    if isinstance(value, str):
        name = value.strip()
        if not name:
            return [], None
        return [name], f"is text, not a list of names; read as one name, {_shown(name)}"
    if not isinstance(value, list):
        return [], f"is {_kind(value)}, not a list of names; ignored"
    names: list[str] = []
    unread = 0
    for person in value:
        if isinstance(person, dict):
            parts = {
                p: _scalar_text(person.get(p)) or ""
                for p in ("non-dropping-particle", "family", "given", "literal")
            }
            family = " ".join(parts[p] for p in ("non-dropping-particle", "family") if parts[p])
            name = parts["literal"] or ", ".join(part for part in (family, parts["given"]) if part)
            if name:
                names.append(name)
            elif any(person.get(p) not in (None, "") for p in parts):
                unread += 1
        elif isinstance(person, str):
            if person.strip():
                names.append(person.strip())
        elif person is not None:
            unread += 1
    if unread:
        return (
            names,
            f"holds {unread} name(s) that are neither text nor a name mapping (`family`, `given`); ignored",
        )
    return names, None


def _csl_year(value: object, *, nested: bool = False) -> tuple[str | None, str | None]:
    """The year of a CSL date: `{"date-parts": [[2014, 12]]}`, `{"raw": …}`, a list of date
    objects (`- year: 2014`, as Better BibTeX writes YAML) or a date as text (`2014-12-09`, a year
    as a number); and what was wrong with its type, when it cannot be read as a date at all."""
    if value is None:
        return None, None
    if isinstance(value, dict):
        parts = value.get("date-parts")
        if isinstance(parts, list) and parts:
            first = parts[0][0] if isinstance(parts[0], list) and parts[0] else parts[0]
            text = _scalar_text(first)  # `[[2014, 12]]`, or flat: `[2014, 12]`
            if text is not None:
                return year_of(text), None
        for name in ("year", "raw", "literal"):
            text = _scalar_text(value.get(name))
            if text:
                return year_of(text), None
        return None, None
    if isinstance(value, list) and not nested:
        return _csl_year(value[0], nested=True) if value else (None, None)
    text = _scalar_text(value)
    if text is not None:
        return year_of(text), None
    return None, f"is {_kind(value)}, not a date; ignored"
