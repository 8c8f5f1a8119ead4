"""What an audit is given and what it hands back while it runs: `AuditOptions` (what to check),
`AuditState` (progress and stage results out, cancellation and the deadline in) and `StageResult`
(one stage's new findings, published as soon as the stage is done)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citedesk.core.document.model import Document
from citedesk.core.findings import Finding
from citedesk.core.reports.report import Report, finding_json
from citedesk.core.review import Review
from citedesk.errors import Cancelled

if TYPE_CHECKING:
    from citedesk.sources.provisions import Provisions

ProgressCallback = Callable[[str, int, int], None]


@dataclass(frozen=True)
class AuditOptions:
    """What one audit is asked to do: the engine's resolved view of the writer's settings. The
    command line builds it only through `citedesk.config.Configuration.audit_options` (defaults <
    user file < project file < flags, plus what belongs to the run: refresh, reviews); the defaults
    here are the engine's own, for callers that set nothing (tests, an untitled document)."""

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
    notices: tuple[str, ...] = ()
    """What the front end found before the audit and the report must say first (a Quarto book's
    `_quarto.yml` that could not be read, so its bibliographies were not either)."""
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
    judge_settings: Mapping[str, object] = field(default_factory=dict)
    """The judges' own settings given (`JudgeSpec.settings`, by key: a server judge's `judge_url`,
    `judge_remote`); the loader gets them, with the defaults of those not given, in
    `JudgeContext.settings`."""
    strong_judge: str = ""
    """A cascade's strong judge (`--strong-judge`, any judge registered that sends no text to
    Claude): it re-reads what the chosen (fast) judge flagged, the fixes it drives and the claims it
    is unsure about, within `strong_budget` seconds, and decides those. Empty: no cascade."""
    strong_budget: float = 30.0
    """Seconds the strong judge may spend re-reading (`--strong-budget`); what it does not reach
    keeps the fast judge's reading."""
    dense: bool = True
    """Use the embedding model for retrieval and the heuristic judge when it is installed."""
    reviews: bool = True
    """Honour the writer's review decisions: false alarms are dismissed, not reported."""
    assist: str = "none"
    """`claude`: the writer turned on Claude assistance (their key); `none`: nothing leaves the machine."""
    assist_model: str | None = None
    provisions: Provisions | None = field(default=None, compare=False, repr=False)
    """A corpus worker's: the sources, index answers and review decisions its parent had, as data
    (`sources.provisions`); its store is then a private one with these laid over it."""


@dataclass
class AuditState:
    """Progress out, cancellation in. Thread-safe: a worker runs the audit, the GUI polls or listens."""

    on_progress: ProgressCallback | None = None
    on_stage: Callable[[StageResult], None] | None = None
    """Called with each stage's result as soon as that stage is done (on the auditing thread)."""
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

    def start_budget(self, seconds: float | None) -> float | None:
        """The deadline, set `seconds` from now unless one is set already (the time budget covers
        everything from its first start: reading the document, then the stages). Answers it."""
        if seconds is not None and self.deadline is None:
            self.deadline = time.monotonic() + seconds
        return self.deadline

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

    def publish(self, result: StageResult) -> None:
        """One stage is done: pass its result on at once."""
        if self.on_stage is not None:
            self.on_stage(result)


@dataclass(frozen=True)
class StageResult:
    """What one stage of the audit found, published the moment it is done (cheap stages first, as a
    language server publishes each analysis's diagnostics when it finishes). `findings`: the ones
    this stage added or changed; `withdrawn`: ones an earlier stage published that it replaced (an
    uncited claim given a suggested reference) or that the writer dismissed as false alarms. The
    report is the final word: a finding's `review_key` takes in its source's text once it is read."""

    stage: str
    seconds: float
    findings: tuple[Finding, ...] = ()
    withdrawn: tuple[Finding, ...] = ()
    document: Document | None = None
    source_hashes: Mapping[str, str] = field(default_factory=dict)
    reviews: Mapping[str, Review] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """`{"stage", "seconds", "findings"}` (and `withdrawn` when there are any), each finding as
        the JSON report has it."""
        out: dict[str, Any] = {"stage": self.stage, "seconds": round(self.seconds, 3), "findings": []}
        if self.document is None:
            return out
        known = Report(
            document=self.document,
            findings=[],
            source_hashes=dict(self.source_hashes),
            reviews=dict(self.reviews),
        )
        out["findings"] = [finding_json(known, f) for f in self.findings]
        if self.withdrawn:
            out["withdrawn"] = [finding_json(known, f) for f in self.withdrawn]
        return out
