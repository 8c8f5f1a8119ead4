"""The four bibliography readers behind `core.bibliography.parse_bibliography`.

BibTeX/BibLaTeX is read by bibtexparser 2 (its splitter, `@string` resolution, name splitting and
LaTeX decoding middlewares), CSL-JSON by `json`, CSL-YAML by PyYAML, RIS by rispy; each reader
maps the format's fields onto `BibEntry` and turns the parser's complaints into a
BibliographyError with the line. Keys are the ones pandoc uses: the BibTeX key, the CSL `id`, and
for RIS the `ID` tag or, without one, pandoc's own `Family_Family_Year` (duplicates get `a`, `b` …).
"""

from __future__ import annotations

import datetime
import json
import logging
import re
from collections.abc import Mapping
from itertools import accumulate
from typing import Any

import rispy
import yaml
from bibtexparser.entrypoint import parse_string
from bibtexparser.library import Library
from bibtexparser.middlewares import LatexDecodingMiddleware, NameParts, SeparateCoAuthors, SplitNameParts
from bibtexparser.model import DuplicateBlockKeyBlock, Entry, Field, ImplicitComment, ParsingFailedBlock

from citedesk.core.bibliography import (
    BibEntry,
    BibliographyError,
    arxiv_id,
    bare_arxiv,
    bare_doi,
    first_isbn,
    parse_file_field,
    year_of,
)

Read = tuple[list[BibEntry], list[str]]

_NAME_FIELDS = ("author", "editor")
_DECODED_FIELDS = frozenset(
    [
        "title",
        "journaltitle",
        "journal",
        "booktitle",
        "maintitle",
        "series",
        "publisher",
        "howpublished",
        "year",
        "date",
        "volume",
        "number",
        "issue",
        "pages",
        "eprinttype",
        "archiveprefix",
    ]
)
"""The fields `BibEntry` takes from LaTeX text; the rest (abstracts, notes, keywords) are dropped
before decoding, which is what reading a .bib costs most (pylatexenc)."""
_NAME_SLOT = "citedesk-name-{field}-{index}"
_TAGS = re.compile(r"<[^<>\n]{0,200}>")
_LATEX = re.compile(r"[\\$~%&#^_]|--|``|''")
"""What only the LaTeX decoder can turn into text; braces alone (`{{Optical Tracking}}`, as Better
BibTeX protects capitals) are simply dropped, as the decoder would."""
_MARKDOWN_EMPHASIS = re.compile(r"(\*{1,3}|_{1,3})(?=\S)(.+?)(?<=\S)\1")

# -- BibTeX / BibLaTeX ------------------------------------------------------------------------


logging.getLogger("bibtexparser").addHandler(logging.NullHandler())
"""bibtexparser logs each block it rejects; CiteDesk reports it itself (file, line, reason), so
without logging set up by the application those lines are not printed a second time."""


def read_bibtex(text: str, source: str | None) -> Read:
    """Entries of a .bib file; raises BibliographyError at the first block bibtexparser rejects, and
    for text that holds no entry at all (a file of prose or of bytes is not an empty bibliography)."""
    library = parse_string(text)
    warnings: list[str] = []
    for block in library.failed_blocks:
        line = (block.start_line or 0) + 1
        if isinstance(block, DuplicateBlockKeyBlock):
            warnings.append(
                f"the key {block.key!r} is defined again (line {line}); the first definition is used"
            )
            continue
        reason = "this entry cannot be read"
        if isinstance(block, ParsingFailedBlock) and block.error is not None:
            reason, line = _bibtex_reason(block.error, text, line)
        raise BibliographyError(reason, source=source, line=line)
    if not library.entries and "@" in text and not library.comments and not library.strings:
        raise BibliographyError("no BibTeX entry (`@article{key, …}`) found", source=source)
    if not library.entries and not library.strings and not library.preambles:
        junk = next((c for c in library.comments if isinstance(c, ImplicitComment) and _is_text(c)), None)
        if junk is not None:
            raise BibliographyError(
                "no entries (`@article{key, …}`), only text: is it a BibTeX file?",
                source=source,
                line=(junk.start_line or 0) + 1 + _leading_blank_lines(junk.comment),
            )
    raw = {entry.key: {f.key.lower(): str(f.value) for f in entry.fields} for entry in library.entries}
    decoded, plain = _decoded(library)
    entries: list[BibEntry] = []
    for entry in decoded.entries:
        fields, names = _fields_and_names(entry, plain.get(entry.key, {}))
        entries.append(_bibtex_entry(entry, raw.get(entry.key, {}), fields, names))
    return entries, warnings


def _is_text(comment: ImplicitComment) -> bool:
    """Whether text between entries holds more than blank lines and `%` comments."""
    return any(line.strip() and not line.lstrip().startswith("%") for line in comment.comment.splitlines())


def _leading_blank_lines(comment: str) -> int:
    lines = comment.splitlines()
    return next((i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("%")), 0)


def _bibtex_reason(error: Exception, text: str, entry_line: int) -> tuple[str, int]:
    """Why bibtexparser rejected an entry, and the line to show: where it stopped reading, when that
    is where the entry is broken (a field without `=`, a missing comma); the entry's first line when
    it ran on to the next entry or the end of the file (a brace never closed), saying so."""
    reason = " ".join(str(getattr(error, "abort_reason", None) or str(error) or type(error).__name__).split())
    if reason.startswith("Unexpectedly reached end of file"):
        return f"{reason} The entry that starts here is never closed (is a `}}` missing?)", entry_line
    end = getattr(error, "end_index", None)
    if not isinstance(end, int) or not 0 <= end <= len(text):
        return reason, entry_line
    line = text.count("\n", 0, end) + 1
    if reason.startswith("Unexpected block start"):
        return (
            f"{reason} The entry that starts here is still open on line {line}, where the next one starts",
            entry_line,
        )
    if line == entry_line:
        return reason, line
    return f"{reason} (in the entry that starts on line {entry_line})", line


def _decoded(library: Library) -> tuple[Library, dict[str, dict[str, str]]]:
    """Names split into parts (braces still grouping `{World Health Organization}`), then the
    text fields and name parts that hold LaTeX decoded to plain Unicode by bibtexparser's
    middleware. Plain values skip the decoder (it is what reading a .bib costs most) and are
    returned apart: entry key → field → value."""
    plain: dict[str, dict[str, str]] = {}
    for entry in library.entries:
        for key, field in list(entry.fields_dict.items()):
            lower = key.lower()
            if lower in _NAME_FIELDS:
                continue
            if lower in _DECODED_FIELDS and not isinstance(field.value, str):
                continue
            if lower in _DECODED_FIELDS and not _LATEX.search(field.value):
                plain.setdefault(entry.key, {})[lower] = field.value.replace("{", "").replace("}", "")
            elif lower in _DECODED_FIELDS:
                continue
            entry.pop(key)
    library = SeparateCoAuthors().transform(library)
    library = SplitNameParts().transform(library)
    for entry in library.entries:
        for name_field in _NAME_FIELDS:
            names = entry.fields_dict.get(name_field)
            if names is None or not isinstance(names.value, list):
                continue
            entry.pop(name_field)
            for index, parts in enumerate(names.value):
                if any(_LATEX.search(p) for p in (*parts.first, *parts.von, *parts.last, *parts.jr)):
                    entry.set_field(Field(_NAME_SLOT.format(field=name_field, index=index), parts))
                else:
                    plain.setdefault(entry.key, {})[_NAME_SLOT.format(field=name_field, index=index)] = _name(
                        parts
                    )
    return LatexDecodingMiddleware().transform(library), plain


def _fields_and_names(entry: Entry, plain: Mapping[str, str]) -> tuple[dict[str, str], dict[str, list[str]]]:
    """The entry's text fields and its names per name field, in order, decoded or plain."""
    fields: dict[str, str] = {}
    slots: dict[str, str] = {}
    for field in entry.fields:
        if isinstance(field.value, NameParts):
            slots[field.key] = _name(field.value)
        elif isinstance(field.value, str):
            fields[field.key.lower()] = " ".join(field.value.split())
    for key, value in plain.items():
        if key.startswith("citedesk-name-"):
            slots[key] = value
        else:
            fields[key] = " ".join(value.split())
    names: dict[str, list[str]] = {}
    for key in sorted(slots, key=lambda k: (k.split("-")[2], int(k.split("-")[3]))):
        names.setdefault(key.split("-")[2], []).append(slots[key])
    return fields, names


def _name(parts: NameParts) -> str:
    for attribute in ("first", "von", "last", "jr"):
        setattr(parts, attribute, [p.replace("{", "").replace("}", "") for p in getattr(parts, attribute)])
    return parts.merge_last_name_first


def _bibtex_entry(
    entry: Entry, raw: Mapping[str, str], fields: Mapping[str, str], names: Mapping[str, list[str]]
) -> BibEntry:
    def get(*keys: str) -> str | None:
        return next((fields[k] for k in keys if fields.get(k)), None)

    url = _raw_text(raw.get("url")) or None
    doi = bare_doi(raw.get("doi")) or bare_doi(url if url and "doi" in url.lower() else None)
    eprint_type = (get("eprinttype", "archiveprefix") or "").lower()
    arxiv = (bare_arxiv(raw.get("eprint")) if eprint_type in ("arxiv", "") else None) or arxiv_id(
        url, raw.get("doi"), get("journal", "journaltitle"), raw.get("eprint")
    )
    files = parse_file_field(raw["file"]) if raw.get("file") else ()
    authors = names.get("author") or names.get("editor") or []
    return BibEntry(
        key=entry.key,
        entry_type=entry.entry_type.lower(),
        title=get("title"),
        authors=tuple(authors),
        year=year_of(get("year")) or year_of(get("date")),
        container=get(
            "journaltitle", "journal", "booktitle", "maintitle", "series", "publisher", "howpublished"
        ),
        volume=get("volume"),
        issue=get("number", "issue"),
        pages=_pages(get("pages")),
        doi=doi,
        url=url,
        arxiv=arxiv,
        isbn=first_isbn(raw.get("isbn")),
        files=files,
        line=(entry.start_line or 0) + 1,
    )


def _raw_text(value: str | None) -> str:
    """A URL-like field as written, LaTeX escapes of URL characters undone (`\\_`, `\\%`)."""
    if not value:
        return ""
    value = re.sub(r"\\url\{([^{}]*)\}", r"\1", value.strip())
    return re.sub(r"\\([_%&#$~])", r"\1", value).strip("{} ")


def _pages(value: str | None) -> str | None:
    return value.replace("--", "–") if value else None


# -- nesting: the guarded JSON and YAML loaders ------------------------------------------------

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
            f"this is not valid JSON ({exc.msg})", source=source, line=exc.lineno
        ) from exc
    except RecursionError as exc:  # the scan above should have caught it: a fallback
        raise BibliographyError(_TOO_DEEP, source=source) from exc
    except ValueError as exc:  # a number of thousands of digits (Python's int conversion limit)
        raise BibliographyError(_TOO_LONG, source=source) from exc


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


class _TooDeepError(Exception):
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
        raise BibliographyError(f"this is not valid YAML ({problem})", source=source, line=line) from exc
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


# -- CSL-JSON and CSL-YAML --------------------------------------------------------------------


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


# -- RIS --------------------------------------------------------------------------------------

_RIS_TAG = re.compile(r"^([A-Z][A-Z0-9])  -", re.MULTILINE)
_RIS_LISTS = ["A1", "A2", "A3", "A4", "AU", "KW", "N1", "UR", "L1", "L2", "L4"]


def read_ris(text: str, source: str | None) -> Read:
    """Entries of a RIS file. A record without its `ER  -` line is an error, as is a file with none."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    starts: list[int] = []
    line, counted = 1, 0
    for match in _RIS_TAG.finditer(text):
        if match.group(1) == "TY":
            line += text.count("\n", counted, match.start())
            counted = match.start()
            starts.append(line)
    if not starts and not text.strip():
        return [], []  # an empty file: an empty bibliography (the caller says it has no entries)
    if not starts:
        raise BibliographyError(
            "no RIS record (a `TY  - ` line) found: is it a RIS file?", source=source, line=1
        )
    records = rispy.loads(text, list_tags=_RIS_LISTS)
    if len(records) < len(starts):
        raise BibliographyError(
            "this record does not end with an `ER  - ` line", source=source, line=starts[len(records)]
        )
    entries: list[BibEntry] = []
    used: dict[str, int] = {}
    for record, line in zip(records, starts, strict=False):
        key = _ris_key(record)
        if key in used:  # pandoc: the second `Smith_2000` is `Smith_2000a`, then `b`
            used[key] += 1
            key += chr(ord("a") + used[key] - 1)
        else:
            used[key] = 0
        entries.append(_ris_entry(record, key, line))
    return entries, []


def _ris_key(record: Mapping[str, Any]) -> str:
    if record.get("id"):
        return str(record["id"]).strip()
    authors = [*record.get("authors", []), *record.get("first_authors", [])]
    families = [re.split(r"[,\s]", str(a).strip(), maxsplit=1)[0] for a in authors]
    years = [str(record[k]) for k in ("year", "publication_year") if record.get(k)]
    return "_".join(families) + "".join("_" + y for y in years)


def _ris_entry(record: Mapping[str, Any], key: str, line: int) -> BibEntry:
    def get(*names: str) -> str | None:
        for name in names:
            value = record.get(name)
            if isinstance(value, list):
                value = value[0] if value else None
            if value:
                return " ".join(str(value).split())
        return None

    urls = [str(u) for u in record.get("urls", [])]
    doi_text = get("doi")
    start, end = get("start_page"), get("end_page")
    pages = f"{start}–{end}" if start and end else start
    files = [f for tag in ("file_attachments1", "file_attachments2") for f in record.get(tag, [])]
    paths = tuple(p for f in files for p in parse_file_field(str(f).replace(";", "\\;")) if p)
    title = get("title", "primary_title", "translated_title")
    if (record.get("type_of_reference") or "") == "BOOK" and not title:
        title = get("secondary_title")
    return BibEntry(
        key=key,
        entry_type=get("type_of_reference") or "",
        title=title,
        authors=tuple(str(a).strip() for a in [*record.get("authors", []), *record.get("first_authors", [])]),
        year=year_of(get("year", "publication_year", "date")),
        container=get(
            "secondary_title", "journal_name", "alternate_title3", "alternate_title1", "alternate_title2"
        ),
        volume=get("volume"),
        issue=get("number"),
        pages=pages,
        doi=bare_doi(doi_text) or next((bare_doi(u) for u in urls if "doi.org" in u), None),
        url=urls[0] if urls else None,
        arxiv=arxiv_id(*urls, doi_text),
        isbn=first_isbn(get("issn")),
        files=paths,
        line=line,
    )
