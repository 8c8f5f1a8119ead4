"""Figures in text, normalised so a claim's numbers can be looked for in its source.

"3.2%", "3.2 percent" and "3.2 per cent" are the same figure; so are "45 million", "45M",
"$45m" and "45,000,000"; "two thirds" is 0.667 of nothing. A claim's figure is found in the
evidence when a figure there has the same value, allowing for rounding to the claim's precision
("about 20%" is found in "19.8%"), and the same kind (a percentage is not a count).
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from dataclasses import dataclass

_SCALES = {
    "thousand": 1e3,
    "k": 1e3,
    "million": 1e6,
    "m": 1e6,
    "mn": 1e6,
    "mln": 1e6,
    "billion": 1e9,
    "bn": 1e9,
    "b": 1e9,
    "trillion": 1e12,
    "tn": 1e12,
}
_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
    "dozen": 12,
}
_FRACTIONS = {
    "half": 2,
    "halves": 2,
    "third": 3,
    "thirds": 3,
    "quarter": 4,
    "quarters": 4,
    "fifth": 5,
    "fifths": 5,
}

_NUMBER = re.compile(
    r"(?<![\w.])(?P<currency>[$€£¥])?\s?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s?(?P<scale>thousand|million|billion|trillion|mln|mn|bn|tn|[kKmMbB])(?![A-Za-z]))?"
    r"(?:[\s-]?(?P<unit>%|percent\b|per\s?cent\b|percentage points?\b|pp\b|fold\b|x\b|times\b))?",
    re.IGNORECASE,
)
_WORD_NUMBER = re.compile(
    r"\b(?P<word>" + "|".join(sorted(_WORDS, key=len, reverse=True)) + r")"
    r"(?:[\s-](?P<frac>" + "|".join(_FRACTIONS) + r")|\s(?P<scale>thousand|million|billion|trillion))?"
    r"(?:\s(?P<unit>percent|per\s?cent))?\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Quantity:
    value: float
    kind: str
    """"percent", "money", "ratio" (fold/times), "year" or "count"."""
    text: str
    start: int
    end: int
    decimals: int = 0
    """Digits after the point as written: the precision to which the writer rounded."""
    high: float | None = None
    """The upper end of a range ("10-20%": `value` 10, `high` 20); None for a single figure."""


@functools.lru_cache(maxsize=32_768)  # by text, for re-audits (issue 26); callers never mutate the list
def quantities(text: str) -> list[Quantity]:
    """Every figure in the text, with its span; years and plain counts included."""
    found: list[Quantity] = []
    taken: list[tuple[int, int]] = []
    for match in _NUMBER.finditer(text):
        raw = match.group("num")
        value = float(raw.replace(",", ""))
        decimals = len(raw.split(".")[1]) if "." in raw else 0
        scale = (match.group("scale") or "").lower()
        if scale:
            value *= _SCALES[scale]
        unit = (match.group("unit") or "").lower()
        if unit.startswith(("%", "percent", "per")):
            kind = "percent"
        elif unit in ("fold", "x", "times"):
            kind = "ratio"
        elif match.group("currency"):
            kind = "money"
        elif not scale and decimals == 0 and "," not in raw and 1500 <= value <= 2100 and len(raw) == 4:
            kind = "year"
        else:
            kind = "count"
        found.append(Quantity(value, kind, match.group(0).strip(), match.start(), match.end(), decimals))
        taken.append((match.start(), match.end()))
    for match in _WORD_NUMBER.finditer(text):
        if any(s < match.end() and match.start() < e for s, e in taken):
            continue
        value = float(_WORDS[match.group("word").lower()])
        kind = "count"
        frac = (match.group("frac") or "").lower()
        if frac:
            value = value / _FRACTIONS[frac]
            kind = "fraction"
        if match.group("scale"):
            value *= _SCALES[match.group("scale").lower()]
        if match.group("unit"):
            kind = "percent"
        found.append(Quantity(value, kind, match.group(0), match.start(), match.end(), 3 if frac else 0))
    found.sort(key=lambda q: q.start)
    return found


def same_figure(claim: Quantity, evidence: Quantity) -> bool:
    """Does the evidence state the claim's figure (to the claim's precision)?"""
    compatible = claim.kind == evidence.kind or {claim.kind, evidence.kind} <= {"count", "money", "fraction"}
    if claim.kind == "fraction" and evidence.kind == "percent":
        return math.isclose(claim.value * 100, evidence.value, abs_tol=1.0)
    if claim.kind == "percent" and evidence.kind == "fraction":
        return math.isclose(claim.value, evidence.value * 100, abs_tol=1.0)
    if not compatible:
        return False
    if math.isclose(claim.value, evidence.value, rel_tol=1e-9, abs_tol=1e-12):
        return True
    # rounding: "20%" states 19.8% to the writer's precision; "1.5 million" states 1,523,000
    magnitude = 10 ** (-claim.decimals) if claim.value < 1e3 else _rounding_unit(claim)
    return abs(claim.value - evidence.value) <= magnitude / 2 + 1e-9


def _rounding_unit(q: Quantity) -> float:
    """The rounding step of a large figure as written: 1.5 million → 0.1 million, 45,000 → 1000."""
    if q.value >= 1e3 and re.search(r"[A-Za-z]", q.text):
        scale = next((v for k, v in _SCALES.items() if re.search(rf"\d\s?{k}\b", q.text, re.IGNORECASE)), 1.0)
        return float(scale * 10 ** (-q.decimals))
    digits = re.sub(r"\D", "", q.text.split(".")[0])
    trailing = len(digits) - len(digits.rstrip("0"))
    return float(10**trailing) if trailing else 1.0


def missing_figures(claim_text: str, evidence_text: str) -> list[Quantity]:
    """The claim's figures (years and small counts below 10 aside) that the evidence never states."""
    evidence = quantities(evidence_text)
    missing = []
    for q in quantities(claim_text):
        if q.kind == "count" and q.value < 10 and q.decimals == 0:
            continue  # "two studies", "3 groups": too common to be a claim's point
        if not any(same_figure(q, e) for e in evidence):
            missing.append(q)
    return missing


_RANGE_JOIN = re.compile(r"\s*(?:-|–|—|to)\s*|\s+and\s+")


def ranges(text: str) -> list[Quantity]:
    """The ranges of the text ("10-20%", "10 to 20 percent", "between 10% and 20%") as one figure
    each, from its low to its `high` end, of the high end's kind (years aside: "2010-2015" is a
    period)."""
    found = []
    figures = quantities(text)
    for low, high in itertools.pairwise(figures):
        join = _RANGE_JOIN.fullmatch(text[low.end : high.start])
        if join is None or high.kind == "year" or not low.value < high.value:
            continue
        before = text[: low.start].rstrip()
        if "and" in join.group(0) and not before.lower().endswith("between"):
            continue  # "10 and 20" is a range only after "between"
        if low.kind != high.kind and not (low.kind == "count" and high.kind in ("percent", "ratio")):
            continue  # "10-20 million" and the like: the low end's scale is not written
        opening = len(before) - len("between") if "and" in join.group(0) else low.start
        written = text[opening : high.end]
        start = opening + len(written) - len(written.lstrip())
        decimals = max(low.decimals, high.decimals)
        found.append(Quantity(low.value, high.kind, written.strip(), start, high.end, decimals, high.value))
    return found


def _ends(q: Quantity) -> tuple[Quantity, Quantity]:
    return Quantity(q.value, q.kind, q.text, q.start, q.end, q.decimals), Quantity(
        q.high if q.high is not None else q.value, q.kind, q.text, q.start, q.end, q.decimals
    )


def same_range(claim: Quantity, evidence: Quantity) -> bool:
    """Both ends of the claim's range state the evidence's (to the claim's precision)."""
    (low, high), (their_low, their_high) = _ends(claim), _ends(evidence)
    return same_figure(low, their_low) and same_figure(high, their_high)


def states(text: str, figure: Quantity) -> bool:
    """Does the text state the figure (a range: a range with the same ends)?"""
    if figure.high is not None:
        return any(same_range(figure, r) for r in ranges(text))
    return any(same_figure(figure, q) for q in quantities(text))


def figure_conflicts(claim_text: str, evidence_text: str) -> list[tuple[Quantity, Quantity]]:
    """(the claim's figure, the evidence's figure) for each figure the evidence gives differently
    for the same thing: a figure of the same kind followed by the same word (its unit or noun:
    "2.5 °C cooler" against "1.5 °C cooler"), while the claim's own value is not there at all.
    A range against a range is one conflict ("15-25%, not 10-20%"), not one per end; a figure
    inside a range the evidence gives is not a conflict with the range's ends."""
    their_ranges = ranges(evidence_text)
    stated = [
        q for q in quantities(evidence_text) if not any(r.start <= q.start < r.end for r in their_ranges)
    ]
    conflicts = []
    read: list[Quantity] = []
    for span in ranges(claim_text):
        unit = word_after(claim_text, span.end)
        if any(same_range(span, r) for r in their_ranges):
            read.append(span)
            continue
        other = next(
            (
                r
                for r in their_ranges
                if r.kind == span.kind and unit and word_after(evidence_text, r.end) == unit
            ),
            None,
        )
        if other is not None:
            conflicts.append((span, other))
            read.append(span)
    for figure in missing_figures(claim_text, evidence_text):
        if any(r.start <= figure.start < r.end for r in read):
            continue
        unit = word_after(claim_text, figure.end)
        if not unit:
            continue
        if any(
            r.kind == figure.kind and r.value <= figure.value <= (r.high or r.value) for r in their_ranges
        ):
            continue  # within the source's range: not a different figure
        other = next(
            (
                q
                for q in (*stated, *their_ranges)
                if q.kind == figure.kind and word_after(evidence_text, q.end) == unit
            ),
            None,
        )
        if other is not None:
            conflicts.append((figure, other))
    return conflicts


def word_after(text: str, at: int) -> str:
    """The word right after offset `at` (lower case, punctuation stripped): a figure's unit or noun."""
    following = text[at : at + 40].split()
    return following[0].lower().strip(".,;:()") if following else ""
