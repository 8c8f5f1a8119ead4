"""The retrieval and judging stages' work: loading the judge (and Claude, when the writer turned it
on), indexing the sources' passages, then the verdicts, the findings they make and the references
offered for uncited sentences (the local judge's, and Claude's checked proposals)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

from citedesk.assist.atoms import decompose
from citedesk.assist.client import DEFAULT_MODEL, ClaudeClient
from citedesk.assist.insert import can_cite, propose_citations
from citedesk.core.document.claims import Atom
from citedesk.core.document.model import Document
from citedesk.core.findings import Applicability, Finding, Kind, Verdict, VerdictLabel
from citedesk.core.reports.summaries import AssistSummary
from citedesk.engine.state import AuditOptions, AuditState
from citedesk.errors import UsageError
from citedesk.evidence.embed import Embedder, ModelMissing, cannot_embed, default_model_dir
from citedesk.evidence.judges.base import Judge, Judgement, Pair
from citedesk.evidence.judges.registry import AUTO, JudgeContext, judge_values, resolve
from citedesk.evidence.policy import restrained
from citedesk.evidence.suggest import EvidenceResult, Offer, assess_evidence, claude_offer, offer_citations
from citedesk.evidence.verdicts import PreparedSource, prepare
from citedesk.sources.resolved import ResolvedSource
from citedesk.store import Store


@dataclass
class Judging:
    """What the retrieval stage loads and indexes for the judging stage."""

    judge: Judge
    local: Judge
    """The local judge: it judges, or stands in for the pairs the chosen judge (Claude) cannot
    answer or must not see, and confirms Claude's citations."""
    remote: Judge | None
    embedder: Embedder | None
    client: ClaudeClient | None
    assist: AssistSummary | None
    atoms: dict[str, list[Atom]] | None
    prepared: dict[str, PreparedSource] = field(default_factory=dict)
    strong: Judge | None = None
    """A cascade's strong judge (`AuditOptions.strong_judge`): it decides what it re-reads."""
    cascade: str = ""
    """What the cascade did, in words ("strong judge X re-read 12 of 14 within 30 s"), once run."""
    embedding: str = ""
    """Why retrieval runs without the embedding model (words only), or "": for the report's notices."""

    @property
    def note(self) -> str:
        """What the report says beside the judge's name: its policy's note, and the cascade's."""
        return "; ".join(n for n in (self.judge.policy.note, self.cascade) if n)


def load_judging(
    document: Document,
    resolved: dict[str, ResolvedSource],
    options: AuditOptions,
    state: AuditState,
    store: Store,
) -> Judging:
    """The judge (and Claude), Claude's atomic facts, and every usable source indexed (embedded)."""
    state.progress("loading the judge")
    chosen = resolve(options.judge)
    settings = judge_values(options.judge_settings)
    local, embedder, embedding = make_judge(
        AUTO if chosen.sends_text else options.judge,
        store=store,
        dense=options.dense,
        server=JudgeContext(settings=settings, deadline=state.deadline),
    )
    client = _claude_client(options) if options.assist == "claude" or chosen.sends_text else None
    remote: Judge | None = None
    if client is not None and chosen.sends_text:
        remote = chosen.load(
            JudgeContext(
                embedder=embedder,
                store=store,
                client=client,
                local=local,
                settings=settings,
            )
        )
    assist: AssistSummary | None = None
    atoms = None
    if client is not None:
        client.cache = _StoredAnswers(store)
        assist = AssistSummary(client.model)
        if options.assist == "claude":
            atoms = _claude_facts(document, client, assist, state)
    usable = {key: s for key, s in resolved.items() if s.usable}
    prepared = prepare(usable, embedder, state.progress)
    strong = _strong_judge(options, state, store, embedder, settings)
    return Judging(
        remote or local, local, remote, embedder, client, assist, atoms, prepared, strong, embedding=embedding
    )


def _strong_judge(
    options: AuditOptions,
    state: AuditState,
    store: Store,
    embedder: Embedder | None,
    settings: dict[str, object],
) -> Judge | None:
    """The cascade's strong judge, loaded beside the fast one. One that sends text to Claude is
    refused: the cascade re-reads without asking for the writer's key or consent again."""
    if not options.strong_judge:
        return None
    spec = resolve(options.strong_judge)
    if spec.off or spec.sends_text:
        raise UsageError(
            f"--strong-judge {options.strong_judge}: a strong judge must be a judge that reads on this "
            "machine or a judge server (not none, not claude)"
        )
    state.progress("loading the strong judge")
    context = JudgeContext(
        embedder=embedder,
        store=store,
        settings=settings,
        deadline=state.deadline,
    )
    return spec.load(context)


def judge_claims(
    document: Document,
    resolved: dict[str, ResolvedSource],
    findings: list[Finding],
    loaded: Judging,
    options: AuditOptions,
    state: AuditState,
    store: Store,
) -> tuple[dict[str, list[Verdict]], list[Finding]]:
    """Verdicts: misattributed, unsupported_number and unsupported_part findings, and the references
    offered for uncited sentences (the local judge's, and Claude's). Returns the verdicts and every
    finding (`findings` with the offers joined, then the judge's own)."""
    judge, local, remote = loaded.judge, loaded.local, loaded.remote
    client, assist = loaded.client, loaded.assist
    uncited = [f for f in findings if f.kind is Kind.UNCITED]
    result = assess_evidence(
        document,
        resolved,
        judge,
        embedder=loaded.embedder,
        store=store,
        uncited=uncited,
        atoms=loaded.atoms,
        progress=state.progress,
        out_of_time=state.out_of_time,
        local=local if remote is not None else None,
        prepared=loaded.prepared,
    )
    claude_offers = {}
    if client is not None and assist is not None:
        if options.assist == "claude" and not can_cite(document):
            assist.rejected.append(
                f"Claude does not suggest citations for {document.dialect.name} documents yet"
            )
        elif options.assist == "claude":
            claude_offers = _claude_citations(document, uncited, result, local, client, assist, state)
        if remote is not None:
            assist.rejected.extend(getattr(remote, "errors", ()))
        assist.usage = client.usage.describe()
    # a judge whose policy lets it only suggest (`Policy.acts`, declared in its registry entry)
    # raises no error, and its fixes are unsafe: suggestions to verify, never applied by `fix`
    offers = (
        result.offers
        if judge.policy.acts
        else {
            k: replace(o, fix=replace(o.fix, applicability=Applicability.UNSAFE) if o.fix else None)
            for k, o in result.offers.items()
        }
    )
    verdicts, fast_findings, strong_findings = result.verdicts, result.findings, []
    if loaded.strong is not None and remote is None:
        cascade = _cascade(document, resolved, result, uncited, loaded, options, state, store)
        verdicts = {k: v for k, v in verdicts.items() if k not in cascade.reread} | cascade.verdicts
        fast_findings = [f for f in fast_findings if f.claim_id not in cascade.reread]
        strong_findings = cascade.findings
        offers = {k: o for k, o in offers.items() if k not in cascade.reread} | _offered(
            cascade.offers, loaded.strong
        )
        loaded.cascade = cascade.describe(loaded.strong.name, options.strong_budget)
    elif loaded.strong is not None:
        loaded.cascade = f"strong judge {loaded.strong.name} not used: Claude judges this audit"
    merged = offer_citations(document, findings, offers, claude_offers)
    merged.extend(restrained(fast_findings, judge.policy))
    if loaded.strong is not None:
        merged.extend(restrained(strong_findings, loaded.strong.policy))
    return verdicts, merged


def _offered(offers: dict[str, Offer], judge: Judge) -> dict[str, Offer]:
    """The offers as `judge`'s policy lets it make them: a judge that may only suggest drives no
    fix that `fix` or **Fix all** would apply (its fixes become unsafe)."""
    if judge.policy.acts:
        return offers
    return {
        k: replace(o, fix=replace(o.fix, applicability=Applicability.UNSAFE) if o.fix else None)
        for k, o in offers.items()
    }


UNSURE = 0.1
"""How close to its threshold a fast judge's support must be for the cascade to re-read the claim."""


@dataclass
class Cascade:
    """What the strong judge re-read, and its verdicts, findings and offers for those claims."""

    wanted: int
    reread: set[str] = field(default_factory=set)
    verdicts: dict[str, list[Verdict]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    offers: dict[str, Offer] = field(default_factory=dict)

    def describe(self, name: str, budget: float) -> str:
        if not self.wanted:
            return f"strong judge {name}: nothing to re-read"
        rest = "" if len(self.reread) == self.wanted else "; the rest keep the fast judge's reading"
        return f"strong judge {name} re-read {len(self.reread)} of {self.wanted} within {budget:g} s{rest}"


def to_reread(result: EvidenceResult, judge: Judge) -> list[str]:
    """The claims that matter, most important first: each one the fast judge raised a finding on
    (before it is shown), each uncited one it drives a fix for (before it is offered), then each
    one whose support lies within `UNSURE` of its threshold."""
    wanted: dict[str, None] = {}
    wanted.update((f.claim_id, None) for f in result.findings if f.claim_id)
    wanted.update((k, None) for k, o in result.offers.items() if o.fix is not None)
    threshold = judge.policy.supported
    wanted.update(
        (claim_id, None)
        for claim_id, verdicts in result.verdicts.items()
        if any(v.label is not VerdictLabel.UNCHECKED and abs(v.score - threshold) <= UNSURE for v in verdicts)
    )
    return list(wanted)


class _Watched:
    """The strong judge, noting whether it left a pair unanswered (`Judgement.unchecked`: its server
    down or its answer unreadable) while it re-read one claim, its citations or an uncited
    sentence's candidates: a strong judge that cannot answer must not turn a checked citation into
    an unchecked one, nor drop the fast judge's findings and offers. Everything else is the judge's."""

    def __init__(self, inner: Judge) -> None:
        self._inner = inner
        self.missed = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def judge(
        self, pairs: Sequence[Pair], progress: Callable[[int, int], None] | None = None
    ) -> list[Judgement]:
        found = self._inner.judge(pairs, progress)
        self.missed = self.missed or any(j.unchecked is not None for j in found)
        return found


def _cascade(
    document: Document,
    resolved: dict[str, ResolvedSource],
    fast: EvidenceResult,
    uncited: list[Finding],
    loaded: Judging,
    options: AuditOptions,
    state: AuditState,
    store: Store,
) -> Cascade:
    """The strong judge re-reads the claims that matter one at a time, on the evidence already
    retrieved, until its budget (or the audit's) runs out. A claim whose re-reading the budget cut
    short keeps the fast judge's reading whole: never half of each."""
    assert loaded.strong is not None
    wanted = [c for c in to_reread(fast, loaded.judge) if c in document.claim_by_id]
    cascade = Cascade(len(wanted))
    ends = time.monotonic() + options.strong_budget
    for done, claim_id in enumerate(wanted):
        state.progress(f"re-reading with {loaded.strong.name}", done, len(wanted))
        stopped = False

        def out_of_time() -> bool:
            nonlocal stopped
            stopped = stopped or time.monotonic() >= ends or state.out_of_time()
            return stopped

        if out_of_time():
            break
        watched = _Watched(loaded.strong)
        result = assess_evidence(
            replace(document, claims=(document.claim_by_id[claim_id],)),
            resolved,
            cast(Judge, watched),
            embedder=loaded.embedder,
            store=store,
            uncited=[f for f in uncited if f.claim_id == claim_id],
            atoms={claim_id: loaded.atoms[claim_id]} if loaded.atoms and claim_id in loaded.atoms else None,
            progress=lambda *_: state.check(),
            out_of_time=out_of_time,
            prepared=loaded.prepared,
        )
        if stopped:
            break
        if watched.missed:
            continue  # its server down or failing: the fast judge's reading stands, as when cut short
        cascade.reread.add(claim_id)
        cascade.verdicts.update(result.verdicts)
        cascade.findings.extend(result.findings)
        cascade.offers.update(result.offers)
    return cascade


def make_embedder(*, store: Store | None = None, dense: bool = True) -> tuple[Embedder | None, str]:
    """The embedding model for retrieval (None with `dense` off or the model not installed, with
    a note saying why)."""
    if not dense:
        return None, ""
    try:
        folder = default_model_dir()
    except ModelMissing as exc:
        return None, str(exc)
    why = cannot_embed(folder)
    return (None, why) if why else (Embedder(folder, store=store), "")


def make_judge(
    spec: str, *, store: Store | None = None, dense: bool = True, server: JudgeContext | None = None
) -> tuple[Judge, Embedder | None, str]:
    """A local judge setting (`heuristic`, `nli`, `nli:NAME_OR_PATH`, `auto`, any registered judge
    that needs no client) → the judge, the embedder for retrieval (None without the embedding
    model) and a note for the report. The judge registry (`judges/registry.py`) says what the
    setting means. `server`: the judges' own settings (a server's URL …) and the deadline."""
    choice = resolve(spec)
    embedder, note = make_embedder(store=store, dense=dense)
    context = replace(server or JudgeContext(), embedder=embedder, store=store)
    return choice.load(context), embedder, note


class _StoredAnswers:
    """Claude's usable answers kept in the store, so a re-audit sends only what changed."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def get(self, key: str) -> str | None:
        return self.store.get_judgement(key, "claude-answer")

    def put(self, key: str, answer: str) -> None:
        self.store.put_judgements("claude-answer", {key: answer})


def _claude_facts(
    document: Document, client: ClaudeClient, assist: AssistSummary, state: AuditState
) -> dict[str, list[Atom]]:
    """Claude's checked decomposition of long cited sentences into atomic facts."""
    state.progress("asking Claude for atomic facts")
    decomposition = decompose(document, client)
    assist.facts = dict(decomposition.atoms)
    assist.rejected.extend(decomposition.rejected)
    return decomposition.atoms


def judging_off(options: AuditOptions) -> bool:
    return resolve(options.judge).off


def _claude_client(options: AuditOptions) -> ClaudeClient:
    return ClaudeClient(options.assist_model or DEFAULT_MODEL)


def _claude_citations(
    document: Document,
    uncited: list[Finding],
    result: EvidenceResult,
    local: Judge,
    client: ClaudeClient,
    assist: AssistSummary,
    state: AuditState,
) -> dict[str, Offer]:
    """Claude proposes markers for uncited claims; every proposal passes the prose check and the
    local judge before it becomes an offer (shown before the local judge's own suggestion)."""
    open_claims = [f.claim_id for f in uncited if f.claim_id]
    state.progress("asking Claude", 0, len(open_claims))
    confirmations: dict[tuple[str, str], Verdict] = {}

    def confirmed(claim_id: str, key: str) -> bool:
        found = result.confirm(claim_id, key, local)
        if found is not None:
            confirmations[(claim_id, key)] = found[1]
        return found is not None

    proposed = propose_citations(document, open_claims, client, confirmed)
    assist.suggested = proposed.suggested
    assist.rejected.extend(proposed.rejected)
    assist.passes = proposed.passes
    offers = {}
    for claim_id, keys in proposed.suggested.items():
        offer = claude_offer(document, claim_id, keys, confirmations.get((claim_id, keys[0])))
        if offer is not None:
            offers[claim_id] = offer
    return offers
