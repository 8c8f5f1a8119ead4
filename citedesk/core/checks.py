"""Findings that need no source and no model, in every dialect: the dialect's own checks, and the
sentences that need a citation and have none.

`structural_findings` asks the document's dialect for the checks specific to it (a numbered
document's are `core.dialects.numbered.checks`: fabricated, malformed, orphan and duplicate markers and
entries; a pandoc document's `core.dialects.pandoc.checks`; a LaTeX document's `core.dialects.latex.checks`) and adds
uncited claims, which every dialect shares."""

from __future__ import annotations

import bisect

from citedesk.core.document.model import Document
from citedesk.core.findings import Finding, Kind, make_finding


def structural_findings(document: Document) -> list[Finding]:
    findings = [*document.dialect.structural_findings(document), *uncited_claims(document)]
    return sorted(findings, key=lambda f: (f.start, f.kind.value))


def uncited_claims(document: Document) -> list[Finding]:
    findings: list[Finding] = []
    malformed_at = sorted(m.start for m in document.malformed)
    for claim in document.claims:
        if not claim.needs_citation or claim.sentence.markers or claim.sentence.noted:
            continue  # a sentence that calls a citing note is cited there (`core.document.notes`)
        i = bisect.bisect_left(malformed_at, claim.sentence.start)
        if i < len(malformed_at) and malformed_at[i] < claim.sentence.span_end + 8:
            continue  # the sentence tried to cite; the malformed marker is the finding
        findings.append(
            make_finding(
                Kind.UNCITED,
                (claim.sentence.start, claim.sentence.end),
                "This sentence " + _join(claim.reasons) + " but cites no source.",
                claim_id=claim.id,
                details={"reasons": list(claim.reasons)},
            )
        )
    return findings


def _join(reasons: tuple[str, ...]) -> str:
    if len(reasons) == 1:
        return reasons[0]
    return ", ".join(reasons[:-1]) + " and " + reasons[-1]
