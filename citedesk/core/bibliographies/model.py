"""Bibliographies as typed entries: the model, identifiers, `file` fields and duplicates.

`core.bibliographies.parse.parse_bibliography(text, format)` reads BibTeX/BibLaTeX, CSL-JSON, CSL-YAML or RIS
text (the readers live in `core.bibliographies.readers` and `core.bibliographies.csl`) into these `BibEntry` values: key, type, plain-text title and authors,
year, container, volume, issue, pages, DOI, URL, arXiv id, ISBN and the attachments a `file` field
(or RIS `L1`) names, as written; and how each format writes a field (`written_field`: what a
correction shown to the writer reads like). Nothing here reads a file: `sources.bibfiles` does that, and
resolves attachment paths against the bibliography's folder.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import unquote

from citedesk.errors import InputError


class BibFormat(StrEnum):
    BIBTEX = "bibtex"  # .bib (BibTeX and BibLaTeX)
    CSL_JSON = "csl-json"  # .json
    CSL_YAML = "csl-yaml"  # .yaml / .yml
    RIS = "ris"  # .ris


class BibliographyError(InputError):
    """A bibliography that cannot be read, with where (`source`, `line`) and why, for the writer."""

    def __init__(
        self, reason: str, *, source: str | None = None, line: int | None = None, column: int | None = None
    ) -> None:
        self.reason = reason
        self.source = source
        self.line = line
        self.column = column
        """Where on the line (from 1), for a syntax error: the character pandoc stops at."""
        where = source or "the bibliography"
        if line is not None:
            where += f", line {line}"
        if line is not None and column is not None:
            where += f", column {column}"
        super().__init__(f"{where}: {reason}")


class OutsideFoldersError(BibliographyError):
    """A bibliography the document names lies outside the folders the writer allowed, so it was not
    read; `folder` is the one that would allow it (the window offers to add it)."""

    kind = "outside"

    def __init__(self, reason: str, *, source: str | None = None, folder: str) -> None:
        super().__init__(reason, source=source)
        self.folder = folder


@dataclass(frozen=True, slots=True)
class BibEntry:
    """One work in a bibliography, its text fields already plain (no LaTeX, braces or HTML)."""

    key: str
    entry_type: str
    """As the format names it: `article`, `inproceedings`, `article-journal`, `JOUR`."""
    title: str | None = None
    authors: tuple[str, ...] = ()
    """Each "Family, Given" (or the one name of an organisation), in order."""
    year: str | None = None
    container: str | None = None
    """The journal, proceedings, book or site the work appeared in."""
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    doi: str | None = None
    """Bare (`10.1109/ISMAR.2004.8`), whatever form it was written in."""
    url: str | None = None
    arxiv: str | None = None
    isbn: str | None = None
    files: tuple[str, ...] = ()
    """Attachment paths as the bibliography gives them (unescaped, not resolved)."""
    line: int | None = None
    """Where the entry starts in its file (1-based), where the format tells."""

    @property
    def authors_text(self) -> str:
        return "; ".join(self.authors)


@dataclass(frozen=True, slots=True)
class Bibliography:
    entries: tuple[BibEntry, ...]
    format: BibFormat
    source: str | None = None
    warnings: tuple[str, ...] = ()
    """Problems that did not stop the reading (a key defined twice: the first one counts)."""

    def by_key(self) -> dict[str, BibEntry]:
        found: dict[str, BibEntry] = {}
        for entry in self.entries:
            found.setdefault(entry.key, entry)
        return found


def format_for(name: str, text: str = "") -> BibFormat | None:
    """The format a bibliography file's name says it is in; a `.json` file that does not start like
    JSON (`[` or `{`) is read as CSL-YAML, and `.yaml` files are YAML (which reads JSON as well)."""
    lower = name.lower()
    if lower.endswith((".bib", ".bibtex", ".biblatex")):
        return BibFormat.BIBTEX
    if lower.endswith(".ris"):
        return BibFormat.RIS
    if lower.endswith((".yaml", ".yml")):
        return BibFormat.CSL_YAML  # YAML reads JSON too
    if lower.endswith(".json"):
        start = text.lstrip("\ufeff \t\r\n")[:1]
        return BibFormat.CSL_JSON if start in ("[", "{", "") else BibFormat.CSL_YAML
    return None


# -- identifiers ------------------------------------------------------------------------------

_DOI = re.compile(r"10\.\d{4,9}/[^\s\"<>{}]+")
_ARXIV_NEW = r"\d{4}\.\d{4,5}(?:v\d+)?"
_ARXIV_OLD = r"[a-z-]+(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?"
_ARXIV_ID = re.compile(rf"(?:{_ARXIV_NEW}|{_ARXIV_OLD})")
_ARXIV_IN_TEXT = re.compile(
    rf"(?:arxiv(?:\.org/(?:abs|pdf)/|:\s*|\s+preprint\s+arxiv:\s*)|10\.48550/arxiv\.)({_ARXIV_NEW}|{_ARXIV_OLD})",
    re.IGNORECASE,
)
_ISBN_CHARS = re.compile(r"[\dXx][\dXx\- ]{8,20}[\dXx]")


def bare_doi(value: str | None) -> str | None:
    """`10.x/y` from a DOI as written: bare, `doi:10.x/y`, or a URL (`https://doi.org/…`, `dx.doi.org`,
    `doi.acm.org`); trailing punctuation is not part of it."""
    if not value:
        return None
    match = _DOI.search(unquote(value))
    if match is None:
        return None
    return match.group(0).rstrip(".,;:)]}")


def arxiv_id(*values: str | None) -> str | None:
    """The arXiv id in a URL, a DOI (`10.48550/arXiv.…`) or text like `arXiv:1412.2970`."""
    for value in values:
        if value:
            match = _ARXIV_IN_TEXT.search(value)
            if match:
                return match.group(1)
    return None


def bare_arxiv(value: str | None) -> str | None:
    """An `eprint` value that is itself an arXiv id (`1412.2970`, `hep-th/9901001`, `arXiv:…`)."""
    if not value:
        return None
    value = value.strip()
    value = value[6:] if value.lower().startswith("arxiv:") else value
    return value if _ARXIV_ID.fullmatch(value) else None


def first_isbn(value: str | None) -> str | None:
    """The first ISBN-10 or ISBN-13 in a field (ISSNs and other numbers are not ISBNs)."""
    if not value:
        return None
    for match in _ISBN_CHARS.finditer(value):
        digits = re.sub(r"[\- ]", "", match.group(0)).upper()
        if len(digits) in (10, 13) and digits[:-1].isdigit():
            return digits
    return None


def year_of(value: str | None) -> str | None:
    """The four-digit year in a date as written (`2014-12-09`, `2014//`, `March 2001`)."""
    if not value:
        return None
    match = re.search(r"(?<!\d)(\d{4})(?!\d)", value)
    return match.group(1) if match else None


# -- attachments ------------------------------------------------------------------------------

_REMOTE = re.compile(r"(?!file:)[a-z][a-z0-9+.-]+://", re.IGNORECASE)


def parse_file_field(value: str) -> tuple[str, ...]:
    """The paths in a BibTeX `file` field, in every form reference managers write it.

    - Zotero: `Full Text PDF:/abs/path.pdf:application/pdf`, several joined by `;`, Windows paths
      escaped (`Name:C\\:\\\\Users\\\\me\\\\a.pdf:application/pdf`);
    - Better BibTeX: the bare path (`/abs/path.pdf`, `~/x.pdf`), several joined by `;`;
    - JabRef: `:relative/path.pdf:PDF` or `Description:path:PDF`;
    - Mendeley: `:home/user/file.pdf:pdf` (the leading `/` dropped; `sources.bibfiles` restores it)
      and `C$\\backslash$:` for a drive letter.
    Empty parts (`::`) give nothing.
    """
    value = value.replace("$\\backslash$", "\\")
    paths: list[str] = []
    for item in _split_unescaped(value, ";"):
        whole = _unescape(item).strip()
        if whole.lower().startswith("file://"):
            path = unquote(whole[7:])
            paths.append(path[1:] if re.match(r"/[A-Za-z]:[/\\]", path) else path)  # file:///C:/… is C:/…
            continue
        if _REMOTE.match(whole):
            continue  # a web link (RIS `L2`), or EndNote's `internal-pdf://`: not a file here
        parts = _split_unescaped(item, ":")
        if len(parts) >= 3:
            path = ":".join(parts[1:-1])
        elif len(parts) == 2 and len(parts[0]) == 1 and parts[0].isalpha():
            path = ":".join(parts)  # `C:/Users/…` written without escapes
        elif len(parts) == 2:
            path = parts[1] if ("/" in parts[1] or "\\" in parts[1] or "." in parts[1]) else parts[0]
        else:
            path = parts[0]
        path = _unescape(path).strip()
        if path and not _REMOTE.match(path):
            paths.append(path)
    return tuple(dict.fromkeys(paths))


def _split_unescaped(value: str, separator: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value):
            current.append(value[i : i + 2])
            i += 2
            continue
        if ch == separator:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    parts.append("".join(current))
    return parts


def _unescape(value: str) -> str:
    return re.sub(r"\\([\\:;{}_%&#$])", r"\1", value)


# -- duplicates -------------------------------------------------------------------------------


def normalised_title(title: str | None) -> str:
    """Lower case, accents folded, punctuation and spacing ignored: for comparing titles."""
    if not title:
        return ""
    folded = unicodedata.normalize("NFKD", title)
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch)).casefold()
    return " ".join(re.findall(r"\w+", folded))


def duplicate_entries(entries: Iterable[BibEntry]) -> list[tuple[BibEntry, BibEntry]]:
    """Pairs of entries for the same work: the same DOI (ignoring case), or the same normalised
    title and year. Each pair is (first entry, later entry), in bibliography order."""
    by_doi: dict[str, BibEntry] = {}
    by_title: dict[tuple[str, str], BibEntry] = {}
    pairs: list[tuple[BibEntry, BibEntry]] = []
    for entry in entries:
        title = normalised_title(entry.title)
        first = by_doi.get(entry.doi.lower()) if entry.doi else None
        if first is None and title and entry.year:
            first = by_title.get((title, entry.year))
        if first is not None:
            pairs.append((first, entry))
        if entry.doi:
            by_doi.setdefault(entry.doi.lower(), entry)
        if title and entry.year:
            by_title.setdefault((title, entry.year), entry)
    return pairs


# fields as each format writes them -------------------------------------------------------------------
_FIELDS: dict[BibFormat, dict[str, str]] = {
    BibFormat.BIBTEX: {
        "year": "year",
        "first_author": "author",
        "venue": "journal",
        "volume": "volume",
        "pages": "pages",
        "doi": "doi",
    },
    BibFormat.CSL_JSON: {
        "year": "issued",
        "first_author": "author",
        "venue": "container-title",
        "volume": "volume",
        "pages": "page",
        "doi": "DOI",
    },
    BibFormat.RIS: {
        "year": "PY",
        "first_author": "AU",
        "venue": "T2",
        "volume": "VL",
        "pages": "SP",
        "doi": "DO",
    },
}
_FIELDS[BibFormat.CSL_YAML] = _FIELDS[BibFormat.CSL_JSON]
_BOOKTITLE_TYPES = frozenset({"inproceedings", "conference", "incollection", "inbook"})


def field_name(fmt: BibFormat | None, field: str, entry_type: str) -> str:
    """The name `fmt` gives a work's `field` (`year`, `first_author`, `venue`, `volume`, `pages`,
    `doi`) in an entry of `entry_type`: `journal`, or `booktitle` for a BibTeX paper in proceedings."""
    if fmt is BibFormat.BIBTEX and field == "venue" and entry_type.lower() in _BOOKTITLE_TYPES:
        return "booktitle"
    return _FIELDS.get(fmt, {}).get(field, field) if fmt is not None else field


def written_field(fmt: BibFormat | None, field: str, value: str, entry_type: str) -> str:
    """`year = {2014}` (BibTeX), `"issued": {"date-parts": [[2014]]}` (CSL-JSON), `issued: 2014`
    (CSL-YAML), `PY  - 2014` (RIS); `field: value` when the format is not known."""
    name = field_name(fmt, field, entry_type)
    if fmt is BibFormat.BIBTEX:
        return f"{name} = {{{value.replace('-', '--') if field == 'pages' else value}}}"
    if fmt is BibFormat.CSL_JSON:
        if field == "year" and value.isdecimal():
            return f'"{name}": {{"date-parts": [[{value}]]}}'
        return f'"{name}": "{value}"'
    if fmt is BibFormat.RIS:
        if field == "pages" and "-" in value:
            first, last = value.split("-", 1)
            return f"SP  - {first} and EP  - {last}"
        return f"{name}  - {value}"
    return f"{name}: {value}"
