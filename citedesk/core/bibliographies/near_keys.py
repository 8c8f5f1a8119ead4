"""Which bibliography keys a key that is in none probably meant ("did you mean @smith2020?").

A key typed wrong (`@smiht2020`) and a key of a work that is in no bibliography (`@ghost2020`) are
both missing, but the writer acts on them differently: the first wants its key corrected, the
second a source. Two signs that a missing key meant a known one:

- it is a few edits away, letters compared without case (pandoc keys are case-sensitive, writers
  are not): optimal string alignment distance, so two letters swapped are one edit, `Smith2020`
  for `smith2020` none. Short keys are allowed fewer edits (`doe99` and `roe99` are two authors);
- it names the same first author and year: `smith2020` for `smithEtAl2020a` or `smith_2020`, or
  for an entry `S20` whose first author is Smith and whose year is 2020.

Candidates come best first (fewest edits; a changed year counts one edit more, as it more often
means another work), at most three.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz.distance import OSA

from citedesk.core.document.works import BibReference

MAX_CANDIDATES = 3
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")


@dataclass(frozen=True, slots=True)
class NearKey:
    """A known key the missing one may have meant, and why it is offered."""

    key: str
    edits: int
    """Edits between the two keys, letters compared without case."""
    same_author_year: bool
    year_changed: bool
    """Both keys hold a year and the years differ: more likely another work than a typo."""


def near_keys(key: str, works: Iterable[BibReference]) -> list[NearKey]:
    """Up to `MAX_CANDIDATES` keys of `works` that `key` (which none of them has) probably meant,
    best first; none when nothing is close."""
    folded = _fold(key)
    allowed = max_edits(key)
    author, year = author_year(key)
    found: list[tuple[float, int, str, NearKey]] = []
    for work in works:
        if work.key == key:
            continue
        edits = int(OSA.distance(folded, _fold(work.key)))
        same = author is not None and year is not None and year == _year_of(work) and author in _authors(work)
        if edits > allowed and not same:
            continue
        other_year = _year(work.key)
        changed = year is not None and other_year is not None and other_year != year
        rank = (edits if edits <= allowed else allowed + 0.5) + (1 if changed else 0)
        exact = int(OSA.distance(key, work.key))
        found.append((rank, exact, work.key, NearKey(work.key, edits, same, changed)))
    found.sort(key=lambda item: item[:3])
    best = list(dict.fromkeys(item[2] for item in found))[:MAX_CANDIDATES]
    by_key = {item[2]: item[3] for item in found}
    return [by_key[k] for k in best]


def max_edits(key: str) -> int:
    """How many edits a key of this length may be away from the one it meant: none below six
    characters (`doe99`), one up to nine (`smiht2020`), two beyond."""
    length = len(key)
    return 0 if length < 6 else 1 if length <= 9 else 2


def author_year(key: str) -> tuple[str | None, str | None]:
    """The first author's name stem and the year a key spells (`smithEtAl2020a` → smith, 2020):
    its leading letters, cut where a capital starts a second word, and its first four-digit year."""
    letters = re.match(r"[^\W\d_]+", key)
    stem = None
    if letters:
        word = letters.group(0)
        cut = next((i for i in range(1, len(word)) if word[i].isupper() and word[i - 1].islower()), len(word))
        stem = _fold(word[:cut]) if cut >= 2 else None
    return stem, _year(key)


def _authors(work: BibReference) -> set[str]:
    """The name stems a key for this work may start with: its key's, and its first author's
    family name (whole, without spaces, and its last word: `van der Berg` → vanderberg, berg)."""
    stems = {author_year(work.key)[0]}
    family = work.family_name
    if family:
        stems.add(_fold(re.sub(r"[\s'’-]+", "", family)))
        stems.add(_fold(family.split()[-1]))
    return {s for s in stems if s}


def _year_of(work: BibReference) -> str | None:
    return _year(work.year or "") or _year(work.key)


def _year(text: str) -> str | None:
    match = _YEAR.search(text)
    return match.group(1) if match else None


def _fold(text: str) -> str:
    """Lower case without accents (`Müller` → muller): how a key is typed from a name."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
