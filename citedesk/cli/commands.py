"""The commands: each reads its arguments, calls the desk, and prints what it did."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from citedesk import config
from citedesk.cli.corpus_command import batch_command
from citedesk.cli.index import index_command
from citedesk.cli.models import models_command
from citedesk.cli.output import printable
from citedesk.cli.progress import Progress
from citedesk.config import Configuration
from citedesk.core.dialects.latex.bounds import parse_deadline
from citedesk.core.findings import Kind
from citedesk.core.judge_settings import declared_settings
from citedesk.core.reports import report_format, several_formats
from citedesk.core.reports.multi_file import FileAudit, render_batch
from citedesk.core.reports.report import FailPolicy, Report
from citedesk.core.review import Decision
from citedesk.desk import (
    STRUCTURAL_KINDS,
    AuditState,
    Desk,
    DocumentSession,
    FixOutcome,
    models,
    parse_kinds,
)
from citedesk.desk.projects import project_run
from citedesk.errors import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    CiteDeskError,
    UsageError,
)

SETTING_FLAGS = {
    "judge": "judge",
    "strong_judge": "strong_judge",
    "strong_budget": "strong_budget",
    "offline": "offline",
    "timeout": "timeout",
    "dense": "dense",
    "sources": "sources",
    "bibliography": "bibliography",
    "allow_folders": "allow_folder",
    "allow_local_paths": "allow_local_path",
    "allow_private_network": "allow_private_network",
    "zotero": "zotero",
    "zotero_dir": "zotero_dir",
    "store": "store",
    "fail_on": "fail_on",
    "fix_kinds": "kinds",
    "format": "format",
    "assist": "assist",
    "assist_model": "assist_model",
    "contact_email": "contact_email",
    "recheck_days": "recheck_days",
}
"""Each setting (`citedesk.config.Settings`) and the argument that gives it on the command line."""


def _given(args: argparse.Namespace) -> dict[str, Any]:
    """The settings given as flags, typed as the settings are (None: not given, so a settings file
    or the default shows through)."""
    given: dict[str, Any] = {name: getattr(args, attr, None) for name, attr in SETTING_FLAGS.items()}
    given.update((s.key, getattr(args, s.key, None)) for s in declared_settings() if s.flag)
    for name in ("sources", "zotero_dir", "store"):
        if given[name] is not None:
            given[name] = Path(given[name])
    for name in ("bibliography", "allow_folders"):
        if given[name] is not None:
            given[name] = tuple(Path(p) for p in given[name])
    return given


def _notice(message: str) -> None:
    print(f"citedesk: {printable(message)}", file=sys.stderr)


def _configuration(args: argparse.Namespace, where: Path | None) -> Configuration:
    """The settings for a document (or folder) `where`: the layers, and the flags on top. What a
    project file was refused is said on standard error, and the rest goes on."""
    configuration = config.load(where, _given(args))
    for notice in configuration.notices:
        _notice(notice)
    return configuration


def _documents_configuration(args: argparse.Namespace, files: Sequence[str]) -> Configuration:
    """One configuration for the documents of one run: they must share their project file."""
    projects = {config.find_project_file(Path(name)) for name in files}
    if len(projects) > 1:
        named = ", ".join(str(p) if p else "none" for p in sorted(projects, key=str))
        raise UsageError(
            f"these documents have different project settings files ({named}): audit each project on its own"
        )
    return _configuration(args, Path(files[0]))


def _desk(configuration: Configuration, args: argparse.Namespace, *, sending: bool = True) -> Desk:
    """A desk for audit, review and fix: the settings, and what belongs to this run."""
    settings = configuration.settings
    if sending and (settings.assist == "claude" or models.judge_sends_text(settings.judge)):
        Desk.require_assist_key()  # no key: exit 2 with how to set one, before any work
    options = configuration.audit_options(
        refresh=args.refresh,
        check_sources=not args.no_sources,
        reviews=not getattr(args, "ignore_reviews", False),
    )
    return Desk.from_environment(options, notice=_notice)


def _store_desk(args: argparse.Namespace) -> Desk:
    """`sources`, `retractions`: only the network and the store matter (this folder's project)."""
    return Desk.from_environment(_configuration(args, Path.cwd()).store_options(), notice=_notice)


def failing(report: Report, policy: FailPolicy) -> bool:
    """Whether `report` fails the exit-code policy: a finding it names, or, with `unchecked`, a
    citation that could not be checked (0 of 60 checked is no clean bill)."""
    if report.failing(policy):
        return True
    coverage = report.coverage_or_count()
    return policy.unchecked and coverage.checked < coverage.citations


def _exit_code(name: str, report: Report, policy: FailPolicy) -> int:
    """1 when the report fails the policy (said on standard error when it is for unchecked citations
    alone, which the report may not lead with), else 0."""
    if not failing(report, policy):
        return EXIT_OK
    if not report.failing(policy):
        _notice(f"{name}: {report.coverage_or_count().headline()} (--fail-on unchecked)")
    return EXIT_FINDINGS


# --- commands ---------------------------------------------------------------------------------------
def _audit(args: argparse.Namespace) -> int:
    deadline = _deadline(args)
    with parse_deadline(deadline):  # a thesis's files are parsed here: that is part of the audit
        _project_files(args)
    configuration = _documents_configuration(args, args.file)
    form = configuration.settings.format
    policy = FailPolicy.parse(configuration.settings.fail_on)
    if len(args.file) > 1:
        return _audit_many(args, configuration, policy)
    (name,) = args.file
    session = _desk(configuration, args, sending=not args.assist_preview).open(name)
    if args.assist_preview:
        return _assist_preview(session, configuration.settings.judge)
    if not report_format(form).finished:  # jsonl: written while the audit runs
        return _audit_streaming(session, args, policy)
    with Progress() as progress:  # look-ups and fetches: a bar on a terminal, lines in a log
        report = _with_build(args, name, session.audit(state=_showing(progress, deadline)))
    colour = _colour(args, form)
    output = session.render(report, form, colour=colour)
    if args.out:
        session.export(report, args.out, form)
        print(f"{name}: report written to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(output if form != "text" else printable(output, keep_colour=colour))
    return _exit_code(name, report, policy)


def _deadline(args: argparse.Namespace) -> float:
    """When `citedesk audit` must be done: its time budget (`--timeout`, or the settings') from
    now, so that reading a LaTeX project's files counts; the default when the settings are bad
    (reading them again later says why)."""
    where = Path(args.file[0]) if args.file else None
    try:
        seconds = config.load(where, _given(args)).settings.timeout
    except CiteDeskError:
        seconds = config.Settings().timeout
    return time.monotonic() + seconds


def _project_files(args: argparse.Namespace) -> None:
    """`--defaults FILE` and Quarto book folders (`desk.projects`): the documents and the
    bibliographies they name, as if given on the command line (paths inside the project only)."""
    allowed = [Path(p) for p in args.allow_folder or ()]
    run = project_run(args.file, args.defaults, allowed)
    if not run.documents:
        raise UsageError("give the documents to audit (or a Quarto book's folder, or --defaults FILE)")
    args.file = [str(p) for p in run.documents]
    args.bibliography = [*(args.bibliography or ()), *(str(p) for p in run.bibliographies)] or None
    args.build_notices = {str(main): said for main, said in run.build_notices}
    for notice in run.notices:
        _notice(notice)


def _with_build(args: argparse.Namespace, name: str, report: Report) -> Report:
    """A LaTeX main file's report, with what its last build says (`desk.projects`): notices."""
    report.notices.extend(getattr(args, "build_notices", {}).get(str(name), ()))
    return report


def _audit_streaming(session: DocumentSession, args: argparse.Namespace, policy: FailPolicy) -> int:
    """`--format jsonl`: each stage's findings as a JSON line the moment the stage is done (to
    standard output, flushed; or, with --out, the same lines written atomically at the end)."""
    lines: list[str] = []

    def write(line: str) -> None:
        if args.out:
            lines.append(line)
        else:
            sys.stdout.write(line)
            sys.stdout.flush()

    report = session.audit_streaming(write)
    if args.out:
        session.desk.write_report(args.out, "".join(lines))
        print(f"{args.file[0]}: report written to {args.out}", file=sys.stderr)
    return _exit_code(args.file[0], report, policy)


def _audit_many(args: argparse.Namespace, configuration: Configuration, policy: FailPolicy) -> int:
    """Each file audited on its own, then one summary table (`core.reports.multi_file`)."""
    form = configuration.settings.format
    if form not in several_formats():
        *others, last = several_formats()
        raise UsageError(
            f"--format {form} holds one document: use --format {', '.join(others)} or {last} for several"
        )
    if args.assist_preview:
        raise UsageError("--assist-preview shows what one document would send: give one file")
    desk = _desk(configuration, args)
    with Progress() as progress:
        audits = _audit_each(desk, args.file, progress, args)
    colour = _colour(args, form)
    output = render_batch(audits, form, colour=colour)
    if args.out:
        desk.write_report(args.out, output)
        print(f"{len(audits)} files: report written to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(output if form != "text" else printable(output, keep_colour=colour))
    for audit in audits:
        if audit.report is None:
            error = audit.error or ""
            named = error if audit.path in error else f"{audit.path}: {error}"  # the name once
            print(f"citedesk: {printable(named)}", file=sys.stderr)
    if any(audit.report is None for audit in audits):
        return EXIT_USAGE
    codes = [_exit_code(a.path, a.report, policy) for a in audits if a.report is not None]
    return max(codes, default=EXIT_OK)


def _showing(progress: Progress, deadline: float | None = None) -> AuditState:
    """An audit's state whose counted stages (sources fetched, references looked up) are shown;
    with `deadline`, the time budget that began before the project's files were read."""
    return AuditState(on_progress=progress.update, deadline=deadline)


def _audit_each(
    desk: Desk, files: Sequence[str], progress: Progress, args: argparse.Namespace
) -> list[FileAudit]:
    """`Desk.audit_files`, with the documents counted (and each one's look-ups) as they go."""
    label, total, finished = "documents audited", len(files), [0]

    def audit(path: str | os.PathLike[str]) -> Report:
        progress.update(label, finished[0], total, note=Path(path).name)
        return _with_build(args, str(path), desk.open(path).audit(state=_showing(progress)))

    def done(row: FileAudit) -> None:
        finished[0] += 1
        progress.update(label, finished[0], total, note=Path(row.path).name)

    return desk.jobs().audit_files(files, audit, done=done)


def _colour(args: argparse.Namespace, form: str) -> bool:
    return form == "text" and not args.out and sys.stdout.isatty() and "NO_COLOR" not in os.environ


def _alarms(n: int) -> str:
    return "a false alarm" if n == 1 else "false alarms"


def _review(args: argparse.Namespace) -> int:
    """List every finding (dismissed ones too) with its decision, or record / clear one."""
    session = _desk(_configuration(args, Path(args.file)), args).open(args.file)
    report = session.audit()
    everything = sorted([*report.findings, *report.dismissed], key=lambda f: (f.start, f.kind.value))
    if args.mark or args.clear is not None:
        number = int(args.mark[0]) if args.mark else int(args.clear)
        if not 1 <= number <= len(everything):
            raise UsageError(f"no finding {number}; `citedesk review {args.file}` lists 1…{len(everything)}")
        finding = everything[number - 1]
        if args.mark:
            decision = Decision.parse(args.mark[1])
            session.decide(report, finding, decision, args.note)
            print(f"{number}: {finding.kind.label} — {decision.label}")
        else:
            session.clear_decision(report, finding)
            print(f"{number}: {finding.kind.label} — decision cleared")
        return EXIT_OK
    lines = report.document.lines
    for number, finding in enumerate(everything, 1):
        line, col = lines.line_col(finding.start)
        review = report.review_of(finding)
        decided = f"[{review.decision.label}{': ' + review.note if review.note else ''}]" if review else "[—]"
        where = f"{line}:{col}"
        print(printable(f"{number:3}. {where:8} {finding.kind.value:22} {decided} {finding.message}"))
    reviewed, total = report.review_progress()
    dismissed = len(report.dismissed)
    print(f"\n{reviewed} of {total} reviewed; {dismissed} dismissed as {_alarms(dismissed)}")
    return EXIT_OK


def _assist_preview(session: DocumentSession, judge: str) -> int:
    """Show, word for word, what Claude assistance would send for this document; send nothing."""
    count, preview = session.assist_preview()
    print(f"With --assist claude, up to {count} request(s) would be sent first (nothing was sent):\n")
    print(printable(preview))
    pairs, judged = session.judge_preview()
    if models.judge_sends_text(judge):
        print(f"\nWith --judge claude, {pairs} cited (sentence, reference) pair(s) are judged:\n")
        print(printable(judged))
    else:
        print(
            f"With --judge claude, {pairs} cited (sentence, reference) pair(s) would be sent for judging as well."
        )
    return EXIT_OK


def _assist(args: argparse.Namespace) -> int:
    if args.action == "status":
        found = Desk.assist_key_available()
        print(
            "an Anthropic key is available" if found else f"no Anthropic key: {Desk.how_to_set_assist_key()}"
        )
        return EXIT_OK if found else EXIT_FINDINGS
    Desk.store_assist_key(sys.stdin.readline())
    print("the key is in your system keyring (never in a settings file)")
    return EXIT_OK


def _fix(args: argparse.Namespace) -> int:
    """Fix each document on its own (a LaTeX main file stands for its files, `desk.projects`): one
    checked plan per file, written atomically with its backup, the concurrent-edit guard kept. A
    file that cannot be fixed is said, and the others are still fixed; the exit code is the worst."""
    allowed = [Path(p) for p in args.allow_folder or ()]
    run = project_run(args.file, None, allowed)
    for notice in run.notices:
        _notice(notice)
    names = [str(p) for p in run.documents]
    args.bibliography = [*(args.bibliography or ()), *(str(p) for p in run.bibliographies)] or None
    configuration = _documents_configuration(args, names)
    # as `ruff --fix`: every kind's safe fixes unless --kinds (or `fix_kinds`) narrows them
    kinds = parse_kinds(configuration.settings.fix_kinds or "all")
    policy = FailPolicy.parse(configuration.settings.fail_on)
    desk = _desk(configuration, args)
    if len(names) == 1:
        return _fix_one(args, desk, names[0], kinds, policy, configuration.settings.fail_on)
    codes = []
    for name in names:
        if args.dry_run:
            sys.stdout.write(f"==> {name} <==\n")
        try:
            codes.append(_fix_one(args, desk, name, kinds, policy, configuration.settings.fail_on))
        except CiteDeskError as exc:  # this file is not fixed; the others still are
            named = exc.message if name in exc.message else f"{name}: {exc.message}"
            print(f"citedesk: {printable(named)}", file=sys.stderr)
            codes.append(exc.exit_code)
    return max(codes, default=EXIT_OK)


def _fix_one(
    args: argparse.Namespace, desk: Desk, name: str, kinds: frozenset[Kind], policy: FailPolicy, spec: str
) -> int:
    session = desk.open(name)
    outcome = session.fix(kinds, renumber=args.renumber, write=not args.dry_run, unsafe=args.unsafe_fixes)
    _say_fixed(args, name, outcome, kinds)
    return _remaining(name, session, outcome.result, kinds, policy, spec)


def _say_fixed(args: argparse.Namespace, name: str, outcome: FixOutcome, kinds: frozenset[Kind]) -> None:
    """Say what `fix` did and did not do to `name` (and print the result, with --dry-run)."""
    for title, why in outcome.refused:
        print(f"{name}: not applied: {printable(title)}: {printable(why)}", file=sys.stderr)
    if outcome.suggestions:
        shown = "; ".join(printable(t) for t in outcome.suggestions[:5])
        more = f" and {len(outcome.suggestions) - 5} more" if len(outcome.suggestions) > 5 else ""
        print(
            f"{name}: {len(outcome.suggestions)} suggestion(s) to verify not applied ({shown}{more}):"
            " read each finding's evidence, then apply it in the window or with --unsafe-fixes",
            file=sys.stderr,
        )
    if not outcome.changed:
        named = "any kind" if len(kinds) > 3 else ", ".join(sorted(k.value for k in kinds))
        print(f"{name}: nothing to fix ({named})", file=sys.stderr)
        return
    for line in outcome.lines():
        print(f"{name}: {printable(line)}", file=sys.stderr)
    if args.dry_run:
        sys.stdout.write(outcome.result)
        print(f"{name}: {len(outcome.lines())} change(s) would be made (dry run)", file=sys.stderr)
        return
    print(f"{name}: written; the original is in {outcome.backup}", file=sys.stderr)


def _remaining(
    name: str, session: DocumentSession, text: str, kinds: frozenset[Kind], policy: FailPolicy, spec: str
) -> int:
    """1 when findings at or above `--fail-on` remain after the fixes `fix` could apply (refused,
    left to verify, or of kinds not asked for), as `audit` would exit on the result; the result is
    checked as `fix` checked it: structural kinds by the structural checks alone (no source is
    fetched for them, and `unchecked` does not apply), other kinds by a whole audit."""
    if policy.min_severity is None and not policy.kinds and not policy.unchecked:
        return EXIT_OK  # --fail-on none: nothing to check
    structural = kinds <= STRUCTURAL_KINDS
    report = session.structure_report(text) if structural else session.audit(text)
    if structural:
        policy = replace(policy, unchecked=False)
    if not failing(report, policy):
        return EXIT_OK
    left = report.failing(policy)
    counted = Counter(f.kind.value for f in left)
    what = ", ".join(f"{kind} {n}" for kind, n in counted.most_common())
    checks = "structural checks; `citedesk audit` checks the sources too" if structural else "a whole audit"
    if left:
        _notice(f"{name}: {len(left)} finding(s) at or above --fail-on {spec} remain ({what}; {checks})")
    else:
        _notice(f"{name}: {report.coverage_or_count().headline()} (--fail-on unchecked)")
    return EXIT_FINDINGS


def _sources(args: argparse.Namespace) -> int:
    desk = _store_desk(args)
    if args.action == "list":
        for cached in desk.cached_sources():
            print(
                printable(
                    f"{cached.status:10} {cached.passages:4} passages  {cached.locator}  {(cached.title or '')[:60]}"
                )
            )
        return EXIT_OK
    if not args.locator:
        raise UsageError(
            f"`citedesk sources {args.action}` needs a source, as `citedesk sources list` prints it"
        )
    if args.action == "show":
        detail = desk.cached_source(args.locator)
        print(
            printable(
                f"{detail.locator}\n  status: {detail.status}\n  title: {detail.title}\n"
                f"  final URL: {detail.final_url}\n  fetched: {detail.fetched_at:.0f}\n  passages: {detail.passages}"
            )
        )
        for line in detail.fetches:
            print(printable(f"  fetch: {line}"))
        print("\n" + printable(detail.text[:2000]))
    elif args.action == "forget":
        if not desk.forget_source(args.locator):
            raise UsageError(f"no cached source {args.locator}")
        print(f"forgot {args.locator}")
    elif args.action == "refresh":
        desk.cached_source(args.locator)  # a clear message when it is not cached
        outcome = desk.refresh_source(args.locator)
        if not outcome.ok:
            print(
                printable(f"{args.locator}: {outcome.status}: {outcome.message}; the cached copy is kept"),
                file=sys.stderr,
            )
            return EXIT_FINDINGS
        print(f"{args.locator}: fetched again ({outcome.passages} passages)")
    return EXIT_OK


def _retractions(args: argparse.Namespace) -> int:
    desk = _store_desk(args)
    if args.action == "status":
        status = desk.retraction_status()
        if status is None:
            print("no retraction snapshot imported (`citedesk retractions import FILE` loads one)")
            return EXIT_FINDINGS
        imported = time.strftime("%Y-%m-%d", time.localtime(status.imported_at))
        print(
            printable(
                f"snapshot: {status.path}\n  imported: {imported} ({status.imported:,} of {status.rows:,} rows)\n"
                f"  newest notice: {status.newest or 'none dated'} — {status.age_days:.0f} days old\n"
                f"  saved answers of Crossref, OpenAlex and doi.org: {status.cached_answers:,}"
            )
        )
        return EXIT_OK
    if not args.file:
        raise UsageError("`citedesk retractions import` needs the snapshot's CSV file")
    started = time.monotonic()
    result = desk.import_retractions(args.file)
    skipped = sum(result.skipped.values())
    why = ", ".join(f"{n:,} {reason}" for reason, n in sorted(result.skipped.items()))
    print(
        printable(
            f"{args.file}: {result.rows:,} rows, {result.imported:,} imported, {skipped:,} skipped"
            + (f" ({why})" if why else "")
            + f"; newest notice {result.newest or 'undated'}; {time.monotonic() - started:.1f} s"
        )
    )
    return EXIT_OK


def _samples(args: argparse.Namespace) -> int:
    """The sample documents, then the sample projects (each by its main file: `citedesk audit PATH`
    audits the project's files), then the Word samples (`citedesk audit PATH`, read-only in the window)."""
    for name, path in {**Desk.samples(), **Desk.folder_samples()}.items():
        print(f"{name}\t{path}")
    return EXIT_OK


def _config(args: argparse.Namespace) -> int:
    """`config show`: every setting, its value and where it came from; `config path`: the files."""
    where = Path(args.file) if args.file else Path.cwd()
    if args.action == "path":
        user, project = config.user_file(), config.find_project_file(where)
        print(printable(f"user file:    {user}" + ("" if user.is_file() else " (none there)")))
        print(
            printable(
                f"project file: {project}"
                if project
                else f"project file: none for {where} (a {config.PROJECT_FILE} in its folder or a parent, "
                "up to a .git folder, below your home folder)"
            )
        )
        return EXIT_OK
    rows = _configuration(args, where).rows()
    name_width = max(len(name) for name, _, _ in rows)
    value_width = min(40, max(len(value) for _, value, _ in rows))
    for name, value, origin in rows:
        print(printable(f"{name:{name_width}}  {value:{value_width}}  {origin}"))
    return EXIT_OK


def _index(args: argparse.Namespace) -> int:
    """`citedesk index` (cli/index.py), on this folder's store."""
    return index_command(args, _store_desk(args))


def _batch(args: argparse.Namespace) -> int:
    """`citedesk batch` (cli/corpus_command.py), with the settings and the desk as `audit` makes them."""
    configuration = _configuration(args, Path(args.paths[0]))
    return batch_command(args, configuration, _desk(configuration, args))


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "audit": _audit,
    "batch": _batch,
    "fix": _fix,
    "review": _review,
    "assist": _assist,
    "sources": _sources,
    "retractions": _retractions,
    "index": _index,
    "samples": _samples,
    "models": models_command,
    "config": _config,
}
