"""The BibTeX/BibLaTeX and RIS readers behind `core.bibliographies.parse.parse_bibliography` (CSL-JSON and
CSL-YAML are `core.bibliographies.csl`'s).

BibTeX/BibLaTeX is read by bibtexparser 2 (its splitter, `@string` resolution, name splitting and
LaTeX decoding middlewares), RIS by rispy; each reader
maps the format's fields onto `BibEntry` and turns the parser's complaints into a
BibliographyError with the line. Keys are the ones pandoc uses: the BibTeX key, the CSL `id`, and
for RIS the `ID` tag or, without one, pandoc's own `Family_Family_Year` (duplicates get `a`, `b` …).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

import rispy
from bibtexparser.entrypoint import parse_string
from bibtexparser.library import Library
from bibtexparser.middlewares import LatexDecodingMiddleware, NameParts, SeparateCoAuthors, SplitNameParts
from bibtexparser.model import DuplicateBlockKeyBlock, Entry, Field, ImplicitComment, ParsingFailedBlock

from citedesk.core.bibliographies import syntax as bibsyntax
from citedesk.core.bibliographies.model import (
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
_LATEX = re.compile(r"[\\$~%&#^_]|--|``|''")
"""What only the LaTeX decoder can turn into text; braces alone (`{{Optical Tracking}}`, as Better
BibTeX protects capitals) are simply dropped, as the decoder would."""

# -- BibTeX / BibLaTeX ------------------------------------------------------------------------


logging.getLogger("bibtexparser").addHandler(logging.NullHandler())
"""bibtexparser logs each block it rejects; CiteDesk reports it itself (file, line, reason), so
without logging set up by the application those lines are not printed a second time."""


def read_bibtex(text: str, source: str | None) -> Read:
    """Entries of a .bib file; raises BibliographyError at the first block bibtexparser rejects, and
    for text that holds no entry at all (a file of prose or of bytes is not an empty bibliography).

    The error names the line and column where pandoc would stop (`core.bibliographies.syntax`), not where the
    entry starts. An entry bibtexparser reads although pandoc would not (a comma missing between
    two fields) is used, with a warning at that line and column: the audit can go on, but the
    writer's pandoc build will fail there."""
    library = parse_string(text)
    problems = bibsyntax.syntax_problems(text) if library.failed_blocks or "@" in text else []
    by_line = {bibsyntax.position(text, p.entry_offset)[0]: p for p in problems}
    warnings: list[str] = []
    for block in library.failed_blocks:
        line = (block.start_line or 0) + 1
        if isinstance(block, DuplicateBlockKeyBlock):
            warnings.append(
                f"the key {block.key!r} is defined again (line {line}); the first definition is used"
            )
            continue
        problem = by_line.get(line)
        if problem is not None:  # pandoc's position, not bibtexparser's (`core.bibliographies.syntax`)
            at, column = bibsyntax.position(text, problem.offset)
            raise BibliographyError(problem.reason, source=source, line=at, column=column)
        reason = "this entry cannot be read"
        if isinstance(block, ParsingFailedBlock) and block.error is not None:
            reason, line = _bibtex_reason(block.error, text, line)
        raise BibliographyError(reason, source=source, line=line)
    for problem in problems:
        at, column = bibsyntax.position(text, problem.offset)
        warnings.append(
            f"line {at}, column {column}: {problem.reason}. pandoc stops reading the file there; "
            "CiteDesk read the entry as best it could"
        )
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
    reason = reason if reason.endswith((".", "?", "!")) else reason + "."  # a sentence follows it
    if reason.startswith("Unexpectedly reached end of file"):
        return f"{reason} The entry that starts here is never closed (is a `}}` missing?)", entry_line
    end = getattr(error, "end_index", None)
    if not isinstance(end, int) or not 0 <= end <= len(text):
        return reason.removesuffix("."), entry_line
    line = text.count("\n", 0, end) + 1
    if reason.startswith("Unexpected block start"):
        return (
            f"{reason} The entry that starts here is still open on line {line}, where the next one starts",
            entry_line,
        )
    if line == entry_line:
        return reason.removesuffix("."), line
    return f"{reason.removesuffix('.')} (in the entry that starts on line {entry_line})", line


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
