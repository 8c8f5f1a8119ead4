"""The `citedesk` command: argument parsing and printing; every job is the desk's.

Exit codes (one contract, documented in the README and tested):
  0 — no findings at or above the fail threshold (`--fail-on`, default `warning`), or the job done;
  1 — findings (or a repair refused, which leaves them);
  2 — a known condition: bad usage, an unreadable document, an unwritable output, a locked store;
  3 — an internal error (a bug): a short message with how to report it; `--debug` shows the
      traceback.
Nothing ends in a raw traceback without `--debug`.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from citedesk import __version__
from citedesk.core.report import RENDERERS, FailPolicy
from citedesk.errors import (
    EXIT_BUG,
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    CiteDeskError,
    InputError,
    UsageError,
)

if TYPE_CHECKING:
    from citedesk.desk import Desk, DocumentSession

BUG_HINT = (
    "this is a bug in CiteDesk, not a problem with your document: please report it at "
    "https://github.com/citedesk/citedesk/issues with the command you ran (add --debug for details)"
)
_CONTROL = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)
OpenWindow = Callable[[str | None], int]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"citedesk: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="citedesk",
        description="Checks that every citation in a document is real and supports what the sentence says.",
        epilog="Exit codes: 0 clean, 1 findings, 2 usage/input/environment problem, 3 internal error.",
    )
    parser.add_argument("--version", action="version", version=f"citedesk {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an internal error")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)

    audit = commands.add_parser(
        "audit",
        help="audit documents and print a report (several: each report, then a summary table)",
    )
    audit.add_argument("file", nargs="+", help="Markdown or text documents")
    audit.add_argument(
        "--format", choices=sorted(RENDERERS), default="text", help="report format (default: text)"
    )
    audit.add_argument("--out", metavar="PATH", help="write the report to PATH instead of standard output")
    audit.add_argument(
        "--fail-on",
        default="warning",
        metavar="KINDS",
        help="exit 1 on findings of this severity or worse (error, warning, info, none) "
        "or of these kinds (comma-separated, e.g. fabricated,uncited); default: warning",
    )
    _add_source_flags(audit)
    audit.add_argument(
        "--ignore-reviews",
        action="store_true",
        help="report every finding, even those you marked as false alarms",
    )

    review = commands.add_parser(
        "review", help="list the findings with your review decisions, or record a decision"
    )
    review.add_argument("file")
    review.add_argument(
        "--mark",
        nargs=2,
        metavar=("N", "DECISION"),
        help="decide on finding N (as listed): confirmed, false_alarm (hidden from later audits until "
        "its sentence or source changes) or needs_source",
    )
    review.add_argument("--note", default="", help="a note to keep with the decision")
    review.add_argument("--clear", metavar="N", type=int, help="forget the decision on finding N")
    _add_source_flags(review)

    assist = commands.add_parser("assist", help="Claude assistance: store your Anthropic key in the keyring")
    assist.add_argument("action", choices=["set-key", "status"])

    commands.add_parser(
        "samples", help="print the bundled sample documents and their paths (try: citedesk audit PATH)"
    )

    window = commands.add_parser("open", help="open the window (the default with no command)")
    window.add_argument("file", nargs="?", help="a document to open")

    fix = commands.add_parser(
        "fix",
        help="apply the fixes CiteDesk proposes as one checked plan, writing the file atomically",
        description="Applies every fix of the given kinds together, as one plan that is checked before "
        "anything is written: the prose (the text without markers and the reference list) stays "
        "byte-identical, no citation is left pointing at a missing reference, no reference is left "
        "cited by nothing, and renumbering keeps every marker on the same work. Fixes that conflict "
        "are resolved by meaning (a reference a swap now cites is not removed as an orphan). It "
        "repeats until nothing more changes, so running it again changes nothing. Prints each change.",
    )
    fix.add_argument("file")
    fix.add_argument(
        "--kinds",
        required=True,
        metavar="KINDS",
        help="`all`, or comma-separated finding kinds to fix, e.g. fabricated,orphan_reference,misattributed",
    )
    fix.add_argument("--renumber", action="store_true", help="also renumber the reference list 1…n")
    fix.add_argument(
        "--dry-run", action="store_true", help="print the changed document instead of writing it"
    )
    _add_source_flags(fix)

    sources = commands.add_parser("sources", help="inspect the source cache")
    sources.add_argument("action", choices=["list", "show", "refresh", "forget"])
    sources.add_argument(
        "locator", nargs="?", help="a cached source (as `list` prints it) for show / refresh / forget"
    )
    sources.add_argument("--store", metavar="PATH", help=argparse.SUPPRESS)
    sources.add_argument("--allow-private-network", action="store_true")

    retractions = commands.add_parser(
        "retractions",
        help="the local Retraction Watch snapshot: import one, or see how old it is",
        description="`import FILE` loads a Retraction Watch CSV (the snapshot Crossref publishes) into the "
        "store, replacing the previous one in one transaction; audits then flag retracted works with or "
        "without a network. `status` says which snapshot is loaded and how old it is.",
    )
    retractions.add_argument("action", choices=["import", "status"])
    retractions.add_argument("file", nargs="?", help="the CSV file (import)")
    retractions.add_argument("--store", metavar="PATH", help=argparse.SUPPRESS)

    models = commands.add_parser(
        "models", help="NLI models for the judge: list, import, pull, verify, remove"
    )
    models.add_argument("action", choices=["list", "import", "pull", "verify", "remove", "default"])
    models.add_argument(
        "target", nargs="?", help="a folder (import), a registry name (pull), an installed name"
    )
    models.add_argument("--name", help="install under this name (import)")
    models.add_argument(
        "--as",
        dest="registry_name",
        metavar="NAME",
        help="import: the folder is this registry model (its format)",
    )
    for command in commands.choices.values():  # `citedesk audit FILE --debug` works too
        command.add_argument(
            "--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS
        )
    return parser


def main(argv: Sequence[str] | None = None, *, open_window: OpenWindow | None = None) -> int:
    """Run one command; `open_window` is how the entry point opens the window (no command)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command is None or args.command == "open":
            if open_window is None:
                parser.print_help()
                return EXIT_USAGE
            return open_window(getattr(args, "file", None))
        return _COMMANDS[args.command](args)
    except CiteDeskError as exc:
        print(f"citedesk: {_printable(exc.message)}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("citedesk: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`citedesk audit … | head`): stop, as a pipe does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + 13
    except Exception:
        if args.debug:
            raise
        import traceback  # noqa: PLC0415

        last = traceback.format_exc().strip().splitlines()[-1]
        print(f"citedesk: internal error: {_printable(last)}\ncitedesk: {BUG_HINT}", file=sys.stderr)
        return EXIT_BUG


# --- shared flags ----------------------------------------------------------------------------------
def _positive_seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds <= 3600:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds between 0 and 3600")
    return seconds


def _positive_days(value: str) -> float:
    try:
        days = float(value)
    except ValueError:
        days = -1.0
    if not 0 <= days <= 3650:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of days between 0 and 3650")
    return days


def _add_source_flags(parser: argparse.ArgumentParser) -> None:
    """What audit, review and fix share: where sources come from and which judge reads them."""
    parser.add_argument(
        "--offline", action="store_true", help="fetch nothing; use local files and the cache only"
    )
    parser.add_argument(
        "--sources",
        metavar="DIR",
        help="a folder of source files named by reference key (1.txt, 2.pdf, smith2020.html)",
    )
    parser.add_argument(
        "--no-sources", action="store_true", help="skip sources entirely: structure checks only"
    )
    parser.add_argument(
        "--bibliography",
        action="append",
        metavar="FILE",
        help="a bibliography (.bib, CSL .json/.yaml, .ris) for pandoc citations ([@key]), besides "
        "those the document's front matter names; repeat for several. Never modified",
    )
    parser.add_argument(
        "--zotero-dir",
        metavar="DIR",
        help="Zotero's data folder, for the attachments of cited keys (default: ~/Zotero when it "
        "holds a library); read-only",
    )
    parser.add_argument("--no-zotero", action="store_true", help="do not look for attachments in Zotero")
    parser.add_argument("--refresh", action="store_true", help="fetch again even what is cached")
    parser.add_argument(
        "--timeout",
        type=_positive_seconds,
        default=300.0,
        metavar="SECONDS",
        help="time for the whole audit, sources and judging together (default: 300; one source gets at "
        "most 60): what is not done by then is reported as not checked",
    )
    parser.add_argument(
        "--allow-local-path",
        action="store_true",
        help="read files named in references wherever they are (default: only below the document's "
        "folder and --sources)",
    )
    parser.add_argument(
        "--allow-private-network",
        action="store_true",
        help="allow links to loopback and private addresses (off: a document cannot probe your network)",
    )
    parser.add_argument(
        "--judge",
        default="auto",
        metavar="JUDGE",
        help="heuristic, nli, nli:MODEL (an installed name or a folder), auto (default: the installed "
        "default NLI model, else heuristic) or none (no verdicts)",
    )
    parser.add_argument(
        "--no-dense", action="store_true", help="retrieve and judge by words only (no embedding model)"
    )
    parser.add_argument(
        "--assist",
        choices=["none", "claude"],
        default="none",
        help="claude: send long cited sentences (split into facts, each judged locally) and uncited "
        "sentences with reference titles (citation suggestions, each checked locally) to Claude with "
        "your Anthropic key; default none: nothing leaves the machine",
    )
    parser.add_argument("--assist-model", metavar="MODEL", help="the Claude model (default: a Sonnet model)")
    parser.add_argument(
        "--contact-email",
        metavar="ADDRESS",
        help="sent to Crossref and OpenAlex with each look-up, as they ask (their polite pools); "
        "default: $CITEDESK_CONTACT_EMAIL, else none",
    )
    parser.add_argument(
        "--recheck-days",
        type=_positive_days,
        metavar="DAYS",
        help="ask the indexes again about a work once their saved answer is this old (default: 30; "
        "retractions appear later)",
    )
    parser.add_argument(
        "--assist-preview",
        action="store_true",
        help="print exactly what --assist claude would send, send nothing, and exit",
    )
    parser.add_argument("--store", metavar="PATH", help=argparse.SUPPRESS)


def _desk(args: argparse.Namespace, *, sending: bool = True) -> Desk:
    from citedesk.desk import AuditOptions, Desk  # noqa: PLC0415 - keeps `--version` instant

    def notice(message: str) -> None:
        print(f"citedesk: {_printable(message)}", file=sys.stderr)

    if not hasattr(args, "judge"):  # `sources`, `retractions`: only the network and the store matter
        return Desk.from_environment(
            AuditOptions(
                allow_private_network=getattr(args, "allow_private_network", False),
                store_path=Path(args.store) if args.store else None,
            ),
            notice=notice,
        )
    if sending and (args.assist == "claude" or args.judge == "claude"):
        Desk.require_assist_key()  # no key: exit 2 with how to set one, before any work
    sources_dir = Path(args.sources) if args.sources else None
    if sources_dir is not None and not sources_dir.is_dir():
        raise InputError(f"--sources {args.sources}: no such folder")
    zotero_dir = Path(args.zotero_dir) if args.zotero_dir else None
    if zotero_dir is not None and not zotero_dir.is_dir():
        raise InputError(f"--zotero-dir {args.zotero_dir}: no such folder")
    options = AuditOptions(
        offline=args.offline,
        check_sources=not args.no_sources,
        sources_dir=sources_dir,
        allow_private_network=args.allow_private_network,
        fetch_timeout=min(60.0, args.timeout),
        time_budget=args.timeout,
        allow_local_paths=args.allow_local_path,
        refresh=args.refresh,
        store_path=Path(args.store) if args.store else None,
        judge=args.judge,
        dense=not args.no_dense,
        reviews=not getattr(args, "ignore_reviews", False),
        assist=args.assist,
        assist_model=args.assist_model,
        bibliographies=tuple(Path(p) for p in args.bibliography or ()),
        zotero_dir=zotero_dir,
        zotero=not args.no_zotero,
        contact_email=args.contact_email,
        recheck_days=args.recheck_days,
    )
    return Desk.from_environment(options, notice=notice)


# --- commands ---------------------------------------------------------------------------------------
def _audit(args: argparse.Namespace) -> int:
    policy = FailPolicy.parse(args.fail_on)
    if len(args.file) > 1:
        return _audit_many(args, policy)
    (name,) = args.file
    session = _desk(args, sending=not args.assist_preview).open(name)
    if args.assist_preview:
        return _assist_preview(session, args.judge)
    report = session.audit()
    colour = _colour(args)
    output = session.render(report, args.format, colour=colour)
    if args.out:
        session.export(report, args.out, args.format)
        print(f"{name}: report written to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(output if args.format != "text" else _printable(output, keep_colour=colour))
    return EXIT_FINDINGS if report.failing(policy) else EXIT_OK


def _audit_many(args: argparse.Namespace, policy: FailPolicy) -> int:
    """Each file audited on its own, then one summary table (`core.batch`)."""
    from citedesk.core.batch import render_batch  # noqa: PLC0415

    if args.format == "html":
        raise UsageError("an HTML report holds one document: use --format text, markdown or json for several")
    if args.assist_preview:
        raise UsageError("--assist-preview shows what one document would send: give one file")
    desk = _desk(args)
    audits = desk.audit_files(args.file)
    colour = _colour(args)
    output = render_batch(audits, args.format, colour=colour)
    if args.out:
        desk.write_report(args.out, output)
        print(f"{len(audits)} files: report written to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(output if args.format != "text" else _printable(output, keep_colour=colour))
    for audit in audits:
        if audit.report is None:
            print(f"citedesk: {_printable(audit.path)}: {_printable(audit.error or '')}", file=sys.stderr)
    if any(audit.report is None for audit in audits):
        return EXIT_USAGE
    return (
        EXIT_FINDINGS if any(a.report is not None and a.report.failing(policy) for a in audits) else EXIT_OK
    )


def _colour(args: argparse.Namespace) -> bool:
    return args.format == "text" and not args.out and sys.stdout.isatty() and "NO_COLOR" not in os.environ


def _review(args: argparse.Namespace) -> int:
    """List every finding (dismissed ones too) with its decision, or record / clear one."""
    from citedesk.core.review import Decision  # noqa: PLC0415

    session = _desk(args).open(args.file)
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
        print(_printable(f"{number:3}. {line}:{col} {finding.kind.value:20} {decided} {finding.message}"))
    reviewed, total = report.review_progress()
    print(f"\n{reviewed} of {total} reviewed; {len(report.dismissed)} dismissed as false alarms")
    return EXIT_OK


def _assist_preview(session: DocumentSession, judge: str) -> int:
    """Show, word for word, what Claude assistance would send for this document; send nothing."""
    count, preview = session.assist_preview()
    print(f"With --assist claude, up to {count} request(s) would be sent first (nothing was sent):\n")
    print(_printable(preview))
    pairs, judged = session.judge_preview()
    if judge == "claude":
        print(f"\nWith --judge claude, {pairs} cited (sentence, reference) pair(s) are judged:\n")
        print(_printable(judged))
    else:
        print(
            f"With --judge claude, {pairs} cited (sentence, reference) pair(s) would be sent for judging as well."
        )
    return EXIT_OK


def _assist(args: argparse.Namespace) -> int:
    from citedesk.desk import Desk  # noqa: PLC0415

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
    from citedesk.desk import parse_kinds  # noqa: PLC0415

    kinds = parse_kinds(args.kinds)
    session = _desk(args).open(args.file)
    outcome = session.fix(kinds, renumber=args.renumber, write=not args.dry_run)
    for title, why in outcome.refused:
        print(f"{args.file}: not applied: {_printable(title)}: {_printable(why)}", file=sys.stderr)
    if not outcome.changed:
        named = "any kind" if len(kinds) > 3 else ", ".join(sorted(k.value for k in kinds))
        print(f"{args.file}: nothing to fix ({named})", file=sys.stderr)
        return EXIT_OK
    for line in outcome.lines():
        print(f"{args.file}: {_printable(line)}", file=sys.stderr)
    if args.dry_run:
        sys.stdout.write(outcome.result)
        print(f"{args.file}: {len(outcome.lines())} change(s) would be made (dry run)", file=sys.stderr)
        return EXIT_OK
    print(f"{args.file}: written; the original is in {outcome.backup}", file=sys.stderr)
    return EXIT_OK


def _sources(args: argparse.Namespace) -> int:
    desk = _desk(args)
    if args.action == "list":
        for cached in desk.cached_sources():
            print(
                _printable(
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
            _printable(
                f"{detail.locator}\n  status: {detail.status}\n  title: {detail.title}\n"
                f"  final URL: {detail.final_url}\n  fetched: {detail.fetched_at:.0f}\n  passages: {detail.passages}"
            )
        )
        for line in detail.fetches:
            print(_printable(f"  fetch: {line}"))
        print("\n" + _printable(detail.text[:2000]))
    elif args.action == "forget":
        if not desk.forget_source(args.locator):
            raise UsageError(f"no cached source {args.locator}")
        print(f"forgot {args.locator}")
    elif args.action == "refresh":
        desk.cached_source(args.locator)  # a clear message when it is not cached
        outcome = desk.refresh_source(args.locator)
        if not outcome.ok:
            print(
                _printable(f"{args.locator}: {outcome.status}: {outcome.message}; the cached copy is kept"),
                file=sys.stderr,
            )
            return EXIT_FINDINGS
        print(f"{args.locator}: fetched again ({outcome.passages} passages)")
    return EXIT_OK


def _retractions(args: argparse.Namespace) -> int:
    desk = _desk(args)
    if args.action == "status":
        status = desk.retraction_status()
        if status is None:
            print("no retraction snapshot imported (`citedesk retractions import FILE` loads one)")
            return EXIT_FINDINGS
        imported = time.strftime("%Y-%m-%d", time.localtime(status.imported_at))
        print(
            _printable(
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
        _printable(
            f"{args.file}: {result.rows:,} rows, {result.imported:,} imported, {skipped:,} skipped"
            + (f" ({why})" if why else "")
            + f"; newest notice {result.newest or 'undated'}; {time.monotonic() - started:.1f} s"
        )
    )
    return EXIT_OK


def _samples(args: argparse.Namespace) -> int:
    from citedesk.desk import Desk  # noqa: PLC0415

    for name, path in Desk.samples().items():
        print(f"{name}\t{path}")
    return EXIT_OK


def _models(args: argparse.Namespace) -> int:
    from citedesk.desk import models  # noqa: PLC0415

    if args.action == "list":
        found = models.installed()
        print(
            f"Installed in {models.models_dir()}:"
            if found
            else f"No NLI model installed ({models.models_dir()})."
        )
        for model in found:
            print(f" {'*' if model.default else ' '} {model.name:28} {model.description}")
        print()
        for line in models.recommended():
            print(line)
        print("\nWithout a model the heuristic judge is used (labelled `heuristic` in every report).")
        return EXIT_OK
    if not args.target:
        raise UsageError(f"`citedesk models {args.action}` needs a target")
    if args.action == "import":
        model = models.import_model(args.target, args.name, args.registry_name)
        print(f"installed {model.name} ({model.description})")
    elif args.action == "pull":
        shown = [0.0]

        def show(done: int, total: int) -> None:
            now = time.monotonic()
            if now - shown[0] >= 0.5 or done >= total:
                shown[0] = now
                print(f"\r  {models.progress_text(done, total)}", end="", file=sys.stderr, flush=True)

        pulled = models.pull_model(args.target, progress=show)
        print(file=sys.stderr)
        print(
            f"installed {pulled.name} ({pulled.hub_id} at {pulled.commit[:10]}, {pulled.megabytes:,.0f} MB); "
            f"{pulled.right}/{pulled.pairs} known pairs right"
        )
    elif args.action == "remove":
        models.remove_model(args.target)
        print(f"removed {args.target}")
    elif args.action == "default":
        print(f"{models.set_default(args.target)} is now the default judge model")
    elif args.action == "verify":
        outcome = models.verify(args.target)
        for claim, ok, score in outcome.rows:
            print(f"  {'ok ' if ok else 'BAD'} {score:.2f}  {claim}")
        print(f"{outcome.name}: {outcome.correct}/{outcome.total} known pairs right")
        return EXIT_OK if outcome.passed else EXIT_FINDINGS
    return EXIT_OK


_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "audit": _audit,
    "fix": _fix,
    "review": _review,
    "assist": _assist,
    "sources": _sources,
    "retractions": _retractions,
    "samples": _samples,
    "models": _models,
}


# --- output ------------------------------------------------------------------------------------------
def _printable(text: str, *, keep_colour: bool = False) -> str:
    """Text for a terminal: control characters and escape sequences from documents, sources or
    error messages are shown as `�`, so nothing CiteDesk prints can move the cursor, retitle the
    terminal or hide text. With `keep_colour`, CiteDesk's own colour codes (SGR) stay."""

    def replace_control(match: re.Match[str]) -> str:
        found = match.group(0)
        if found in ("\n", "\t") or (keep_colour and re.fullmatch(r"\x1b\[[0-9;]*m", found)):
            return found
        return "\ufffd"

    return _CONTROL.sub(replace_control, text)
