"""Is the work a reference entry describes the work an index has? Fuzzy matching with rapidfuzz.

Three answers, kept apart because users' main complaint about reference checkers is real papers with
a slip in their metadata reported as fabricated:

- the **same work, no differences**;
- the **same work with metadata errors** — year, first author, venue, volume or first page — each
  with the entry's value and the index's;
- a **different work**: the titles do not match.

Titles are compared after normalisation (case, accents, punctuation, markup, `&`/`and`, a publisher's
`RETRACTED:` prefix) with `rapidfuzz.fuzz.ratio`, also main title against main title (the part before
`:` / ` - ` / `?`) when a subtitle is missing on either side (main titles of three words or more).
When the entry's title field is wrong (a Vancouver entry whose authors the parser kept in the
title), a record title written word for word in the entry counts if the first author and the year
agree. Thresholds (`MatchPolicy`):

- title similarity ≥ 0.90: the same work on the title alone;
- 0.75 … 0.90: the same work only if the first author and the year agree as well;
- below 0.75: a different work.

With no title in the entry, the work is the same unless both the first author and the year disagree.

Names: only family names decide ("J. Smith" = "John Smith" = "Smith, J." = "Smith J"), accents and
case ignored, small misspellings of names of five letters or more tolerated (ratio ≥ 85), a
compound or particle name matching any of its parts ("van Dam" = "Dam", "García-López" = "Garcia").
Years: the entry's year is right when the record gives it as any of its dates (print, online,
issued). Venues: the full or short container title, or an abbreviation of it ("J. Am. Chem. Soc.",
"Proc Natl Acad Sci USA").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from citedesk.core.document.references import Reference
from citedesk.core.document.works import BibReference, CitedEntry
from citedesk.sources.metadata import NAME_PARTICLES, Work, strip_retraction_prefix

_WORD = re.compile(r"\w+")
_MAIN_TITLE = re.compile(r"\s*(?::|\s[-–—]\s|[?!]\s|\.\s)")
_URLISH = re.compile(r"(?:https?://\S+|\bdoi:\s*\S+|\b10\.\d{4,9}/\S+|\barxiv:\s*\S+)", re.IGNORECASE)
_INITIAL = re.compile(r"^(?:[A-Z]\.?(?:[-\s]?[A-Z]\.?)*|[A-Z]{1,3})$")
_VENUE_STOPWORDS = frozenset(
    {"the", "of", "and", "for", "in", "on", "a", "an", "de", "la", "et", "und", "fur"}
)


@dataclass(frozen=True)
class MatchPolicy:
    title_same: float = 0.90
    """Titles at least this alike name the same work whatever else differs."""
    title_maybe: float = 0.75
    """Titles at least this alike name the same work if the first author and year agree too."""
    name_ratio: float = 85.0
    """rapidfuzz ratio (0–100) two family names of five letters or more need to be the same name."""
    year_tolerance: int = 0
    """Years this far from every date of the record still count as right."""


DEFAULT_POLICY = MatchPolicy()


@dataclass(frozen=True)
class Difference:
    """One field where the entry and the index disagree about the same work."""

    field: str
    """`year`, `first_author`, `venue`, `volume` or `pages`."""
    cited: str
    """The entry's value, exactly as written in the entry."""
    actual: str
    """The index's value, as it should read in the entry."""

    @property
    def label(self) -> str:
        return FIELD_LABELS.get(self.field, self.field)


FIELD_LABELS = {
    "year": "year",
    "first_author": "first author",
    "venue": "journal or venue",
    "volume": "volume",
    "pages": "pages",
    "title": "title",
}


@dataclass(frozen=True)
class Comparison:
    same_work: bool
    title_score: float | None
    """0…1, or None when the entry or the record has no title."""
    differences: tuple[Difference, ...] = ()


@dataclass(frozen=True)
class CitedWork:
    """What a reference entry says, field by field (raw strings as written in the entry).

    Build one from a Markdown reference entry with `from_reference`, from a structured
    bibliography entry (BibTeX / CSL / RIS), which knows its fields without guessing, with
    `from_bib_entry`, or from either with `of`.
    """

    title: str | None = None
    authors: str | None = None
    """The entry's author list as written; the first author is read from it."""
    year: str | None = None
    venue: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    doi: str | None = None
    text: str = ""

    @classmethod
    def from_reference(cls, ref: Reference) -> CitedWork:
        """The fields of a Markdown reference entry; venue, volume and pages when clearly written."""
        venue, volume, issue, pages = _venue_volume_pages(ref.text, ref.title)
        return cls(
            title=ref.title,
            authors=ref.authors,
            year=ref.year,
            venue=venue,
            volume=volume,
            issue=issue,
            pages=pages,
            doi=ref.doi,
            text=ref.text,
        )

    @classmethod
    def from_bib_entry(cls, work: BibReference) -> CitedWork:
        """A bibliography entry's own fields: container, volume, issue and pages as parsed, never
        scraped from text. The container counts as the venue only for kinds of work published in
        one (an article's journal, a paper's proceedings, a chapter's book): a book's or report's
        container is its publisher or series, which no index gives as the venue."""
        entry = work.entry
        published_in = entry.entry_type.lower() in VENUE_TYPES
        return cls(
            title=work.title,
            authors=work.authors,
            year=work.year,
            venue=entry.container if published_in else None,
            volume=entry.volume,
            issue=entry.issue,
            pages=entry.pages,
            doi=work.doi,
            text=work.text,
        )

    @classmethod
    def of(cls, work: CitedEntry) -> CitedWork:
        """The fields of a reference-list entry or of a bibliography entry."""
        if isinstance(work, BibReference):
            return cls.from_bib_entry(work)
        if isinstance(work, Reference):
            return cls.from_reference(work)
        return cls(title=work.title, authors=work.authors, year=work.year, doi=work.doi, text=work.text)


VENUE_TYPES = frozenset(
    {
        # BibTeX / BibLaTeX
        "article",
        "inproceedings",
        "conference",
        "incollection",
        # CSL
        "article-journal",
        "article-magazine",
        "article-newspaper",
        "paper-conference",
        "chapter",
        # RIS (lower-cased)
        "jour",
        "jfull",
        "ejour",
        "conf",
        "cpaper",
        "chap",
        "mgzn",
        "news",
    }
)
"""Kinds of bibliography entry whose container is where the work appeared (compared as its venue)."""


# normalisation ----------------------------------------------------------------------------------
def fold(text: str) -> str:
    """Lower case, accents off (NFKD), `&` → `and`, punctuation → spaces, whitespace collapsed."""
    decomposed = unicodedata.normalize("NFKD", text.replace("&", " and "))
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()
    return " ".join(_WORD.findall(bare.replace("_", " ")))


def main_title(title: str) -> str:
    """The title before its subtitle separator (`:`, ` - `, `? `, `. `); the whole title if none."""
    parts = _MAIN_TITLE.split(title.strip(), maxsplit=1)
    return parts[0] if parts and parts[0] else title


def _long_enough(folded: str) -> bool:
    return len(folded.split()) >= 3 and len(folded) >= 15


def title_similarity(cited: str, actual: str, actual_subtitle: str | None = None) -> float:
    """0…1: how alike two titles are, tolerant of case, accents, punctuation and a missing subtitle."""
    actual = strip_retraction_prefix(actual)
    a_full, b_full = fold(cited), fold(actual)
    if not a_full or not b_full:
        return 0.0
    pairs = [(a_full, b_full)]
    a_variants = [a_full, fold(main_title(cited))]
    b_variants = [b_full, fold(main_title(actual))]
    if actual_subtitle:
        b_variants.append(fold(f"{actual} {actual_subtitle}"))
    pairs.extend(
        (a, b)
        for a in a_variants
        for b in b_variants
        if (a, b) != (a_full, b_full) and _long_enough(a) and _long_enough(b)
    )
    return max(fuzz.ratio(a, b) for a, b in pairs) / 100.0


def title_in_entry(text: str, title: str) -> bool:
    """Whether a record's title (four words or more), or its main title (six or more), is written
    word for word inside the entry's text: the entry's title field may have kept authors or a venue."""
    entry = f" {fold(text)} "
    for candidate in (fold(strip_retraction_prefix(title)), fold(main_title(strip_retraction_prefix(title)))):
        words = candidate.split()
        needed = 4 if candidate == fold(strip_retraction_prefix(title)) else 6
        if len(words) >= needed and f" {candidate} " in entry:
            return True
    return False


# names ------------------------------------------------------------------------------------------
def first_author_chunk(authors: str) -> str | None:
    """The first author as written in an author list: `Smith, J.` of `Smith, J., Lee, K. & Wu, X.`."""
    text = re.sub(r"\(\s*eds?\.?\s*\)", " ", authors, flags=re.IGNORECASE)
    text = re.split(r";|\s&\s|\band\b|\bet\s+al\b", text, maxsplit=1)[0]
    parts = [p.strip(" .") for p in text.split(",")]
    parts = [p for p in parts if p]
    if not parts:
        return None
    first = parts[0]
    if len(parts) > 1 and len(first.split()) == 1 and _looks_like_given(parts[1]):
        return f"{first}, {parts[1]}"
    return first


def _looks_like_given(text: str) -> bool:
    """`J.`, `J. A.`, `John`, `Jean-Paul`: a given name or initials after `Family,`."""
    words = text.replace(".", ". ").split()
    if not words or len(words) > 3:
        return False
    if all(_INITIAL.match(w) for w in words):
        return True
    return len(words) <= 2 and all(w[:1].isupper() for w in words)


def name_tokens(chunk: str) -> list[str]:
    """The folded words of a name that can be a family name (initials dropped)."""
    tokens: list[str] = []
    for word in re.split(r"[\s,]+", chunk.strip()):
        bare = word.strip(".")
        if not bare or (_INITIAL.match(bare) and len(bare.replace(".", "")) <= 3 and bare.isupper()):
            continue
        folded = fold(bare)
        if folded and folded not in NAME_PARTICLES:
            tokens.append(folded)
    return tokens


def same_family(cited: str, actual: str, policy: MatchPolicy = DEFAULT_POLICY) -> bool:
    """Whether two family names are the same name (accents, case, particles, compounds, small typos)."""
    a, b = fold(cited), fold(actual)
    if not a or not b:
        return False
    if a == b:
        return True
    a_parts = [p for p in a.split() if p not in NAME_PARTICLES]
    b_parts = [p for p in b.split() if p not in NAME_PARTICLES]
    if set(a_parts) & set(b_parts) and (len(a_parts) == 1 or len(b_parts) == 1):
        return True
    joined_a, joined_b = "".join(a_parts), "".join(b_parts)
    if min(len(joined_a), len(joined_b)) >= 5:
        return fuzz.ratio(joined_a, joined_b) >= policy.name_ratio
    return joined_a == joined_b


def first_author_matches(authors: str, work: Work, policy: MatchPolicy = DEFAULT_POLICY) -> bool | None:
    """Whether the entry's first author is the record's; None when either side names none."""
    if not work.authors:
        return None
    chunk = first_author_chunk(authors)
    if not chunk:
        return None
    tokens = name_tokens(chunk)
    if not tokens:
        return None
    family = work.authors[0].family
    return any(same_family(token, family, policy) for token in tokens) or same_family(chunk, family, policy)


# venues -----------------------------------------------------------------------------------------
def venue_matches(cited: str, container: str | None, short: str | None = None) -> bool | None:
    """Whether the entry's venue names the record's container (full, short, or abbreviated); None if unknown."""
    names = [n for n in (container, short) if n]
    if not names or not fold(cited):
        return None
    cited_folded = fold(cited)
    for name in names:
        folded = fold(name)
        if fuzz.ratio(cited_folded, folded) >= 85 or fuzz.token_set_ratio(cited_folded, folded) >= 95:
            return True
        if _abbreviates(cited_folded.split(), [w for w in folded.split() if w not in _VENUE_STOPWORDS]):
            return True
    return False


def _abbreviates(short: list[str], words: list[str]) -> bool:
    """`j am chem soc` abbreviates `journal american chemical society` (each token a subsequence, in order)."""
    short = [w for w in short if w not in _VENUE_STOPWORDS]
    if not short or not words or short[0][0] != words[0][0]:
        return False
    j = 0
    for token in short:
        while j < len(words):
            word = words[j]
            j += 1
            if token[0] == word[0] and _subsequence(token, word):
                break
            if len(token) <= 5 and j - 1 + len(token) <= len(words):
                acronym = "".join(w[0] for w in words[j - 1 : j - 1 + len(token)])
                if acronym == token:
                    j += len(token) - 1
                    break
        else:
            return False
    return True


def _subsequence(token: str, word: str) -> bool:
    it = iter(word)
    return all(ch in it for ch in token)


# entry fields -----------------------------------------------------------------------------------
_VANCOUVER = re.compile(
    r"(?P<venue>[^.;]{2,150}?)\.\s*(?:(?:19|20)\d{2}[^;:]{0,20});\s*(?P<volume>\d{1,5})\s*(?:\((?P<issue>[^)]{1,20})\))?\s*:\s*(?P<first>[A-Za-z]?\d+)(?:\s*[-–—]\s*(?P<last>[A-Za-z]?\d+))?"
)
_APA = re.compile(
    r"(?P<venue>[^\d;()]{2,150}?)[,.]?\s*(?:vol\.?\s*)?(?P<volume>\d{1,5})\s*(?:\((?P<issue>[^)]{1,20})\))?\s*[,:]\s*(?:pp?\.?\s*)?(?P<first>[A-Za-z]?\d+)(?:\s*[-–—]\s*(?P<last>[A-Za-z]?\d+))?"
)


def _venue_volume_pages(
    text: str, title: str | None
) -> tuple[str | None, str | None, str | None, str | None]:
    """Venue, volume, issue and pages written after the title (`Diabetes Care, 37(2), 569-586`)."""
    at = text.lower().find(title.lower()) if title else -1
    rest = _URLISH.sub(" ", text[at + len(title) :]).lstrip(" \"”'’*_.,:") if title and at >= 0 else ""
    match = (_VANCOUVER.search(rest) or _APA.search(rest)) if rest else None
    if (
        match is None
    ):  # no title found, or it swallowed the entry: only the unambiguous `Venue. 2014;37(2):569` form
        match = _VANCOUVER.search(_URLISH.sub(" ", text))
    if match is None:
        return None, None, None, None
    venue = re.sub(r"^(?:in\s*:?\s+)", "", match.group("venue").strip(' .,*_"”'), flags=re.IGNORECASE)
    words = fold(venue).split()
    if not words or len(words) > 14 or len(fold(venue)) < 3:
        venue = ""
    pages = match.string[
        match.start("first") : match.end("last") if match.group("last") else match.end("first")
    ]
    volume: str | None = match.group("volume")
    if volume and re.fullmatch(r"1[5-9]\d{2}|20\d{2}", volume):
        volume = None  # `CVPR, 2016, pp. 770-778`: a year, not a volume
    return venue or None, volume, match.group("issue"), pages


# the comparison ---------------------------------------------------------------------------------
def _year_of(text: str | None) -> int | None:
    found = re.search(r"\b(1[5-9]\d{2}|20\d{2})\b", text or "")
    return int(found.group(1)) if found else None


def year_matches(cited: str | None, work: Work, policy: MatchPolicy = DEFAULT_POLICY) -> bool | None:
    year = _year_of(cited)
    years = work.years or ((work.year,) if work.year else ())
    if year is None or not years:
        return None
    return any(abs(year - y) <= policy.year_tolerance for y in years)


def compare_work(cited: CitedWork, work: Work, policy: MatchPolicy = DEFAULT_POLICY) -> Comparison:
    """Same work or not, and where the entry's metadata differs from the index's record."""
    author_ok = first_author_matches(cited.authors, work, policy) if cited.authors else None
    year_ok = year_matches(cited.year, work, policy)
    score = title_similarity(cited.title, work.title, work.subtitle) if cited.title and work.title else None
    if (
        score is not None
        and score < policy.title_same
        and author_ok
        and year_ok
        and work.title
        and title_in_entry(cited.text or cited.title or "", work.title)
    ):
        score = policy.title_same  # the entry's title field is wrong, its text names the work
    if score is not None:
        same = score >= policy.title_same or (
            score >= policy.title_maybe and author_ok is True and year_ok is True
        )
    else:
        same = not (author_ok is False and year_ok is False)
    if not same:
        return Comparison(False, score)
    return Comparison(True, score, tuple(_differences(cited, work, author_ok, year_ok)))


def _differences(
    cited: CitedWork, work: Work, author_ok: bool | None, year_ok: bool | None
) -> list[Difference]:
    found: list[Difference] = []
    if year_ok is False and cited.year and work.year:
        found.append(Difference("year", cited.year, str(work.year)))
    if author_ok is False and cited.authors:
        chunk = first_author_chunk(cited.authors) or cited.authors
        found.append(Difference("first_author", chunk, work.authors[0].display))
    if cited.venue and venue_matches(cited.venue, work.container, work.short_container) is False:
        found.append(Difference("venue", cited.venue, work.container or work.short_container or ""))
    if cited.volume and work.volume and cited.volume.lstrip("0") != work.volume.strip().lstrip("0"):
        found.append(Difference("volume", cited.volume, work.volume.strip()))
    if cited.pages and work.first_page:
        cited_first = re.split(r"\s*[-–—]\s*", cited.pages, maxsplit=1)[0]
        if cited_first.lower().lstrip("0") != work.first_page.lower().lstrip("0"):
            found.append(Difference("pages", cited.pages, (work.pages or "").replace("–", "-")))
    return found


@dataclass(frozen=True)
class Candidate:
    """A search result scored against the entry it may be."""

    work: Work
    title_score: float
    author_ok: bool | None
    year_ok: bool | None
    score: float
    confident: bool
    differences: tuple[Difference, ...] = field(default=())


def score_candidate(cited: CitedWork, work: Work, policy: MatchPolicy = DEFAULT_POLICY) -> Candidate:
    """How likely a search result is the entry's work.

    score = 0.6·title + 0.25·first author + 0.15·year, an unknown author or year counting 0.5 and a
    year one off 0.7. **Confident** (the DOI may be added to the entry): title ≥ 0.90, the first
    author not contradicted, the year right or one off (or unknown), and score ≥ 0.85 — so a match
    on the title alone, with neither author nor year in the entry to confirm it, is never confident.
    """
    title = title_similarity(cited.title or "", work.title or "", work.subtitle) if work.title else 0.0
    author_ok = first_author_matches(cited.authors, work, policy) if cited.authors else None
    year_ok = year_matches(cited.year, work, policy)
    if (
        title < policy.title_same
        and author_ok
        and year_ok
        and work.title
        and title_in_entry(cited.text or cited.title or "", work.title)
    ):
        title = policy.title_same
    near_year = year_ok is False and year_matches(cited.year, work, MatchPolicy(year_tolerance=1)) is True
    author_part = 0.5 if author_ok is None else float(author_ok)
    year_part = 0.5 if year_ok is None else (1.0 if year_ok else 0.7 if near_year else 0.0)
    score = 0.6 * title + 0.25 * author_part + 0.15 * year_part
    confident = (
        title >= policy.title_same
        and author_ok is not False
        and (year_ok is not False or near_year)
        and score >= 0.85
    )
    differences = tuple(_differences(cited, work, author_ok, year_ok)) if title >= policy.title_same else ()
    return Candidate(work, title, author_ok, year_ok, score, confident, differences)


def best_candidate(
    cited: CitedWork, works: list[Work], policy: MatchPolicy = DEFAULT_POLICY
) -> Candidate | None:
    """The most likely of a search's results (confident ones first, then by score); None for no results."""
    scored = [score_candidate(cited, w, policy) for w in works]
    if not scored:
        return None
    return max(scored, key=lambda c: (c.confident, c.score, c.work.doi is not None))
