"""The numbered dialect's structural findings: fabricated markers (citing no entry of the list),
malformed markers (rewritten where their intent is clear), orphan entries (cited by no marker) and
duplicate entries (one work listed twice), each with its fix where one is safe to offer."""

from __future__ import annotations

import re

from citedesk.core.dialects.numbered.repair import render_marker
from citedesk.core.document.markers import Marker, find_markers, repair_malformed
from citedesk.core.document.model import Document
from citedesk.core.document.references import Reference, normalise_doi, normalise_url
from citedesk.core.findings import Finding, Fix, Kind, make_finding
from citedesk.core.operations import FixMalformed, MergeReference, RemoveCitation, RemoveReference
from citedesk.core.repair import make_fix
from citedesk.core.spans import SpanSet


def fabricated_markers(document: Document) -> list[Finding]:
    known = document.entry_by_key
    entries = _entry_names(document) if document.entries else ""  # the same for every missing key
    findings: list[Finding] = []
    for index, marker in enumerate(document.markers):
        for key in marker.keys:
            if key in known:
                continue
            claim = document.claim_by_marker.get(index)
            label = _label(marker, key)
            message = f"{label} cites a reference that does not exist: " + (
                f"the reference list has no entry {key} (its entries: {entries})."
                if document.entries
                else "the document has no reference list."
            )
            fix = make_fix(f"Remove {label}", document, [RemoveCitation(index, key)])
            fixes = (fix,) if fix else ()
            findings.append(
                make_finding(
                    Kind.FABRICATED,
                    marker.span_of(key),
                    message,
                    reference=key,
                    claim_id=claim.id if claim else None,
                    fixes=fixes,
                )
            )
    return findings


def malformed_markers(document: Document) -> list[Finding]:
    """Markers that are not well formed, rewritten when their intent is clear. The rewrite keeps
    every reference the marker cites that exists, and drops (and names) those that do not — so
    the fix never turns one malformed marker into fabricated citations."""
    findings: list[Finding] = []
    known = document.entry_by_key
    for bad in document.malformed:
        raw = document.text[bad.start : bad.end]
        message = f"{raw} is not a valid marker: {bad.reason}."
        fixes: tuple[Fix, ...] = ()
        repaired = repair_malformed(bad, raw)
        marker = _one_marker(repaired) if repaired is not None else None
        if marker is not None:
            existing = [k for k in marker.keys if k in known]
            missing = [k for k in marker.keys if k not in known]
            if missing:
                names = ", ".join(f"[{k}]" for k in missing)
                message += f" It cites {names}, which the reference list does not have."
            if existing:
                rewrite = render_marker(marker, existing)
                fixes = _present(
                    make_fix(f"Rewrite as {rewrite}", document, [FixMalformed(bad.start, bad.end, rewrite)])
                )
        findings.append(make_finding(Kind.MALFORMED_MARKER, (bad.start, bad.end), message, fixes=fixes))
    return findings


def _one_marker(text: str) -> Marker | None:
    found, _ = find_markers(text, [(0, len(text))], SpanSet.of([]))
    return found[0] if len(found) == 1 else None


def intended_keys(document: Document) -> set[str]:
    """The keys that malformed markers cite by their clear intent (`[2,,3]` → 2 and 3)."""
    keys: set[str] = set()
    for bad in document.malformed:
        repaired = repair_malformed(bad, document.text[bad.start : bad.end])
        if repaired:
            found, _ = find_markers(repaired, [(0, len(repaired))], SpanSet.of([]))
            keys.update(k for m in found for k in m.keys)
    return keys


def orphan_references(document: Document) -> list[Finding]:
    """Entries no marker cites. A malformed marker whose intent is clear (`[2,,3]`) cites what it
    means: its references are not orphans (its own finding rewrites it)."""
    cited = {key for marker in document.markers for key in marker.keys} | intended_keys(document)
    findings: list[Finding] = []
    seen: set[str] = set()
    for entry in document.entries:
        if entry.key in cited or entry.key in seen:
            continue
        seen.add(entry.key)
        # renumbering is one action on the whole list (`fix --renumber`, the window's Renumber),
        # not a variant of every orphan's fix: that would make each fix touch every entry
        fixes = _present(make_fix(f"Remove reference {_name(entry)}", document, [RemoveReference(entry.key)]))
        findings.append(
            make_finding(
                Kind.ORPHAN_REFERENCE,
                (entry.start, entry.end),
                f"Reference {_name(entry)} is never cited in the text.",
                reference=entry.key,
                fixes=fixes,
            )
        )
    return findings


def duplicate_references(document: Document) -> list[Finding]:
    findings: list[Finding] = []
    first_by_id: dict[str, Reference] = {}
    first_by_key: dict[str, Reference] = {}
    for entry in document.entries:
        if entry.key in first_by_key:
            findings.append(
                make_finding(
                    Kind.DUPLICATE_REFERENCE,
                    (entry.start, entry.end),
                    f"Two reference entries are numbered {entry.key}; markers can only reach the first.",
                    reference=entry.key,
                )
            )
            continue
        first_by_key[entry.key] = entry
        for ident in identities(entry):
            original = first_by_id.get(ident)
            if original is None:
                first_by_id[ident] = entry
                continue
            what = "DOI" if ident.startswith("doi:") else "URL" if ident.startswith("url:") else "arXiv id"
            fixes = _present(
                make_fix(
                    f"Merge {_name(entry)} into {_name(original)}",
                    document,
                    [MergeReference(entry.key, original.key)],
                )
            )
            findings.append(
                make_finding(
                    Kind.DUPLICATE_REFERENCE,
                    (entry.start, entry.end),
                    f"Reference {_name(entry)} has the same {what} as reference {_name(original)}.",
                    reference=entry.key,
                    fixes=fixes,
                    details={"duplicate_of": original.key},
                )
            )
            break
    return findings


def identities(entry: Reference) -> list[str]:
    found: list[str] = []
    if entry.doi:
        found.append("doi:" + normalise_doi(entry.doi))
    if entry.arxiv:
        found.append("arxiv:" + re.sub(r"v\d+$", "", entry.arxiv.lower()))
    if entry.url and not entry.doi:
        found.append("url:" + normalise_url(entry.url))
    return found


def _present(*fixes: Fix | None) -> tuple[Fix, ...]:
    return tuple(f for f in fixes if f is not None)


def _label(marker: Marker, key: str) -> str:
    return f"[^{key}]" if marker.style.value == "footnote" else f"[{key}]"


def _name(entry: Reference) -> str:
    return f"[^{entry.key}]" if entry.style.value == "footnote" else f"[{entry.key}]"


def _entry_names(document: Document) -> str:
    """The list's keys, numbers as ranges: "1–9, 11"; a long list of names ends in "…"."""
    keys = list(dict.fromkeys(entry.key for entry in document.entries))
    if not all(key.isdecimal() for key in keys):
        return ", ".join(keys[:8]) + (", …" if len(keys) > 8 else "")
    numbers = sorted({int(key) for key in keys})
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]}–{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in runs)
