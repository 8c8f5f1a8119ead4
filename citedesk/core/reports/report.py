"""The audit report: what an audit found, its JSON form and the sentences every format says alike.

The JSON form is a stable contract (`"version": 1`); later stages add fields, never rename them.
Each output format (text, JSON, Markdown, HTML, JSON lines) is one module of `core.reports`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from citedesk.core.coverage import Coverage, coverage_of
from citedesk.core.document.model import Document
from citedesk.core.findings import Finding, Kind, Severity, Verdict, VerdictLabel
from citedesk.core.reports.summaries import AssistSummary, RetractionSummary, SourceSummary
from citedesk.core.review import Review, apply_reviews, review_key
from citedesk.errors import UsageError

REPORT_VERSION = 1


@dataclass
class Report:
    document: Document
    findings: list[Finding]
    verdicts: dict[str, list[Verdict]] = field(default_factory=dict)
    """Claim id → one verdict per cited reference."""
    sources: list[SourceSummary] = field(default_factory=list)
    judge: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds spent in each stage of the audit, by stage name (`AuditState.stage_seconds`)."""
    dismissed: list[Finding] = field(default_factory=list)
    """Findings the writer marked as false alarms (hidden until their sentence or source changes)."""
    reviews: dict[str, Review] = field(default_factory=dict)
    """Review key → the writer's decision, for the shown and the dismissed findings."""
    source_hashes: dict[str, str] = field(default_factory=dict)
    """Reference key → a hash of its source text: part of each finding's review key."""
    assist: AssistSummary | None = None
    notices: list[str] = field(default_factory=list)
    coverage: Coverage | None = None
    """Which citations were checked, and why the others were not."""
    judge_note: str = ""
    retractions: RetractionSummary | None = None
    """Where the audit's knowledge of retractions came from (set when the document cites DOIs)."""
    """What the judge is worth, in words (the heuristic judge: limited accuracy), shown beside it."""
    """What the writer should know about the run itself (the store was damaged and rebuilt, …)."""
    """With Claude assistance on: the model, its checked suggestions, what was rejected, the usage."""

    def key_of(self, finding: Finding) -> str:
        return review_key(self.document, finding, self.source_hashes)

    def review_of(self, finding: Finding) -> Review | None:
        return self.reviews.get(self.key_of(finding))

    def apply_reviews(self, reviews: dict[str, Review]) -> None:
        """Take these decisions (those about this report's findings): false alarms are dismissed,
        the rest shown, in document order."""
        everything = sorted([*self.findings, *self.dismissed], key=lambda f: (f.start, f.kind.value))
        keys = [self.key_of(f) for f in everything]
        self.reviews = {key: reviews[key] for key in keys if key in reviews}
        self.findings, self.dismissed = apply_reviews(everything, keys, self.reviews)

    def record_review(self, finding: Finding, review: Review | None) -> None:
        """One decision made (or cleared, with None) on one of this report's findings."""
        reviews = dict(self.reviews)
        if review is None:
            reviews.pop(self.key_of(finding), None)
        else:
            reviews[self.key_of(finding)] = review
        self.apply_reviews(reviews)

    def review_progress(self) -> tuple[int, int]:
        """(reviewed, total) over every finding, dismissed ones included."""
        everything = [*self.findings, *self.dismissed]
        return sum(1 for f in everything if self.key_of(f) in self.reviews), len(everything)

    def coverage_or_count(self) -> Coverage:
        """The audit's coverage; a report built without one counts it from its verdicts."""
        return self.coverage if self.coverage is not None else coverage_of(self.document, self.verdicts)

    def verdicts_for(self, claim_id: str) -> list[Verdict]:
        if claim_id in self.verdicts:
            return self.verdicts[claim_id]
        claim = self.document.claim_by_id.get(claim_id)
        if claim is None:
            return []
        return [Verdict(k, VerdictLabel.UNCHECKED) for k in self.document.cited_keys(claim)]

    def failing(self, fail_on: FailPolicy) -> list[Finding]:
        return [f for f in self.findings if fail_on.fails(f)]


@dataclass(frozen=True)
class FailPolicy:
    """Which findings fail an audit: a minimum severity, or an explicit set of kinds; with
    `unchecked` (alone, or added to either: `warning,unchecked`), also a citation that could not be
    checked, so that a CI gate does not read "nothing could be checked" as clean."""

    min_severity: Severity | None = Severity.WARNING
    kinds: frozenset[Kind] = frozenset()
    unchecked: bool = False

    @classmethod
    def parse(cls, spec: str) -> FailPolicy:
        """`error`, `warning`, `info`, `none`, or a comma list of kinds (`fabricated,uncited`);
        any of them with `unchecked` added, or `unchecked` alone (only unchecked citations fail)."""
        spec = spec.strip().lower()
        terms = [term.strip() for term in spec.split(",")]
        if "unchecked" in terms:
            rest = ",".join(term for term in terms if term != "unchecked")
            return replace(cls.parse(rest) if rest else cls(None), unchecked=True)
        if spec in ("none", "never"):
            return cls(None)
        if spec in ("any", "all"):
            return cls(Severity.INFO)
        if spec in {s.value for s in Severity}:
            return cls(Severity(spec))
        kinds = set()
        for name in spec.split(","):
            name = name.strip().replace("-", "_")
            if name in {s.value for s in Severity} or name in ("none", "never", "any", "all"):
                raise UsageError(
                    f"--fail-on takes one severity ({name!r} alone) or a list of finding kinds, not both"
                )
            if name not in {k.value for k in Kind}:
                valid = ", ".join(k.value for k in Kind)
                raise UsageError(
                    f"unknown finding kind {name!r}; choose from {valid}, or error/warning/info/none, and unchecked"
                )
            kinds.add(Kind(name))
        return cls(None, frozenset(kinds))

    def fails(self, finding: Finding) -> bool:
        if finding.kind in self.kinds:
            return True
        return self.min_severity is not None and finding.severity.rank >= self.min_severity.rank


def to_json(report: Report) -> dict[str, Any]:
    doc = report.document
    return {
        "version": REPORT_VERSION,
        "document": doc.path,
        "judge": report.judge,
        "judge_note": report.judge_note or None,
        "references": _references_json(doc),
        "claims": [
            {
                "id": c.id,
                "span": [c.sentence.start, c.sentence.span_end],
                "text": c.text,
                "markers": list(dict.fromkeys(k for m in c.sentence.markers for k in doc.markers[m].keys)),
                "needs_citation": c.needs_citation,
                "reasons": list(c.reasons),
                "verdicts": [v.to_json() for v in report.verdicts_for(c.id)],
            }
            for c in doc.claims
        ],
        "findings": [finding_json(report, f) for f in report.findings],
        "dismissed": [finding_json(report, f) for f in report.dismissed],
        "sources": [source.to_json() for source in report.sources],
        "summary": summary_json(report),
        "review": dict(zip(("reviewed", "total"), report.review_progress(), strict=True)),
        **({"assist": report.assist.to_json()} if report.assist is not None else {}),
        "retractions": report.retractions.to_json() if report.retractions is not None else None,
        "notices": list(report.notices),
    }


def _references_json(doc: Document) -> list[dict[str, Any]]:
    """The reference list's entries with their spans; a pandoc document's bibliography entries
    (every one, cited or not) with their authors and file, and no span: they are not in the text."""
    if doc.bibliography is None:
        return [
            {
                "key": r.key,
                "title": r.title,
                "url": r.url,
                "doi": r.doi,
                "arxiv": r.arxiv,
                "path": r.path,
                "year": r.year,
                "span": [r.start, r.end],
            }
            for r in doc.entries
        ]
    return [
        {
            "key": w.key,
            "title": w.title,
            "url": w.url,
            "doi": w.doi,
            "arxiv": w.arxiv,
            "path": w.path,
            "year": w.year,
            "span": None,
            "authors": w.authors,
            "bibliography": w.source,
            "cited": w.key in doc.markers_citing,
        }
        for w in doc.bibliography
    ]


def finding_json(report: Report, f: Finding) -> dict[str, Any]:
    """One finding as the JSON report has it (and each line of the streamed `jsonl` format)."""
    line, column = report.document.lines.line_col(f.start)
    review = report.review_of(f)
    return {
        "kind": f.kind.value,
        "severity": f.severity.value,
        "span": [f.start, f.end],
        "line": line,
        "column": column,
        "reference": f.reference,
        "claim": f.claim_id,
        "message": f.message,
        "evidence": f.evidence.to_json() if f.evidence else None,
        "details": details_json(f),
        "fixes": [fx.to_json() for fx in f.fixes],
        "review_key": report.key_of(f),
        "review": review.to_json() if review else None,
    }


def details_json(finding: Finding) -> dict[str, Any]:
    """A finding's `details` as the JSON contract has them: its kind-specific facts, the verdict it
    reports (label, support `score`, `contradiction`, judge), and the reference it offers (`suggested`, with that reference's
    evidence where a verdict is reported, else its score; `suggested_by` when not the local judge)."""
    out = dict(finding.details)
    if finding.judged_by is not None:
        out.update(judged_by=finding.judged_by)
    if finding.confidence is not None:
        out.update(confidence=round(finding.confidence, 4))
    if finding.verdict is not None:
        out.update(
            verdict=finding.verdict.label.value,
            score=round(finding.verdict.score, 4),
            contradiction=round(finding.verdict.contradiction, 4),
            judge=finding.verdict.judge,
        )
    offered = finding.suggestion
    if offered is not None:
        out["suggested"] = offered.key
        if offered.by != "local":
            out["suggested_by"] = offered.by
        if finding.verdict is not None:
            out["suggested_evidence"] = offered.evidence.to_json() if offered.evidence else None
        else:
            out["score"] = round(offered.score, 4)
    return out


def summary(findings: Iterable[Finding]) -> dict[str, Any]:
    by_kind: dict[str, int] = {}
    by_severity = {s.value: 0 for s in Severity}
    for f in findings:
        by_kind[f.kind.value] = by_kind.get(f.kind.value, 0) + 1
        by_severity[f.severity.value] += 1
    return {"total": sum(by_kind.values()), "by_kind": by_kind, "by_severity": by_severity}


def summary_json(report: Report) -> dict[str, Any]:
    """The JSON report's `summary`: the findings by kind and severity, and the coverage."""
    return {**summary(report.findings), **report.coverage_or_count().to_json()}


def grouped(findings: list[Finding]) -> list[tuple[Kind, list[Finding]]]:
    order = {k: i for i, k in enumerate(Kind)}
    groups: dict[Kind, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.kind, []).append(f)
    return sorted(groups.items(), key=lambda kv: (-max(f.severity.rank for f in kv[1]), order[kv[0]]))


def context_of(report: Report, finding: Finding) -> str:
    doc = report.document
    if finding.claim_id:
        claim = doc.claim_by_id.get(finding.claim_id)
        if claim is not None:
            return doc.text[claim.sentence.start : claim.sentence.span_end]
    line_start = doc.text.rfind("\n", 0, finding.start) + 1
    line_end = doc.text.find("\n", finding.start)
    return doc.text[line_start : line_end if line_end != -1 else len(doc.text)]


def headline(report: Report) -> str:
    """The report's first sentence: its findings (`3 findings (1 error, 2 warnings)`, `no
    findings`) — but when the text cites something and not one citation could be checked, that
    first, with why (`nothing could be checked: 0 of 60 citations checked (offline 60)`), since
    "no findings" would read as "all is well"."""
    s = summary(report.findings)
    n = len(report.dismissed)
    hidden = f"; {n} dismissed as {'a false alarm' if n == 1 else 'false alarms'}" if n else ""
    coverage = report.coverage_or_count()
    if not s["total"]:
        return (coverage.headline() if coverage.nothing_checked else "no findings") + hidden
    counts = [f"{n} {sev}{'s' if n != 1 else ''}" for sev, n in s["by_severity"].items() if n]
    found = f"{s['total']} finding{'s' if s['total'] != 1 else ''} ({', '.join(counts)}){hidden}"
    return f"{coverage.headline()}; {found}" if coverage.nothing_checked else found


def coverage_line(report: Report) -> str | None:
    """The coverage sentence under the headline (None: no citations, or the headline said it)."""
    coverage = report.coverage_or_count()
    return coverage.headline() if coverage.citations and not coverage.nothing_checked else None


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def source_rows(report: Report) -> list[tuple[str, str, str, str]]:
    """(reference, status, location, what the indexes say) for each source, as every format lists
    them: the text report, the Markdown table and the HTML list say the same."""
    return [
        (
            report.document.label(source.key),
            source.status,
            source.location or "",
            source.check.words if source.check is not None else "",
        )
        for source in report.sources
    ]


def judge_line(report: Report) -> str:
    return f"{report.judge} — {report.judge_note}" if report.judge_note else str(report.judge)


def citations_count(count: int) -> str:
    """`1 citation`, `3 citations`: the heading counts citations, its rows are references."""
    return f"{count} citation{'' if count == 1 else 's'}"


def not_checked(report: Report) -> list[tuple[str, str, str]]:
    """(reference, why, where) for each reference with citations not checked: why is the reason with
    its figure (`server error (HTTP 500)`), where the lines of the sentences that cite it (`cited
    on lines 4, 9`)."""
    lines = report.document.lines
    grouped: dict[tuple[str, str], list[int]] = {}
    for citation in report.coverage_or_count().unchecked:
        grouped.setdefault((citation.key, citation.words), []).append(lines.line_col(citation.start)[0])
    return [(key, reason, _cited_on(at)) for (key, reason), at in grouped.items()]


def _cited_on(lines: list[int]) -> str:
    """`cited on line 4`, `cited twice on line 5`, `cited 3 times on lines 4, 9`: every citation a
    row stands for is counted, so the rows add up to the heading's count of citations."""
    distinct = sorted(set(lines))
    times = {1: "", 2: " twice"}.get(len(lines), f" {len(lines)} times")
    where = ", ".join(str(n) for n in distinct)
    return f"cited{times} on line{'s' if len(distinct) > 1 else ''} {where}"
