"""From verdicts to the findings a writer acts on, and the references worth offering.

- `misattributed` — the cited source does not support the claim (warning) or contradicts it
  (error), or supports it only in part while another reference scores clearly higher
  (`policy.CLEARLY_BETTER`); with a swap to that reference when there is one. Under a judge that
  may only suggest (the word-level judge), such a citation is `unconfirmed` (info: read it before
  relying on it) unless a writer can see the evidence (`policy.misattribution_severity`);
- `number_mismatch` and `unsupported_number` — a figure the cited source gives differently, or
  that none of the cited sources states (`figures.py`; not reported where every citation is
  already misattributed);
- suggestions for `uncited` sentences — the document's reference that supports the claim (with a
  fix citing it), or one that supports it in part or is merely the clearly closest (no fix: read
  it first);
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

from citedesk.core.document.claims import Atom
from citedesk.core.document.model import Document
from citedesk.core.findings import (
    Applicability,
    Finding,
    Fix,
    Kind,
    Suggestion,
    Verdict,
    VerdictLabel,
    make_finding,
)
from citedesk.core.operations import AddCitation, RemoveCitation, RetargetCitation
from citedesk.core.repair import citation_offset, cite_sentence, make_fix, try_fix
from citedesk.evidence.body import not_body
from citedesk.evidence.figures import number_mismatches, unsupported_figures
from citedesk.evidence.judges.base import Judge
from citedesk.evidence.numbers import missing_figures
from citedesk.evidence.policy import (
    clearly_better,
    confidence,
    judged_severity,
    misattribution_severity,
    suggestion,
    swap_gate,
    uncited_first,
)
from citedesk.evidence.unsignalled import unsignalled_claims
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
    from citedesk.sources.resolved import ResolvedSource


def _no_progress(stage: str, done: int, total: int) -> None:
    """Progress goes nowhere."""


@dataclass(frozen=True)
class Offer:
    """A reference offered for an uncited sentence, and the fix that cites it: none when its source
    supports the sentence only in part, or not at all (the clearly closest reference): the writer
    is told to read it first; nothing cites it for them, not even `fix --kinds all`."""

    suggestion: Suggestion
    fix: Fix | None
    note: str = ""
    """What the message adds when there is no fix."""
    covered: bool = False
    """The reference is cited by a neighbouring sentence of the same paragraph and its source supports
    this one: one citation covering a passage, the finding is withdrawn."""


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
    prepared: dict[str, PreparedSource] | None = None,
) -> EvidenceResult:
    """The verdicts and the findings they make. With `local`, sources marked private (read from
    outside the allowed folders) are judged by it, never by `judge` (Claude). `prepared`: the
    usable sources already indexed (`verdicts.prepare`, the audit's retrieval stage); else here."""
    usable = {key: s for key, s in sources.items() if s.usable}
    if prepared is None:
        prepared = prepare(usable, embedder, progress)
    private = frozenset(key for key, s in usable.items() if s.private) if local is not None else frozenset()
    judging = Judging(prepared, headings(document), judge, embedder, store, out_of_time, local, private)
    verdicts = judge_citations(document, judging, progress)
    parts = judge_parts(atoms or {}, verdicts, judging)

    numbers, explained = number_mismatches(document, verdicts, judging)
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
                for f in unsupported_figures(document, claim.id, keys, right[0], prepared)
                if not any(c == claim.id and s <= f.start and f.end <= e for c, s, e in flagged)
            )
    offers = _offers(document, uncited, judging)
    findings.extend(unsignalled_claims(document, judging))

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
        if claim_id in local and local[claim_id].covered:
            continue  # one citation covers the passage: its neighbour cites a source that says it
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
        f"Cite {document.dialect.group_label(document, keys)} (suggested by Claude, confirmed locally)",
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
    """Citations whose source does not support their sentence; a partly supporting source counts
    only when another reference clearly does better. A citation whose only fault is a figure
    (`explained`) is a number finding, not a misattribution. In a group (`[4-5]`, `[@a; @b]`)
    whose other member supports the sentence, a member that adds nothing is that (info, with its
    removal), never a swap. Another reference is proposed only through `policy.swap_gate`."""
    claims = document.claim_by_id
    findings: list[Finding] = []
    misattributed: set[tuple[str, str]] = set()
    for claim_id, claim_verdicts in verdicts.items():
        claim = claims[claim_id]
        by_key = {v.reference: v for v in claim_verdicts}
        for verdict in claim_verdicts:
            if verdict.label in (VerdictLabel.SUPPORTED, VerdictLabel.UNCHECKED):
                continue
            if (claim_id, verdict.reference) in explained:
                continue
            claim_parts = parts.get(claim_id, [])
            if claim_parts and _judged_by_part(claim_parts, verdict.reference):
                continue
            partner = _supporting_partner(document, claim_id, verdict.reference, by_key)
            if partner is not None and verdict.label is not VerdictLabel.CONTRADICTED:
                if verdict.label is VerdictLabel.NOT_SUPPORTED:
                    findings.append(_adds_nothing(document, claim_id, verdict, partner, judging))
                continue
            candidate = judging.best_other(claim.text, claim_id, set(by_key), partial_ok=True)
            better = clearly_better(candidate, verdict)
            if verdict.label is VerdictLabel.PARTIALLY_SUPPORTED and better is None:
                continue
            source_text = judging.prepared[verdict.reference].source.text
            figures = [q.text for q in missing_figures(claim.text, source_text)]
            findings.append(
                _misattributed(document, claim_id, verdict, candidate, judging, figures, claim_parts)
            )
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


def _marker_of(document: Document, claim_id: str, key: str) -> int:
    claim = document.claim_by_id[claim_id]
    return next(i for i in claim.sentence.markers if key in document.markers[i].keys)


def _supporting_partner(
    document: Document, claim_id: str, key: str, by_key: Mapping[str, Verdict]
) -> Verdict | None:
    """Another member of `key`'s own group (the same marker) that supports the sentence."""
    group = document.markers[_marker_of(document, claim_id, key)].keys
    partners = [by_key[k] for k in group if k != key and k in by_key]
    supporting = [v for v in partners if v.label is VerdictLabel.SUPPORTED]
    return max(supporting, key=lambda v: v.score) if supporting else None


def _adds_nothing(
    document: Document, claim_id: str, verdict: Verdict, partner: Verdict, judging: Judging
) -> Finding:
    """A group member the sentence does not need: its partner supports the sentence, its own
    source does not. The fix takes it out of the group; a judge that may act offers it as safe
    only when the partner's support rests on body text."""
    index = _marker_of(document, claim_id, verdict.reference)
    marker = document.markers[index]
    name, other = document.label(verdict.reference), document.label(partner.reference)
    fix = make_fix(f"Remove {name} from this group", document, [RemoveCitation(index, verdict.reference)])
    partner_text = judging.prepared[partner.reference].source.text
    gated = partner.evidence is not None and not_body(partner.evidence, partner_text) is None
    fixes = () if fix is None else (fix if gated else replace(fix, applicability=Applicability.UNSAFE),)
    return make_finding(
        Kind.REDUNDANT_CITATION,
        (marker.start, marker.end),
        f"{name} adds nothing here: {other} supports this sentence ({partner.strength()}) and the source of"
        f" {name} does not ({verdict.judge} judge, {verdict.strength()}).",
        reference=verdict.reference,
        claim_id=claim_id,
        fixes=fixes,
        evidence=verdict.evidence,
        verdict=verdict,
        confidence=confidence(verdict),
        judged_by=judging.judge.policy.kind,
    )


def _misattributed(
    document: Document,
    claim_id: str,
    verdict: Verdict,
    candidate: tuple[str, Verdict] | None,
    judging: Judging,
    missing: Sequence[str] = (),
    parts: Sequence[Part] = (),
) -> Finding:
    marker_index = _marker_of(document, claim_id, verdict.reference)
    marker = document.markers[marker_index]
    what = {
        VerdictLabel.CONTRADICTED: "contradicts",
        VerdictLabel.PARTIALLY_SUPPORTED: "supports only part of",
    }.get(verdict.label, "does not support")
    source_text = judging.prepared[verdict.reference].source.text
    policy = judging.judge.policy
    claim_text = document.claim_by_id[claim_id].text
    elsewhere = candidate[1] if candidate is not None else None
    severity = misattribution_severity(verdict, policy, source_text, claim_text, elsewhere)
    name = document.label(verdict.reference)
    message = (
        f"The cited source {name} {what} this sentence ({verdict.judge} judge, {verdict.strength()})."
        if severity is not None
        else f"Not confirmed by the {policy.kind} judge: read {name} before relying on it"
        f" ({verdict.judge} judge, {verdict.strength()})."
    )
    if missing:
        message += f" It never states {', '.join(f'“{m}”' for m in missing)}."
    where = not_body(verdict.evidence, source_text) if verdict.evidence is not None else None
    if where is not None and verdict.label is not VerdictLabel.CONTRADICTED:
        message += f" The closest it comes is {where}, no sentence of its text."
    details: dict[str, Any] = {"parts": [p.to_json() for p in parts]} if parts else {}
    fixes, offered, why = _offer(
        document,
        candidate,
        lambda key: f"Cite {document.label(key)} instead of {document.label(verdict.reference)}",
        marker_index,
        verdict,
        judging,
    )
    return make_finding(
        Kind.MISATTRIBUTED if severity is not None else Kind.UNCONFIRMED,
        (marker.start, marker.end),
        message + why,
        reference=verdict.reference,
        claim_id=claim_id,
        fixes=fixes,
        evidence=verdict.evidence,
        verdict=verdict,
        suggestion=offered,
        severity=severity,
        details=details,
        confidence=confidence(verdict),
        judged_by=judging.judge.policy.kind,
    )


def _offer(
    document: Document,
    candidate: tuple[str, Verdict] | None,
    title: Callable[[str], str],
    where: int,
    verdict: Verdict,
    judging: Judging,
    *,
    swap: bool = True,
) -> tuple[tuple[Fix, ...], Suggestion | None, str]:
    """The fix that cites the other reference (a swap of the marker at index `where`, or an added
    citation at offset `where`), the suggestion, and the sentence of the message that says why —
    only when the candidate passes `policy.swap_gate` (against the cited verdict, for a swap);
    otherwise no fix, and the message says why the closer match is not proposed."""
    if candidate is None:
        return (), None, ""
    key, supporting = candidate
    source_text = judging.prepared[key].source.text
    refused = swap_gate(supporting, verdict if swap else None, source_text)
    if refused is not None:
        if supporting.score <= verdict.score:
            return (), None, ""
        return (), None, f" {document.label(key)} is closer, but is not proposed: {refused}."
    operation = RetargetCitation(where, verdict.reference, key) if swap else AddCitation(where, key)
    fix = try_fix(title(key), document, [operation])
    offered = Suggestion(key, supporting.score, supporting.evidence)
    why = f" Reference {document.label(key)} supports it (support {supporting.score:.2f})."
    if isinstance(fix, str):
        return (), offered, f"{why} It is not cited for you: {fix}."
    if document.dialect.works_in_text and not document.markers_citing.get(key):
        why += (
            f" {document.label(key)} is cited nowhere else: citing it here also settles its orphan"
            " finding — check that this is the work you meant."
        )
        fix = replace(fix, applicability=Applicability.UNSAFE)
    return (fix,), offered, why


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
    source_text = judging.prepared[best.reference].source.text
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
        judging,
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
        severity=judged_severity(best, judging.judge.policy, source_text),
        details={"fact": part.atom.text, "parts": [part.to_json()]},
        confidence=confidence(best),
        judged_by=judging.judge.policy.kind,
    )


def _cited_list(document: Document, keys: Sequence[str]) -> str:
    """`[2, 3]`, or `[@a; @b]` in a pandoc document."""
    return document.dialect.group_label(document, keys)


def _part_offset(document: Document, claim_id: str, part: Part) -> int:
    """Where a citation for one fact goes: right after its words, or — when they end the sentence
    (only markers and the full stop follow) — where the sentence's citations go, joining them."""
    sentence = document.claim_by_id[claim_id].sentence
    tail = document.text[part.atom.end : sentence.end]
    if re.sub(r"\[[^\]\n]*\]", "", tail).strip() in ("", ".", "!", "?"):
        return citation_offset(document, sentence.start, sentence.end)
    return part.atom.end


# uncited sentences -----------------------------------------------------------------------------------
def _covered(best: tuple[str, Verdict], near: set[str]) -> bool:
    """The best reference for an uncited sentence is cited right beside it and supports it: the
    citation covers the passage."""
    return best[0] in near and best[1].label is VerdictLabel.SUPPORTED


PASSAGE = 8
"""How many sentences away, within its paragraph, a citation may cover an uncited sentence (a
bound, so that a long paragraph of uncited sentences stays linear)."""


def _neighbours_cite(document: Document, at: int) -> set[str]:
    """The references cited by the nearest citing sentence before and after the claim at `at` (its
    place in `document.claims`) in its paragraph, within `PASSAGE` sentences (a passage whose last
    sentence cites, or that goes on from a cited one)."""
    claims = document.claims
    block = claims[at].sentence.block
    keys: set[str] = set()
    for step in (-1, 1):
        i = at + step
        while 0 <= i < len(claims) and abs(i - at) <= PASSAGE and claims[i].sentence.block == block:
            cited = document.cited_keys(claims[i])
            if cited:
                keys.update(cited)
                break
            i += step
    return keys


def _offers(document: Document, uncited: Sequence[Finding], judging: Judging) -> dict[str, Offer]:
    """Uncited sentences that one of the document's references supports, with the fix citing it;
    or that one supports in part, or stands out as the closest, with no fix (`policy.suggestion`)."""
    claims = document.claim_by_id
    offers: dict[str, Offer] = {}
    cited = document.claims_cite
    place = {claim.id: i for i, claim in enumerate(document.claims)}
    for finding in uncited:
        if finding.claim_id is None or judging.out_of_time():
            continue
        claim = claims[finding.claim_id]
        ranked = judging.rank_others(claim.text, claim.id, set())
        if ranked and _covered(ranked[0], _neighbours_cite(document, place[claim.id])):
            offers[claim.id] = Offer(Suggestion(ranked[0][0], ranked[0][1].score), None, covered=True)
            continue
        best = uncited_first(ranked, cited) or suggestion(ranked)
        if best is None:
            continue
        key, verdict = best
        suggested = Suggestion(key, verdict.score, verdict.evidence)
        refused = swap_gate(verdict, None, judging.prepared[key].source.text)
        if verdict.label is VerdictLabel.SUPPORTED and refused is not None:
            offers[claim.id] = Offer(
                suggested, None, f" {document.label(key)} matches it, but is not proposed: {refused}."
            )
            continue
        if verdict.label is VerdictLabel.NOT_SUPPORTED:
            source_text = judging.prepared[key].source.text
            where = not_body(verdict.evidence, source_text) if verdict.evidence else None
            offers[claim.id] = Offer(
                suggested,
                None,
                f" The closest of your references is {document.label(key)} (support {verdict.score:.2f}),"
                " but it does not confirm this: read it before citing it."
                + (f" The closest it comes is {where}, no sentence of its text." if where else ""),
            )
            continue
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
