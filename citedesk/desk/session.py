"""One open document: reading and saving it, auditing it, repairing it, and what the writer decided.

A `DocumentSession` is what both front ends hold for a document. The CLI opens one per command;
the window keeps one per open file and hands it the editor's text. Everything it does goes through
the one audit entry (`desk.entry.audit_document`) and the store; it returns typed results and raises
`CiteDeskError`s for what the writer must be told.

A document is held in its format's container (`core.formats`, `core.containers`): a text file's
text as decoded, a Word document's (`.docx`) as its view, a pandoc Markdown text whose front matter
holds the fields' bibliography. A plan is admitted only if the container can say it (`check`), and
a write puts the container's bytes in the file's place with the same check, backup and atomic
rename for every container. A package's text is never edited or saved as text (`read_only`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from citedesk.assist.judge import what_would_be_judged
from citedesk.core.containers import TEXT, Container, View, container_named
from citedesk.core.containers import word as _word  # noqa: F401 - registers the Word container
from citedesk.core.dialects.latex.bounds import parse_deadline
from citedesk.core.findings import Finding, Fix, Kind
from citedesk.core.formats import format_of
from citedesk.core.plan import RepairPlan, plan_repairs, sparing_proposed
from citedesk.core.reports import format_of_path, jsonl_format, report_format
from citedesk.core.reports.report import Report
from citedesk.core.review import Decision, Review, document_key
from citedesk.desk.entry import AuditInput, audit_document
from citedesk.desk.projects import Project, document_project
from citedesk.errors import (
    CiteDeskError,
    InputError,
    NotAStore,
    OutputError,
    RepairError,
    StoreError,
    UsageError,
)
from citedesk.files import FileStamp, read_stamped_bytes, why_not_written, write_bytes_checked
from citedesk.pipeline import AuditOptions, AuditState, StageResult

if TYPE_CHECKING:
    from citedesk.core.document.works import BibReference
    from citedesk.desk.services import DeskServices

STRUCTURAL_KINDS = frozenset(
    {
        Kind.FABRICATED,
        Kind.UNKNOWN_KEY,
        Kind.MALFORMED_MARKER,
        Kind.ORPHAN_REFERENCE,
        Kind.DUPLICATE_REFERENCE,
    }
)
"""Kinds whose fixes need no source: `fix` runs only the structural checks for them."""
MAX_FIX_ROUNDS = 3
"""`fix` repeats audit → plan until nothing changes (a removal can leave a sentence to cite)."""
BIBLIOGRAPHY_SLOT = "@bibliography"
"""The document's own bibliography setting, kept with its attachments under a key that no
reference can have (no numbered, footnote or pandoc key starts with `@`)."""


@dataclass(frozen=True)
class FixOutcome:
    """What `fix` did: the plans applied round by round, the text before and after, the backup,
    and the fixes left out because applying them would have broken something (with why)."""

    original: str
    result: str
    plans: tuple[RepairPlan, ...]
    backup: Path | None = None
    refused: tuple[tuple[str, str], ...] = ()
    """(fix title, why it was left out)."""
    suggestions: tuple[str, ...] = ()
    """The unsafe fixes left for the writer to verify (a judge's suggestions), by title: applied
    only with `unsafe`."""

    @property
    def changed(self) -> bool:
        return self.result != self.original

    def lines(self) -> list[str]:
        """One line per change, in the order the rounds made them."""
        return [line for plan in self.plans for line in plan.describe()]


class OutOfTimeError(CiteDeskError):
    """`fix` ran past its time budget (`--timeout`) before writing: nothing was written (exit 2)."""

    kind = "timeout"


@dataclass(frozen=True)
class Budget:
    """The time `fix` has (the audit's `--timeout`, for the whole of it): `check` between steps."""

    seconds: float | None
    name: str
    deadline: float | None = None

    def __post_init__(self) -> None:
        if self.seconds is not None and self.deadline is None:
            object.__setattr__(self, "deadline", time.monotonic() + self.seconds)

    def check(self, doing: str) -> None:
        """OutOfTimeError, saying what was being done, once the deadline has passed."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise OutOfTimeError(
                f"{self.name}: fix ran past its time budget ({self.seconds:g} s, --timeout) while "
                f"{doing}, so nothing was written. Fix fewer kinds at once, or allow more time "
                "with --timeout."
            )


def parse_kinds(spec: str) -> frozenset[Kind]:
    """`all`, or a comma list of finding kinds (`fabricated,orphan_reference`)."""
    kinds: set[Kind] = set()
    for name in spec.split(","):
        name = name.strip().replace("-", "_")
        if name in ("all", "*"):
            return frozenset(Kind)
        try:
            kinds.add(Kind(name))
        except ValueError:
            raise UsageError(
                f"unknown finding kind {name!r}; choose from all, {', '.join(k.value for k in Kind)}"
            ) from None
    return frozenset(kinds)


class DocumentSession:
    """A document, from disk or unsaved, and the jobs done on it."""

    def __init__(
        self,
        desk: DeskServices,
        path: Path | None,
        text: str,
        encoding: str = "utf-8",
        *,
        folder: Path | None = None,
        stamp: FileStamp | None = None,
        container: Container = TEXT,
        view: View | None = None,
    ) -> None:
        self.desk = desk
        self.path = path.resolve() if path is not None else None
        self.folder = folder.resolve() if folder is not None else None
        """Where an untitled document's relative names resolve (a sample copy's folder)."""
        self.shown_path = str(path) if path is not None else None
        """The path as the writer gave it: what reports print."""
        self.text = text
        self.encoding = encoding
        self.stamp = stamp
        """What the file was when it was read or last written: a write checks it still is."""
        self.container = container
        self.view = view or View(text, encoding)
        """What the container read (`text` is its text), and what it needs to write an edit back."""

    @classmethod
    def read(cls, desk: DeskServices, path: Path) -> DocumentSession:
        container = container_named(format_of(path).container)
        data, stamp = read_stamped_bytes(path)  # bounded by its format's limit (`files.document_limit`)
        view = container.read(data, path.name)
        return cls(desk, path, view.text, view.encoding, stamp=stamp, container=container, view=view)

    @property
    def read_only(self) -> bool:
        """Whether the text may not be edited as text (a Word document's view: fixes only)."""
        return not format_of(self.path).editable

    @property
    def key(self) -> str:
        """How the store knows this document (its absolute path; one slot for unsaved text)."""
        return document_key(str(self.path) if self.path else None)

    @property
    def name(self) -> str:
        return self.path.name if self.path else "Untitled"

    @property
    def crlf(self) -> bool:
        return "\r\n" in self.text

    # auditing ------------------------------------------------------------------------------------------
    def options(
        self, *, refresh: frozenset[str] = frozenset(), assist: str | None = None, judge: str | None = None
    ) -> AuditOptions:
        """The desk's options for this document: its attached files and folders, a one-off refresh,
        and the window's per-document choices (Claude assistance, the judge)."""
        rows = self._attachment_rows()
        attached, folders = _split(rows)
        own = _bibliography(rows)
        base = self.desk.options
        sources_dir = base.sources_dir or (Path(folders[-1]) if folders else None)
        project, unusable = _quarto(self.path or self.folder, base.local_roots)
        if unusable:
            base = replace(base, notices=(*base.notices, unusable))
        if project is not None:  # a Quarto chapter, a thesis's .tex: its bibliographies, its folder readable
            base = replace(
                base,
                bibliographies=(*base.bibliographies, *project.bibliographies),
                local_roots=(*base.local_roots, project.root),
            )
        return replace(
            base,
            attached=tuple((key, Path(p)) for key, p in sorted(attached.items())),
            sources_dir=sources_dir,
            bibliographies=(*base.bibliographies, *((own,) if own is not None else ())),
            document_dir=self.folder if self.path is None else None,
            refresh_keys=refresh,
            assist=assist or base.assist,
            judge=judge or base.judge,
        )

    def audit(
        self,
        text: str | None = None,
        *,
        state: AuditState | None = None,
        options: AuditOptions | None = None,
    ) -> Report:
        """Audit `text` (by default the document as read) with this document's options. The time
        budget starts before the project (a thesis's main file and its includes) is read."""
        state = state or AuditState()
        if options is None:
            with parse_deadline(state.start_budget(self.desk.options.time_budget)):
                options = self.options()
        document = AuditInput(self.text if text is None else text, self._path_str())
        return audit_document(document, options, state)

    def audit_streaming(self, write: Callable[[str], None]) -> Report:
        """Audit the document, writing one JSON line per stage the moment it finishes (its new
        findings, as the JSON report writes them), then `{"stage": "done", "summary": …}`."""

        def publish(result: StageResult) -> None:
            write(jsonl_format.line(result.to_json()))

        report = self.audit(state=AuditState(on_stage=publish))
        write(jsonl_format.closing_line(report))
        return report

    def structure_report(self, text: str | None = None, *, state: AuditState | None = None) -> Report:
        """The structural findings only (no sources, no judge): what structural fixes need."""
        return self.audit(text, state=state, options=replace(self.options(), check_sources=False))

    # repairing -----------------------------------------------------------------------------------------
    def plan(self, report: Report, fixes: Sequence[Fix], *, renumber: bool = False) -> RepairPlan:
        """The checked plan for applying `fixes` of `report` together (RepairError when it would
        break a reference or change the prose; for a Word document, also when the package cannot
        say the result, as an added citation)."""
        plan = plan_repairs(report.document, fixes, renumber=renumber)
        if plan.changed:
            self.container.check(self.view, plan.result)
        return plan

    def plan_most(
        self, report: Report, fixes: Sequence[Fix], *, renumber: bool = False, budget: Budget | None = None
    ) -> tuple[RepairPlan, list[tuple[Fix, str]]]:
        """The checked plan for as many of `fixes` as can be applied together, and the ones left out
        with why ("fix all": one fix that would break something does not stop the rest). Fixes are
        admitted in halves, so a few bad ones among thousands cost a few re-checks, not thousands;
        `budget` is checked before each (OutOfTimeError)."""
        budget = budget or Budget(None, self.name)
        try:
            return self.plan(report, fixes, renumber=renumber), []
        except RepairError as exc:
            first = exc
        accepted: list[Fix] = []
        refused: list[tuple[Fix, str]] = []

        def admit(batch: Sequence[Fix]) -> None:
            budget.check("checking which fixes can be applied together")
            try:
                self.plan(report, [*accepted, *batch])
            except RepairError as exc:
                if len(batch) == 1:
                    refused.append((batch[0], exc.message))
                    return
                middle = len(batch) // 2
                admit(batch[:middle])
                admit(batch[middle:])
                return
            accepted.extend(batch)

        unique = list(dict.fromkeys(fixes))
        if renumber:
            admit(unique)  # the plan that failed renumbered: these, without, are another plan
        elif len(unique) == 1:
            refused.append((unique[0], first.message))  # the plan that failed was this one
        else:
            middle = len(unique) // 2
            admit(unique[:middle])
            admit(unique[middle:])
        try:
            return self.plan(report, accepted, renumber=renumber), refused
        except RepairError as exc:
            if not renumber:
                raise
            return self.plan(report, accepted), [
                *refused,
                (Fix("Renumber the reference list", ()), exc.message),
            ]

    @staticmethod
    def fixes_of(
        findings: Iterable[Finding], kinds: frozenset[Kind] | None = None, *, unsafe: bool = False
    ) -> list[Fix]:
        """The first (most conservative) safe fix of each finding of these kinds; with `unsafe`,
        its first fix whatever its applicability (a judge's suggestion to verify included). Never
        the removal of a reference another finding proposes to cite (`plan.sparing_proposed`)."""
        findings = list(findings)
        chosen = []
        for finding in findings:
            if kinds is not None and finding.kind not in kinds:
                continue
            usable = [fx for fx in finding.fixes if unsafe or fx.safe]
            if usable:
                chosen.append(usable[0])
        return sparing_proposed(chosen, findings)

    @staticmethod
    def suggestions_of(findings: Iterable[Finding], kinds: frozenset[Kind] | None = None) -> tuple[str, ...]:
        """The first fix of each finding of these kinds whose fixes are all unsafe, by title."""
        return tuple(
            f.fixes[0].title
            for f in findings
            if f.fixes and (kinds is None or f.kind in kinds) and not any(fx.safe for fx in f.fixes)
        )

    def fix(
        self,
        kinds: frozenset[Kind],
        *,
        renumber: bool = False,
        write: bool = True,
        unsafe: bool = False,
    ) -> FixOutcome:
        """Apply every safe fix of these kinds (every fix, with `unsafe`) as checked plans, round
        after round until nothing more changes (so a second run changes nothing), then write the
        file atomically with a backup. Safe: structural, or driven by a judge that may act on
        evidence that passed the gate (`evidence.policy`); the word-level judge's never are.
        The whole of it runs within the audit's time budget (`--timeout`): past it, OutOfTimeError
        and nothing is written."""
        budget = Budget(self.desk.options.time_budget, self.name)
        structural = kinds <= STRUCTURAL_KINDS
        text = self.text
        plans: list[RepairPlan] = []
        refused: dict[str, str] = {}
        suggestions: tuple[str, ...] = ()
        for round_number in range(MAX_FIX_ROUNDS):
            state = AuditState(deadline=budget.deadline)
            report = self.structure_report(text, state=state) if structural else self.audit(text, state=state)
            budget.check("auditing the document")
            suggestions = () if unsafe else self.suggestions_of(report.findings, kinds)
            fixes = [
                f for f in self.fixes_of(report.findings, kinds, unsafe=unsafe) if f.title not in refused
            ]
            plan, left_out = self.plan_most(
                report, fixes, renumber=renumber and round_number == 0, budget=budget
            )
            refused.update((fix.title, why) for fix, why in left_out)
            if not plan.changed:
                break
            plans.append(plan)
            text = plan.result
        outcome = FixOutcome(
            self.text, text, tuple(plans), refused=tuple(refused.items()), suggestions=suggestions
        )
        budget.check("planning the fixes")
        if write and outcome.changed:
            backup = self.write(text, backup=True)
            outcome = replace(outcome, backup=backup)
        return outcome

    # files -----------------------------------------------------------------------------------------------
    def write(self, text: str, *, backup: bool = False, overwrite: bool = False) -> Path | None:
        """Write `text` over the document atomically (the encoding it was read with), only if the
        file is still what was read (else DocumentChangedError, nothing written; `overwrite` skips
        that check, when the writer chose to replace the other version). With `backup`, the file
        as it was read is kept as NAME.citedesk-backup first. Returns the backup's path. A Word
        document's package is rewritten for `text` first (RepairError, nothing written, when it
        cannot be: its container's `write`); its text is then the new package's view, as read back."""
        if self.path is None:
            raise UsageError("the document has no file yet; save it under a name first")
        stamp = None if overwrite else self.stamp
        try:  # a FileChangedError or a RepairError (not an OSError) goes to the caller as it is
            view = self.container.write(self.view, text, self.name)
            made, self.stamp = write_bytes_checked(self.path, view.data, stamp, backup=backup)
        except (OSError, UnicodeEncodeError) as exc:
            raise OutputError(f"{self.path} could not be written: {why_not_written(exc)}") from exc
        self.view = view
        self.text = view.text
        return made

    def save_as(self, text: str, path: Path) -> None:
        """Save under a new name; the document's decisions and attachments move with it. A Word
        document is not saved as text (`export_text` writes its view to another file)."""
        if self.read_only:
            raise UsageError(
                f"{self.name} is a Word document: fixes are written into it; export its text instead"
            )
        old_key = self.key
        previous = self.path
        self.path = path.resolve()
        stamp, self.stamp = self.stamp, None  # a new name: whatever is there is replaced, as asked
        try:
            self.write(text)
        except OutputError:
            self.path, self.stamp = previous, stamp
            raise
        self.shown_path = str(path)
        if old_key != self.key:
            with self.desk.store() as store:
                store.move_reviews(old_key, self.key)

    def export_text(self, path: str | os.PathLike[str]) -> None:
        """Write the document's text (a Word document's Markdown view) to another file, atomically;
        the document itself is unchanged."""
        self.desk.write_report(path, self.text)

    def render(self, report: Report, fmt: str, *, colour: bool = False) -> str:
        return report_format(fmt).render(report, colour=colour)

    def export(self, report: Report, path: str | os.PathLike[str], fmt: str | None = None) -> None:
        """Write the report to `path` atomically, in `fmt` or the format its suffix names."""
        chosen = report_format(fmt) if fmt else format_of_path(path)
        self.desk.write_report(path, chosen.render(report))

    # review decisions ------------------------------------------------------------------------------------
    def decide(self, report: Report, finding: Finding, decision: Decision, note: str = "") -> None:
        """Keep the writer's decision on one finding (in the store, then in the report)."""
        report.record_review(finding, self.keep_decision(report, finding, decision, note))

    def keep_decision(self, report: Report, finding: Finding, decision: Decision, note: str = "") -> Review:
        """Keep the decision in the store only, and return it for the report (the window records it
        there on its GUI thread, once this has run on its store worker). The report is only read."""
        key = report.key_of(finding)
        excerpt = report.document.text[finding.start : finding.end]
        with self.desk.store() as store:
            store.put_review(
                self.key, key, decision.value, note=note, kind=finding.kind.value, excerpt=excerpt
            )
        return Review(decision, note, time.time())

    def clear_decision(self, report: Report, finding: Finding) -> None:
        self.forget_decision(report, finding)
        report.record_review(finding, None)

    def forget_decision(self, report: Report, finding: Finding) -> None:
        """Clear the decision in the store only (`clear_decision` also clears it in the report)."""
        with self.desk.store() as store:
            store.clear_review(self.key, report.key_of(finding))

    # sources attached to this document ----------------------------------------------------------------------
    def attachments_split(self) -> tuple[dict[str, str], list[str]]:
        """(reference key → attached file, folders of sources named by key), as kept in the store.
        A store that cannot be opened means no attachments (the audit says what it can); a store
        setting that names a file CiteDesk did not make is said (`NotAStore`)."""
        return _split(self._attachment_rows())

    def _attachment_rows(self) -> list[tuple[str, str]]:
        try:
            with self.desk.store() as store:
                return store.attachments(self.key)
        except NotAStore:
            raise
        except StoreError:
            return []

    def attachments(self) -> dict[str, str]:
        return self.attachments_split()[0]

    def attach(self, key: str, path: str | os.PathLike[str]) -> Path:
        """Use a file as reference `key`'s content for this document."""
        resolved = Path(path).resolve()
        if not resolved.is_file():
            raise UsageError(f"{path} is not a file")
        with self.desk.store() as store:
            store.attach(self.key, key, str(resolved))
        return resolved

    def attach_folder(self, path: str | os.PathLike[str]) -> Path:
        """A folder of sources named by reference key or number (like `--sources DIR`)."""
        resolved = Path(path).resolve()
        if not resolved.is_dir():
            raise UsageError(f"{path} is not a folder")
        with self.desk.store() as store:
            store.attach(self.key, "", str(resolved))
        return resolved

    def detach(self, key: str) -> bool:
        with self.desk.store() as store:
            return store.detach(self.key, key)

    # the bibliography (pandoc documents) -------------------------------------------------------------------
    def bibliography(self) -> Path | None:
        """The bibliography the writer chose for this document (the window's setting), if any."""
        return _bibliography(self._attachment_rows())

    def set_bibliography(self, path: str | os.PathLike[str] | None) -> Path | None:
        """Use this bibliography file for the document (besides any its front matter names), or
        none (`None`). The file is read now, so a bad one is refused (InputError) before it is
        kept; it is never modified."""
        if path is None:
            with self.desk.store() as store:
                store.detach(self.key, BIBLIOGRAPHY_SLOT)
            return None
        resolved = Path(path).resolve()
        self.desk.jobs().read_bibliographies([resolved])
        with self.desk.store() as store:
            store.attach(self.key, BIBLIOGRAPHY_SLOT, str(resolved))
        return resolved

    def citation_keys(self, text: str | None = None) -> list[tuple[str, str]]:
        """(key, title) of every entry of the document's bibliographies, by key. Empty for a
        numbered document, or while a bibliography cannot be read (the audit says why)."""
        return _keys_and_titles(self.citation_works(text))

    def citation_works(self, text: str | None = None) -> tuple[BibReference, ...]:
        """Every entry of the document's bibliographies: what `@` completes to as the writer types
        (found by key, author, year or title). Empty as `citation_keys` is."""
        return self._bibliography(text) or ()

    def _bibliography(self, text: str | None = None) -> tuple[BibReference, ...] | None:
        """The entries of the bibliographies the text names or is given (none while one cannot
        be read); None when it names none (a numbered document)."""
        options = self.options()
        try:
            named = self.path or (self.folder / "Untitled" if self.folder else None)
            cited = self.desk.jobs().cited_works(
                self.text if text is None else text,
                named,
                options.bibliographies,
                use_zotero=False,
                roots=(options.sources_dir, *options.local_roots),
                anywhere=options.allow_local_paths,
            )
        except InputError:
            return ()
        return tuple(cited.works) if cited is not None else None

    @staticmethod
    def citation_keys_of(report: Report) -> list[tuple[str, str]]:
        """The same for the bibliography an audit read (after each audit: no store, no re-parse)."""
        return _keys_and_titles(report.document.bibliography or ())

    # Claude assistance: what would be sent ------------------------------------------------------------------
    def assist_preview(self, text: str | None = None) -> tuple[int, str]:
        """(requests, their exact text) that Claude assistance would send first for this text."""
        # deferred: it reads with every dialect (and their fuzzy key matching), not needed to show a window
        from citedesk.assist.insert import what_would_be_sent  # noqa: PLC0415

        text = self.text if text is None else text
        return what_would_be_sent(text, self._path_str(), self._bibliography(text))

    def judge_preview(self, text: str | None = None) -> tuple[int, str]:
        """(cited sentence × reference pairs, the requests) the Claude judge would send."""
        return what_would_be_judged(self.text if text is None else text, self._path_str())

    def _path_str(self) -> str | None:
        return self.shown_path


def _split(rows: list[tuple[str, str]]) -> tuple[dict[str, str], list[str]]:
    """(reference key → attached file, folders of sources named by key) of stored attachment rows."""
    files = {key: path for key, path in rows if key and key != BIBLIOGRAPHY_SLOT}
    folders = [path for key, path in rows if not key]
    return files, folders


def _quarto(where: Path | None, allowed: Sequence[Path]) -> tuple[Project | None, str]:
    """The Quarto book or LaTeX thesis a document belongs to (`desk.projects`), and why one that
    cannot be used adds nothing: the window keeps working and its report says why first (`citedesk
    audit` reads the project itself first, and stops there: exit 2)."""
    try:
        return (document_project(where, allowed) if where is not None else None), ""
    except InputError as exc:
        return None, f"{exc.message}; so neither its bibliographies nor its folders were read"


def _bibliography(rows: list[tuple[str, str]]) -> Path | None:
    chosen = [path for key, path in rows if key == BIBLIOGRAPHY_SLOT]
    return Path(chosen[-1]) if chosen else None


def _keys_and_titles(works: Iterable[BibReference]) -> list[tuple[str, str]]:
    return sorted(((w.key, w.title or "") for w in works), key=lambda kt: kt[0].casefold())
