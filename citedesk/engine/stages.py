"""The audit as named stages, run in order on one `AuditContext`: structure, sources, reference
truth, retrieval, judging, findings. Each declares what it reads and writes on the context, is
timed, is cancellable between stages (and inside, through `AuditState.progress`), and publishes
its new findings (`AuditState.publish`) the moment it is done: the cheap structural checks reach
the window and the `jsonl` report long before the judge has loaded.

A stage that does not apply (no sources to check, judging off) still publishes, with no findings,
so a listener always sees the same six stages. Progress keeps its words ("fetching sources",
"judging", …): `AuditState.stage_seconds` times those, `StageResult.seconds` the stages.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from citedesk.core.checks import structural_findings
from citedesk.core.coverage import coverage_of
from citedesk.core.document.model import Document
from citedesk.core.document.works import CitedEntry
from citedesk.core.findings import Finding, Verdict
from citedesk.core.reports.report import Report
from citedesk.core.reports.summaries import SourceSummary
from citedesk.core.review import Review
from citedesk.engine.judging import Judging, judge_claims, judging_off, load_judging
from citedesk.engine.sourcing import (
    check_truth,
    describe_sources,
    open_store_for,
    retraction_summary_of,
    source_options,
    stored_reviews,
    text_hash,
)
from citedesk.engine.state import AuditOptions, AuditState, StageResult
from citedesk.sources.checks import source_findings, waits_for_truth
from citedesk.sources.citeworks import works_to_check
from citedesk.sources.coverage import every_citation, why_not_checked_in
from citedesk.sources.gather import gather_sources
from citedesk.sources.resolved import ResolvedSource
from citedesk.sources.truth import TruthResult, truth_findings
from citedesk.store import Store

Found = tuple[list[Finding], list[Finding]]
"""What a stage hands the runner to publish: (findings it added or changed, findings it withdrew)."""


@dataclass
class AuditContext:
    """Everything the stages share: what the audit was given, and what each stage wrote."""

    document: Document
    options: AuditOptions
    state: AuditState
    findings: list[Finding] = field(default_factory=list)
    """Every finding so far, in the order today's report is built from."""
    shown: list[Finding] = field(default_factory=list)
    """What listeners hold: every published finding not withdrawn since."""
    notices: list[str] = field(default_factory=list)
    targets: list[CitedEntry] = field(default_factory=list)
    check_sources: bool = False
    store: Store | None = None
    resolved: dict[str, ResolvedSource] | None = None
    source_hashes: dict[str, str] = field(default_factory=dict)
    settled: list[Finding] = field(default_factory=list)
    """The source findings published before the reference checks (those they cannot change)."""
    truth: TruthResult | None = None
    summaries: list[SourceSummary] = field(default_factory=list)
    judging: Judging | None = None
    verdicts: dict[str, list[Verdict]] = field(default_factory=dict)
    judge_name: str | None = None
    judge_note: str = ""
    reviews: dict[str, Review] = field(default_factory=dict)
    report: Report | None = None

    def close_store(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None


@dataclass(frozen=True)
class Stage:
    name: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    run: Callable[[AuditContext], Found]
    applies: Callable[[AuditContext], bool] = lambda ctx: True


def _structure(ctx: AuditContext) -> Found:
    ctx.findings = structural_findings(ctx.document)
    return list(ctx.findings), []


def _sources(ctx: AuditContext) -> Found:
    """Which works to read, the store, and the sources gathered; their findings but those the
    reference checks decide."""
    document, options, state = ctx.document, ctx.options, ctx.state
    ctx.targets = list(
        works_to_check(document, options.sources_dir, frozenset(k for k, _ in options.attached))
        if options.check_sources
        else []
    )  # (it stats local copies, maybe of a whole library: only when sources are read)
    ctx.check_sources = options.check_sources and bool(ctx.targets)
    # one store session for the whole audit: sources, caches and the writer's review decisions
    ctx.store = open_store_for(
        options, required=ctx.check_sources, reviews=options.reviews and bool(ctx.findings)
    )
    if ctx.store is not None:
        ctx.notices.extend(ctx.store.notices)
    if not ctx.check_sources:
        return [], []
    assert ctx.store is not None
    state.progress("fetching sources", 0, len(ctx.targets))
    resolved = gather_sources(
        ctx.targets,
        source_options(
            options,
            Path(document.path).resolve().parent if document.path else options.document_dir,
            state.remaining(),
        ),
        ctx.store,
        cancelled=lambda: state.cancelled,
        progress=lambda done, total: state.progress("fetching sources", done, total),
    )
    state.check()
    ctx.resolved = resolved
    ctx.source_hashes = {key: text_hash(source.text) for key, source in resolved.items() if source.text}
    settled = {k: s for k, s in resolved.items() if not waits_for_truth(document, k, s)}
    ctx.settled = source_findings(document, settled)
    return list(ctx.settled), []


def _reference_truth(ctx: AuditContext) -> Found:
    """The reference checks; the source findings they decide, and their own."""
    assert ctx.store is not None
    assert ctx.resolved is not None
    document = ctx.document
    ctx.truth = check_truth(document, ctx.options, ctx.state, ctx.store)
    checks = ctx.truth.checks if ctx.truth is not None else {}
    found = source_findings(document, ctx.resolved, checks)
    if ctx.truth is not None:
        found.extend(truth_findings(document, checks))
    ctx.findings.extend(found)
    ctx.summaries = describe_sources(document, ctx.resolved, ctx.truth)
    return _minus(found, ctx.settled), []


def _judges(ctx: AuditContext) -> bool:
    resolved = ctx.resolved or {}
    return ctx.check_sources and any(s.usable for s in resolved.values()) and not judging_off(ctx.options)


def _retrieval(ctx: AuditContext) -> Found:
    assert ctx.store is not None
    assert ctx.resolved is not None
    ctx.judging = load_judging(ctx.document, ctx.resolved, ctx.options, ctx.state, ctx.store)
    return [], []


def _judging(ctx: AuditContext) -> Found:
    assert ctx.store is not None
    assert ctx.resolved is not None
    assert ctx.judging is not None
    before = ctx.findings
    ctx.verdicts, ctx.findings = judge_claims(
        ctx.document, ctx.resolved, before, ctx.judging, ctx.options, ctx.state, ctx.store
    )
    ctx.judge_name, ctx.judge_note = ctx.judging.judge.name, ctx.judging.note
    embedder = ctx.judging.embedder
    notice = embedder.notice if embedder is not None else ctx.judging.embedding
    if notice and notice not in ctx.notices:
        ctx.notices.append(notice)  # a one-time preparation, why ONNX Runtime is not used, or no embedder
    return _minus(ctx.findings, before), _minus(before, ctx.findings)


def _findings(ctx: AuditContext) -> Found:
    """The report: findings in document order, the writer's decisions applied, every citation's
    verdict (or why it was not checked), the coverage and the notices."""
    document, options, state, findings = ctx.document, ctx.options, ctx.state, ctx.findings
    if ctx.check_sources:
        findings.sort(key=lambda f: (f.start, f.kind.value))
    if options.reviews and findings and ctx.store is not None:
        ctx.reviews = stored_reviews(ctx.store, document.path)
    ctx.close_store()
    state.progress("checking citations")
    resolved, truth = ctx.resolved, ctx.truth
    verdicts = every_citation(
        document, ctx.verdicts, why_not_checked_in(document, resolved, state.out_of_time())
    )
    offline = options.offline or any(s.status.value == "offline" for s in (resolved or {}).values())
    unreached = not offline and truth is not None and truth.reached_no_index()
    if offline and not options.offline and resolved:
        ctx.notices.append(
            "No host could be reached: this machine seems to be offline. Links are not reported as "
            "dead; the citations of sources not in the cache are listed as not checked."
        )
    elif unreached:
        ctx.notices.append(
            "No index could be reached (Crossref, doi.org, OpenAlex): the references were not looked up, "
            "so retractions and metadata were not checked."
        )
    if truth is not None and (mirrored := truth.mirror_notice()) is not None:
        ctx.notices.append(mirrored)
    ctx.verdicts = verdicts
    report = Report(
        document=document,
        findings=findings,
        sources=ctx.summaries,
        verdicts=verdicts,
        judge=ctx.judge_name,
        source_hashes=ctx.source_hashes,
        assist=ctx.judging.assist if ctx.judging is not None else None,
        notices=ctx.notices,
        coverage=coverage_of(document, verdicts, offline=offline),
        judge_note=ctx.judge_note,
        retractions=retraction_summary_of(truth, offline or unreached),
    )
    if ctx.reviews:
        report.apply_reviews(ctx.reviews)
    state.progress("done")
    report.timings = dict(state.stage_seconds)
    ctx.report = report
    return _minus(report.findings, ctx.shown), _minus(ctx.shown, report.findings)


STAGES: tuple[Stage, ...] = (
    Stage("structure", ("document",), ("findings",), _structure),
    Stage(
        "sources",
        ("document", "options", "findings"),
        ("targets", "check_sources", "store", "notices", "resolved", "source_hashes", "settled"),
        _sources,
    ),
    Stage(
        "reference truth",
        ("document", "options", "store", "resolved", "settled"),
        ("truth", "findings", "summaries"),
        _reference_truth,
        lambda ctx: ctx.check_sources,
    ),
    Stage("retrieval", ("document", "options", "store", "resolved"), ("judging",), _retrieval, _judges),
    Stage(
        "judging",
        ("document", "options", "store", "resolved", "findings", "judging"),
        ("verdicts", "findings", "judge_name", "judge_note", "notices"),
        _judging,
        lambda ctx: ctx.judging is not None,
    ),
    Stage(
        "findings",
        ("document", "options", "store", "findings", "resolved", "truth", "summaries", "verdicts", "notices"),
        ("reviews", "verdicts", "notices", "report"),
        _findings,
    ),
)


def run_stages(document: Document, options: AuditOptions, state: AuditState) -> Report:
    """Run every stage in order; each publishes its result as soon as it is done."""
    if options.time_budget is not None and state.deadline is None:
        state.deadline = time.monotonic() + options.time_budget
    ctx = AuditContext(document, options, state)
    try:
        for stage in STAGES:
            state.check()
            started = time.perf_counter()
            added, withdrawn = stage.run(ctx) if stage.applies(ctx) else ([], [])
            seconds = time.perf_counter() - started
            ctx.shown = [*_minus(ctx.shown, withdrawn), *added]
            state.publish(
                StageResult(
                    stage.name,
                    seconds,
                    tuple(added),
                    tuple(withdrawn),
                    document,
                    dict(ctx.source_hashes),
                    dict(ctx.reviews),
                )
            )
    finally:
        ctx.close_store()
    assert ctx.report is not None
    return ctx.report


def _minus(these: Iterable[Finding], those: Iterable[Finding]) -> list[Finding]:
    """`these` but the ones equal to one in `those` (each of `those` matched once)."""
    left: dict[Hashable, list[Finding]] = {}
    for finding in those:
        left.setdefault(_place(finding), []).append(finding)
    out = []
    for finding in these:
        bucket = left.get(_place(finding), [])
        match = next((i for i, other in enumerate(bucket) if other is finding or other == finding), None)
        if match is None:
            out.append(finding)
        else:
            del bucket[match]
    return out


def _place(finding: Finding) -> Hashable:
    return (finding.kind, finding.start, finding.end, finding.reference, finding.claim_id)
