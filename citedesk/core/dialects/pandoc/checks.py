"""Structural findings of a pandoc document, in its bibliography's terms.

- `unknown_key`: a key that no bibliography has but that is close to one it has (`@smiht2020` for
  `smith2020`: `core.bibliographies.near_keys`), on that key: "did you mean @smith2020?", with a fix **Cite
  @smith2020** for each of the (at most three) candidates, best first, that re-keys that citation
  (its prefix and locator stay: the same work is meant). The fix is safe (`fix` applies it) when
  there is one candidate and it keeps the year the key spells; with several, or a year changed,
  it is the writer's choice (unsafe).
- `unknown_key` too ("Not in the bibliography"): a key that no bibliography has and that is close to
  none (`[see @ghost2020, p. 4]`), on that key. The work may well exist and its entry be missing, so
  it is never called fabricated (kept for what no index and no list knows), and the fix taking it
  out of its group (the group's other items, prefixes and locators stay) is a suggestion to verify.
  A key cited in the text (`@ghost2020 says`) is part of the sentence: no removal is offered for it.
- `duplicate_reference`: two entries for the same work — the same DOI (ignoring case), or the
  same normalised title and year — and only when the document cites (or `nocite` lists) both (a bibliography
  exported whole from a reference manager holds many duplicates no one cites); the fix cites the
  first entry wherever the other is cited.

Uncited entries are not orphans (pandoc documents cite a few keys of a large library), and there
are no malformed markers: what is not a citation to pandoc is text.

`nocite:` in the front matter (`nocite: | @a, @b`, or `@*` for every entry) lists entries that are
not cited: pandoc prints them in the bibliography all the same. So an entry it names counts as
listed wherever a finding is about what the bibliography will print — two entries for one work
are a `duplicate_reference` when both are cited *or listed* (the finding sits on the citation, or
on the `nocite` key when neither is cited: no fix is offered there, it is the front matter's to
edit) — and a `nocite` key that no bibliography has is reported on that key (pandoc warns
"citation … not found" and prints nothing for it), with no fix.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from citedesk.core.bibliographies.model import BibEntry, BibliographyError, duplicate_entries
from citedesk.core.bibliographies.near_keys import NearKey, near_keys
from citedesk.core.document.citekeys import is_cross_reference
from citedesk.core.document.model import Document
from citedesk.core.findings import Applicability, Finding, Fix, Kind, make_finding
from citedesk.core.operations import MergeReference, RemoveCitation, RetargetCitation
from citedesk.core.repair import make_fix
from citedesk.core.safeload import safe_yaml

_NOCITE_KEY = re.compile(r"(?<![\w.])@(?:\{([^{}\s]+)\}|([\w*](?:\w|[:.#$%&\-+?<>~/](?=\w)|[:/](?=/))*))")
"""A key in `nocite:` as pandoc reads it there (the metadata is Markdown: `@key`, `@{odd key}`)."""
_NOCITE_FIELD = re.compile(r"^nocite[ \t]*:", re.MULTILINE)


def citekey_findings(document: Document) -> list[Finding]:
    listed = nocite(document.text)
    return [
        *missing_keys(document),
        *missing_nocite_keys(document, listed),
        *duplicate_works(document, listed),
    ]


@dataclass(frozen=True, slots=True)
class Nocite:
    """The entries a document's `nocite:` lists, each with where it is written in the text."""

    keys: dict[str, tuple[int, int]]
    """Key → the span of its `@key` in the front matter (the first, when written twice)."""
    everything: tuple[int, int] | None = None
    """The span of `@*` (every entry of the bibliographies is listed), when written."""

    def lists(self, key: str) -> bool:
        return self.everything is not None or key in self.keys

    def span_of(self, key: str) -> tuple[int, int] | None:
        return self.keys.get(key, self.everything)

    def works(self, keys: Iterable[str]) -> dict[str, tuple[int, int]]:
        """Of the works `keys` (a bibliography's, in order), those listed, with where: every one when
        `@*` lists them all."""
        if self.everything is not None:
            return {key: self.keys.get(key, self.everything) for key in keys}
        known = set(keys)
        return {key: span for key, span in self.keys.items() if key in known}


NO_NOCITE = Nocite({})


def nocite(text: str) -> Nocite:
    """The keys of the front matter's `nocite:` (a text or a list of texts, as pandoc accepts).
    Front matter that is not valid YAML lists nothing here: reading the bibliography says why."""
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        return NO_NOCITE
    start = len(text) - len(text.lstrip("\ufeff")) + len(lines[0])
    end = start
    for line in lines[1:]:
        if line.rstrip() in ("---", "..."):
            break
        end += len(line)
    else:
        return NO_NOCITE
    block = text[start:end]
    field = _NOCITE_FIELD.search(block)
    if field is None:
        return NO_NOCITE
    try:
        data = safe_yaml(block)
    except BibliographyError:
        return NO_NOCITE
    value = data.get("nocite") if isinstance(data, dict) else None
    written = " ".join(str(v) for v in value) if isinstance(value, list) else str(value or "")
    wanted = [m.group(1) or m.group(2) for m in _NOCITE_KEY.finditer(written)]
    keys: dict[str, tuple[int, int]] = {}
    everything: tuple[int, int] | None = None
    for match in _NOCITE_KEY.finditer(block, field.end()):
        key = match.group(1) or match.group(2)
        if key not in wanted:
            continue
        span = (start + match.start(), start + match.end())
        if key == "*":
            everything = everything or span
        else:
            keys.setdefault(key, span)
    return Nocite(keys, everything)


def missing_nocite_keys(document: Document, listed: Nocite) -> list[Finding]:
    """`nocite` keys that no bibliography has (pandoc lists nothing for them): a finding on the key,
    with the near keys as a question when there are some, and no fix (the front matter is the
    writer's to edit)."""
    known = document.work_by_key
    if not known:
        return []
    findings: list[Finding] = []
    for key, span in listed.keys.items():
        if key in known:
            continue
        near = near_keys(key, document.bibliography or ())
        label = document.label(key)
        if near:
            options = " or ".join(document.label(candidate.key) for candidate in near)
            message = (
                f"`nocite` lists {label}, which is not a key of {_where(document)}: did you mean {options}?"
            )
            details = {"did_you_mean": [candidate.key for candidate in near], "nocite": True}
            findings.append(make_finding(Kind.UNKNOWN_KEY, span, message, reference=key, details=details))
            continue
        message = (
            f"`nocite` lists {label}, which is not in the bibliography: no entry of "
            f"{_bibliographies(document)} has that key; pandoc prints nothing for it."
        )
        findings.append(
            make_finding(Kind.UNKNOWN_KEY, span, message, reference=key, details={"nocite": True})
        )
    return findings


def missing_keys(document: Document) -> list[Finding]:
    """Keys no bibliography has. With no entries at all (no bibliography named, or an empty one)
    nothing is called fabricated: the citations are reported as not checked, and the audit says why."""
    return keys_missing(
        document,
        (
            (index, key)
            for index, group in enumerate(document.citations)
            for key in group.keys
            if not is_cross_reference(key)  # `[@fig-map; @doe99]`: the document's own
        ),
    )


def keys_missing(document: Document, cited: Iterable[tuple[int, str]]) -> list[Finding]:
    """For each (marker index, key) `cited` whose key no bibliography has, its finding
    (`missing_key`); none when the document has no entries at all (nothing could be checked)."""
    known = document.work_by_key
    if not known:
        return []
    named = _bibliographies(document)  # the same for every missing key
    spans: dict[int, dict[str, tuple[int, int]]] = {}  # each marker's, found once: linear in its keys
    findings: list[Finding] = []
    for index, key in cited:
        if key not in known:
            if index not in spans:
                spans[index] = document.markers[index].key_spans()
            findings.append(missing_key(document, index, key, named, spans[index].get(key)))
    return findings


def missing_key(
    document: Document, index: int, key: str, named: str, span: tuple[int, int] | None = None
) -> Finding:
    """Marker `index` cites `key`, which no bibliography (`named`, as messages say it) has: an unknown
    key with its "did you mean" fixes when known keys are near it, else a fabricated citation whose
    fix removes it (none for an in-text citation, a word of its sentence). Every dialect whose
    works are kept elsewhere says it so (`core.dialects.latex.checks` too). `span`: where the marker cites
    it, when the caller knows (`Marker.key_spans`)."""
    span = span or document.markers[index].span_of(key)
    near = near_keys(key, document.bibliography or ())
    if near:
        return _unknown_key(document, index, key, near, span)
    claim = document.claim_by_marker.get(index)
    label = document.label(key)
    fix = make_fix(f"Remove {label}", document, [RemoveCitation(index, key)])
    # the work may well exist and its entry be forgotten: "not in the bibliography", never
    # "fabricated" (kept for what no index and no list knows), and its removal is a suggestion
    return make_finding(
        Kind.UNKNOWN_KEY,
        span,
        f"{label} is not in the bibliography: no entry of {named} has that key. Add the work's entry "
        "if it is missing, or remove the citation."
        + ("" if fix else " It is part of the sentence (an in-text citation): edit it by hand."),
        reference=key,
        claim_id=claim.id if claim else None,
        fixes=(replace(fix, applicability=Applicability.UNSAFE),) if fix else (),
    )


def _unknown_key(
    document: Document, index: int, key: str, near: list[NearKey], span: tuple[int, int]
) -> Finding:
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
        span,
        f"{document.label(key)} is not a key of {_where(document)}: did you mean {options}?",
        reference=key,
        claim_id=claim.id if claim else None,
        fixes=tuple(fixes),
        details={"did_you_mean": [candidate.key for candidate in near]},
    )


def duplicate_works(document: Document, listed: Nocite = NO_NOCITE) -> list[Finding]:
    """Two entries for one work that the printed bibliography would both hold: both cited, or
    listed by `nocite` (module docstring)."""
    citing = document.markers_citing
    entries = [work.entry for work in document.bibliography or ()]
    findings: list[Finding] = []
    for first, later in duplicate_entries(entries):
        if not all(key in citing or listed.lists(key) for key in (first.key, later.key)):
            continue
        same_doi = bool(first.doi and later.doi and first.doi.lower() == later.doi.lower())
        what = f"same DOI, {first.doi}" if same_doi else "same title and year"
        old, new = document.label(later.key), document.label(first.key)
        both = f"{old} and {new} are two bibliography entries for one work ({what}); "
        if later.key in citing:
            fix = make_fix(
                f"Cite {new} instead of {old} everywhere", document, [MergeReference(later.key, first.key)]
            )
            span = document.markers[citing[later.key][0]].span_of(later.key)
            cited = "cites both." if first.key in citing else f"cites {old}, and its `nocite` lists {new}."
            cited = "the document " + cited
        else:
            fix = None
            span = listed.span_of(later.key) or (0, 0)
            cited = (
                f"the document cites {new}, and its `nocite` lists {old}: the bibliography would print "
                "the work twice."
                if first.key in citing
                else "`nocite` lists both: the bibliography would print the work twice."
            )
        findings.append(
            make_finding(
                Kind.DUPLICATE_REFERENCE,
                span,
                both + cited,
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


def project_duplicates(chapters: Sequence[tuple[Document, list[Finding]]]) -> list[list[Finding]]:
    """The findings of a project's documents audited one by one (a book's chapters), with each
    duplicate work said once for the project: two entries for one work cited in *different*
    chapters — which no chapter alone sees — are reported in the first chapter that cites the later
    entry, naming where the other is cited (the fix, when offered, re-keys that chapter's
    citations); a pair that several chapters cite both of is reported in the first of them only.
    Each chapter's other findings are left as they are."""
    citing = [
        (document, set(document.markers_citing) | set(nocite(document.text).keys)) for document, _ in chapters
    ]
    pairs: dict[tuple[str, str], tuple[BibEntry, BibEntry]] = {}
    for document, _ in chapters:
        entries = [work.entry for work in document.bibliography or ()]
        for first, later in duplicate_entries(entries):
            pairs.setdefault((first.key, later.key), (first, later))
    result = [list(findings) for _, findings in chapters]
    said: set[tuple[str, str]] = set()
    for index, (_, findings) in enumerate(chapters):
        kept = []
        for finding in findings:
            pair = (str(finding.details.get("duplicate_of")), finding.reference or "")
            if finding.kind is Kind.DUPLICATE_REFERENCE and pair in said:
                continue  # said in an earlier chapter
            if finding.kind is Kind.DUPLICATE_REFERENCE:
                said.add(pair)
            kept.append(finding)
        result[index] = kept
    for pair, (first, later) in pairs.items():
        if pair in said:
            continue
        first_in = [i for i, (_, keys) in enumerate(citing) if first.key in keys]
        later_in = [i for i, (_, keys) in enumerate(citing) if later.key in keys]
        if not first_in or not later_in or later_in[0] in first_in:
            continue  # one of them uncited; or cited together, which that chapter's check decides
        here = later_in[0]
        document = chapters[here][0]
        elsewhere = chapters[first_in[0]][0].path or f"document {first_in[0] + 1}"
        made = _cross_chapter(document, first, later, elsewhere)
        if made is not None:
            result[here].append(made)
            result[here].sort(key=lambda f: (f.start, f.kind.value))
            said.add(pair)
    return result


def _cross_chapter(document: Document, first: BibEntry, later: BibEntry, elsewhere: str) -> Finding | None:
    same_doi = bool(first.doi and later.doi and first.doi.lower() == later.doi.lower())
    what = f"same DOI, {first.doi}" if same_doi else "same title and year"
    old, new = document.label(later.key), document.label(first.key)
    citing = document.markers_citing.get(later.key)
    span = (
        document.markers[citing[0]].span_of(later.key) if citing else nocite(document.text).span_of(later.key)
    )
    if span is None:
        return None
    fix = (
        make_fix(f"Cite {new} instead of {old} here", document, [MergeReference(later.key, first.key)])
        if citing
        else None
    )
    return make_finding(
        Kind.DUPLICATE_REFERENCE,
        span,
        f"{old} and {new} are two bibliography entries for one work ({what}); this document cites {old} "
        f"and {elsewhere} cites {new}, so the bibliography would print the work twice.",
        reference=later.key,
        fixes=(fix,) if fix else (),
        details={"duplicate_of": first.key, "cited_in": elsewhere},
    )
