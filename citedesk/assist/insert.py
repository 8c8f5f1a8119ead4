"""Post-hoc citation insertion (P-Cite style) that can never rewrite the writer's prose.

For an uncited sentence, Claude may only insert markers of references that already exist. Its
answer is accepted only if (1) the document with every marker stripped is byte-identical to the
original's, (2) every original marker is still there, and (3) every new marker names an existing
reference. Each surviving marker is then kept only if the local judge confirms that reference
supports the sentence. Bounded: one request per uncited claim, at most `MAX_CLAIMS` per audit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from citedesk.assist.client import AssistError, ClaudeClient, Request
from citedesk.core.checks import structural_findings
from citedesk.core.document import Document, parse_document, parse_structure
from citedesk.core.findings import Kind

SYSTEM = (
    "You add citations to a writer's sentence. You may ONLY insert citation markers such as [2] "
    "or [^smith] for references in the given list whose content supports the sentence. Never change, "
    "add or remove any other character of the sentence. If no reference supports it, return it "
    'unchanged. Answer with JSON only: {"sentence": "the sentence with markers inserted"}.'
)


def strip_markers(text: str) -> str:
    """The text with every citation marker (and the spaces just before it) removed: the prose.

    `drought [3].` and `drought.` strip to the same text, so inserting ` [3]` is not a prose change;
    any other difference, even one space or comma elsewhere, is.
    """
    structure = parse_structure(text)
    pieces, cursor = [], 0
    for marker in structure.markers:
        start = marker.start
        while start > cursor and text[start - 1] in " \t":
            start -= 1
        pieces.append(text[cursor:start])
        cursor = marker.end
    pieces.append(text[cursor:])
    return "".join(pieces)


def marker_keys(text: str) -> Counter[str]:
    return Counter(key for marker in parse_structure(text).markers for key in marker.keys)


@dataclass(frozen=True)
class InsertionCheck:
    accepted: bool
    reason: str = ""
    added: tuple[str, ...] = ()


def check_insertion(original: str, proposed: str, references: set[str]) -> InsertionCheck:
    """Accept `proposed` only if it differs from `original` by inserted markers of real references."""
    if strip_markers(proposed) != strip_markers(original):
        return InsertionCheck(False, "the answer changed the prose (rejected; nothing applied)")
    before, after = marker_keys(original), marker_keys(proposed)
    if before - after:
        return InsertionCheck(False, "the answer removed an existing citation (rejected)")
    added = tuple(sorted((after - before).keys()))
    unknown = [key for key in added if key not in references]
    if unknown:
        return InsertionCheck(False, f"the answer cited references that do not exist: {', '.join(unknown)}")
    return InsertionCheck(True, "", added)


MAX_CLAIMS = 20
"""Insertion requests per audit, at most (bounded cost; the preview shows the same ones)."""


def insertion_requests(document: Document, claim_ids: list[str]) -> list[tuple[str, Request]]:
    """(claim id, request) for what would be sent — the one place that
    decides it, so `--assist-preview` shows exactly what `--assist claude` sends."""
    requests = []
    for claim_id in claim_ids[:MAX_CLAIMS]:
        claim = document.claim_by_id[claim_id]
        original = document.text[claim.sentence.start : claim.sentence.span_end]
        requests.append((claim_id, request_for(original, document)))
    return requests


def what_would_be_sent(text: str, path: str | None = None) -> tuple[int, str]:
    """(number of requests, their exact text) that citation insertion would send for `text` —
    shown by `--assist-preview` and by the window before the writer turns assistance on."""
    document = parse_document(text, path)
    uncited = [f.claim_id for f in structural_findings(document) if f.kind is Kind.UNCITED and f.claim_id]
    requests = insertion_requests(document, uncited)
    return len(requests), "\n".join(request.preview() for _, request in requests)


def request_for(sentence: str, document: Document) -> Request:
    listing = "\n".join(
        f"[{ref.key}] {ref.title or ref.url or ref.doi or ''}".rstrip() for ref in document.entries
    )
    return Request(SYSTEM, f"REFERENCES:\n{listing}\n\nSENTENCE: {sentence}", max_tokens=600)


@dataclass
class InsertionResult:
    suggested: dict[str, list[str]] = field(default_factory=dict)
    """Claim id → reference keys Claude inserted and the local judge confirmed."""
    rejected: list[str] = field(default_factory=list)
    """Why answers were refused (prose changed, unknown reference, unconfirmed…)."""


def propose_citations(
    document: Document,
    claim_ids: list[str],
    client: ClaudeClient,
    confirm: Callable[[str, str], bool],
) -> InsertionResult:
    """Ask Claude for markers on uncited claims; keep only checked and confirmed ones."""
    result = InsertionResult()
    references = {ref.key for ref in document.entries}
    for claim_id, request in insertion_requests(document, claim_ids):
        claim = document.claim_by_id[claim_id]
        try:
            answer = client.ask_json(request)
        except AssistError as exc:
            result.rejected.append(f"{claim_id}: {exc}")
            continue
        proposed = answer.get("sentence") if isinstance(answer, dict) else None
        if not isinstance(proposed, str):
            result.rejected.append(f"{claim_id}: the answer had no sentence")
            continue
        # the check runs on the whole document, so nothing outside the sentence can change either
        whole = document.text[: claim.sentence.start] + proposed + document.text[claim.sentence.span_end :]
        check = check_insertion(document.text, whole, references)
        if not check.accepted:
            result.rejected.append(f"{claim_id}: {check.reason}")
            continue
        confirmed = [key for key in check.added if confirm(claim_id, key)]
        for key in check.added:
            if key not in confirmed:
                result.rejected.append(f"{claim_id}: [{key}] was not confirmed by the local judge")
        if confirmed:
            result.suggested[claim_id] = confirmed
    return result
