"""Uncited sentences found by their evidence: a sentence with no factual signal in its words ("Sars-cov-2
genome evolution exposes early human adaptations") that a reference of the document cites nowhere
supports — with a quoted sentence of its text — is a claim taken from that source, left uncited.

The words-only claim test (`core.document.claims`) reads a sentence alone; it cannot know that a plain
sentence repeats a source. The judge can, and a reference the writer listed but cited nowhere is
the clearest case: its source says what the sentence says, and no marker points at it. The finding
is `uncited` at info level — something to read, since nothing in the sentence's words makes it a
claim — with the passage quoted and a fix that cites the reference (unsafe under a judge that may
only suggest, as every fix it drives).

Quiet where it could be wrong: a sentence in the writer's own voice, a question, a heading, a short
one, or one whose neighbour cites that reference (a passage that goes on with a cited source) is
never read; nor is a reference that is cited somewhere (the sentence may sum up what the text cites
elsewhere); the reference must be judged supported on a passage of its body (not its title) and
be the best of *every* reference of the document. Bounded: at most `MOST_SENTENCES` sentences and
`MOST_REFERENCES` uncited references per audit.
"""

from __future__ import annotations

import re

from citedesk.core.document.claims import Claim
from citedesk.core.document.model import Document
from citedesk.core.findings import Finding, Kind, Severity, Suggestion, Verdict, VerdictLabel, make_finding
from citedesk.core.repair import cite_sentence, make_fix
from citedesk.evidence.body import TITLE_WHERE, not_body, restates_title
from citedesk.evidence.policy import STANDS_OUT
from citedesk.evidence.verdicts import Judging

NO_SIGNAL = ("no factual signal",)
"""The claim test's reason for a sentence with nothing in its words to cite — the only ones read."""
MOST_SENTENCES = 400
"""Sentences read per audit (a book's worth of plain sentences costs a judgement per uncited reference each)."""
MOST_REFERENCES = 25
"""Uncited references read per audit: beyond that, a list is a bibliography, not a reference list."""
MIN_WORDS = 6
BODY, TITLE, PART = "body", "title", "part"
_PROSE = re.compile(r"^\S+(?:\s+\S+){9,}[.!?][\"'”’)]*$")
"""Ten words or more ending like a sentence: prose, whatever line of the source it stands on."""


def _provenance(
    claim_text: str, ranked: list[tuple[str, Verdict]], judging: Judging
) -> tuple[str, Verdict, str] | None:
    """The uncited reference the sentence comes from, and how it shows: a supporting passage of its
    body (`BODY`), its title restated word for word (`TITLE`, whatever the judge's label), or a passage that matches in part and leads every
    other uncited reference by `STANDS_OUT` (`PART`)."""
    if not ranked:
        return None
    key, verdict = ranked[0]
    evidence = verdict.evidence
    if evidence is None:
        return None
    runner_up = ranked[1][1].score if len(ranked) > 1 else 0.0
    where = not_body(evidence, judging.prepared[key].source.text)
    if where == TITLE_WHERE and _PROSE.search(evidence.passage.strip()):
        where = None  # a plain text's first line, taken for its title, that is a sentence of prose
    if verdict.label is VerdictLabel.SUPPORTED and where is None:
        return key, verdict, BODY
    if verdict.score - runner_up < STANDS_OUT:
        return None
    if where == TITLE_WHERE and restates_title(claim_text, evidence.title or ""):
        return key, verdict, TITLE
    if verdict.label is VerdictLabel.PARTIALLY_SUPPORTED and where is None:
        return key, verdict, PART
    return None


def _finding(
    document: Document, claim: Claim, key: str, verdict: Verdict, why: str, judging: Judging
) -> Finding:
    assert verdict.evidence is not None  # `_provenance` read it
    label = document.label(key)
    quote = " ".join(verdict.evidence.passage.split())[:200].rstrip(".")
    if why == BODY:
        says = f'supports it (support {verdict.score:.2f}): "{quote}". Cite it if this comes from it.'
    elif why == TITLE:
        says = f'has it as its title: "{quote}". Cite it if this comes from it.'
    else:
        says = (
            f'matches it in part (support {verdict.score:.2f}), more than any other reference: "{quote}".'
            " Read it before citing it."
        )
    fix = (
        make_fix(
            f"Cite {label} (its source supports this)",
            document,
            cite_sentence(document, claim.sentence, [key]),
        )
        if why != PART
        else None
    )
    return make_finding(
        Kind.UNCITED,
        (claim.sentence.start, claim.sentence.end),
        f"This sentence cites no source, but {label}, cited nowhere in the text, {says}",
        claim_id=claim.id,
        fixes=(fix,) if fix is not None else (),
        evidence=verdict.evidence,
        verdict=verdict,
        suggestion=Suggestion(key, verdict.score, verdict.evidence),
        severity=Severity.INFO,
        details={"reasons": list(NO_SIGNAL), "found_by": why},
        judged_by=judging.judge.name,
    )


def unsignalled_claims(document: Document, judging: Judging) -> list[Finding]:
    """`uncited` findings (info) for plain sentences that a reference cited nowhere supports."""
    cited = document.claims_cite
    uncited_refs = {key for key in judging.prepared if key not in cited}
    if not uncited_refs or len(uncited_refs) > MOST_REFERENCES:
        return []
    findings: list[Finding] = []
    read = 0
    for claim in document.claims:
        sentence = claim.sentence
        if claim.needs_citation or claim.reasons != NO_SIGNAL or sentence.markers or sentence.noted:
            continue
        if len(claim.text.split()) < MIN_WORDS or read >= MOST_SENTENCES or judging.out_of_time():
            continue
        read += 1
        ranked = judging.rank_others(claim.text, claim.id, cited)
        found = _provenance(claim.text, ranked, judging)
        if found is None:
            continue
        key, verdict, why = found
        if why != TITLE:  # a title restated is the work's own words; a passage may be read elsewhere too
            others = judging.rank_others(claim.text, claim.id, uncited_refs)
            if others and others[0][1].score > verdict.score - (0 if why == BODY else STANDS_OUT):
                continue  # a cited reference matches as well: the sentence may sum up what is cited
        findings.append(_finding(document, claim, key, verdict, why, judging))
    return findings
