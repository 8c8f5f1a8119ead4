"""Policy: how a judge's numbers become verdicts, what a verdict may do, and when another reference is worth offering.

Each judge carries its own `Policy` (its thresholds, whether it reads the retrieved windows
together or one by one, and whether its verdicts may act or only suggest), the one its entry in the
judge registry (`judges/registry.py`) declares, so nothing downstream looks a judge up by name. The document-level
constants decide when a better reference is offered: a partly supporting citation is flagged only
when another reference scores `CLEARLY_BETTER` higher, and an uncited sentence is offered its best
reference on partial support (or, to read first, on none) only when that reference `STANDS_OUT`
from the rest. Both were chosen
on WiCE documents (`tests/bench/eval_documents.py`).

What a judged finding may do follows from who judged it and the evidence it rests on:
- **Severity.** Severity is earned by evidence a writer can see, not by a weak score. A word-level
  judge (`Policy.acts` False) never raises an error, and a citation it cannot confirm is a warning
  (`misattributed`) only when the cited source is clearly about something else (`UNRELATED`: hardly
  any of the sentence's content words in the passage it found) *and* another reference supports
  the sentence clearly better (`ELSEWHERE_MARGIN`, `ELSEWHERE_WORDS`); otherwise it is `unconfirmed`, at info level — "read [2] before relying on it"
  (`misattribution_severity`). A figure no cited source states (`unsupported_number`) is info
  too under such a judge: it is no mismatch on the matched sentence. A word-level judge's contradiction
  is at most a warning. A model judge's contradiction is an error only when the passage it read is body
  text (`body.not_body`): never a title, heading, metadata or reference-list line. Figures and
  direction words that differ (number and direction findings) are explicit, and keep their level.
- **Action.** Another reference is proposed (a swap, an added citation, a removal from a group)
  only when it passes `swap_gate`: itself judged *supported* (not merely better), on body text,
  by `SWAP_MARGIN` over the citation it would replace. The fix is *safe* (applied by `fix` and
  **Fix all**) when the judge may act; a word-level judge's is *unsafe*: a suggestion to verify,
  applied only with `--unsafe-fixes` or a click on its own finding (`restrained`).
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass, replace

from citedesk.core.findings import Applicability, Evidence, Finding, Kind, Severity, Verdict, VerdictLabel
from citedesk.evidence.body import not_body
from citedesk.evidence.lexical import content_stems

CLEARLY_BETTER = 0.05
"""A partly supporting citation is misattributed when another reference scores this much higher."""
UNCITED_MARGIN = 0.05
"""How far below the best reference a reference cited nowhere may score and still be the one suggested
for an uncited sentence (`uncited_first`). Chosen on the choose half of `tests/bench/eval_documents.py`."""
STANDS_OUT = 0.04
"""An uncited claim's best reference is suggested on partial support — or, as the closest
reference to read, on none (`suggestion`) — when it leads every other reference by this much.
Chosen on WiCE documents; for the closest unsupported reference it was checked on the choose half
of `tests/bench/eval_documents.py`: leads of 0.03 to 0.06 all name the same references (three
more right, none wrong), 0.02 reaches into the coin tosses (leads up to 0.017 there put the wrong
reference first)."""
SWAP_MARGIN = 0.10
"""A reference is proposed instead of a cited one only when its support is this much above the
cited one's (and it is itself judged supported, on body text): `swap_gate`."""
UNRELATED = 0.25
"""With a judge that may only suggest, a citation it cannot confirm is `misattributed` (a warning)
only when at most this share of the sentence's content words appear in the passage the judge
found in the cited source (its window), and another reference supports the sentence; otherwise it
is `unconfirmed` (info). Chosen on the choose half of `tests/bench/eval_documents.py`."""
ELSEWHERE_MARGIN = 0.10
"""With a judge that may only suggest, another reference counts as supporting a sentence whose
cited source is about something else only when its support is this much above the cited one's
(the margin a swap needs, `SWAP_MARGIN`)..."""
ELSEWHERE_WORDS = 0.10
"""... and its passage holds this much larger a share of the sentence's content words than the
cited one's (`overlap`): the other source must be seen to say more of the sentence, not merely
to score higher on words every source of the document shares ("COVID-19"). With
`ELSEWHERE_MARGIN`, chosen on the choose half of `tests/bench/eval_documents.py`: warnings on
correctly cited claims there 4 -> 3 of 110, misattributed recall 0.91 -> 0.85."""
EXPLICIT = frozenset({Kind.NUMBER_MISMATCH, Kind.DIRECTION_MISMATCH})
"""Findings that rest on what both texts state outright (a figure, a direction word), not on a
judge's reading: their severity is their own whichever judge found the passage."""


@dataclass(frozen=True)
class Policy:
    """A judge's thresholds and how it reads evidence."""

    supported: float = 0.5
    partial: float = 0.25
    contradicted: float = 0.5
    reads_together: bool = False
    """True: the top evidence windows are read together, as one text (claim level: how the
    heuristic judge was calibrated). False: each of the best windows is read on its own and the
    best one decides (max aggregation: how sentence-pair models are meant to be used)."""
    note: str = ""
    """What a verdict of this judge is worth, said beside its name in every report and the window."""
    fingerprint: str = ""
    """What produced the judge's numbers (its weights, for the heuristic judge): judgements cached
    under another fingerprint are not reused."""
    acts: bool = True
    """True: its verdicts may raise errors and carry safe fixes (which `fix` and **Fix all**
    apply) where the evidence passes the gate. False (the word-level judge): it may only suggest —
    its findings are at most warnings and its fixes unsafe (`restrained`)."""
    kind: str = "model"
    """Who judged, as reports say it: `model` or `word-level`."""

    def label(self, support: float, contradiction: float) -> VerdictLabel:
        if contradiction >= self.contradicted and contradiction > support:
            return VerdictLabel.CONTRADICTED
        if support >= self.supported:
            return VerdictLabel.SUPPORTED
        if support >= self.partial:
            return VerdictLabel.PARTIALLY_SUPPORTED
        return VerdictLabel.NOT_SUPPORTED


HEURISTIC_NOTE = "word-level judge, limited accuracy: install an NLI model (see citedesk models list)"
MODEL_POLICY = Policy()
"""Sentence-pair models (NLI and grounding models, Claude): probabilities, max over windows."""


def restrained(findings: Sequence[Finding], policy: Policy) -> list[Finding]:
    """The findings a judge's verdicts produced, as its policy allows: unchanged for a judge that
    may act; for one that may only suggest, no error (a warning instead), a figure no cited source
    states at info level (no mismatch on the matched sentence: something to read), and every fix
    unsafe (a suggestion to verify) — but a figure or direction that differs (`EXPLICIT`) keeps its
    level."""
    if policy.acts:
        return list(findings)
    return [f if f.kind in EXPLICIT else _suggested_only(f) for f in findings]


def _suggested_only(finding: Finding) -> Finding:
    severity = Severity.WARNING if finding.severity is Severity.ERROR else finding.severity
    if finding.kind is Kind.UNSUPPORTED_NUMBER:
        severity = Severity.INFO
    return replace(
        finding,
        severity=severity,
        fixes=tuple(replace(fix, applicability=Applicability.UNSAFE) for fix in finding.fixes),
    )


def confidence(verdict: Verdict) -> float:
    """How sure the judge is of what the finding says: its probability of contradiction for a
    contradiction, of support for a support, else of the claim *not* being supported (one minus
    its support). The heuristic judge's numbers come from a logistic model fitted on labelled
    pairs, a model judge's from its softmax: both are read as probabilities."""
    if verdict.label is VerdictLabel.CONTRADICTED:
        return verdict.contradiction
    if verdict.label is VerdictLabel.SUPPORTED:
        return verdict.score
    return 1.0 - verdict.score


def judged_severity(verdict: Verdict, policy: Policy, source_text: str) -> Severity:
    """A judged finding's severity: an error only for a contradiction read by a judge that may act,
    on body text; every other judged finding a warning."""
    if (
        verdict.label is VerdictLabel.CONTRADICTED
        and policy.acts
        and verdict.evidence is not None
        and not_body(verdict.evidence, source_text) is None
    ):
        return Severity.ERROR
    return Severity.WARNING


def overlap(claim: str, evidence: Evidence | None) -> float:
    """The share of the sentence's content words (stems) that the passage the judge found (its
    window) contains: 0 for a source about something else; 1 when there is nothing to compare."""
    wanted = set(content_stems(claim))
    if not wanted:
        return 1.0
    if evidence is None:
        return 0.0
    return len(wanted & set(content_stems(evidence.window or evidence.passage))) / len(wanted)


def misattribution_severity(
    verdict: Verdict, policy: Policy, source_text: str, claim: str, elsewhere: Verdict | None
) -> Severity | None:
    """The severity of a citation the judge does not find supporting `claim`, or None when it is
    only not confirmed (`Kind.UNCONFIRMED`, info). A judge that may act: `judged_severity`. One
    that may only suggest: a warning when a writer can see the evidence — the cited source is
    clearly about something else (`overlap` at most `UNRELATED`) and another reference
    (`elsewhere`, the best of the others) supports the sentence, at least in part, clearly
    better: by `ELSEWHERE_MARGIN` more support, its passage holding `ELSEWHERE_WORDS` more of the
    sentence's words; else None."""
    if policy.acts:
        return judged_severity(verdict, policy, source_text)
    cited = overlap(claim, verdict.evidence)
    supports = (
        elsewhere is not None
        and elsewhere.label in (VerdictLabel.SUPPORTED, VerdictLabel.PARTIALLY_SUPPORTED)
        and elsewhere.score >= verdict.score + ELSEWHERE_MARGIN
        and overlap(claim, elsewhere.evidence) >= cited + ELSEWHERE_WORDS
    )
    if supports and cited <= UNRELATED:
        return Severity.WARNING
    return None


def swap_gate(proposed: Verdict, current: Verdict | None, source_text: str) -> str | None:
    """Why `proposed` (another reference's verdict on the claim) may not be offered in place of
    (or beside) `current`; None when it may: it is itself judged supported, its passage is body
    text, and — against a cited reference — its support is `SWAP_MARGIN` above that one's."""
    if proposed.label is not VerdictLabel.SUPPORTED:
        return f"it matches only in part ({proposed.strength()})"
    if proposed.evidence is None:
        return "the judge found no passage of it"
    where = not_body(proposed.evidence, source_text)
    if where is not None:
        return f"its best match is {where}, not its text"
    if current is not None and proposed.score < current.score + SWAP_MARGIN:
        return f"it is not clearly better ({proposed.strength()} against {current.score:.2f})"
    return None


def applicability(policy: Policy) -> Applicability:
    """A gated fix's applicability under this judge: safe when it may act, else unsafe."""
    return Applicability.SAFE if policy.acts else Applicability.UNSAFE


def clearly_better(best: tuple[str, Verdict] | None, than: Verdict) -> tuple[str, Verdict] | None:
    """`best` when it scores `CLEARLY_BETTER` above `than`: the reference a fix may offer."""
    return best if best is not None and best[1].score >= than.score + CLEARLY_BETTER else None


def uncited_first(ranked: list[tuple[str, Verdict]], cited: Set[str]) -> tuple[str, Verdict] | None:
    """For an uncited sentence, the reference cited nowhere in the document that supports it at least
    in part, scores within `UNCITED_MARGIN` of the best reference and `STANDS_OUT` above every other
    reference cited nowhere: a listed reference no marker points at is the likelier source of a
    sentence no marker cites."""
    if not ranked:
        return None
    top = ranked[0][1].score
    uncited = [(key, verdict) for key, verdict in ranked if key not in cited]
    if not uncited:
        return None
    key, verdict = uncited[0]
    runner_up = uncited[1][1].score if len(uncited) > 1 else 0.0
    if (
        verdict.label in (VerdictLabel.SUPPORTED, VerdictLabel.PARTIALLY_SUPPORTED)
        and verdict.score >= top - UNCITED_MARGIN
        and verdict.score - runner_up >= STANDS_OUT
    ):
        return key, verdict
    return None


def suggestion(ranked: list[tuple[str, Verdict]]) -> tuple[str, Verdict] | None:
    """The reference to suggest for an uncited claim, from the references ranked best first: the
    best one when it supports the claim, or when it stands clearly above every other reference
    (`STANDS_OUT`) and supports it in part — or not at all, as the closest of the references, one
    to read before citing (the caller says so, and where the match is its title or a heading,
    and offers no fix). It needs a runner-up for that:
    the only reference leads nothing. A contradicting reference is never suggested."""
    if not ranked:
        return None
    key, best = ranked[0]
    if best.label is VerdictLabel.SUPPORTED:
        return key, best
    if best.label is VerdictLabel.PARTIALLY_SUPPORTED:
        runner_up = ranked[1][1].score if len(ranked) > 1 else 0.0
        return (key, best) if best.score - runner_up >= STANDS_OUT else None
    if best.label is VerdictLabel.NOT_SUPPORTED and len(ranked) > 1:
        return (key, best) if best.score - ranked[1][1].score >= STANDS_OUT else None
    return None
