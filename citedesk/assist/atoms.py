"""Atomic claims: Claude splits a long cited sentence into independently checkable facts.

"Launched in 2024, it holds $45M and has never been hacked [1]" is three facts, and its source may
state only two. Claude proposes the facts; deterministic code decides whether to believe it. Each
fact must name the exact words of the sentence that state it (`span`), which is how a finding
points at the failing part; and a fact may not bring in figures or content words the sentence (or
the sentence before it, for a pronoun's antecedent) does not contain. Facts that fail either check
are dropped and reported; a sentence with fewer than two good facts is judged whole, as without
assistance.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from citedesk.assist.client import ClaudeClient, Request, is_repeat
from citedesk.core.document.claims import Atom
from citedesk.core.document.model import Document
from citedesk.errors import AssistError
from citedesk.evidence.lexical import content_stems
from citedesk.evidence.numbers import quantities, same_figure

SYSTEM = (
    "You split a sentence into atomic facts that can each be checked against a source on their own. "
    "Each fact is a short, standalone statement built from the sentence's own words (resolve a pronoun "
    "from the previous sentence if needed); never add information. For each fact give `span`: the "
    "exact, contiguous words of the sentence that state it. If the sentence states one fact, return "
    'one. Answer with JSON only: {"facts": [{"fact": "...", "span": "..."}]}.'
)

MIN_WORDS = 12
"""Sentences shorter than this are already atomic: they are judged whole, and nothing is sent."""
MAX_FACTS = 6
MAX_SENTENCES = 40
"""Decomposition requests per audit, at most (bounded cost; the preview shows the same ones)."""
NEW_WORDS_ALLOWED = 1
"""Content words a fact may have that the sentence and its predecessor lack ("the protocol is…")."""


def decomposition_requests(document: Document) -> list[tuple[str, Request]]:
    """(claim id, request) for each cited sentence long enough to hold several facts — the one
    place that decides it, so the preview shows exactly what is sent."""
    requests = []
    for claim in document.claims:
        if claim.sentence.markers and len(claim.text.split()) >= MIN_WORDS:
            requests.append((claim.id, request_for(claim.text, _previous_sentence(document, claim.id))))
        if len(requests) == MAX_SENTENCES:
            break
    return requests


def request_for(sentence: str, previous: str) -> Request:
    before = f"PREVIOUS SENTENCE: {previous}\n\n" if previous else ""
    return Request(SYSTEM, f"{before}SENTENCE: {sentence}", max_tokens=800)


@dataclass
class Decomposition:
    atoms: dict[str, list[Atom]] = field(default_factory=dict)
    """Claim id → its checked facts (only claims with two or more)."""
    rejected: list[str] = field(default_factory=list)


def decompose(document: Document, client: ClaudeClient) -> Decomposition:
    result = Decomposition()
    for claim_id, request in decomposition_requests(document):
        try:
            answer = client.ask_json(request)
        except AssistError as exc:
            if not is_repeat(exc):  # an outage is said once, not once per sentence
                result.rejected.append(f"{claim_id}: {exc}")
            continue
        atoms, problems = atoms_from_answer(answer, document, claim_id)
        result.rejected.extend(f"{claim_id}: {problem}" for problem in problems)
        if len(atoms) >= 2:
            result.atoms[claim_id] = atoms
    return result


def atoms_from_answer(answer: object, document: Document, claim_id: str) -> tuple[list[Atom], list[str]]:
    """The facts of Claude's answer that pass the checks, with document offsets; and why others failed."""
    facts = answer.get("facts") if isinstance(answer, dict) else None
    if not isinstance(facts, list):
        return [], ["the decomposition had no list of facts"]
    claim = document.claim_by_id[claim_id]
    start, end = claim.sentence.start, claim.sentence.end
    raw = document.text[start:end]
    allowed = set(content_stems(claim.text + " " + _previous_sentence(document, claim_id)))
    atoms: list[Atom] = []
    problems: list[str] = []
    for item in facts[:MAX_FACTS]:
        fact = str(item.get("fact", "")).strip() if isinstance(item, dict) else ""
        span = str(item.get("span", "")).strip() if isinstance(item, dict) else ""
        if not fact or not span:
            problems.append("a fact without its text or span was dropped")
            continue
        where = locate(span, raw)
        if where is None:
            problems.append(f"the span {span!r} is not in the sentence (fact dropped)")
            continue
        added = foreign_content(fact, claim.text, allowed)
        if added:
            problems.append(f"the fact {fact!r} adds {', '.join(added)} (dropped)")
            continue
        atoms.append(Atom(fact, start + where[0], start + where[1]))
    return atoms, problems


def locate(span: str, sentence: str) -> tuple[int, int] | None:
    """Where `span` occurs in `sentence`: same words in order, case and spacing aside; citation
    markers between them are allowed (`in 2024 [1] and`)."""
    words = re.findall(r"\S+", span)
    if not words:
        return None
    gap = r"(?:\s+|\s*\[[^\]\n]{1,40}\]\s*)"
    pattern = gap.join(re.escape(word) for word in words)
    found = re.search(pattern, sentence, re.IGNORECASE)
    return (found.start(), found.end()) if found else None


def foreign_content(fact: str, sentence: str, allowed: set[str]) -> list[str]:
    """What the fact states that the sentence does not: any figure it lacks, and content words
    beyond `NEW_WORDS_ALLOWED` — empty when the fact is the sentence's own."""
    own_figures = quantities(sentence)
    figures = [q.text for q in quantities(fact) if not any(same_figure(q, o) for o in own_figures)]
    new_words = [w for w in dict.fromkeys(content_stems(fact)) if w not in allowed and not w.isdigit()]
    if len(new_words) <= NEW_WORDS_ALLOWED:
        new_words = []
    return [f"the figure “{f}”" for f in figures] + [f"the word “{w}”" for w in new_words]


def _previous_sentence(document: Document, claim_id: str) -> str:
    claims = document.claims
    index = next(i for i, c in enumerate(claims) if c.id == claim_id)
    if index == 0 or claims[index - 1].sentence.block != claims[index].sentence.block:
        return ""
    return claims[index - 1].text
