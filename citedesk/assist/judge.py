"""A Claude judge with the same interface as the local ones, whose quotes are checked verbatim.

Claude labels each (claim, evidence) pair entailment / neutral / contradiction with a confidence
and a supporting quote. The quote must occur word for word in the evidence (whitespace aside);
when it does not, an entailment is downgraded to neutral: the model cannot support a claim with
words the source does not contain.

It registers itself as the `claude` judge: a server judge that sends text, so it is chosen only with
the writer's consent and key, never by `auto`, and the audit hands it its client and a local judge.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from citedesk.assist.client import ClaudeClient, Request, is_repeat
from citedesk.core.reading import parse_document
from citedesk.errors import AssistError, UsageError
from citedesk.evidence.judges.base import MODEL_POLICY, Judge, Judgement, Pair
from citedesk.evidence.judges.registry import JudgeContext, JudgeKind, JudgeSpec, register

SYSTEM = (
    "You check citations. Given a CLAIM and an EVIDENCE passage from the cited source, decide "
    "whether the evidence entails the claim, is neutral, or contradicts it. Answer with JSON only: "
    '{"label": "entailment" | "neutral" | "contradiction", "confidence": 0..1, '
    '"quote": "the exact words of the evidence that decide it, copied verbatim"}.'
)


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def quote_is_verbatim(quote: str, evidence: str) -> bool:
    return bool(quote.strip()) and _squash(quote) in _squash(evidence)


def judgement_from_answer(answer: object, evidence: str) -> Judgement:
    """Turn Claude's JSON into a Judgement, checking the label, the confidence and the quote."""
    if not isinstance(answer, dict):
        raise AssistError(f"expected a JSON object, got {type(answer).__name__}")
    label = str(answer.get("label", "")).strip().lower()
    if label not in ("entailment", "neutral", "contradiction"):
        raise AssistError(f"unknown label {label!r}")
    try:
        confidence = min(1.0, max(0.0, float(answer.get("confidence", 0.5))))
    except (TypeError, ValueError):
        raise AssistError("the confidence is not a number") from None
    quote = str(answer.get("quote") or "")
    verbatim = quote_is_verbatim(quote, evidence)
    if label == "entailment" and not verbatim:
        label, confidence = "neutral", 0.5  # downgraded: its quote is not in the source
    if label == "entailment":
        return Judgement(support=confidence, contradiction=0.0, quote=quote)
    if label == "contradiction":
        return Judgement(support=0.0, contradiction=confidence, quote=quote if verbatim else None)
    return Judgement(support=min(0.3, 1 - confidence), contradiction=0.0, quote=None)


def request_for(pair: Pair) -> Request:
    return Request(SYSTEM, f"CLAIM: {pair.claim}\n\nEVIDENCE: {pair.evidence}", max_tokens=400)


class ClaudeJudge:
    """Claude judges each pair; a pair it cannot answer (refused, malformed, unreachable) is judged
    by the local `fallback` instead and shown under that judge's name — an outage never turns into
    "misattributed" everywhere."""

    def __init__(self, client: ClaudeClient, fallback: Judge | None = None) -> None:
        self.client = client
        self.fallback = fallback
        self.name = f"claude:{client.model}"
        self.policy = MODEL_POLICY
        self.errors: list[str] = []

    def judge(
        self, pairs: Sequence[Pair], progress: Callable[[int, int], None] | None = None
    ) -> list[Judgement]:
        results: list[Judgement | None] = []
        failed: list[int] = []
        for done, pair in enumerate(pairs, 1):
            try:
                results.append(judgement_from_answer(self.client.ask_json(request_for(pair)), pair.evidence))
            except AssistError as exc:  # one bad answer is never a crash, nor a verdict
                if not is_repeat(exc):  # an outage is said once, not once per pair
                    self.errors.append(str(exc))
                results.append(None)
                failed.append(done - 1)
            if progress is not None:
                progress(done, len(pairs))
        stand_ins = self.fallback.judge([pairs[i] for i in failed]) if self.fallback and failed else []
        for i, stand_in in zip(failed, stand_ins, strict=True):
            results[i] = replace(stand_in, judge=self.fallback.name if self.fallback else None)
        return [
            r if r is not None else Judgement(0.0, 0.0, judge="none (Claude did not answer)") for r in results
        ]


def _load(context: JudgeContext) -> ClaudeJudge:
    if context.client is None:
        raise UsageError("the Claude judge needs Claude assistance's client (your Anthropic key)")
    return ClaudeJudge(context.client, fallback=context.local)


SPEC = register(
    JudgeSpec(
        "claude",
        JudgeKind.SERVER,
        "Claude (sends the cited sentences and passages, with your key)",
        _load,
        MODEL_POLICY,
        sends_text=True,
        listed=False,
    )
)


def what_would_be_judged(text: str, path: str | None = None) -> tuple[int, str]:
    """(cited sentence × reference pairs, the requests' text with the evidence left as a slot) that
    the Claude judge would send for `text`. The passages are known only after retrieval, so the
    preview names where they come from; the evidence pane shows them once the audit has run."""
    from citedesk.evidence.verdicts import MODEL_WINDOWS  # noqa: PLC0415 - numpy: not at start-up (the pipeline imports this module)

    document = parse_document(text, path)
    references = {ref.key for ref in document.entries}
    pairs = [
        (claim, key) for claim in document.claims for key in document.cited_keys(claim) if key in references
    ]
    shown = [
        request_for(
            Pair(claim.text, f"<one of the {MODEL_WINDOWS} best passages of the source of [{key}]>")
        ).preview()
        for claim, key in pairs
    ]
    if pairs:
        shown.append(
            f"(One request per passage, up to {MODEL_WINDOWS} per pair; where a citation fails, the "
            "document's other references are asked about in the same way to find a better one. "
            "Files read from outside the document's folder are never sent: they are judged here.)"
        )
    return len(pairs), "\n".join(shown)
