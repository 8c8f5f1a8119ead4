"""`audit()`: the stages in order. The CLI and the window both call this, and nothing else.

`AuditState` is the token handed to a running audit: it carries progress and partial results out
and a cancellation request in. A cancelled audit raises `Cancelled`, which callers never show as
an error.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from citedesk.assist import judge as _claude_judge  # noqa: F401 - registers the Claude judge
from citedesk.core.checks import structural_findings
from citedesk.core.coverage import coverage_of
from citedesk.core.document import Document, document_of, parse_document, structure_without_bibliography
from citedesk.core.findings import Finding, Verdict
from citedesk.core.report import Report
from citedesk.core.review import Review
from citedesk.core.summaries import AssistSummary, RetractionSummary, SourceSummary
from citedesk.errors import Cancelled, StoreError

if TYPE_CHECKING:
    from citedesk.assist.client import ClaudeClient
    from citedesk.core.claims import Atom
    from citedesk.evidence.judges.base import Judge
    from citedesk.evidence.suggest import EvidenceResult, Offer
    from citedesk.sources.gather import ResolvedSource, SourceOptions
    from citedesk.sources.truth import TruthResult
    from citedesk.store import Store

ProgressCallback = Callable[[str, int, int], None]


@dataclass(frozen=True)
class AuditOptions:
    offline: bool = False
    check_sources: bool = True
    """Resolve every reference (local files, cache, network unless offline)."""
    sources_dir: Path | None = None
    allow_private_network: bool = False
    fetch_timeout: float = 60.0
    """Seconds after which a source that has not arrived whole is given up (slow or stuck servers)."""
    time_budget: float | None = None
    """Seconds for the whole audit — sources and judging together (`--timeout`); what is not done
    by then is reported as not checked ("time budget ran out"), never guessed. None: no limit."""
    allow_local_paths: bool = False
    """Read files a document names wherever they are (`--allow-local-path`); else only from the
    document's folder, the sources folder, `local_roots`, the folders of the bibliographies the
    writer gave, and Zotero's (`sources.local`)."""
    local_roots: tuple[Path, ...] = ()
    """Folders the writer allowed besides those (`--allow-folder`, the window's settings). What a
    document names never adds to them."""
    bibliographies: tuple[Path, ...] = ()
    """Bibliography files (`--bibliography`, the window's per-document setting) besides those the
    document's front matter names. A document with any bibliography is read as a pandoc document
    (`[@key]` citations of its entries); without one, as a numbered document."""
    zotero_dir: Path | None = None
    """Zotero's data folder, for the attachments of cited keys (`--zotero-dir`); None: the usual
    folder (`~/Zotero`) when it holds a library. Always read-only."""
    zotero: bool = True
    """Look for attachments in Zotero at all (`--no-zotero` turns it off)."""
    document_dir: Path | None = None
    """The folder an untitled document's relative names (its bibliography, its source files)
    resolve against: the folder of the sample it is a copy of. A document with a path uses its own."""
    refresh: bool = False
    refresh_keys: frozenset[str] = frozenset()
    """Fetch only these references again (the window's per-source Refresh)."""
    attached: tuple[tuple[str, Path], ...] = ()
    """(reference key, file): files the writer attached as references' content; they win."""
    store_path: Path | None = None
    doi_base: str | None = None
    arxiv_base: str | None = None
    crossref_base: str | None = None
    openalex_base: str | None = None
    contact_email: str | None = None
    """Sent to Crossref and OpenAlex with every look-up (their polite pools); None: not sent."""
    recheck_days: float | None = None
    """Ask the indexes again about a work once their cached answer is this old (None: 30 days;
    "no such work" answers at most 7)."""
    check_references: bool = True
    """Check each reference with a DOI or no identifier against Crossref, OpenAlex, doi.org and the
    retraction snapshot (with the sources)."""
    judge: str = "auto"
    """A judge setting, as the judge registry reads it (`evidence/judges/registry.py`): heuristic,
    nli, nli:MODEL, claude, any judge registered, auto (an installed default NLI model, else
    heuristic) or none."""
    dense: bool = True
    """Use the embedding model for retrieval and the heuristic judge when it is installed."""
    reviews: bool = True
    """Honour the writer's review decisions: false alarms are dismissed, not reported."""
    assist: str = "none"
    """`claude`: the writer turned on Claude assistance (their key); `none`: nothing leaves the machine."""
    assist_model: str | None = None


@dataclass
class AuditState:
    """Progress out, cancellation in. Thread-safe: a worker runs the audit, the GUI polls or listens."""

    on_progress: ProgressCallback | None = None
    _cancel: threading.Event = field(default_factory=threading.Event)
    stage: str = ""
    done: int = 0
    total: int = 0
    stage_seconds: dict[str, float] = field(default_factory=dict)
    """Wall time spent in each stage so far, by stage name (for benchmarks and the report)."""
    deadline: float | None = None
    """`time.monotonic()` by which the audit must be done (its time budget), or None."""
    _stage_started: float = field(default_factory=time.perf_counter)

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check(self) -> None:
        if self.cancelled:
            raise Cancelled

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def remaining(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def progress(self, stage: str, done: int = 0, total: int = 0) -> None:
        """Report progress; only real changes are passed on, so callers are never flooded."""
        self.check()
        if (stage, done, total) == (self.stage, self.done, self.total):
            return
        if stage != self.stage:
            now = time.perf_counter()
            if self.stage:
                self.stage_seconds[self.stage] = (
                    self.stage_seconds.get(self.stage, 0.0) + now - self._stage_started
                )
            self._stage_started = now
        self.stage, self.done, self.total = stage, done, total
        if self.on_progress is not None:
            self.on_progress(stage, done, total)


def audit_text(
    text: str, path: str | None = None, options: AuditOptions | None = None, state: AuditState | None = None
) -> Report:
    """Audit a document's text: a pandoc document (one that names a bibliography, or is given one
    in `options.bibliographies`) against its bibliography's entries, any other as numbered."""
    state = state or AuditState()
    options = options or AuditOptions()
    state.progress("parsing")
    from citedesk.sources.citeworks import (  # noqa: PLC0415 - YAML and Zotero only when needed
        EMPTY_BIBLIOGRAPHY_NOTICE,
        NO_BIBLIOGRAPHY_NOTICE,
        cited_works,
    )

    named = Path(path) if path else (options.document_dir / "Untitled" if options.document_dir else None)
    cited = cited_works(
        text,
        named,
        options.bibliographies,
        zotero_dir=options.zotero_dir,
        use_zotero=options.zotero,
        roots=(options.sources_dir, *options.local_roots),
        anywhere=options.allow_local_paths,
    )
    if cited is None:
        structure = structure_without_bibliography(text)
        report = audit(document_of(structure, path), options, state)
        if not structure.dialect.works_in_text:  # it cites keys of a bibliography it does not name
            report.notices.insert(0, NO_BIBLIOGRAPHY_NOTICE)
        return report
    document = parse_document(text, path, cited.works)
    report = audit(document, replace(options, local_roots=(*options.local_roots, *cited.folders)), state)
    report.notices[:0] = list(cited.notices)
    if not cited.works and document.markers:
        report.notices.append(EMPTY_BIBLIOGRAPHY_NOTICE)
    return report


def audit(document: Document, options: AuditOptions, state: AuditState) -> Report:
    if options.time_budget is not None and state.deadline is None:
        state.deadline = time.monotonic() + options.time_budget
    findings = structural_findings(document)
    summaries: list[SourceSummary] = []
    judge_name: str | None = None
    judge_note = ""
    verdicts: dict[str, list[Verdict]] = {}
    hashes: dict[str, str] = {}
    assist: AssistSummary | None = None
    reviews: dict[str, Review] = {}
    notices: list[str] = []
    resolved: dict[str, ResolvedSource] | None = None
    from citedesk.sources.citeworks import works_to_check  # noqa: PLC0415

    truth: TruthResult | None = None
    targets = (
        works_to_check(document, options.sources_dir, frozenset(k for k, _ in options.attached))
        if options.check_sources
        else []
    )  # (it stats local copies, maybe of a whole library: only when sources are read)
    check_sources = options.check_sources and bool(targets)
    # one store session for the whole audit: sources, caches and the writer's review decisions
    store = _open_store_for(options, required=check_sources, reviews=options.reviews and bool(findings))
    if store is not None:
        notices.extend(store.notices)
    try:
        if check_sources:
            assert store is not None
            from citedesk.sources.checks import source_findings  # noqa: PLC0415 - httpx loads only when needed
            from citedesk.sources.gather import gather_sources  # noqa: PLC0415

            state.progress("fetching sources", 0, len(targets))
            resolved = gather_sources(
                targets,
                source_options(
                    options,
                    Path(document.path).resolve().parent if document.path else options.document_dir,
                    state.remaining(),
                ),
                store,
                cancelled=lambda: state.cancelled,
                progress=lambda done, total: state.progress("fetching sources", done, total),
            )
            state.check()
            truth = _check_truth(document, options, state, store)
            checks = truth.checks if truth is not None else {}
            findings.extend(source_findings(document, resolved, checks))
            if truth is not None:
                from citedesk.sources.truth import truth_findings  # noqa: PLC0415

                findings.extend(truth_findings(document, checks))
            summaries = describe_sources(document, resolved, truth)
            hashes = {key: _text_hash(source.text) for key, source in resolved.items() if source.text}
            if any(s.usable for s in resolved.values()) and not _judging_off(options):
                judge, verdicts, findings, assist = _judge(
                    document, resolved, findings, options, state, store
                )
                judge_name, judge_note = judge.name, judge.policy.note
            findings.sort(key=lambda f: (f.start, f.kind.value))
        if options.reviews and findings and store is not None:
            reviews = stored_reviews(store, document.path)
    finally:
        if store is not None:
            store.close()
    state.progress("checking citations")
    from citedesk.sources.coverage import every_citation, why_not_checked_in  # noqa: PLC0415

    verdicts = every_citation(document, verdicts, why_not_checked_in(document, resolved, state.out_of_time()))
    offline = options.offline or any(s.status.value == "offline" for s in (resolved or {}).values())
    unreached = not offline and truth is not None and truth.reached_no_index()
    if offline and not options.offline and resolved:
        notices.append(
            "No host could be reached: this machine seems to be offline. Links are not reported as "
            "dead; the citations of sources not in the cache are listed as not checked."
        )
    elif unreached:
        notices.append(
            "No index could be reached (Crossref, doi.org, OpenAlex): the references were not looked up, "
            "so retractions and metadata were not checked."
        )
    report = Report(
        document=document,
        findings=findings,
        sources=summaries,
        verdicts=verdicts,
        judge=judge_name,
        source_hashes=hashes,
        assist=assist,
        notices=notices,
        coverage=coverage_of(document, verdicts, offline=offline),
        judge_note=judge_note,
        retractions=_retraction_summary(truth, offline or unreached),
    )
    if reviews:
        report.apply_reviews(reviews)
    state.progress("done")
    report.timings = dict(state.stage_seconds)
    return report


def _check_truth(
    document: Document, options: AuditOptions, state: AuditState, store: Store
) -> TruthResult | None:
    """The reference checks (Crossref, OpenAlex, doi.org, the retraction snapshot), in the audit's
    time budget."""
    if not options.check_references:
        return None
    from citedesk.sources.fetch import FetchPolicy  # noqa: PLC0415
    from citedesk.sources.indexes import LookupConfig  # noqa: PLC0415
    from citedesk.sources.truth import check_entries, entries_to_check  # noqa: PLC0415

    state.progress("checking references", 0, 0)
    remaining = state.remaining()
    config = LookupConfig.from_env(
        doi_base=options.doi_base,
        crossref_base=options.crossref_base,
        openalex_base=options.openalex_base,
        mailto=options.contact_email,
        offline=options.offline,
        max_age_days=options.recheck_days,
        negative_max_age_days=None if options.recheck_days is None else min(7.0, options.recheck_days),
        max_rate_wait=120.0 if remaining is None else min(120.0, remaining),
    )
    policy = FetchPolicy(
        allow_private_network=options.allow_private_network,
        deadline=min(30.0, options.fetch_timeout),
        read_timeout=min(20.0, options.fetch_timeout),
        connect_timeout=min(10.0, options.fetch_timeout),
    )
    truth = check_entries(
        entries_to_check(document),
        config,
        store,
        fetch_policy=policy,
        cancelled=lambda: state.cancelled or state.out_of_time(),
        progress=lambda done, total: state.progress("checking references", done, total),
    )
    state.check()
    return truth.ran_out() if state.out_of_time() else truth


def _retraction_summary(truth: TruthResult | None, offline: bool) -> RetractionSummary | None:
    """`offline`: asked not to fetch, or no host answered (then Crossref and OpenAlex were not
    asked either, and the report must not say they were)."""
    if truth is None:
        return None
    from citedesk.sources.truth import retraction_summary  # noqa: PLC0415

    return retraction_summary(truth, offline=offline)


def _open_store_for(options: AuditOptions, *, required: bool, reviews: bool) -> Store | None:
    """The store, when the audit needs it; without sources to check, a missing or unwritable
    store only means the writer's review decisions are not applied."""
    if not (required or reviews):
        return None
    if required:
        return open_store(options)
    try:
        return open_store(options)
    except StoreError:
        return None


def stored_reviews(store: Store, path: str | None) -> dict[str, Review]:
    """The writer's decisions for the document at `path`, by review key."""
    from citedesk.core.review import Decision, document_key  # noqa: PLC0415

    return {
        key: Review(Decision(row["decision"]), row["note"] or "", float(row["at"] or 0.0))
        for key, row in store.reviews(document_key(path)).items()
        if row["decision"] in Decision.__members__.values()
    }


def _text_hash(text: str) -> str:
    import hashlib  # noqa: PLC0415

    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def _judge(
    document: Document,
    resolved: dict[str, ResolvedSource],
    findings: list[Finding],
    options: AuditOptions,
    state: AuditState,
    store: Store,
) -> tuple[Judge, dict[str, list[Verdict]], list[Finding], AssistSummary | None]:
    """Retrieval and verdicts: misattributed, unsupported_number and unsupported_part findings,
    and the references offered for uncited sentences (the local judge's, and Claude's)."""
    from citedesk.core.findings import Kind  # noqa: PLC0415
    from citedesk.evidence.judges.registry import AUTO, JudgeContext, resolve  # noqa: PLC0415
    from citedesk.evidence.models import make_judge  # noqa: PLC0415
    from citedesk.evidence.policy import restrained  # noqa: PLC0415
    from citedesk.evidence.suggest import assess_evidence, offer_citations  # noqa: PLC0415

    state.progress("loading the judge")
    chosen = resolve(options.judge)
    # the local judge: it judges, or — when the chosen judge sends text (Claude) — it stands in for
    # the pairs that judge cannot answer or must not see, and confirms Claude's citations
    local, embedder, _note = make_judge(
        AUTO if chosen.sends_text else options.judge, store=store, dense=options.dense
    )
    client = _claude_client(options) if options.assist == "claude" or chosen.sends_text else None
    remote: Judge | None = None
    if client is not None and chosen.sends_text:
        remote = chosen.load(JudgeContext(embedder=embedder, store=store, client=client, local=local))
    judge: Judge = remote or local
    assist: AssistSummary | None = None
    atoms = None
    if client is not None:
        client.cache = _StoredAnswers(store)
        assist = AssistSummary(client.model)
        if options.assist == "claude":
            atoms = _claude_facts(document, client, assist, state)
    uncited = [f for f in findings if f.kind is Kind.UNCITED]
    result = assess_evidence(
        document,
        resolved,
        judge,
        embedder=embedder,
        store=store,
        uncited=uncited,
        atoms=atoms,
        progress=state.progress,
        out_of_time=state.out_of_time,
        local=local if remote is not None else None,
    )
    claude_offers = {}
    if client is not None and assist is not None:
        from citedesk.assist.insert import can_cite  # noqa: PLC0415

        if options.assist == "claude" and not can_cite(document):
            assist.rejected.append(
                f"Claude does not suggest citations for {document.dialect.name} documents yet"
            )
        elif options.assist == "claude":
            claude_offers = _claude_citations(document, uncited, result, local, client, assist, state)
        if remote is not None:
            assist.rejected.extend(getattr(remote, "errors", ()))
        assist.usage = client.usage.describe()
    # a judge whose policy lets it only suggest names the better reference but offers no fix, and
    # raises no error (`Policy.acts`, declared in its registry entry)
    offers = (
        result.offers if judge.policy.acts else {k: replace(o, fix=None) for k, o in result.offers.items()}
    )
    merged = offer_citations(document, findings, offers, claude_offers)
    merged.extend(restrained(result.findings, judge.policy))
    return judge, result.verdicts, merged, assist


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
    from citedesk.assist.atoms import decompose  # noqa: PLC0415

    state.progress("asking Claude for atomic facts")
    decomposition = decompose(document, client)
    assist.facts = dict(decomposition.atoms)
    assist.rejected.extend(decomposition.rejected)
    return decomposition.atoms


def _judging_off(options: AuditOptions) -> bool:
    from citedesk.evidence.judges.registry import resolve  # noqa: PLC0415

    return resolve(options.judge).off


def _claude_client(options: AuditOptions) -> ClaudeClient:
    from citedesk.assist.client import DEFAULT_MODEL, ClaudeClient  # noqa: PLC0415

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
    from citedesk.assist.insert import propose_citations  # noqa: PLC0415
    from citedesk.evidence.suggest import claude_offer  # noqa: PLC0415

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


def open_store(options: AuditOptions, *, on_wait: Callable[[str], None] | None = None) -> Store:
    from citedesk.store import Store, default_store_path  # noqa: PLC0415

    return Store(options.store_path or default_store_path(), on_wait=on_wait)


def source_options(
    options: AuditOptions, document_dir: Path | None = None, budget: float | None = None
) -> SourceOptions:
    from citedesk.sources.fetch import FetchPolicy  # noqa: PLC0415
    from citedesk.sources.gather import SourceOptions  # noqa: PLC0415

    base = SourceOptions(
        offline=options.offline,
        sources_dir=options.sources_dir,
        document_dir=document_dir,
        refresh=options.refresh,
        refresh_keys=options.refresh_keys,
        attached=options.attached,
        local_roots=options.local_roots,
        allow_local_paths=options.allow_local_paths,
        budget=budget,
        fetch=FetchPolicy(
            allow_private_network=options.allow_private_network,
            deadline=options.fetch_timeout,
            read_timeout=min(20.0, options.fetch_timeout),
            connect_timeout=min(10.0, options.fetch_timeout),
        ),
    )
    if options.doi_base:
        base = replace(base, doi_base=options.doi_base)
    if options.arxiv_base:
        base = replace(base, arxiv_base=options.arxiv_base)
    if options.crossref_base:
        base = replace(base, crossref_base=options.crossref_base)
    return base


def describe_sources(
    document: Document, resolved: dict[str, ResolvedSource], truth: TruthResult | None = None
) -> list[SourceSummary]:
    from citedesk.sources.quality import assess_quality  # noqa: PLC0415
    from citedesk.sources.truthwords import truth_summary  # noqa: PLC0415

    checks = truth.checks if truth is not None else {}
    citing: dict[str, list[str]] = {}
    for claim in document.claims:
        for index in claim.sentence.markers:
            for key in document.markers[index].keys:
                citing.setdefault(key, []).append(claim.text)
    entries = document.work_by_key
    in_text = document.dialect.works_in_text  # a reference list's entries, or a bibliography's
    described = []
    for key, source in resolved.items():
        if not in_text and key not in document.markers_citing:
            continue  # an uncited candidate for swaps: not one of the document's sources
        entry = entries[key]
        # a bibliography entry names its work exactly: its title and authors are what the writer
        # knows it by (a numbered entry's title is a guess from its text: the source's wins)
        title = source.title if in_text else (entry.title or source.title)
        quality = None
        if source.usable:
            quality = assess_quality(
                url=entry.url,
                has_doi=bool(entry.doi),
                local=source.status.value == "local",
                date=source.date or entry.year,
                text=source.text,
                citing_sentences=citing.get(key, []),
            )
        described.append(
            SourceSummary(
                key=key,
                status=source.status.value,
                location=source.location,
                title=title,
                passages=len(source.passages),
                cached=source.from_cache,
                message=source.message,
                detail=source.detail,
                quality=quality,
                authors=None if in_text else entry.authors,
                check=truth_summary(checks[key]) if key in checks else None,
            )
        )
    return described
