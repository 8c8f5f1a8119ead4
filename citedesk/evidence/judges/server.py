"""The local LLM server judge: `--judge server:MODEL`, answered by Ollama, llama.cpp's server, LM
Studio or vLLM through their OpenAI-compatible chat completions (`sources.llmserver`).

It asks MiniCheck's question — is the claim consistent with the document, Yes or No — in the
prompt Bespoke-MiniCheck was trained with (the system text and `Document: …\\nClaim: …`, as
Ollama's `bespoke-minicheck` example gives them), so `ollama pull bespoke-minicheck` and
`--judge server:bespoke-minicheck` is the whole setup. The score is P(Yes): from the first token's
log-probabilities when the server returns them (Yes against No), else 1 or 0 from the answer.

The top retrieved windows are read together, as one document: an LLM reads a long context, and one
request per citation costs a third of one per window. A citation the server gives no verdict for —
it is down, timed out twice, answered something that is neither Yes nor No, or an answer that is
no chat completion (over 1 MB, nested too deep, impossible log-probabilities) — is not checked
("judge server unreachable", with what happened), never a finding. The server must be on this
machine unless `--judge-remote` is given; then every report says, beside the judge's name, that
source text was sent to that host.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

from citedesk.core.coverage import NotChecked
from citedesk.core.judge_settings import SERVER_REMOTE, SERVER_SETTINGS, SERVER_URL, is_loopback
from citedesk.errors import UsageError
from citedesk.evidence.judges.base import Judgement, Pair
from citedesk.evidence.judges.spec import JudgeContext, JudgeKind, JudgeSpec, register
from citedesk.evidence.policy import Policy
from citedesk.sources.llmserver import (
    DEFAULT_URL,
    LOGPROB_SLACK,
    ChatClient,
    Completion,
    ServerAnswerError,
    ServerUnreachable,
    check_server_url,
)

SYSTEM = (
    "Determine whether the provided claim is consistent with the corresponding document. Consistency "
    "in this context implies that all information presented in the claim is substantiated by the "
    "document. If not, it should be considered inconsistent. Please assess the claim's consistency "
    'with the document by responding with either "Yes" or "No".'
)
"""Bespoke-MiniCheck's system prompt (as Ollama's bespoke-minicheck example states it)."""
MAX_DOCUMENT_CHARS = 24_000
"""The evidence sent per request, at most (about 6,000 tokens: within a small server's context)."""
SERVER_POLICY = Policy(reads_together=True, note="")


def messages_for(pair: Pair) -> list[dict[str, str]]:
    """MiniCheck's question about one (claim, evidence) pair."""
    document = pair.evidence[:MAX_DOCUMENT_CHARS]
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"Document: {document}\nClaim: {pair.claim}"},
    ]


def support_from(completion: Completion) -> float | None:
    """P(Yes) from the first token's log-probabilities (Yes against No, case and spaces aside) when
    all are log-probabilities (at most 0), else 1.0 or 0.0 from the answer's first word; None when
    the answer is neither."""
    # a log-probability above 0 (or NaN) is none, and makes the others suspect: the answer's word
    # decides (the client refuses such answers; e^1000 would overflow)
    if completion.top_logprobs and all(p <= LOGPROB_SLACK for _, p in completion.top_logprobs):
        mass = {"yes": 0.0, "no": 0.0}
        seen: set[str] = set()
        for token, logprob in completion.top_logprobs:
            word = token.strip().lower()
            if word in mass and token not in seen:
                seen.add(token)
                mass[word] += math.exp(min(logprob, 0.0))
        if mass["yes"] + mass["no"] > 0:
            return mass["yes"] / (mass["yes"] + mass["no"])
    first = completion.text.strip().lstrip("*\"'").lower()
    if first.startswith("yes"):
        return 1.0
    if first.startswith("no"):
        return 0.0
    return None


class ServerJudge:
    """Each pair is one chat completion; a pair without a verdict is not checked, and says why."""

    def __init__(self, model: str, client: ChatClient, *, remote: bool = False) -> None:
        self.client = client
        self.model = model
        self.name = f"server:{model}"
        host = urlsplit(client.url).netloc
        note = (
            f"source text was sent to {host} (--judge-remote)"
            if remote and not is_loopback(client.url)
            else ""
        )
        self.policy = Policy(reads_together=True, note=note, fingerprint=host)
        self.errors: list[str] = []

    def judge(
        self, pairs: Sequence[Pair], progress: Callable[[int, int], None] | None = None
    ) -> list[Judgement]:
        results = []
        for done, pair in enumerate(pairs, 1):
            results.append(self._one(pair))
            if progress is not None:
                progress(done, len(pairs))
        return results

    def _one(self, pair: Pair) -> Judgement:
        try:
            completion = self.client.complete(self.model, messages_for(pair))
        except ServerUnreachable as exc:
            if not exc.repeated:
                self.errors.append(str(exc))
            return self._unchecked(str(exc))
        except ServerAnswerError as exc:
            self.errors.append(str(exc))
            return self._unchecked(str(exc))
        support = support_from(completion)
        if support is None:
            said = " ".join(completion.text.split())[:40]
            return self._unchecked(f"unreadable answer {said!r}")
        return Judgement(support, 0.0)

    def _unchecked(self, detail: str) -> Judgement:
        # `judge` set: a judgement the server did not give is never cached
        return Judgement(0.0, 0.0, judge=self.name, unchecked=(NotChecked.JUDGE_UNREACHABLE.value, detail))


def _load(context: JudgeContext) -> ServerJudge:
    model = context.argument.strip()
    if not model:
        raise UsageError("--judge server needs the server's model name: --judge server:MODEL")
    remote = context.settings.get(SERVER_REMOTE) is True
    url = check_server_url(str(context.settings.get(SERVER_URL) or DEFAULT_URL), remote=remote)
    client = ChatClient(url, remote=remote, deadline=context.deadline)
    return ServerJudge(model, client, remote=remote)


SPEC = register(
    JudgeSpec(
        "server",
        JudgeKind.SERVER,
        "Local LLM server (Ollama, llama.cpp, LM Studio, vLLM)",
        _load,
        SERVER_POLICY,
        argument="MODEL",
        argument_help="a model the server at --judge-url runs, e.g. bespoke-minicheck",
        listed=False,
        settings=SERVER_SETTINGS,
    )
)
