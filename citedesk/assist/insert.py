"""Post-hoc citation insertion (P-Cite style) that can never rewrite the writer's prose.

For an uncited sentence, Claude may only insert markers of references that already exist. Its
answer is accepted only if (1) the document with every marker stripped is byte-identical to the
original's, (2) every original marker is still there, and (3) every new marker names an existing
reference. Each surviving marker is then kept only if the local judge confirms that reference
supports the sentence, and only if the deterministic audit of the text with the markers applied no
longer finds the sentence uncited. Bounded: at most `MAX_CLAIMS` claims and `MAX_PASSES` requests
per claim; the audit, not the model, decides when to stop.

Every citation dialect alike (`core.dialects`): the request lists the works the document can cite
written as the document writes a citation (`[3]`, `[@moreau2021]`), the answer is read in the
document's dialect (with its bibliography), and what Claude's answer contributes is only *which*
keys it cited — never where or how it wrote them. Those keys become dialect-neutral operations
(`core.repair.cite_sentence`: `AddCitation`s at the sentence's end) that the dialect spells, so a
pandoc document gets `[@moreau2021]` where the writer puts citations, whatever Claude wrote.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from citedesk.assist.atoms import decomposition_requests
from citedesk.assist.client import ClaudeClient, Request, is_repeat
from citedesk.core.checks import structural_findings
from citedesk.core.dialects import dialect_for, registered
from citedesk.core.document.model import Document, Structure, document_of, reparse
from citedesk.core.document.works import BibReference, CitedEntry
from citedesk.core.findings import Fix, Kind
from citedesk.core.operations import AddCitation
from citedesk.core.plan import plan_repairs
from citedesk.core.reading import parse_document, parse_structure, structure_without_bibliography
from citedesk.core.repair import cite_sentence, prose_of
from citedesk.errors import AssistError, RepairError
from citedesk.evidence.lexical import content_stems

SYSTEM = (
    "You add citations to a writer's sentence. You may ONLY insert citation markers such as [2] "
    "or [^smith] for references in the given list whose content supports the sentence. Never change, "
    "add or remove any other character of the sentence. If no reference supports it, return it "
    'unchanged. Answer with JSON only: {"sentence": "the sentence with markers inserted"}.'
)
_NUMBERED_EXAMPLES = "[2] or [^smith]"


def _read(text: str, like: Structure | None) -> Structure:
    """`text` read the way `like` was (its dialect and bibliography), or as a numbered document."""
    return reparse(like, text) if like is not None else parse_structure(text)


def prose(text: str, like: Structure | None = None) -> str:
    """The text with every marker and reference entry removed — the same prose that every repair
    must leave unchanged (`core.repair.prose_of`): inserting ` [3]` (or ` [@doe99]` in a pandoc
    document, read `like` it) is not a prose change; any other difference, even one space or
    comma, is."""
    return prose_of(_read(text, like))


def can_cite(document: Document) -> bool:
    """Whether Claude can suggest citations for `document`: in every dialect, since its answers
    are read in the document's own (`check_insertion(like=…)`) and what it cites becomes an
    `AddCitation` the dialect spells. Kept as the one question the engine asks before sending,
    for a dialect that could not."""
    return document.dialect in registered()


def marker_keys(text: str, like: Structure | None = None) -> Counter[str]:
    return Counter(key for marker in _read(text, like).markers for key in marker.keys)


@dataclass(frozen=True)
class InsertionCheck:
    accepted: bool
    reason: str = ""
    added: tuple[str, ...] = ()


def check_insertion(
    original: str, proposed: str, references: set[str], like: Structure | None = None
) -> InsertionCheck:
    """Accept `proposed` only if it differs from `original` by inserted markers of real references;
    both are read `like` the document (its dialect and bibliography), or as numbered documents."""
    if prose(proposed, like) != prose(original, like):
        return InsertionCheck(False, "the answer changed the prose (rejected; nothing applied)")
    before, after = marker_keys(original, like), marker_keys(proposed, like)
    if before - after:
        return InsertionCheck(False, "the answer removed an existing citation (rejected)")
    added = tuple(sorted((after - before).keys()))
    unknown = [key for key in added if key not in references]
    if unknown:
        return InsertionCheck(False, f"the answer cited references that do not exist: {', '.join(unknown)}")
    return InsertionCheck(True, "", added)


MAX_CLAIMS = 20
"""Uncited claims sent per audit, at most (bounded cost; the preview shows the same ones)."""
MAX_PASSES = 3
"""Requests per claim, at most: a refused answer is sent back once or twice with the reason."""
MAX_LISTED = 100
"""Works listed in one request, at most. A numbered document's reference list is short; a pandoc
document's bibliography may be a whole Zotero library (thousands of entries), and listing it all in
every request would send far more than the sentence needs, at the writer's cost."""


def insertion_requests(document: Document, claim_ids: list[str]) -> list[tuple[str, Request]]:
    """(claim id, first-pass request) for what would be sent — the one place that decides it, so
    `--assist-preview` shows exactly what `--assist claude` sends first."""
    requests = []
    for claim_id in claim_ids[:MAX_CLAIMS]:
        claim = document.claim_by_id[claim_id]
        original = document.text[claim.sentence.start : claim.sentence.span_end]
        requests.append((claim_id, request_for(original, document)))
    return requests


RETRY_NOTE = (
    "(A refused answer is sent again, at most {passes} times in all, with the reason it was refused "
    'appended: "YOUR PREVIOUS ANSWER WAS REFUSED (this is attempt 2): …".)'
)


def what_would_be_sent(
    text: str, path: str | None = None, bibliography: Sequence[BibReference] | None = None
) -> tuple[int, str]:
    """(number of requests, their exact text) that Claude assistance would send first for `text` —
    shown by `--assist-preview` and by the window before the writer turns assistance on: the
    decomposition of long cited sentences, then citation insertion for uncited ones. `text` is read
    as the audit reads it: against its `bibliography`'s entries (a pandoc document), or, with None
    (it names none), as numbered unless it cites keys only."""
    if bibliography is None:
        document = document_of(structure_without_bibliography(text), path)
    else:
        document = parse_document(text, path, bibliography)
    uncited = [f.claim_id for f in structural_findings(document) if f.kind is Kind.UNCITED and f.claim_id]
    requests = [r for _, r in decomposition_requests(document)] + [
        r for _, r in insertion_requests(document, uncited)
    ]
    shown = [request.preview() for request in requests]
    if uncited:
        shown.append(RETRY_NOTE.format(passes=MAX_PASSES))
    return len(requests), "\n".join(shown)


def system_for(structure: Structure) -> str:
    """The instructions, with examples of markers written as the document writes them: `[2]` or
    `[^smith]` in a numbered document (the same text as ever, so stored answers stay valid), the
    dialect's own spelling in any other (`[@smith2020]`)."""
    if structure.dialect is dialect_for(None):
        return SYSTEM
    return SYSTEM.replace(_NUMBERED_EXAMPLES, structure.dialect.group_label(structure, ["smith2020"]))


def is_insertion_system(system: object) -> bool:
    """Whether `system` is the instructions of a citation-insertion request, in any dialect."""
    head, tail = SYSTEM.split(_NUMBERED_EXAMPLES)
    return isinstance(system, str) and system.startswith(head) and system.endswith(tail)


def request_for(sentence: str, document: Document, refused: str = "", attempt: int = 1) -> Request:
    """The request for one sentence: the works the document can cite, each written as a citation
    of it is (`[3] Title`, `[@moreau2021] Title`), and the sentence."""
    listing = "\n".join(
        f"{document.dialect.group_label(document, [work.key])} {work.title or work.url or work.doi or ''}".rstrip()
        for work in listed_works(document, sentence)
    )
    prompt = f"REFERENCES:\n{listing}\n\nSENTENCE: {sentence}"
    if refused:
        prompt += f"\n\nYOUR PREVIOUS ANSWER WAS REFUSED (this is attempt {attempt}): {refused}"
    return Request(system_for(document), prompt, max_tokens=600)


def listed_works(document: Document, sentence: str) -> list[CitedEntry]:
    """The works a request lists: all of them when there are at most `MAX_LISTED`; else the works
    the document already cites, then those whose titles share the most content words with the
    sentence, `MAX_LISTED` in all, in the document's own order (so the listing reads as the
    reference list or bibliography does)."""
    works = document.works
    if len(works) <= MAX_LISTED:
        return list(works)
    cited = {key for marker in document.markers for key in marker.keys}
    words = set(content_stems(sentence))

    def rank(index: int) -> tuple[bool, int, int]:
        work = works[index]
        shared = len(words.intersection(content_stems(work.title or ""))) if words else 0
        return (work.key not in cited, -shared, index)

    chosen = sorted(sorted(range(len(works)), key=rank)[:MAX_LISTED])
    return [works[i] for i in chosen]


@dataclass
class InsertionResult:
    suggested: dict[str, list[str]] = field(default_factory=dict)
    """Claim id → reference keys Claude inserted, the local judge confirmed and the audit accepted."""
    rejected: list[str] = field(default_factory=list)
    """Why answers were refused (prose changed, unknown reference, unconfirmed…)."""
    passes: int = 0


@dataclass(frozen=True)
class _Attempt:
    added: tuple[str, ...] = ()
    refused: str = ""
    """Why the answer was refused, when asking again with the reason may help."""
    problems: tuple[str, ...] = ()


def propose_citations(
    document: Document,
    claim_ids: list[str],
    client: ClaudeClient,
    confirm: Callable[[str, str], bool],
    *,
    max_passes: int = MAX_PASSES,
) -> InsertionResult:
    """Ask Claude for markers on uncited claims; keep only checked, confirmed and audited ones.

    Bounded passes: after each, the confirmed citations are applied to a copy of the document and
    the deterministic audit runs again; a claim is asked again only while the audit still finds
    it uncited *and* its last answer was refused for a reason given back to the model (prose
    changed, unknown or unconfirmed reference, malformed answer). An unchanged sentence ("no
    reference supports this"), a refusal or an HTTP error ends that claim's turn.
    """
    result = InsertionResult()
    references = {work.key for work in document.works}
    pending = dict.fromkeys(claim_ids[:MAX_CLAIMS], "")
    for pass_number in range(1, max_passes + 1):
        if not pending:
            break
        result.passes = pass_number
        retry: dict[str, str] = {}
        for claim_id, refused in pending.items():
            attempt = _attempt(document, claim_id, client, confirm, references, refused, pass_number)
            result.rejected.extend(f"{claim_id}: {p}" for p in attempt.problems)
            if attempt.added:
                result.suggested[claim_id] = list(attempt.added)
            elif attempt.refused:
                retry[claim_id] = attempt.refused
        still_uncited = _audit_with(document, result.suggested)
        for claim_id in [c for c in result.suggested if c in still_uncited]:
            keys = result.suggested.pop(claim_id)
            result.rejected.append(f"{claim_id}: with [{', '.join(keys)}] the audit still finds it uncited")
        pending = {c: reason for c, reason in retry.items() if c in still_uncited}
    return result


def _attempt(
    document: Document,
    claim_id: str,
    client: ClaudeClient,
    confirm: Callable[[str, str], bool],
    references: set[str],
    refused: str,
    pass_number: int,
) -> _Attempt:
    claim = document.claim_by_id[claim_id]
    original = document.text[claim.sentence.start : claim.sentence.span_end]
    try:
        answer = client.ask_json(request_for(original, document, refused, pass_number))
    except AssistError as exc:  # an outage is said once, not once per sentence
        return _Attempt(problems=() if is_repeat(exc) else (str(exc),))
    proposed = answer.get("sentence") if isinstance(answer, dict) else None
    if not isinstance(proposed, str):
        reason = 'the answer had no "sentence"'
        return _Attempt(refused=reason, problems=(reason,))
    # the check runs on the whole document, so nothing outside the sentence can change either
    whole = document.text[: claim.sentence.start] + proposed + document.text[claim.sentence.span_end :]
    check = check_insertion(document.text, whole, references, like=document)
    if not check.accepted:
        return _Attempt(refused=check.reason, problems=(check.reason,))
    confirmed = tuple(key for key in check.added if confirm(claim_id, key))
    unconfirmed = [key for key in check.added if key not in confirmed]
    problems = tuple(f"[{key}] was not confirmed by the local judge" for key in unconfirmed)
    if confirmed or not unconfirmed:
        return _Attempt(added=confirmed, problems=problems)
    reason = (
        f"the sources of {', '.join(f'[{k}]' for k in unconfirmed)} do not support the sentence "
        "(checked locally); cite another reference or return the sentence unchanged"
    )
    return _Attempt(refused=reason, problems=problems)


def _audit_with(document: Document, suggested: dict[str, list[str]]) -> set[str]:
    """Claim ids still uncited once `suggested` is applied to a copy of the text (by claim
    fingerprint: inserting markers leaves a sentence's words, so its fingerprint, unchanged)."""
    operations: list[AddCitation] = []
    for claim_id, keys in suggested.items():
        operations.extend(cite_sentence(document, document.claim_by_id[claim_id].sentence, keys))
    try:  # every repair is one checked plan, Claude's insertions too
        text = plan_repairs(document, [Fix("Claude's citations", (), tuple(operations))]).result
    except RepairError:
        return {c.id for c in document.claims if c.id in suggested}
    audited = document_of(reparse(document, text), document.path)
    uncited = {
        audited.claim_by_id[f.claim_id].fingerprint
        for f in structural_findings(audited)
        if f.kind is Kind.UNCITED and f.claim_id
    }
    return {c.id for c in document.claims if c.fingerprint in uncited}
