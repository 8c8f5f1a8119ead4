"""What the scholarly indexes say about a work: typed records read from Crossref, OpenAlex and CSL-JSON.

Pure parsing, no I/O: `indexes.py` fetches, this module reads. One `Work` shape for every index, so
matching and the reference checks never care where a record came from:

- Crossref `/works/{doi}` (and each item of a `/works?query.bibliographic=` list): title, subtitle,
  authors, every publication date it gives (`issued`, `published`, `published-print`,
  `published-online`), container and short container title, volume, issue, page, and the update
  notices — `updated-by` (notices about this work, including those Crossref takes from Retraction
  Watch, `"source": "retraction-watch"`), `update-to` entries that point at the work itself (a notice
  deposited on the same DOI), and Elsevier's `RETRACTED:` title prefix.
- OpenAlex `/works/doi:{doi}` and `/works?filter=title.search:…`: `display_name`, `authorships`,
  `publication_year`, `primary_location.source.display_name`, `biblio`, and `is_retracted` (a flag
  with no notice DOI or date).
- CSL-JSON from doi.org content negotiation (what a DataCite or mEDRA DOI answers with).
"""

from __future__ import annotations

import html
import re
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any
from urllib.parse import unquote

DOI_PREFIXES = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_TAGS = re.compile(r"<[^>]+>")
_RETRACTED_TITLE = re.compile(
    r"^\s*\[?\s*(?P<word>retracted|withdrawn)(?:\s+(?:article|paper))?\s*\]?\s*[:.\-–—]\s*", re.IGNORECASE
)


class NoticeKind(StrEnum):
    """What an editorial notice does to a work; ordered here from most to least serious."""

    RETRACTION = "retraction"
    WITHDRAWAL = "withdrawal"
    EXPRESSION_OF_CONCERN = "expression_of_concern"
    CORRECTION = "correction"
    REINSTATEMENT = "reinstatement"

    @property
    def withdraws(self) -> bool:
        """True for notices that take the work out of the record (cite it and you cite nothing)."""
        return self in (NoticeKind.RETRACTION, NoticeKind.WITHDRAWAL)


CROSSREF_UPDATE_KINDS: dict[str, NoticeKind] = {
    "retraction": NoticeKind.RETRACTION,
    "partial_retraction": NoticeKind.RETRACTION,
    "removal": NoticeKind.WITHDRAWAL,
    "withdrawal": NoticeKind.WITHDRAWAL,
    "expression_of_concern": NoticeKind.EXPRESSION_OF_CONCERN,
    "correction": NoticeKind.CORRECTION,
    "corrigendum": NoticeKind.CORRECTION,
    "erratum": NoticeKind.CORRECTION,
    "addendum": NoticeKind.CORRECTION,
    "clarification": NoticeKind.CORRECTION,
    "reinstatement": NoticeKind.REINSTATEMENT,
}
"""Crossmark update types (Crossref's `updated-by[].type`) → notice kinds; `new_version` and
`new_edition` say nothing about the work's standing and are left out."""


@dataclass(frozen=True)
class Notice:
    """One editorial notice about a work: a retraction, withdrawal, expression of concern, correction…"""

    kind: NoticeKind
    doi: str | None = None
    """The notice's own DOI (lower case); None when the source names none (OpenAlex's flag)."""
    date: str | None = None
    """ISO date (`YYYY-MM-DD`, or shorter when the source is less precise)."""
    source: str = ""
    """Who says so: `crossref` (the publisher's deposit), `retraction-watch` (Retraction Watch data
    in Crossref), `openalex`, `retraction-watch-snapshot` (an imported CSV), `title` (a
    `RETRACTED:` title prefix)."""
    label: str = ""
    reasons: tuple[str, ...] = ()
    record_id: str | None = None
    """The Retraction Watch record id, when the notice comes from their data."""

    @property
    def url(self) -> str | None:
        return f"https://doi.org/{self.doi}" if self.doi else None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["kind"] = self.kind.value
        data["reasons"] = list(self.reasons)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Notice:
        return cls(
            kind=NoticeKind(data["kind"]),
            doi=data.get("doi"),
            date=data.get("date"),
            source=str(data.get("source") or ""),
            label=str(data.get("label") or ""),
            reasons=tuple(data.get("reasons") or ()),
            record_id=data.get("record_id"),
        )


@dataclass(frozen=True)
class Author:
    family: str
    given: str = ""

    @property
    def display(self) -> str:
        """`Family, G.` (initials), or the family name alone (organisations, single names)."""
        initials = " ".join(f"{part[0]}." for part in re.split(r"[\s.\-]+", self.given) if part)
        return f"{self.family}, {initials}" if initials else self.family


@dataclass(frozen=True)
class Work:
    """A work as one index records it."""

    source: str
    """`crossref`, `openalex` or `doi.org`."""
    doi: str | None
    title: str | None
    subtitle: str | None = None
    authors: tuple[Author, ...] = ()
    year: int | None = None
    """The year the index gives first (Crossref `issued`, OpenAlex `publication_year`)."""
    years: tuple[int, ...] = ()
    """Every publication year the record gives (print, online, issued): a citation of any is right."""
    container: str | None = None
    short_container: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    kind: str | None = None
    url: str | None = None
    notices: tuple[Notice, ...] = ()
    is_retracted: bool | None = None
    """OpenAlex's flag; None when the index has no such field."""
    score: float | None = None
    """The index's relevance score for a search result."""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def first_page(self) -> str | None:
        if not self.pages:
            return None
        return re.split(r"\s*[-–—]\s*", self.pages.strip(), maxsplit=1)[0] or None

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "doi": self.doi,
            "title": self.title,
            "subtitle": self.subtitle,
            "authors": [[a.family, a.given] for a in self.authors],
            "year": self.year,
            "years": list(self.years),
            "container": self.container,
            "short_container": self.short_container,
            "volume": self.volume,
            "issue": self.issue,
            "pages": self.pages,
            "kind": self.kind,
            "url": self.url,
            "notices": [n.to_json() for n in self.notices],
            "is_retracted": self.is_retracted,
            "score": self.score,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Work:
        return cls(
            source=str(data.get("source") or ""),
            doi=data.get("doi"),
            title=data.get("title"),
            subtitle=data.get("subtitle"),
            authors=tuple(Author(str(f), str(g)) for f, g in data.get("authors") or ()),
            year=data.get("year"),
            years=tuple(data.get("years") or ()),
            container=data.get("container"),
            short_container=data.get("short_container"),
            volume=data.get("volume"),
            issue=data.get("issue"),
            pages=data.get("pages"),
            kind=data.get("kind"),
            url=data.get("url"),
            notices=tuple(Notice.from_json(n) for n in data.get("notices") or ()),
            is_retracted=data.get("is_retracted"),
            score=data.get("score"),
        )


def normalise_doi(value: str | None) -> str | None:
    """A DOI in its comparable form (lower case, no resolver prefix, %-escapes decoded), or None.

    `unavailable`, empty strings and anything that is not a `10.` DOI give None, so an index's
    placeholder never becomes an identifier. DOIs are case-insensitive (the DOI Handbook, 2.4):
    this is the form to compare and to look up — never the one to show (`written_doi`).
    """
    written = written_doi(value)
    return written.lower() if written is not None else None


def written_doi(value: str | None) -> str | None:
    """A DOI as the writer wrote it (its case kept), without a resolver prefix, or None: what
    messages show, so `10.2337/DC13-1203` is not reported as `10.2337/dc13-1203`."""
    if not value:
        return None
    text = DOI_PREFIXES.sub("", value.strip())
    text = unquote(text).strip().rstrip(".,;")
    if not re.match(r"^10\.\d{4,9}/\S+$", text):
        return None
    return text


def clean_text(value: object) -> str | None:
    """Markup-free, whitespace-collapsed text from an index field (JATS/HTML tags and entities removed)."""
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, str) and v.strip()), None)
    if not isinstance(value, str):
        return None
    text = " ".join(html.unescape(_TAGS.sub(" ", value)).split())
    return text or None


def retraction_prefix(title: str | None) -> str | None:
    """`retracted` / `withdrawn` when a title carries a publisher's `RETRACTED:` style prefix."""
    if not title:
        return None
    match = _RETRACTED_TITLE.match(title)
    return match.group("word").lower() if match else None


def strip_retraction_prefix(title: str) -> str:
    return _RETRACTED_TITLE.sub("", title, count=1)


def _date_parts(value: object) -> tuple[int, ...] | None:
    if not isinstance(value, dict):
        return None
    parts = value.get("date-parts")
    if not isinstance(parts, list) or not parts or not isinstance(parts[0], list) or not parts[0]:
        return None
    try:
        return tuple(int(p) for p in parts[0] if p is not None)
    except (TypeError, ValueError):
        return None


def _iso(parts: tuple[int, ...] | None) -> str | None:
    if not parts:
        return None
    return "-".join(f"{p:04d}" if i == 0 else f"{p:02d}" for i, p in enumerate(parts[:3]))


def _crossref_notice(entry: dict[str, Any], *, fallback_doi: str | None = None) -> Notice | None:
    kind = CROSSREF_UPDATE_KINDS.get(str(entry.get("type") or "").lower().replace("-", "_"))
    if kind is None:
        return None
    source = str(entry.get("source") or "crossref").lower()
    record = entry.get("record-id")
    return Notice(
        kind=kind,
        doi=normalise_doi(str(entry.get("DOI") or "")) or fallback_doi,
        date=_iso(_date_parts(entry.get("updated"))),
        source="retraction-watch" if source == "retraction-watch" else "crossref",
        label=str(entry.get("label") or ""),
        record_id=str(record) if record not in (None, "") else None,
    )


def crossref_notices(message: dict[str, Any]) -> tuple[Notice, ...]:
    """The notices a Crossref work record carries about itself.

    `updated-by` lists notices about this work. `update-to` is the other end of the relation (on a
    notice, pointing at the work it updates); an entry pointing at the record's own DOI means the
    publisher deposited the notice on the same DOI, so it counts. A `RETRACTED:` title prefix is a
    last-resort signal, used only when no retraction is recorded otherwise.
    """
    own = normalise_doi(str(message.get("DOI") or ""))
    notices: list[Notice] = []
    for entry in message.get("updated-by") or ():
        if isinstance(entry, dict) and (notice := _crossref_notice(entry)) is not None:
            notices.append(notice)
    for entry in message.get("update-to") or ():
        if not isinstance(entry, dict) or own is None:
            continue
        if normalise_doi(str(entry.get("DOI") or "")) == own:
            notice = _crossref_notice(entry, fallback_doi=own)
            if notice is not None:
                notices.append(notice)
    prefix = retraction_prefix(clean_text(message.get("title")))
    if prefix and not any(n.kind.withdraws for n in notices):
        kind = NoticeKind.RETRACTION if prefix == "retracted" else NoticeKind.WITHDRAWAL
        notices.append(Notice(kind, None, None, "title", label=f"Title marked {prefix.upper()}"))
    return tuple(notices)


def _crossref_author(entry: object) -> Author | None:
    if not isinstance(entry, dict):
        return None
    family = (
        clean_text(entry.get("family")) or clean_text(entry.get("name")) or clean_text(entry.get("literal"))
    )
    if not family:
        return None
    return Author(family, clean_text(entry.get("given")) or "")


def parse_crossref_work(message: dict[str, Any]) -> Work:
    """A Crossref work (`message` of `/works/{doi}`, or one item of a works list)."""
    score = message.get("score")
    return _csl_shaped_work(
        message,
        source="crossref",
        authors=_authors(message.get("author")) or _authors(message.get("editor")),  # edited volume: editors
        date_fields=("issued", "published", "published-print", "published-online"),
        short_container_field="short-container-title",
        score=float(score) if isinstance(score, int | float) else None,
    )


def _authors(entries: object) -> tuple[Author, ...]:
    if not isinstance(entries, list):
        return ()
    return tuple(a for a in map(_crossref_author, entries) if a is not None)


def _csl_shaped_work(
    data: dict[str, Any],
    *,
    source: str,
    authors: tuple[Author, ...],
    date_fields: tuple[str, ...],
    short_container_field: str,
    score: float | None = None,
) -> Work:
    """The fields Crossref's JSON and CSL-JSON share (Crossref's is CSL-JSON with other names for a few)."""
    dates = [_date_parts(data.get(name)) for name in date_fields]
    years = tuple(dict.fromkeys(d[0] for d in dates if d))
    title = clean_text(data.get("title"))
    return Work(
        source=source,
        doi=normalise_doi(str(data.get("DOI") or "")),
        title=strip_retraction_prefix(title) if title else None,
        subtitle=clean_text(data.get("subtitle")),
        authors=authors,
        year=years[0] if years else None,
        years=years,
        container=clean_text(data.get("container-title")),
        short_container=clean_text(data.get(short_container_field)),
        volume=clean_text(data.get("volume")),
        issue=clean_text(data.get("issue")),
        pages=clean_text(data.get("page")),
        kind=clean_text(data.get("type")),
        url=clean_text(data.get("URL")),
        notices=crossref_notices(data),
        score=score,
    )


def split_display_name(name: str) -> Author:
    """`Michele De Palma` → Author("De Palma", "Michele"): the last word plus any name particles before it."""
    words = name.split()
    if len(words) < 2:
        return Author(name)
    cut = len(words) - 1
    while cut > 1 and words[cut - 1].lower() in NAME_PARTICLES:
        cut -= 1
    return Author(" ".join(words[cut:]), " ".join(words[:cut]))


NAME_PARTICLES = frozenset(
    {
        "van",
        "von",
        "der",
        "den",
        "de",
        "del",
        "della",
        "di",
        "da",
        "du",
        "le",
        "la",
        "dos",
        "das",
        "ten",
        "ter",
        "st",
        "bin",
        "al",
        "el",
    }
)


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def parse_openalex_work(data: dict[str, Any]) -> Work:
    """An OpenAlex work (`/works/doi:…`, or one of a list's `results`)."""
    authors: list[Author] = []
    for authorship in data.get("authorships") or ():
        if not isinstance(authorship, dict):
            continue
        person = _dict(authorship.get("author"))
        name = clean_text(person.get("display_name")) or clean_text(authorship.get("raw_author_name"))
        if name:
            authors.append(split_display_name(name))
    year = data.get("publication_year") if isinstance(data.get("publication_year"), int) else None
    location = _dict(data.get("primary_location"))
    venue = _dict(location.get("source"))
    biblio = _dict(data.get("biblio"))
    first, last = clean_text(biblio.get("first_page")), clean_text(biblio.get("last_page"))
    retracted = data.get("is_retracted") if isinstance(data.get("is_retracted"), bool) else None
    title = clean_text(data.get("display_name")) or clean_text(data.get("title"))
    score = data.get("relevance_score")
    return Work(
        source="openalex",
        doi=normalise_doi(str(data.get("doi") or "")),
        title=strip_retraction_prefix(title) if title else None,
        authors=tuple(authors),
        year=year,
        years=(year,) if year else (),
        container=clean_text(venue.get("display_name")),
        volume=clean_text(biblio.get("volume")),
        issue=clean_text(biblio.get("issue")),
        pages=f"{first}-{last}" if first and last and first != last else first,
        kind=clean_text(data.get("type")),
        url=clean_text(data.get("id")),
        notices=(Notice(NoticeKind.RETRACTION, source="openalex", label="Retracted (OpenAlex)"),)
        if retracted
        else (),
        is_retracted=retracted,
        score=float(score) if isinstance(score, int | float) else None,
    )


def parse_csl_work(data: dict[str, Any]) -> Work:
    """CSL-JSON, as doi.org content negotiation answers for any registration agency."""
    return _csl_shaped_work(
        data,
        source="doi.org",
        authors=_authors(data.get("author")),
        date_fields=("issued", "published-print", "published-online"),
        short_container_field="container-title-short",
    )
