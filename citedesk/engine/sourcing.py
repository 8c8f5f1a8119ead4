"""The audit's work with the store and the sources: opening the store, the source options, the
reference checks in the time budget, the sources' summaries and the writer's review decisions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, replace
from pathlib import Path

from citedesk.core.document.model import Document
from citedesk.core.reports.summaries import Quality, RetractionSummary, SourceSummary
from citedesk.core.review import Decision, Review, document_key
from citedesk.engine.state import AuditOptions, AuditState
from citedesk.errors import NotAStore, StoreError
from citedesk.evidence.reuse import Lru
from citedesk.sources.fetch import FetchPolicy
from citedesk.sources.indexes import LookupConfig
from citedesk.sources.provisions import ProvidedStore
from citedesk.sources.quality import authority, density, recency, relevance
from citedesk.sources.resolved import ResolvedSource, SourceOptions
from citedesk.sources.truth import TruthResult, check_entries, entries_to_check, retraction_summary
from citedesk.sources.truthwords import truth_summary
from citedesk.store import Store, default_store_path


def truth_lookups(options: AuditOptions, max_rate_wait: float = 120.0) -> LookupConfig:
    """How reference truth asks the indexes for `options` (an audit within its time budget,
    `citedesk batch`'s look-ups before its audits: `desk.prefetch`)."""
    return LookupConfig.from_env(
        doi_base=options.doi_base,
        crossref_base=options.crossref_base,
        openalex_base=options.openalex_base,
        mailto=options.contact_email,
        offline=options.offline,
        max_age_days=options.recheck_days,
        negative_max_age_days=None if options.recheck_days is None else min(7.0, options.recheck_days),
        failed_max_age_hours=0.0 if options.refresh else None,  # --refresh asks a failed look-up again
        max_rate_wait=max_rate_wait,
    )


def truth_fetches(options: AuditOptions) -> FetchPolicy:
    """How reference truth fetches (doi.org's landing pages): shorter limits than a source's."""
    return FetchPolicy(
        allow_private_network=options.allow_private_network,
        deadline=min(30.0, options.fetch_timeout),
        read_timeout=min(20.0, options.fetch_timeout),
        connect_timeout=min(10.0, options.fetch_timeout),
    )


def check_truth(
    document: Document, options: AuditOptions, state: AuditState, store: Store
) -> TruthResult | None:
    """The reference checks (Crossref, OpenAlex, doi.org, the retraction snapshot), in the audit's
    time budget."""
    if not options.check_references:
        return None
    state.progress("checking references", 0, 0)
    remaining = state.remaining()
    config = truth_lookups(options, max_rate_wait=120.0 if remaining is None else min(120.0, remaining))
    policy = truth_fetches(options)
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


def retraction_summary_of(truth: TruthResult | None, offline: bool) -> RetractionSummary | None:
    """`offline`: asked not to fetch, or no host answered (then Crossref and OpenAlex were not
    asked either, and the report must not say they were)."""
    if truth is None:
        return None
    return retraction_summary(truth, offline=offline)


def open_store_for(options: AuditOptions, *, required: bool, reviews: bool) -> Store | None:
    """The store, when the audit needs it; without sources to check, a missing or unwritable
    store only means the writer's review decisions are not applied. A store setting that names a
    file CiteDesk did not make is always said (`NotAStore`, exit 2): it is the writer's mistake."""
    if not (required or reviews):
        return None
    if required:
        return open_store(options)
    try:
        return open_store(options)
    except NotAStore:
        raise
    except StoreError:
        return None


def stored_reviews(store: Store, path: str | None) -> dict[str, Review]:
    """The writer's decisions for the document at `path`, by review key."""
    return {
        key: Review(Decision(row["decision"]), row["note"] or "", float(row["at"] or 0.0))
        for key, row in store.reviews(document_key(path)).items()
        if row["decision"] in Decision.__members__.values()
    }


READINGS: Lru[tuple[str, tuple[str, ...]], tuple[float, float]] = Lru(1024)
"""(source text hash, its citing sentences) → (relevance, density): the two quality components that
read the source's whole text, kept per process so a re-audit does not read it again."""


def _quality(
    url: str | None, has_doi: bool, local: bool, date: str | None, text: str, citing: list[str]
) -> Quality:
    """`sources.quality.assess_quality`, with what reads the whole text kept (`READINGS`); authority
    and recency (which counts from today) are worked out every time."""
    key = (text_hash(text), tuple(citing))
    read = READINGS.get(key)
    if read is None:
        read = (relevance(text, citing), density(text))
        READINGS.put(key, read)
    return Quality(
        authority=authority(url, has_doi=has_doi, local=local),
        recency=recency(date),
        relevance=read[0],
        density=read[1],
    )


def text_hash(text: str) -> str:
    import hashlib  # noqa: PLC0415

    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def open_store(options: AuditOptions, *, on_wait: Callable[[str], None] | None = None) -> Store:
    if options.provisions is not None:  # a corpus worker: its private store, its parent's answers over it
        return ProvidedStore(options.store_path or default_store_path(), options.provisions)
    return Store(options.store_path or default_store_path(), on_wait=on_wait)


MADE_HERE = frozenset({"document_dir", "doi_base", "arxiv_base", "crossref_base"})
"""Source options of the same name as an audit's that `source_options` makes itself: the folder
it is given, the services' addresses only where an audit's options set one."""
SAME_NAMED = tuple(
    sorted(({f.name for f in fields(SourceOptions)} & {f.name for f in fields(AuditOptions)}) - MADE_HERE)
)
"""The source options an audit's options give as they are, by name (a setting of both is
declared twice, in `AuditOptions` and `SourceOptions`, never copied by hand)."""


def source_options(
    options: AuditOptions, document_dir: Path | None = None, budget: float | None = None
) -> SourceOptions:
    base = SourceOptions(
        **{name: getattr(options, name) for name in SAME_NAMED},
        document_dir=document_dir,
        budget=budget,
        settled=options.provisions.sources if options.provisions is not None else {},
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
            quality = _quality(
                entry.url, bool(entry.doi), source.status.value == "local", source.date or entry.year,
                source.text, citing.get(key, []),
            )  # fmt: skip
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
