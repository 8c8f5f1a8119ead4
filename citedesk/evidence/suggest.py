"""From verdicts to the findings a writer acts on, and the references worth offering.

- `misattributed` — the cited source does not support the claim (warning) or contradicts it
  (error), or supports it only in part while another reference scores clearly higher
  (`policy.CLEARLY_BETTER`); with a swap to that reference when there is one;
- `unsupported_number` — a figure of the claim that none of its cited sources states (`[1] … 30%
  … [2]` is fine when [2] says 30%; not reported where every citation is already misattributed);
- suggestions for `uncited` sentences — the document's reference that supports the claim;
- with atomic facts (Claude's checked decomposition of a long sentence, `assist/atoms.py`), each
  fact is judged against each cited source too. A citation that fully supports one fact is right
  for its part (not misattributed); a fact none of the citations supports is flagged
  `unsupported_part` on its own words, with "cite [k] for this part" when another reference
  supports it; a citation that supports no fact is misattributed only when every fact is
  supported elsewhere (an extra, wrong citation) or none is (the whole sentence is unsupported).

Suggestions for uncited sentences are merged into their findings once (`offer_citations`), from
the local judge and, with assistance on, from Claude's checked proposals.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from citedesk.core.claims import Atom
from citedesk.core.document import Document
from citedesk.core.findings import (
    Finding,
    Fix,
    Kind,
    Severity,
    Suggestion,
    Verdict,
    VerdictLabel,
    make_finding,
)
from citedesk.core.repair import AddCitation, RetargetCitation, citation_offset, cite_sentence, make_fix
from citedesk.evidence.judges.base import Judge
from citedesk.evidence.numbers import Quantity, figure_conflicts, missing_figures
from citedesk.evidence.policy import clearly_better, suggestion
from citedesk.evidence.verdicts import (
    JudgementCache,
    Judging,
    Part,
    PreparedSource,
    Progress,
    headings,
    judge_citations,
    judge_parts,
    prepare,
)

if TYPE_CHECKING:
    from citedesk.evidence.embed import Embedder
    from citedesk.sources.gather import ResolvedSource


def _no_progress(stage: str, done: int, total: int) -> None:
    """Progress goes nowhere."""


@dataclass(frozen=True)
class Offer:
    """A reference offered for an uncited sentence, and the fix that cites it: none when its source
    supports the sentence only in part (the writer is told to read it first; nothing cites it
    for them, not even `fix --kinds all`)."""

    suggestion: Suggestion
    fix: Fix | None
    note: str = ""
    """What the message adds when there is no fix."""


@dataclass
class EvidenceResult:
    verdicts: dict[str, list[Verdict]]
    findings: list[Finding]
    """New findings (misattributed, unsupported_number, unsupported_part)."""
    offers: dict[str, Offer] = field(default_factory=dict)
    """Claim id → the reference the local judge offers for that uncited sentence."""
    confirm: Callable[[str, str, Judge], tuple[str, Verdict] | None] = lambda claim_id, key, judge: None
    """(claim id, reference key, a judge) → that reference's verdict if the judge finds it supports
    the claim (at least in part), on the evidence already retrieved: how citations proposed
    elsewhere (Claude) are confirmed by a local judge."""


def assess_evidence(
    document: Document,
    sources: dict[str, ResolvedSource],
    judge: Judge,
    *,
    embedder: Embedder | None = None,
    store: JudgementCache | None = None,
    uncited: Sequence[Finding] = (),
    atoms: dict[str, list[Atom]] | None = None,
    progress: Progress = _no_progress,
    out_of_time: Callable[[], bool] = lambda: False,
    local: Judge | None = None,
) -> EvidenceResult:
    """The verdicts and the findings they make. With `local`, sources marked private (read from
    outside the allowed folders) are judged by it, never by `judge` (Claude)."""
    usable = {key: s for key, s in sources.items() if s.usable}
    prepared = prepare(usable, embedder, progress)
    private = frozenset(key for key, s in usable.items() if s.private) if local is not None else frozenset()
    judging = Judging(prepared, headings(document), judge, embedder, store, out_of_time, local, private)
    verdicts = judge_citations(document, judging, progress)
    parts = judge_parts(atoms or {}, verdicts, judging)

    numbers, explained = _number_mismatches(document, verdicts, judging)
    findings, misattributed = _misattributions(document, verdicts, parts, judging, explained)
    findings.extend(numbers)
    findings.extend(_unsupported_parts(document, parts, misattributed, judging))
    flagged = [
        (f.claim_id, f.start, f.end)
        for f in findings
        if f.kind in (Kind.UNSUPPORTED_PART, Kind.NUMBER_MISMATCH)
    ]
    for claim in document.claims:
        keys = [k for k in document.cited_keys(claim) if k in prepared]
        right = [k for k in keys if (claim.id, k) not in misattributed]
        if right:
            findings.extend(
                f
                for f in _figures(document, claim.id, keys, right[0], prepared)
                if not any(c == claim.id and s <= f.start and f.end <= e for c, s, e in flagged)
            )
    offers = _offers(document, uncited, judging)

    claims = document.claim_by_id

    def confirm(claim_id: str, key: str, local: Judge) -> tuple[str, Verdict] | None:
        if key not in prepared or claim_id not in claims:
            return None
        by_local = replace(judging, judge=local)
        return by_local.best_other(claims[claim_id].text, claim_id, set(prepared) - {key}, partial_ok=True)

    return EvidenceResult(verdicts, findings, offers, confirm)


def offer_citations(
    document: Document,
    findings: list[Finding],
    local: Mapping[str, Offer],
    claude: Mapping[str, Offer] | None = None,
) -> list[Finding]:
    """Each uncited finding with the references offered for it: Claude's checked proposal first
    (when assistance is on), then the local judge's. The one place suggestions join findings."""
    claude = claude or {}
    merged = []
    for finding in findings:
        claim_id = finding.claim_id or ""
        if finding.kind is not Kind.UNCITED or not (claim_id in local or claim_id in claude):
            merged.append(finding)
            continue
        offers = [o for o in (claude.get(claim_id), local.get(claim_id)) if o is not None]
        shown = local.get(claim_id)
        fixes = tuple(o.fix for o in offers if o.fix is not None)
        merged.append(
            replace(
                finding,
                message=finding.message + ("" if fixes else "".join(o.note for o in offers)),
                fixes=(*fixes, *finding.fixes),
                suggestion=offers[0].suggestion,
                evidence=shown.suggestion.evidence if shown else finding.evidence,
            )
        )
    return merged


def claude_offer(
    document: Document, claim_id: str, keys: list[str], confirmed: Verdict | None
) -> Offer | None:
    """The fix for Claude's checked proposal of `keys` for an uncited sentence."""
    claim = document.claim_by_id[claim_id]
    score = confirmed.score if confirmed is not None else 0.0
    evidence = confirmed.evidence if confirmed is not None else None
    suggested = Suggestion(keys[0], score, evidence, by="claude")
    if confirmed is None or confirmed.label is not VerdictLabel.SUPPORTED:
        named = ", ".join(document.label(k) for k in keys)
        return Offer(
            suggested,
            None,
            f" Claude suggests {named}, whose source the local judge finds matches it only in part"
            f" (support {score:.2f}): read it before citing it.",
        )
    fix = make_fix(
        f"Cite [{', '.join(keys)}] (suggested by Claude, confirmed locally)",
        document,
        cite_sentence(document, claim.sentence, keys),
    )
    return Offer(suggested, fix) if fix is not None else None


# misattributed ------------------------------------------------------------------------------------
def _misattributions(
    document: Document,
    verdicts: dict[str, list[Verdict]],
    parts: dict[str, list[Part]],
    judging: Judging,
    explained: set[tuple[str, str]],
) -> tuple[list[Finding], set[tuple[str, str]]]:
    """Citations whose source does not support their sentence, with a swap where another reference
    does; a partly supporting source counts only when another reference clearly does better. A
    citation whose only fault is a figure (`explained`) is a number finding, not a misattribution."""
    claims = document.claim_by_id
    findings: list[Finding] = []
    misattributed: set[tuple[str, str]] = set()
    for claim_id, claim_verdicts in verdicts.items():
        claim = claims[claim_id]
        for verdict in claim_verdicts:
            if verdict.label in (VerdictLabel.SUPPORTED, VerdictLabel.UNCHECKED):
                continue
            if (claim_id, verdict.reference) in explained:
                continue
            claim_parts = parts.get(claim_id, [])
            if claim_parts and _judged_by_part(claim_parts, verdict.reference):
                continue
            cited = {v.reference for v in claim_verdicts}
            better = clearly_better(judging.best_other(claim.text, claim_id, cited, partial_ok=True), verdict)
            if verdict.label is VerdictLabel.PARTIALLY_SUPPORTED and better is None:
                continue
            source_text = judging.prepared[verdict.reference].source.text
            figures = [q.text for q in missing_figures(claim.text, source_text)]
            findings.append(_misattributed(document, claim_id, verdict, better, figures, claim_parts))
            misattributed.add((claim_id, verdict.reference))
    return findings, misattributed


def _judged_by_part(parts: list[Part], key: str) -> bool:
    """Whether a decomposed sentence's citation `key` is judged by its facts, not as a whole: it
    is right for a fact it supports; and while other facts are supported and some are not, the
    unsupported facts are the findings (on their own words), not this marker."""
    if any(p.verdicts[key].label is VerdictLabel.SUPPORTED for p in parts):
        return True
    supported = [p.best().label is VerdictLabel.SUPPORTED for p in parts]
    return any(supported) and not all(supported)


def _misattributed(
    document: Document,
    claim_id: str,
    verdict: Verdict,
    better: tuple[str, Verdict] | None,
    missing: Sequence[str] = (),
    parts: Sequence[Part] = (),
) -> Finding:
    claim = document.claim_by_id[claim_id]
    marker_index = next(i for i in claim.sentence.markers if verdict.reference in document.markers[i].keys)
    marker = document.markers[marker_index]
    contradicted = verdict.label is VerdictLabel.CONTRADICTED
    what = {
        VerdictLabel.CONTRADICTED: "contradicts",
        VerdictLabel.PARTIALLY_SUPPORTED: "supports only part of",
    }.get(verdict.label, "does not support")
    message = (
        f"The cited source {document.label(verdict.reference)} {what} this sentence "
        f"({verdict.judge} judge, {verdict.strength()})."
    )
    if missing:
        message += f" It never states {', '.join(f'“{m}”' for m in missing)}."
    details: dict[str, Any] = {"parts": [p.to_json() for p in parts]} if parts else {}
    fixes, offered, why = _offer(
        document,
        better,
        lambda key: f"Cite {document.label(key)} instead of {document.label(verdict.reference)}",
        marker_index,
        verdict,
    )
    return make_finding(
        Kind.MISATTRIBUTED,
        (marker.start, marker.end),
        message + why,
        reference=verdict.reference,
        claim_id=claim_id,
        fixes=fixes,
        evidence=verdict.evidence,
        verdict=verdict,
        suggestion=offered,
        severity=Severity.ERROR if contradicted else Severity.WARNING,
        details=details,
    )


def _offer(
    document: Document,
    better: tuple[str, Verdict] | None,
    title: Callable[[str], str],
    where: int,
    verdict: Verdict,
    *,
    swap: bool = True,
) -> tuple[tuple[Fix, ...], Suggestion | None, str]:
    """The fix that cites the better reference (a swap of the marker at index `where`, or an
    added citation at offset `where`), the suggestion, and the sentence of the message that says
    why."""
    if better is None:
        return (), None, ""
    key, supporting = better
    operation = RetargetCitation(where, verdict.reference, key) if swap else AddCitation(where, key)
    fix = make_fix(title(key), document, [operation])
    offered = Suggestion(key, supporting.score, supporting.evidence)
    why = f" Reference {document.label(key)} supports it (support {supporting.score:.2f})."
    return ((fix,) if fix is not None else ()), offered, why


# figures the source gives differently --------------------------------------------------------------
def _number_mismatches(
    document: Document, verdicts: dict[str, list[Verdict]], judging: Judging
) -> tuple[list[Finding], set[tuple[str, str]]]:
    """A figure the cited source gives differently for the same thing ("2.5 °C cooler" where the
    source says "1.5 °C cooler"). The sentence is judged again with the source's figure in place:
    when that reads as supported, the citation is right and the number is wrong — one number
    finding naming both figures, and no misattribution (the judge's contradiction was the number).

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
            conflicts = [
                (figure, stated)
                for figure, stated in figure_conflicts(claim.text, verdict.evidence.window)
                if all(figure.text in {q.text for q in missing_figures(claim.text, text)} for text in sources)
            ]  # a figure counts as stated when any citation of the sentence states it
            if not conflicts:
                continue
            corrected = claim.text
            for figure, stated in sorted(conflicts, key=lambda c: -c[0].start):
                corrected = corrected[: figure.start] + stated.text + corrected[figure.end :]
            if verdict.label is not VerdictLabel.SUPPORTED:
                question = judging.ask(claim_id, corrected, verdict.reference)
                again = judging.verdict(question, judging.answer([question])[0])
                if again.label not in (VerdictLabel.SUPPORTED, VerdictLabel.PARTIALLY_SUPPORTED):
                    continue  # the source does not say this with its own figure either
                claim_verdicts[claim_verdicts.index(verdict)] = replace(
                    again, reference=verdict.reference, evidence=verdict.evidence
                )  # the citation is right: its verdict is the one with the source's figure
            explained.add((claim_id, verdict.reference))
            findings.extend(
                _number_mismatch(document, claim_id, verdict, figure, stated) for figure, stated in conflicts
            )
    return findings, explained


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
        "in",
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
    window = verdict.evidence.window if verdict.evidence else ""
    following = window[stated.end : stated.end + 40].split()
    unit = following[0].strip(".,;:()") if following else ""
    if unit.isalpha() and unit.lower() not in _UNIT_WORDS:
        unit = ""  # a noun ("30% tree canopy") or a word ("20% of"), not a unit ("1.5 °C", "12 km")
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
        },
    )


# facts of a decomposed sentence ----------------------------------------------------------------------
def _unsupported_parts(
    document: Document, parts: dict[str, list[Part]], misattributed: set[tuple[str, str]], judging: Judging
) -> list[Finding]:
    """Facts of a decomposed sentence that none of its (otherwise right) citations supports."""
    findings = []
    for claim_id, claim_parts in parts.items():
        cited = set(claim_parts[0].verdicts)
        if cited <= {key for c, key in misattributed if c == claim_id}:
            continue  # every citation is already flagged: the whole sentence is the finding
        for part in claim_parts:
            finding = _unsupported_part(document, claim_id, part, cited, judging)
            if finding is not None:
                findings.append(finding)
    return findings


def _unsupported_part(
    document: Document, claim_id: str, part: Part, cited: set[str], judging: Judging
) -> Finding | None:
    """A finding on the fact's own words when no citation of its sentence supports it (a partial
    match counts as support unless another reference clearly does better, as for whole claims)."""
    best = part.best()
    if best.label is VerdictLabel.SUPPORTED:
        return None
    better = clearly_better(judging.best_other(part.atom.text, claim_id, cited), best)
    if best.label is VerdictLabel.PARTIALLY_SUPPORTED and better is None:
        return None
    who = (
        "A citation of this sentence contradicts"
        if best.label is VerdictLabel.CONTRADICTED
        else f"No citation of this sentence ({_cited_list(document, sorted(cited))}) supports"
    )
    message = f"{who} this part: “{part.atom.text}” ({best.judge} judge, best {best.strength()})."
    fixes, offered, why = _offer(
        document,
        better,
        lambda key: f"Cite {document.label(key)} for this part",
        _part_offset(document, claim_id, part),
        best,
        swap=False,
    )
    return make_finding(
        Kind.UNSUPPORTED_PART,
        (part.atom.start, part.atom.end),
        message + why,
        reference=best.reference,
        claim_id=claim_id,
        fixes=fixes,
        evidence=best.evidence,
        verdict=best,
        suggestion=offered,
        severity=Severity.ERROR if best.label is VerdictLabel.CONTRADICTED else None,
        details={"fact": part.atom.text, "parts": [part.to_json()]},
    )


def _cited_list(document: Document, keys: Sequence[str]) -> str:
    """`[2, 3]`, or `[@a; @b]` in a pandoc document."""
    if document.pandoc:
        return "[" + "; ".join(document.label(k) for k in keys) + "]"
    return f"[{', '.join(keys)}]"


def _part_offset(document: Document, claim_id: str, part: Part) -> int:
    """Where a citation for one fact goes: right after its words, or — when they end the sentence
    (only markers and the full stop follow) — where the sentence's citations go, joining them."""
    sentence = document.claim_by_id[claim_id].sentence
    tail = document.text[part.atom.end : sentence.end]
    if re.sub(r"\[[^\]\n]*\]", "", tail).strip() in ("", ".", "!", "?"):
        return citation_offset(document, sentence.start, sentence.end)
    return part.atom.end


# figures ---------------------------------------------------------------------------------------------
def _figures(
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


# uncited sentences -----------------------------------------------------------------------------------
def _offers(document: Document, uncited: Sequence[Finding], judging: Judging) -> dict[str, Offer]:
    """Uncited sentences that one of the document's references supports, with the fix citing it."""
    claims = document.claim_by_id
    offers: dict[str, Offer] = {}
    for finding in uncited:
        if finding.claim_id is None or judging.out_of_time():
            continue
        claim = claims[finding.claim_id]
        best = suggestion(judging.rank_others(claim.text, claim.id, set()))
        if best is None:
            continue
        key, verdict = best
        suggested = Suggestion(key, verdict.score, verdict.evidence)
        if verdict.label is not VerdictLabel.SUPPORTED:
            offers[claim.id] = Offer(
                suggested,
                None,
                f" The source of {document.label(key)} matches it only in part (support {verdict.score:.2f}):"
                " read it before citing it.",
            )
            continue
        fix = make_fix(
            f"Cite {document.label(key)} (its source supports this)",
            document,
            cite_sentence(document, claim.sentence, [key]),
        )
        if fix is not None:
            offers[claim.id] = Offer(suggested, fix)
    return offers
