"""Structural findings of a pandoc document, in its bibliography's terms.

- `unknown_key`: a key that no bibliography has but that is close to one it has (`@smiht2020` for
  `smith2020`: `core.near_keys`), on that key: "did you mean @smith2020?", with a fix **Cite
  @smith2020** for each of the (at most three) candidates, best first, that re-keys that citation
  (its prefix and locator stay: the same work is meant). The fix is safe (`fix` applies it) when
  there is one candidate and it keeps the year the key spells; with several, or a year changed,
  it is the writer's choice (unsafe).
- `fabricated`: a key that no bibliography has and that is close to none (`[see @ghost2020, p. 4]`),
  on that key; the fix takes it out of its group (the group's other items, prefixes and locators
  stay). A key cited in the text (`@ghost2020 says`) is part of the sentence: no removal is
  offered for it.
- `duplicate_reference`: two entries for the same work — the same DOI (ignoring case), or the
  same normalised title and year — and only when the document cites both (a bibliography
  exported whole from a reference manager holds many duplicates no one cites); the fix cites the
  first entry wherever the other is cited.

Uncited entries are not orphans (pandoc documents cite a few keys of a large library), and there
are no malformed markers: what is not a citation to pandoc is text.
"""

from __future__ import annotations

from dataclasses import replace

from citedesk.core.bibliography import duplicate_entries
from citedesk.core.citekeys import is_cross_reference
from citedesk.core.document import Document
from citedesk.core.findings import Applicability, Finding, Fix, Kind, make_finding
from citedesk.core.near_keys import NearKey, near_keys
from citedesk.core.repair import MergeReference, RemoveCitation, RetargetCitation, make_fix


def citekey_findings(document: Document) -> list[Finding]:
    return [*missing_keys(document), *duplicate_works(document)]


def missing_keys(document: Document) -> list[Finding]:
    """Keys no bibliography has. With no entries at all (no bibliography named, or an empty one)
    nothing is called fabricated: the citations are reported as not checked, and the audit says why."""
    known = document.work_by_key
    if not known:
        return []
    findings: list[Finding] = []
    named = _bibliographies(document)  # the same for every missing key
    for index, group in enumerate(document.citations):
        for key in group.keys:
            if key in known or is_cross_reference(key):
                continue  # `[@fig-map; @doe99]`: the figure is the document's own
            near = near_keys(key, document.bibliography or ())
            if near:
                findings.append(_unknown_key(document, index, key, near))
                continue
            claim = document.claim_by_marker.get(index)
            label = document.label(key)
            fix = make_fix(f"Remove {label}", document, [RemoveCitation(index, key)])
            findings.append(
                make_finding(
                    Kind.FABRICATED,
                    document.markers[index].span_of(key),
                    f"{label} cites a key that is in no bibliography: {named}."
                    + ("" if fix else " It is part of the sentence (an in-text citation): edit it by hand."),
                    reference=key,
                    claim_id=claim.id if claim else None,
                    fixes=(fix,) if fix else (),
                )
            )
    return findings


def _unknown_key(document: Document, index: int, key: str, near: list[NearKey]) -> Finding:
    """A missing key close to known ones: a fix per candidate that cites it instead, the locator
    kept (`same_work`: the writer meant that entry). Safe only when the choice is not a guess."""
    labels = [document.label(candidate.key) for candidate in near]
    guess = len(near) > 1 or near[0].year_changed
    applicability = Applicability.UNSAFE if guess else Applicability.SAFE
    fixes: list[Fix] = []
    for candidate, label in zip(near, labels, strict=True):
        fix = make_fix(
            f"Cite {label}", document, [RetargetCitation(index, key, candidate.key, same_work=True)]
        )
        if fix is not None:
            fixes.append(replace(fix, applicability=applicability))
    claim = document.claim_by_marker.get(index)
    options = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " or " + labels[-1]
    return make_finding(
        Kind.UNKNOWN_KEY,
        document.markers[index].span_of(key),
        f"{document.label(key)} is not a key of {_where(document)}: did you mean {options}?",
        reference=key,
        claim_id=claim.id if claim else None,
        fixes=tuple(fixes),
        details={"did_you_mean": [candidate.key for candidate in near]},
    )


def duplicate_works(document: Document) -> list[Finding]:
    citing = document.markers_citing
    entries = [work.entry for work in document.bibliography or ()]
    findings: list[Finding] = []
    for first, later in duplicate_entries(entries):
        if first.key not in citing or later.key not in citing:
            continue
        same_doi = bool(first.doi and later.doi and first.doi.lower() == later.doi.lower())
        what = f"same DOI, {first.doi}" if same_doi else "same title and year"
        old, new = document.label(later.key), document.label(first.key)
        fix = make_fix(
            f"Cite {new} instead of {old} everywhere", document, [MergeReference(later.key, first.key)]
        )
        index = citing[later.key][0]
        findings.append(
            make_finding(
                Kind.DUPLICATE_REFERENCE,
                document.markers[index].span_of(later.key),
                f"{old} and {new} are two bibliography entries for one work ({what}); the document "
                "cites both.",
                reference=later.key,
                fixes=(fix,) if fix else (),
                details={"duplicate_of": first.key},
            )
        )
    return findings


def _bibliographies(document: Document) -> str:
    works = document.bibliography or ()
    names = list(dict.fromkeys(w.source for w in works if w.source))
    count = f"{len(works)} entr{'y' if len(works) == 1 else 'ies'}"
    if not works:
        return "the document's bibliography has no entries"
    return f"{', '.join(names)} ({count})" if names else f"the bibliography has {count}"


def _where(document: Document) -> str:
    """`refs.bib (12 entries)`, or `the bibliography (12 entries)` when no file is named."""
    works = document.bibliography or ()
    names = list(dict.fromkeys(w.source for w in works if w.source))
    count = f"{len(works)} entr{'y' if len(works) == 1 else 'ies'}"
    return f"{', '.join(names) or 'the bibliography'} ({count})"
