"""The retrieval and judging stages' work: loading the judge (and Claude, when the writer turned it
on), indexing the sources' passages, then the verdicts, the findings they make and the references
offered for uncited sentences (the local judge's, and Claude's checked proposals)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from citedesk.assist.atoms import decompose
from citedesk.assist.client import DEFAULT_MODEL, ClaudeClient
from citedesk.assist.insert import can_cite, propose_citations
from citedesk.core.claims import Atom
from citedesk.core.document import Document
from citedesk.core.findings import Applicability, Finding, Kind, Verdict
from citedesk.core.summaries import AssistSummary
from citedesk.engine.state import AuditOptions, AuditState
from citedesk.evidence.embed import Embedder, ModelMissing, default_model_dir
from citedesk.evidence.judges.base import Judge
from citedesk.evidence.judges.registry import AUTO, JudgeContext, resolve
from citedesk.evidence.policy import restrained
from citedesk.evidence.suggest import EvidenceResult, Offer, assess_evidence, claude_offer, offer_citations
from citedesk.evidence.verdicts import PreparedSource, prepare
from citedesk.sources.gather import ResolvedSource
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
    local, embedder, _note = make_judge(
        AUTO if chosen.sends_text else options.judge,
        store=store,
        dense=options.dense,
        server=JudgeContext(
            server_url=options.judge_url, server_remote=options.judge_remote, deadline=state.deadline
        ),
    )
    client = _claude_client(options) if options.assist == "claude" or chosen.sends_text else None
    remote: Judge | None = None
    if client is not None and chosen.sends_text:
        remote = chosen.load(JudgeContext(embedder=embedder, store=store, client=client, local=local))
    assist: AssistSummary | None = None
    atoms = None
    if client is not None:
        client.cache = _StoredAnswers(store)
        assist = AssistSummary(client.model)
        if options.assist == "claude":
            atoms = _claude_facts(document, client, assist, state)
    usable = {key: s for key, s in resolved.items() if s.usable}
    prepared = prepare(usable, embedder, state.progress)
    return Judging(remote or local, local, remote, embedder, client, assist, atoms, prepared)


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
    merged = offer_citations(document, findings, offers, claude_offers)
    merged.extend(restrained(result.findings, judge.policy))
    return result.verdicts, merged


def make_embedder(*, store: Store | None = None, dense: bool = True) -> tuple[Embedder | None, str]:
    """The embedding model for retrieval (None with `dense` off or the model not installed, with
    a note saying why)."""
    if not dense:
        return None, ""
    try:
        return Embedder(default_model_dir(), store=store), ""
    except ModelMissing as exc:
        return None, str(exc)


def make_judge(
    spec: str, *, store: Store | None = None, dense: bool = True, server: JudgeContext | None = None
) -> tuple[Judge, Embedder | None, str]:
    """A local judge setting (`heuristic`, `nli`, `nli:NAME_OR_PATH`, `auto`, any registered judge
    that needs no client) → the judge, the embedder for retrieval (None without the embedding
    model) and a note for the report. The judge registry (`judges/registry.py`) says what the
    setting means. `server`: a server judge's URL, consent to a remote one, and the deadline."""
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
