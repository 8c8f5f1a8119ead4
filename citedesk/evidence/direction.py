"""Direction words, read with what they are about: "ridership rose by 12%" against a source saying
"ridership fell by 12%".

A writer who turns a fall into a rise keeps every word of the source but one, so the judge's word
overlap reads the sentence as supported; the flip has to be looked for. Each direction word (rose,
fell, increased, decreased, more, fewer, higher, lower, gained, lost, doubled, halved …) is read
in its clause with the content words near it (its quantity: "ridership", "the number of clinics")
and the figures of that clause. A flip is reported only when the claim and the evidence speak of
the same quantity — a figure both state, or a content word near the direction word on both sides
— and the evidence says nothing in the claim's direction about it: "costs rose while ridership
fell" does not contradict "ridership fell". A negated direction word ("did not rise") is not the
opposite one, and is left out; so are bounds ("more than 20%").

Pure functions, no model: `figures.number_mismatches` turns the flips into findings.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from citedesk.evidence.lexical import NEGATIONS, STOPWORDS, stem
from citedesk.evidence.numbers import Quantity, quantities, same_figure

# fmt: off
_UP = [
    "rise", "rises", "rising", "rose", "risen", "increase", "increases", "increased", "increasing",
    "grow", "grows", "grew", "grown", "growing", "gain", "gains", "gained", "gaining", "climb",
    "climbs", "climbed", "jump", "jumps", "jumped", "soar", "soared", "surge", "surged", "raise",
    "raised", "more", "higher", "greater", "larger", "bigger", "double", "doubles", "doubled",
    "doubling", "triple", "tripled", "tripling"
]
_DOWN = [
    "fall", "falls", "fell", "fallen", "falling", "decrease", "decreases", "decreased",
    "decreasing", "decline", "declines", "declined", "declining", "drop", "drops", "dropped",
    "dropping", "shrink", "shrinks", "shrank", "shrunk", "lose", "loses", "lost", "losing", "loss",
    "fewer", "less", "lower", "lowered", "smaller", "halve", "halves", "halved", "halving",
    "reduce", "reduces", "reduced", "reducing", "plunge", "plunged", "sink", "sank", "slump",
    "slumped"
]
# fmt: on
SIGNS: dict[str, int] = {**dict.fromkeys(_UP, 1), **dict.fromkeys(_DOWN, -1)}
"""Each direction word as written (lower case): +1 up, -1 down."""
# fmt: off
_GENERIC = frozenset(stem(w) for w in [
    "year", "years", "month", "months", "week", "weeks", "day", "days", "decade", "decades",
    "time", "period", "percent", "cent", "point", "points", "compared", "previous", "last",
    "since", "rate",
])
# fmt: on
"""Words near a direction word that say when or how much, not what: they do not make two
mentions about the same quantity."""
BEFORE, AFTER = 5, 3
"""The content words of a direction word's clause nearest it, this many before it (its subject:
"bus ridership across the network fell") and after (its object: "increased the fare"), are its
quantity."""

_SEASON = frozenset(["in", "this", "last", "next", "early", "late", "during", "that", "each", "every"])
"""Words before "fall" that make it the season."""
_YEAR_AFTER = re.compile(r"\s+(?:of\s+)?\d{4}\b")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’\-]*[A-Za-z]|[A-Za-z]")
_BREAK = re.compile(
    r"[,;:!?()]|\.(?!\d)|\b(?:and|but|while|whereas|although|though|yet|however|unlike)\b", re.IGNORECASE
)
"""Where a direction word's reach ends: punctuation (not a decimal point) and the words that join
two clauses ("costs rose while ridership fell")."""


@dataclass(frozen=True)
class Mention:
    """One direction word in a text, with what it is about."""

    word: str
    """As written ("rose")."""
    sign: int
    """+1 up, -1 down."""
    start: int
    end: int
    near: frozenset[str]
    """The content stems nearest it in its clause (`BEFORE`, `AFTER`): the quantity it speaks of.
    A clause with none ("fell in 2020 and rose in 2023") speaks of the previous mention's."""
    clause: frozenset[str]
    """Content stems of its whole clause."""
    figures: tuple[Quantity, ...]
    """The figures of its clause (years aside): "by 12%"."""


@dataclass(frozen=True)
class Flip:
    """A claim's direction word the evidence gives the other way, about the same quantity."""

    claim: Mention
    evidence: Mention
    explicit: bool
    """The same figure or the same subject is stated next to both words (an error); else the two
    share only words of their clauses (a warning)."""


def _clauses(text: str) -> list[tuple[int, int]]:
    spans, at = [], 0
    for cut in _BREAK.finditer(text):
        spans.append((at, cut.start()))
        at = cut.end()
    spans.append((at, len(text)))
    return [(s, e) for s, e in spans if text[s:e].strip()]


def _content(token: str) -> str | None:
    lower = token.lower()
    if lower in STOPWORDS or lower in NEGATIONS or lower in SIGNS or len(lower) < 2:
        return None
    s = stem(lower)
    return None if s in _GENERIC else s


@functools.lru_cache(maxsize=32_768)  # by text, for re-audits (issue 26); callers never mutate the list
def mentions(text: str) -> list[Mention]:
    """Every direction word of the text that is not negated and is not a bound ("more than 20%")."""
    found: list[Mention] = []
    for start, end in _clauses(text):
        clause = text[start:end]
        tokens = list(_TOKEN.finditer(clause))
        lowered = [t.group(0).lower().replace("’", "'") for t in tokens]
        stems = [_content(t) for t in lowered]
        figures = tuple(q for q in quantities(clause) if q.kind != "year")
        for index, word in enumerate(lowered):
            sign = SIGNS.get(word)
            if sign is None:
                continue
            if index + 1 < len(lowered) and lowered[index + 1] in ("than", "or"):
                continue  # a bound ("more than 20%") or "more or less", not a change
            if word == "fall" and (
                (index and lowered[index - 1] in _SEASON) or _YEAR_AFTER.match(clause, tokens[index].end())
            ):
                continue  # the season ("opened in fall 2016", "last fall")
            if any(w in NEGATIONS or w.endswith("n't") for w in lowered[max(0, index - 3) : index]):
                continue  # "did not rise" is not "fell"
            before = [s for s in stems[:index] if s][-BEFORE:]
            after = [s for s in stems[index + 1 :] if s][:AFTER]
            near, words = frozenset(before + after), frozenset(s for s in stems if s)
            if not near and found:  # the same subject, not repeated
                near, words = found[-1].near, found[-1].clause
            match = tokens[index]
            found.append(
                Mention(
                    match.group(0), sign, start + match.start(), start + match.end(), near, words, figures
                )
            )
    return found


def _same_figure(a: Mention, b: Mention) -> bool:
    return any(
        same_figure(x, y) for x in a.figures for y in b.figures if not (x.kind == "count" and x.value < 10)
    )


def _about(claim: Mention, evidence: Mention) -> bool | None:
    """Whether two mentions speak of the same quantity: True when explicitly (the same figure with
    no other subject, or a content word near both), False when only through their clauses, None
    when not at all."""
    if claim.near & evidence.near:
        return True
    if _same_figure(claim, evidence) and not (claim.near and evidence.near):
        return True
    if claim.near & evidence.clause or claim.clause & evidence.near:
        return False
    return None


@functools.lru_cache(maxsize=32_768)
def clause_stems(text: str) -> list[frozenset[str]]:
    """The content stems of each clause of the text (`_BREAK`)."""
    return [
        frozenset(
            s for t in _TOKEN.finditer(text[start:end]) if (s := _content(t.group(0).replace("’", "'")))
        )
        for start, end in _clauses(text)
    ]


def flips(claim: str, evidence: str) -> list[Flip]:
    """The claim's direction words that the evidence gives the other way for the same quantity,
    and nowhere in the claim's way: one flip per claim word (the most explicit). The evidence's
    word counts only where its clause is where the evidence speaks most of the claim's quantity:
    "reduces the rate of kidney damage" is about another quantity than "increased risk of kidney
    failure" when another clause of the evidence names more of it ("associated with kidney
    failure"), one shared modifier notwithstanding."""
    stated = mentions(evidence)
    clauses = clause_stems(evidence)
    out = []
    for said in mentions(claim):
        related = [(m, _about(said, m)) for m in stated]
        related = [(m, explicit) for m, explicit in related if explicit is not None]
        if any(m.sign == said.sign for m, _ in related):
            continue  # the evidence says it the claim's way too
        most = max((len(said.near & c) for c in clauses), default=0)
        related = [(m, explicit) for m, explicit in related if len(said.near & m.clause) >= most]
        opposite = sorted(related, key=lambda pair: not pair[1])
        if opposite:
            mention, explicit = opposite[0]
            out.append(Flip(said, mention, bool(explicit)))
    return out


def corrected(claim: str, found: list[Flip]) -> str:
    """The claim with each flipped word replaced by the evidence's ("rose" → "fell"): what the
    sentence would say if it followed its source."""
    for flip in sorted(found, key=lambda f: -f.claim.start):
        word = flip.evidence.word
        if flip.claim.word[:1].isupper():
            word = word[:1].upper() + word[1:]
        claim = claim[: flip.claim.start] + word + claim[flip.claim.end :]
    return claim
