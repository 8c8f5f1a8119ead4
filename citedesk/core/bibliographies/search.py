"""Finding a bibliography entry by what a writer remembers of it: its key, an author, the year, a
word of its title (accents and case not counted). The window's `@` completion and the language
server's completion rank entries with this one rule (`ranked`), so both offer the same entries in
the same order.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from citedesk.core.document.works import BibReference

_WORD = re.compile(r"\w+")
MAX_SHOWN = 100
"""Entries offered at most: a thesis bibliography has thousands; typing more narrows them."""


def fold(text: str) -> str:
    """`text` as it is compared: case and accents dropped, so `@lea` finds Léa and `@MO` Moreau."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@dataclass(frozen=True)
class Candidate:
    """One bibliography entry as the completion offers it: found by its key, authors, year or title
    words, and shown as `key — Author (Year) Title`."""

    key: str
    title: str = ""
    authors: tuple[str, ...] = ()
    """Each "Family, Given" (or an organisation's one name), as the bibliography names them."""
    year: str = ""

    @classmethod
    def of(cls, work: BibReference | tuple[str, str]) -> Candidate:
        """A bibliography's entry, or a bare (key, title) pair."""
        if isinstance(work, tuple):
            return cls(work[0], work[1])
        return cls(work.key, work.title or "", work.entry.authors, work.year or "")

    @property
    def shown(self) -> str:
        """`moreau2021 — Moreau & Okafor (2021) Tree Canopy…`: how writers cite, after the key."""
        families = [(name.split(",", 1)[0] if "," in name else name).strip() for name in self.authors]
        families = [name for name in families if name]
        who = f"{families[0]} et al." if len(families) > 2 else " & ".join(families)
        if self.year:
            who = f"{who} ({self.year})" if who else f"({self.year})"
        about = " ".join(part for part in (who, self.title) if part)
        return f"{self.key} — {about}" if about else self.key

    @cached_property
    def _folded(self) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
        """(key, author and year words, title words), folded once: ranking runs on each keystroke."""
        people = tuple(_WORD.findall(fold(" ".join(self.authors))))
        return fold(self.key), (*people, self.year), tuple(_WORD.findall(fold(self.title)))

    def tier(self, typed: str) -> int | None:
        """How well the folded word `typed` finds this entry (lower is better), or None: 0 the key
        starts with it, 1 an author's name or the year does, 2 a title word does, 3 the key contains
        it."""
        key, people, words = self._folded
        if key.startswith(typed):
            return 0
        if any(word.startswith(typed) for word in people):
            return 1
        if any(word.startswith(typed) for word in words):
            return 2
        return 3 if typed in key else None


def ranked(candidates: Iterable[Candidate], typed: str, limit: int = MAX_SHOWN) -> list[Candidate]:
    """The entries `typed` (what follows the `@`) finds, best first and by key within a tier; every
    entry, by key, while nothing is typed."""
    word = fold(typed.lstrip("{"))
    found = []
    for candidate in candidates:
        tier = candidate.tier(word) if word else 0
        if tier is not None:
            found.append((tier, candidate.key.casefold(), candidate))
    found.sort(key=lambda row: (row[0], row[1]))
    return [candidate for _, _, candidate in found[:limit]]
