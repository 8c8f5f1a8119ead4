"""Figures in text, normalised so a claim's numbers can be looked for in its source.

"3.2%", "3.2 percent" and "3.2 per cent" are the same figure; so are "45 million", "45M",
"$45m" and "45,000,000"; "two thirds" is 0.667 of nothing. A claim's figure is found in the
evidence when a figure there has the same value, allowing for rounding to the claim's precision
("about 20%" is found in "19.8%"), and the same kind (a percentage is not a count).

A number that is part of a name is no figure (`COVID-19`, `SARS-CoV-2`, `GPT-4`, `Windows 11`,
`ISO 9001`, `Python 3`, `B12`, `A4`, `Table 2`); a figure in words is one ("a hundred", "two
hundred", "dozens"), and an approximation is a span of values: "more than a hundred" is stated by
101, "nearly half" by 48%, "dozens" by 40.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from dataclasses import dataclass, replace

from citedesk.core.names import SENTENCE_START, in_name

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


_QUALIFIERS = {
    "more than": "more",
    "greater than": "more",
    "at least": "more",
    "upwards of": "more",
    "over": "more",
    "well over": "more",
    "just over": "more",
    "above": "more",
    "fewer than": "less",
    "less than": "less",
    "under": "less",
    "just under": "less",
    "below": "less",
    "nearly": "nearly",
    "almost": "nearly",
    "close to": "nearly",
    "about": "about",
    "around": "about",
    "roughly": "about",
    "approximately": "about",
    "some": "about",
    "an estimated": "about",
}
_QUALIFIER = re.compile(
    r"\b(?P<q>" + "|".join(sorted(_QUALIFIERS, key=len, reverse=True)) + r")\s+(?:a\s+)?$", re.IGNORECASE
)
_MANY_WORDS = re.compile(
    r"\b(?P<many>dozens|scores|hundreds|thousands|tens of thousands|hundreds of thousands|millions)\s+of\b",
    re.IGNORECASE,
)
_MANY_PHRASES = {
    "dozens": (24.0, 144.0),
    "scores": (40.0, 200.0),
    "hundreds": (200.0, 1e3),
    "thousands": (2e3, 1e6),
    "tens of thousands": (2e4, 1e5),
    "hundreds of thousands": (2e5, 1e6),
    "millions": (2e6, 1e9),
}
_HALF = re.compile(
    r"\b(?P<q>nearly|almost|about|around|roughly|more than|less than)\s+(?P<half>half)\b", re.IGNORECASE
)


def _qualified(text: str, start: int) -> str:
    """The approximation written right before the figure at `start` ("more than", "nearly"…);
    "" when none."""
    found = _QUALIFIER.search(text, max(0, start - 30), start)
    return _QUALIFIERS[found.group("q").lower()] if found else ""


def _bounds(approx: str, value: float) -> tuple[float, float] | None:
    """The values an approximate figure states: near the figure, on the side its qualifier says
    (a source's other figures of the same kind must not all pass for it)."""
    if approx == "more":  # "more than 100" is not said of 1,000: a writer rounds down, not far
        return value, 1.25 * value
    if approx == "less":
        return 0.75 * value, value
    if approx == "nearly":
        return 0.8 * value, value
    if approx == "about":
        return 0.9 * value, 1.1 * value
    return None


_NUMBER = re.compile(
    r"(?<![\w.])(?P<currency>[$€£¥])?\s?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s?(?P<scale>thousand|million|billion|trillion|mln|mn|bn|tn|[kKmMbB])(?![A-Za-z]))?"
    r"(?:[\s-]?(?P<unit>%|percent\b|per\s?cent\b|percentage points?\b|pp\b|fold\b|x\b|times\b))?",
    re.IGNORECASE,
)
_WORD_NUMBER = re.compile(
    r"\b(?P<word>" + "|".join(sorted(_WORDS, key=len, reverse=True)) + r")"
    r"(?:[\s-](?P<frac>" + "|".join(_FRACTIONS) + r")|\s(?P<hundred>hundred)(?:\s(?:and\s)?"
    r"(?P<rest>" + "|".join(sorted(_WORDS, key=len, reverse=True)) + r"))?)?"
    r"(?:\s(?P<scale>thousand|million|billion|trillion))?"
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
    bounds: tuple[float, float] | None = None
    """The values an approximate figure states ("more than a hundred": 100 to 125; "nearly half":
    0.4 to 0.5; "dozens of": 24 to 144); None for a figure as written."""


@functools.lru_cache(maxsize=32_768)  # by text, for re-audits (issue 26); callers never mutate the list
def quantities(text: str) -> list[Quantity]:
    """Every figure in the text, with its span; years and plain counts included, numbers inside
    names left out."""
    found: list[Quantity] = []
    taken: list[tuple[int, int]] = []
    for match in _NUMBER.finditer(text):
        taken.append((match.start(), match.end()))
        if in_name(text, match.start("num")) and not (match.group("unit") or match.group("scale")):
            continue
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
        found.append(_approximate(text, Quantity(value, kind, "", match.start(), match.end(), decimals)))
    for match in _WORD_NUMBER.finditer(text):
        if any(s < match.end() and match.start() < e for s, e in taken):
            continue
        if match.group("word")[0].isupper() and SENTENCE_START.search(text, 0, match.start()) is None:
            continue  # "Formula One", "the Big Five": a name
        value = float(_WORDS[match.group("word").lower()])
        kind = "count"
        frac = (match.group("frac") or "").lower()
        if frac:
            value = value / _FRACTIONS[frac]
            kind = "fraction"
        if match.group("hundred"):
            value = value * 100 + (_WORDS[match.group("rest").lower()] if match.group("rest") else 0)
        if match.group("scale"):
            value *= _SCALES[match.group("scale").lower()]
        if match.group("unit"):
            kind = "percent"
        start = match.start()
        if match.group("word").lower() in ("hundred", "dozen") and text[max(0, start - 2) : start] == "a ":
            start -= 2  # "a hundred": the article is the figure's "one"
        found.append(_approximate(text, Quantity(value, kind, "", start, match.end(), 3 if frac else 0)))
        taken.append((match.start(), match.end()))
    found.extend(_vague(text, taken))
    found.sort(key=lambda q: q.start)
    return found


def _approximate(text: str, figure: Quantity) -> Quantity:
    """The figure as written, with the values it states when a qualifier goes before it ("more
    than 100", "nearly two thirds"): the qualifier stays out of its text and span."""
    written = text[figure.start : figure.end].strip()
    return replace(figure, text=written, bounds=_bounds(_qualified(text, figure.start), figure.value))


def _vague(text: str, taken: list[tuple[int, int]]) -> list[Quantity]:
    """ "Dozens of", "hundreds of", "nearly half": figures said in words, as spans of values."""
    found = []
    for match in _MANY_WORDS.finditer(text):
        if any(s < match.end() and match.start() < e for s, e in taken):
            continue
        low, high = _MANY_PHRASES[match.group("many").lower()]
        words = match.group("many")
        found.append(
            Quantity(low, "count", words, match.start(), match.start() + len(words), 0, None, (low, high))
        )
    for match in _HALF.finditer(text):
        bounds = _bounds(_QUALIFIERS[match.group("q").lower()], 0.5)
        half = match.span("half")
        found.append(Quantity(0.5, "fraction", match.group("half"), *half, 3, None, bounds))
    return found


def same_figure(claim: Quantity, evidence: Quantity) -> bool:
    """Does the evidence state the claim's figure (to the claim's precision)? An approximate figure
    ("more than 100", "nearly half") is stated by any value it allows."""
    compatible = claim.kind == evidence.kind or {claim.kind, evidence.kind} <= {"count", "money", "fraction"}
    if claim.bounds is not None:
        return _within(claim, evidence, compatible)
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


def _within(claim: Quantity, evidence: Quantity, compatible: bool) -> bool:
    """Is the evidence's value one the approximate claim allows (a fraction against a percentage
    read in percent)?"""
    assert claim.bounds is not None
    (low, high), value = claim.bounds, evidence.value
    if claim.kind == "fraction" and evidence.kind == "percent":
        low, high = low * 100, high * 100
    elif claim.kind == "percent" and evidence.kind == "fraction":
        value *= 100
    elif not compatible:
        return False
    slack = 10 ** (-claim.decimals) / 2 if claim.kind != "fraction" else 0.0
    return low - slack - 1e-9 <= value <= high + slack + 1e-9


def _rounding_unit(q: Quantity) -> float:
    """The rounding step of a large figure as written: 1.5 million → 0.1 million, 45,000 → 1000."""
    if q.value >= 1e3 and re.search(r"[A-Za-z]", q.text):
        scale = next((v for k, v in _SCALES.items() if re.search(rf"\d\s?{k}\b", q.text, re.IGNORECASE)), 1.0)
        return float(scale * 10 ** (-q.decimals))
    digits = re.sub(r"\D", "", q.text.split(".")[0])
    trailing = len(digits) - len(digits.rstrip("0"))
    return float(10**trailing) if trailing else 1.0


def missing_figures(claim_text: str, evidence_text: str, *, small: bool = False) -> list[Quantity]:
    """The claim's figures (small counts below 10 aside, unless `small`) that the evidence never
    states."""
    evidence = quantities(evidence_text)
    missing = []
    for q in quantities(claim_text):
        if not small and q.kind == "count" and q.value < 10 and q.decimals == 0:
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
    inside a range the evidence gives is not a conflict with the range's ends. Small counts are
    read here too ("9 degrees warmer" against "3 degrees warmer"): the same word after both says
    they count the same thing."""
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
    for figure in missing_figures(claim_text, evidence_text, small=True):  # "9 degrees" has its unit
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


_SAME_UNIT = {
    "°c": "degrees",
    "°f": "degrees",
    "°": "degrees",
    "degree": "degrees",
    "kilometres": "km",
    "kilometers": "km",
    "kilometre": "km",
    "kilometer": "km",
    "kilograms": "kg",
    "kilogram": "kg",
    "hours": "h",
    "hour": "h",
}
"""Units written two ways, as one (`\\SI{2.5}{\\celsius}` reads "2.5 °C", a source "2.5 degrees")."""


def word_after(text: str, at: int) -> str:
    """The word right after offset `at` (lower case, punctuation stripped): a figure's unit or noun,
    a unit by one name (`_SAME_UNIT`)."""
    following = text[at : at + 40].split()
    word = following[0].lower().strip(".,;:()") if following else ""
    return _SAME_UNIT.get(word, word)
