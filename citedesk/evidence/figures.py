"""The figure findings: numbers of a cited sentence checked against its sources.

- `number_mismatch` — a figure the cited source gives differently for the same thing ("2.5 °C
  cooler" where the source says "1.5 °C cooler"), when the sentence reads as supported with the
  source's figure in place: the citation is right and the number is wrong;
- `unsupported_number` — a figure of the claim that none of its cited sources states (`[1] … 30%
  … [2]` is fine when [2] says 30%).

- `direction_mismatch` — a direction word the cited source gives the other way for the same
  quantity ("the source says fell, not rose": `direction.py`), made with the number mismatches
  and in the same way: the sentence is judged again with the source's words in place.

Both mismatches rest on the matched sentence alone (the passage the judge found best, not its
neighbours in the window): the finding's evidence, which every report quotes under it, is the
sentence the error rests on.

`suggest.assess_evidence` runs them, alongside the misattributed and unsupported-part findings.
"""

from __future__ import annotations

import re
from dataclasses import replace

from citedesk.core.document.model import Document
from citedesk.core.findings import Evidence, Finding, Kind, Severity, Verdict, VerdictLabel, make_finding
from citedesk.evidence.direction import Flip, flips
from citedesk.evidence.direction import corrected as with_directions
from citedesk.evidence.numbers import Quantity, figure_conflicts, missing_figures, states
from citedesk.evidence.verdicts import Judging, PreparedSource


# a figure the source gives differently -------------------------------------------------------------
def number_mismatches(
    document: Document, verdicts: dict[str, list[Verdict]], judging: Judging
) -> tuple[list[Finding], set[tuple[str, str]]]:
    """A figure the cited source gives differently for the same thing ("2.5 °C cooler" where the
    source says "1.5 °C cooler"). The sentence is judged again with the source's figure in place:
    when that reads as supported, the citation is right and the number is wrong — one number
    finding naming both figures, and no misattribution (the judge's contradiction was the number).
    A direction word the source gives the other way for the same quantity ("rose" where it says
    "fell", `direction.flips`) is read the same way, put right together with the figures: one
    `direction_mismatch` naming both words.

    Returns the findings and the (claim, reference) citations they explain."""
    findings: list[Finding] = []
    explained: set[tuple[str, str]] = set()
    for claim_id, claim_verdicts in verdicts.items():
        if judging.out_of_time():
            break
        claim = document.claim_by_id[claim_id]
        sources = [
            judging.prepared[v.reference].source.text
            for v in claim_verdicts
            if v.reference in judging.prepared
        ]
        for verdict in claim_verdicts:
            if verdict.label is VerdictLabel.UNCHECKED or verdict.evidence is None:
                continue
            matched = verdict.evidence.passage  # an error rests on the sentence it quotes
            conflicts = [
                (figure, stated)
                for figure, stated in figure_conflicts(claim.text, matched)
                if not any(states(text, figure) for text in sources)
            ]  # a figure counts as stated when any citation of the sentence states it
            turned = _matched_flips(claim.text, verdict.evidence)
            readings = [(conflicts, turned)]
            if conflicts and turned:
                readings.append((conflicts, []))  # the figures alone, should the words not be the fault
            for wrong_figures, wrong_words in readings:
                if not wrong_figures and not wrong_words:
                    continue
                corrected = claim.text
                for figure, stated in sorted(wrong_figures, key=lambda c: -c[0].start):
                    corrected = corrected[: figure.start] + stated.text + corrected[figure.end :]
                if wrong_words:  # figures and direction words do not overlap: both are put right
                    corrected = with_directions(corrected, _matched_flips(corrected, verdict.evidence))
                if verdict.label is not VerdictLabel.SUPPORTED:
                    question = judging.ask(claim_id, corrected, verdict.reference)
                    again = judging.verdict(question, judging.answer([question])[0])
                    if again.label not in (VerdictLabel.SUPPORTED, VerdictLabel.PARTIALLY_SUPPORTED):
                        continue  # the source does not say this with its own figures and words either
                    claim_verdicts[claim_verdicts.index(verdict)] = replace(
                        again, reference=verdict.reference, evidence=verdict.evidence
                    )  # the citation is right: its verdict is the one with the source's figure
                explained.add((claim_id, verdict.reference))
                findings.extend(
                    _number_mismatch(document, claim_id, verdict, figure, stated)
                    for figure, stated in wrong_figures
                )
                findings.extend(
                    _direction_mismatch(document, claim_id, verdict, flip) for flip in wrong_words
                )
                break
    return findings, explained


def _matched_flips(claim: str, evidence: Evidence) -> list[Flip]:
    """The direction words the matched sentence (`evidence.passage`) gives the other way, which
    the rest of the window does not give the claim's way: never a neighbour's "increasing
    vegetation" against the matched sentence's "reduce"."""
    kept = {f.claim.start for f in flips(claim, evidence.window or evidence.passage)}
    return [f for f in flips(claim, evidence.passage) if f.claim.start in kept]


def _direction_mismatch(document: Document, claim_id: str, verdict: Verdict, flip: Flip) -> Finding:
    """ "The cited source [1] says fell, not rose": an error where the same figure or subject stands
    beside both words, a warning where the two share only words of their clauses."""
    claim = document.claim_by_id[claim_id]
    sentence = claim.sentence
    raw = document.text[sentence.start : sentence.end]
    # the same occurrence of the word in the document's text (the claim's text may lack markers)
    word = re.compile(rf"\b{re.escape(flip.claim.word)}\b")
    nth = len(word.findall(claim.text[: flip.claim.start]))
    found = list(word.finditer(raw))
    span = (
        (sentence.start + found[nth].start(), sentence.start + found[nth].end())
        if nth < len(found)
        else (sentence.start, sentence.end)
    )
    return make_finding(
        Kind.DIRECTION_MISMATCH,
        span,
        f"The cited source {document.label(verdict.reference)} says {flip.evidence.word.lower()}, "
        f"not {flip.claim.word.lower()}.",
        reference=verdict.reference,
        claim_id=claim_id,
        evidence=verdict.evidence,
        severity=None if flip.explicit else Severity.WARNING,
        details={
            "word": flip.claim.word,
            "source_word": flip.evidence.word,
            "explicit": flip.explicit,
        },
    )


_UNIT_WORDS = frozenset(
    [
        "gram",
        "grams",
        "kilogram",
        "kilograms",
        "milligram",
        "milligrams",
        "microgram",
        "micrograms",
        "tonne",
        "tonnes",
        "ton",
        "tons",
        "pound",
        "pounds",
        "ounce",
        "ounces",
        "metre",
        "metres",
        "meter",
        "meters",
        "kilometre",
        "kilometres",
        "kilometer",
        "kilometers",
        "centimetre",
        "centimetres",
        "centimeter",
        "centimeters",
        "millimetre",
        "millimetres",
        "millimeter",
        "millimeters",
        "mile",
        "miles",
        "foot",
        "feet",
        "inch",
        "inches",
        "yard",
        "yards",
        "hectare",
        "hectares",
        "acre",
        "acres",
        "litre",
        "litres",
        "liter",
        "liters",
        "millilitre",
        "millilitres",
        "milliliter",
        "milliliters",
        "gallon",
        "gallons",
        "second",
        "seconds",
        "minute",
        "minutes",
        "hour",
        "hours",
        "day",
        "days",
        "week",
        "weeks",
        "month",
        "months",
        "year",
        "years",
        "decade",
        "decades",
        "century",
        "centuries",
        "degree",
        "degrees",
        "percent",
        "watt",
        "watts",
        "kilowatt",
        "kilowatts",
        "megawatt",
        "megawatts",
        "gigawatt",
        "gigawatts",
        "joule",
        "joules",
        "calorie",
        "calories",
        "kilocalorie",
        "kilocalories",
        "dollar",
        "dollars",
        "euro",
        "euros",
        "person",
        "people",
        "patient",
        "patients",
        "kg",
        "g",
        "mg",
        "µg",
        "t",
        "lb",
        "oz",
        "km",
        "m",
        "cm",
        "mm",
        "mi",
        "ft",
        "yd",
        "ha",
        "l",
        "ml",
        "h",
        "hr",
        "hrs",
        "min",
        "s",
        "ms",
        "kw",
        "kwh",
        "mw",
        "mwh",
        "gw",
        "gwh",
        "mph",
        "kph",
        "ppm",
        "ppb",
    ]
)
"""Words after a figure that are its unit ("8 kilograms", "12 km"), so the message names them;
anything else ("20% of", "30% tree canopy") is a noun the figure says enough without."""


def _number_mismatch(
    document: Document, claim_id: str, verdict: Verdict, figure: Quantity, stated: Quantity
) -> Finding:
    sentence = document.claim_by_id[claim_id].sentence
    raw = document.text[sentence.start : sentence.end]
    at = raw.find(figure.text)
    span = (
        (sentence.start + at, sentence.start + at + len(figure.text))
        if at >= 0
        else (sentence.start, sentence.end)
    )
    matched = verdict.evidence.passage if verdict.evidence else ""
    following = matched[stated.end : stated.end + 40].split()
    unit = following[0].strip(".,;:()") if following else ""
    if (unit.isalpha() and unit.lower() not in _UNIT_WORDS) or stated.kind == "percent":
        unit = ""  # a noun ("30% tree canopy"), a word ("20% of", "12 in"), not a unit ("1.5 °C", "12 km")
    said, written = f"{stated.text} {unit}".strip(), f"{figure.text} {unit}".strip()
    return make_finding(
        Kind.NUMBER_MISMATCH,
        span,
        f"The cited source {document.label(verdict.reference)} says {said}, not {written}.",
        reference=verdict.reference,
        claim_id=claim_id,
        evidence=verdict.evidence,
        details={
            "figure": figure.text,
            "value": figure.value,
            "source_figure": stated.text,
            "source_value": stated.value,
            **({"high": figure.high} if figure.high is not None else {}),
            **({"source_high": stated.high} if stated.high is not None else {}),
        },
    )


# a figure no cited source states ---------------------------------------------------------------------
def unsupported_figures(
    document: Document, claim_id: str, keys: list[str], owner: str, prepared: dict[str, PreparedSource]
) -> list[Finding]:
    """Figures of the claim that no cited source states (`[1] … 30% … [2]` is fine when [2] says
    30%), reported against `owner`, the first citation that is not itself misattributed."""
    claim = document.claim_by_id[claim_id]
    missing = missing_figures(claim.text, prepared[keys[0]].source.text)
    for key in keys[1:]:
        elsewhere = {q.text for q in missing_figures(claim.text, prepared[key].source.text)}
        missing = [q for q in missing if q.text in elsewhere]
    where = (
        f"the cited source {document.label(owner)}"
        if len(keys) == 1
        else f"any cited source ({', '.join(document.label(k) for k in keys)})"
    )
    findings = []
    raw = document.text[claim.sentence.start : claim.sentence.end]
    for figure in missing:
        at = raw.find(figure.text)
        span = (
            (claim.sentence.start + at, claim.sentence.start + at + len(figure.text))
            if at >= 0
            else (claim.sentence.start, claim.sentence.end)
        )
        findings.append(
            make_finding(
                Kind.UNSUPPORTED_NUMBER,
                span,
                f"“{figure.text}” does not appear in {where} (no figure there matches it).",
                reference=owner,
                claim_id=claim_id,
                details={"figure": figure.text, "value": figure.value, "kind": figure.kind},
            )
        )
    return findings
