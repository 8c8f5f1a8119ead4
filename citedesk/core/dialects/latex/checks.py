"""Structural findings of a LaTeX document, in its bibliography's terms (as pandoc's are).

- `unknown_key` ("Not in the bibliography"): a cited key no bibliography has, with its "did you
  mean" fix when it is close to one (`core.dialects.pandoc.checks`' message and rules), else the fix that
  takes it out of its command, a suggestion to verify (none for an in-text `\\citet{…}` alone: it
  is a word of the sentence).
- a `\\nocite` key no bibliography has: the same finding on that key, with no fix (`\\nocite`
  lists entries; it is not a sentence's citation). `\\nocite{*}` lists every entry.
- `malformed_marker`: an empty `\\cite{}` (the fix removes it with its tie), an unclosed brace or a
  citation with no braces (no fix: the writer's to mend), and a key cited twice in one command
  (the fix takes out the second).
- `duplicate_reference`: two entries for one work both cited or listed by `\\nocite`.

No orphans: uncited bibliography entries are no one's business. With no entries at all (no
bibliography found), nothing is called unknown: the citations are reported as not checked.
"""

from __future__ import annotations

from citedesk.core.bibliographies.near_keys import near_keys
from citedesk.core.dialects.latex.cites import Cite
from citedesk.core.dialects.latex.reading import read_latex
from citedesk.core.dialects.pandoc.checks import Nocite, _where, duplicate_works, keys_missing
from citedesk.core.document.model import Document
from citedesk.core.findings import Finding, Fix, Kind, make_finding
from citedesk.core.operations import FixMalformed
from citedesk.core.repair import make_fix
from citedesk.core.text import unify_line_breaks


def latex_findings(document: Document) -> list[Finding]:
    reading = read_latex(unify_line_breaks(document.text))
    listed = nocite_of(reading.nocites)
    return [
        *keys_missing(
            document, ((i, key) for i, marker in enumerate(document.markers) for key in marker.keys)
        ),
        *_missing_nocite_keys(document, reading.nocites),
        *_repeated_keys(document, reading.cites),
        *_malformed(document),
        *duplicate_works(document, listed),
    ]


def nocite_of(nocites: tuple[Cite, ...]) -> Nocite:
    """The entries `\\nocite` commands list, each with where (`{*}`: every entry)."""
    keys: dict[str, tuple[int, int]] = {}
    everything: tuple[int, int] | None = None
    for cite in nocites:
        for key in cite.keys:
            if key.key == "*":
                everything = everything or (key.start, key.end)
            else:
                keys.setdefault(key.key, (key.start, key.end))
    return Nocite(keys, everything)


def _missing_nocite_keys(document: Document, nocites: tuple[Cite, ...]) -> list[Finding]:
    known = document.work_by_key
    if not known:
        return []
    findings: list[Finding] = []
    for cite in nocites:
        for key in cite.keys:
            if key.key == "*" or key.key in known:
                continue
            near = near_keys(key.key, document.bibliography or ())
            label = document.label(key.key)
            span = (key.start, key.end)
            if near:
                options = " or ".join(document.label(candidate.key) for candidate in near)
                message = f"`\\nocite` lists {label}, which is not a key of {_where(document)}: did you mean {options}?"
                details = {"did_you_mean": [candidate.key for candidate in near], "nocite": True}
                findings.append(
                    make_finding(Kind.UNKNOWN_KEY, span, message, reference=key.key, details=details)
                )
            else:
                message = (
                    f"`\\nocite` lists {label}, which is not in the bibliography: no entry of "
                    f"{_where(document)} has that key."
                )
                findings.append(
                    make_finding(Kind.UNKNOWN_KEY, span, message, reference=key.key, details={"nocite": True})
                )
    return findings


def _repeated_keys(document: Document, cites: tuple[Cite, ...]) -> list[Finding]:
    """A key written twice in one command: the second is taken out, with the comma before it."""
    findings: list[Finding] = []
    for cite in cites:
        for group in cite.groups:
            seen: set[str] = set()
            for position, key in enumerate(group.keys):
                if key.key not in seen:
                    seen.add(key.key)
                    continue
                previous = group.keys[position - 1]
                fixes: tuple[Fix, ...] = ()
                fix = make_fix(f"Cite {key.key} once", document, [FixMalformed(previous.end, key.end, "")])
                if fix is not None:
                    fixes = (fix,)
                findings.append(
                    make_finding(
                        Kind.MALFORMED_MARKER,
                        (key.start, key.end),
                        f"{document.label(key.key)} is cited twice in one command.",
                        reference=key.key,
                        fixes=fixes,
                    )
                )
    return findings


def _malformed(document: Document) -> list[Finding]:
    findings: list[Finding] = []
    for bad in document.malformed:
        raw = document.text[bad.start : bad.end].lstrip("~")
        fixes: tuple[Fix, ...] = ()
        if bad.reason == "it cites no key":
            fix = make_fix(f"Remove {raw}", document, [FixMalformed(bad.start, bad.end, "")])
            fixes = (fix,) if fix else ()
        findings.append(
            make_finding(
                Kind.MALFORMED_MARKER,
                (bad.start, bad.end),
                f"{raw} is not a valid citation: {bad.reason}.",
                fixes=fixes,
            )
        )
    return findings
