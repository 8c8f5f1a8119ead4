"""The `citedesk` command: `audit`, `fix`, and (with no arguments) the window.

Exit codes: 0 — no findings at or above the fail threshold; 1 — findings; 2 — bad usage or an
unreadable document.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from citedesk import __version__
from citedesk.core.findings import Kind
from citedesk.core.report import RENDERERS, FailPolicy, render_text
from citedesk.errors import CiteDeskError, DocumentError, UsageError

if TYPE_CHECKING:
    from citedesk.pipeline import AuditOptions

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"citedesk: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="citedesk",
        description="Checks that every citation in a document is real and supports what the sentence says.",
    )
    parser.add_argument("--version", action="version", version=f"citedesk {__version__}")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)

    audit = commands.add_parser("audit", help="audit a document and print a report")
    audit.add_argument("file", help="a Markdown or text document")
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
    audit.add_argument("--store", metavar="PATH", help=argparse.SUPPRESS)

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
    review.add_argument("--store", metavar="PATH", help=argparse.SUPPRESS)

    assist = commands.add_parser("assist", help="Claude assistance: store your Anthropic key in the keyring")
    assist.add_argument("action", choices=["set-key", "status"])

    commands.add_parser(
        "samples", help="print the bundled sample documents and their paths (try: citedesk audit PATH)"
    )

    window = commands.add_parser("open", help="open the window (the default with no command)")
    window.add_argument("file", nargs="?", help="a document to open")

    fix = commands.add_parser("fix", help="apply the fixes CiteDesk proposes, writing the file atomically")
    fix.add_argument("file")
    fix.add_argument(
        "--kinds",
        required=True,
        metavar="KINDS",
        help="comma-separated finding kinds to fix, e.g. fabricated,orphan_reference,malformed_marker",
    )
    fix.add_argument("--renumber", action="store_true", help="also renumber the reference list 1…n")
    fix.add_argument(
        "--dry-run", action="store_true", help="print the changed document instead of writing it"
    )
    _add_source_flags(fix)
    fix.add_argument("--store", metavar="PATH", help=argparse.SUPPRESS)

    sources = commands.add_parser("sources", help="inspect the source cache")
    sources.add_argument("action", choices=["list", "show", "refresh", "forget"])
    sources.add_argument(
        "locator", nargs="?", help="a cached source (as `list` prints it) for show / refresh / forget"
    )
    sources.add_argument("--store", metavar="PATH", help=argparse.SUPPRESS)
    sources.add_argument("--allow-private-network", action="store_true")

    models = commands.add_parser(
        "models", help="NLI models for the judge: list, import, pull, verify, remove"
    )
    models.add_argument("action", choices=["list", "import", "pull", "verify", "remove", "default"])
    models.add_argument(
        "target", nargs="?", help="a folder (import), a registry name (pull), an installed name"
    )
    models.add_argument("--name", help="install under this name (import)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if getattr(sys, "frozen", False):  # a packaged build: let the audit process start (spawn)
        import multiprocessing  # noqa: PLC0415

        multiprocessing.freeze_support()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None or args.command == "open":
        return _window(getattr(args, "file", None), parser)
    try:
        if args.command == "audit":
            return _audit(args)
        if args.command == "fix":
            return _fix(args)
        if args.command == "review":
            return _review(args)
        if args.command == "assist":
            return _assist(args)
        if args.command == "sources":
            return _sources(args)
        if args.command == "samples":
            return _samples()
        if args.command == "models":
            return _models(args)
    except CiteDeskError as exc:
        print(f"citedesk: {exc.message}", file=sys.stderr)
        return exc.exit_code
    parser.error(f"unknown command {args.command}")
    return EXIT_USAGE


def _positive_seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds <= 3600:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds between 0 and 3600")
    return seconds


def _samples() -> int:
    from citedesk.assets import sample_paths  # noqa: PLC0415

    for name, path in sample_paths().items():
        print(f"{name}\t{path}")
    return EXIT_OK


def _add_source_flags(parser: argparse.ArgumentParser) -> None:
    """What audit and fix share: where sources come from and which judge reads them."""
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
    parser.add_argument("--refresh", action="store_true", help="fetch again even what is cached")
    parser.add_argument(
        "--timeout",
        type=_positive_seconds,
        default=60.0,
        metavar="SECONDS",
        help="give up on a source that has not arrived whole after this long (default: 60)",
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
        "--assist-preview",
        action="store_true",
        help="print exactly what --assist claude would send, send nothing, and exit",
    )


def _audit_options(args: argparse.Namespace) -> AuditOptions:
    from citedesk.pipeline import AuditOptions  # noqa: PLC0415

    if args.assist == "claude" or args.judge == "claude":
        from citedesk.assist.keys import require_key  # noqa: PLC0415

        require_key()  # no key: exit 2 with how to set one, before any work
    sources_dir = Path(args.sources) if args.sources else None
    if sources_dir is not None and not sources_dir.is_dir():
        raise DocumentError(f"--sources {args.sources}: no such folder")
    return _with_service_bases(
        AuditOptions(
            offline=args.offline,
            check_sources=not args.no_sources,
            sources_dir=sources_dir,
            allow_private_network=args.allow_private_network,
            fetch_timeout=args.timeout,
            refresh=args.refresh,
            store_path=Path(args.store) if args.store else None,
            judge=args.judge,
            dense=not args.no_dense,
            reviews=not getattr(args, "ignore_reviews", False),
            assist=args.assist,
            assist_model=args.assist_model,
        )
    )


def _audit(args: argparse.Namespace) -> int:
    from citedesk.files import read_document  # noqa: PLC0415 - keeps `--version` instant
    from citedesk.pipeline import audit_text  # noqa: PLC0415

    policy = FailPolicy.parse(args.fail_on)
    decoded = read_document(args.file)
    if args.assist_preview:
        return _assist_preview(decoded.text, args.file, args.judge)
    options = _audit_options(args)
    report = audit_text(decoded.text, args.file, options)
    if args.format == "text" and not args.out:
        colour = sys.stdout.isatty() and "NO_COLOR" not in os.environ
        output = render_text(report, colour=colour)
    else:
        output = RENDERERS[args.format](report)
    if args.out:
        from citedesk.files import write_atomic  # noqa: PLC0415

        write_atomic(args.out, output)
        print(f"{args.file}: report written to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(output)
    return EXIT_FINDINGS if report.failing(policy) else EXIT_OK


def _review(args: argparse.Namespace) -> int:
    """List every finding (dismissed ones too) with its decision, or record / clear one."""
    from citedesk.core.review import Decision, document_key  # noqa: PLC0415
    from citedesk.files import read_document  # noqa: PLC0415
    from citedesk.pipeline import audit_text, open_store  # noqa: PLC0415

    decoded = read_document(args.file)
    options = _audit_options(args)
    report = audit_text(decoded.text, args.file, options)
    everything = sorted([*report.findings, *report.dismissed], key=lambda f: (f.start, f.kind.value))
    if args.mark or args.clear is not None:
        number = int(args.mark[0]) if args.mark else int(args.clear)
        if not 1 <= number <= len(everything):
            raise UsageError(f"no finding {number}; `citedesk review {args.file}` lists 1…{len(everything)}")
        finding = everything[number - 1]
        store = open_store(options)
        try:
            key, doc = report.key_of(finding), document_key(args.file)
            if args.mark:
                decision = Decision.parse(args.mark[1])
                excerpt = report.document.text[finding.start : finding.end]
                store.put_review(
                    doc, key, decision.value, note=args.note, kind=finding.kind.value, excerpt=excerpt
                )
                print(f"{number}: {finding.kind.label} — {decision.label}")
            else:
                store.clear_review(doc, key)
                print(f"{number}: {finding.kind.label} — decision cleared")
        finally:
            store.close()
        return EXIT_OK
    lines = report.document.lines
    for number, finding in enumerate(everything, 1):
        line, col = lines.line_col(finding.start)
        review = report.review_of(finding)
        decided = f"[{review.decision.label}{': ' + review.note if review.note else ''}]" if review else "[—]"
        print(f"{number:3}. {line}:{col} {finding.kind.value:20} {decided} {finding.message}")
    reviewed, total = report.review_progress()
    print(f"\n{reviewed} of {total} reviewed; {len(report.dismissed)} dismissed as false alarms")
    return EXIT_OK


def _assist_preview(text: str, path: str, judge: str) -> int:
    """Show, word for word, what Claude assistance would send for this document; send nothing."""
    from citedesk.assist.insert import what_would_be_sent  # noqa: PLC0415
    from citedesk.assist.judge import what_would_be_judged  # noqa: PLC0415

    count, preview = what_would_be_sent(text, path)
    print(f"With --assist claude, up to {count} request(s) would be sent first (nothing was sent):\n")
    print(preview)
    pairs, judged = what_would_be_judged(text, path)
    if judge == "claude":
        print(f"\nWith --judge claude, {pairs} cited (sentence, reference) pair(s) are judged:\n")
        print(judged)
    else:
        print(
            f"With --judge claude, {pairs} cited (sentence, reference) pair(s) would be sent for judging as well."
        )
    return EXIT_OK


def _assist(args: argparse.Namespace) -> int:
    from citedesk.assist import keys  # noqa: PLC0415

    if args.action == "status":
        found = keys.api_key()
        print("an Anthropic key is available" if found else f"no Anthropic key: {keys.HOW_TO_SET}")
        return EXIT_OK if found else EXIT_FINDINGS
    key = sys.stdin.readline().strip()
    if not key:
        raise UsageError("no key on standard input (nothing stored)")
    keys.store_key(key)
    print("the key is in your system keyring (never in a settings file)")
    return EXIT_OK


STRUCTURAL_KINDS = frozenset(
    {Kind.FABRICATED, Kind.MALFORMED_MARKER, Kind.ORPHAN_REFERENCE, Kind.DUPLICATE_REFERENCE}
)


def _fix(args: argparse.Namespace) -> int:
    from citedesk.core.checks import structural_findings  # noqa: PLC0415
    from citedesk.core.document import parse_document  # noqa: PLC0415
    from citedesk.core.repair import Renumber, apply_checked, build_edits, merge_fixes  # noqa: PLC0415
    from citedesk.errors import RepairError  # noqa: PLC0415
    from citedesk.files import read_document, write_with_backup  # noqa: PLC0415
    from citedesk.pipeline import AuditState  # noqa: PLC0415

    kinds = _parse_kinds(args.kinds)
    decoded = read_document(args.file)
    document = parse_document(decoded.text, args.file)
    if kinds <= STRUCTURAL_KINDS:
        everything = structural_findings(document)
    else:  # fixes that need the sources (swaps, added citations): the full audit
        from citedesk.pipeline import audit  # noqa: PLC0415

        everything = audit(document, _audit_options(args), AuditState()).findings
    findings = [f for f in everything if f.kind in kinds and f.fixes]
    # the first fix of each finding is the conservative one (no renumbering); renumber once at the end
    edits = merge_fixes(document, [f.fixes[0] for f in findings])
    if args.renumber:
        operations = [op for f in findings for op in f.fixes[0].operations]
        edits = build_edits(document, [*operations, Renumber()])  # type: ignore[list-item]
    if not edits:
        print(f"{args.file}: nothing to fix for {', '.join(sorted(k.value for k in kinds))}", file=sys.stderr)
        return EXIT_OK
    try:
        fixed = apply_checked(decoded.text, edits)
    except RepairError as exc:
        print(f"citedesk: {exc}", file=sys.stderr)
        return EXIT_FINDINGS
    if args.dry_run:
        sys.stdout.write(fixed)
        print(
            f"{args.file}: {len(findings)} fixes would change {len(edits)} places (dry run)", file=sys.stderr
        )
        return EXIT_OK
    backup = write_with_backup(args.file, fixed, decoded.encoding)
    print(
        f"{args.file}: applied {len(findings)} fixes in {len(edits)} places; the original is in {backup}",
        file=sys.stderr,
    )
    return EXIT_OK


def _sources(args: argparse.Namespace) -> int:
    from citedesk.store import Store, default_store_path  # noqa: PLC0415

    store = Store(Path(args.store) if args.store else default_store_path())
    if args.action == "list":
        for record in store.sources():
            title = (record.title or "")[:60]
            print(
                f"{record.status:10} {len(store.passages(record.locator)):4} passages  {record.locator}  {title}"
            )
        return EXIT_OK
    if not args.locator:
        raise UsageError(
            f"`citedesk sources {args.action}` needs a source, as `citedesk sources list` prints it"
        )
    found = store.source(args.locator)
    if found is None:
        raise UsageError(f"no cached source {args.locator}")
    record = found
    if args.action == "show":
        print(
            f"{record.locator}\n  status: {record.status}\n  title: {record.title}\n  final URL: {record.final_url}"
        )
        print(f"  fetched: {record.fetched_at:.0f}\n  passages: {len(store.passages(record.locator))}")
        for entry in store.fetch_log(record.locator, limit=5):
            print(
                f"  fetch: {entry['status']} HTTP {entry['http_status']} in {entry['elapsed']:.2f}s {entry['message']}"
            )
        print("\n" + record.text[:2000])
    elif args.action == "forget":
        store.forget(args.locator)
        print(f"forgot {args.locator}")
    elif args.action == "refresh":
        from citedesk.pipeline import AuditOptions, source_options  # noqa: PLC0415
        from citedesk.sources.gather import refresh_source  # noqa: PLC0415

        options = _with_service_bases(AuditOptions(allow_private_network=args.allow_private_network))
        source = refresh_source(args.locator, source_options(options), store)
        if source.status.value not in ("fetched", "mismatch"):
            print(
                f"{args.locator}: {source.status.value}: {source.message}; the cached copy is kept",
                file=sys.stderr,
            )
            return EXIT_FINDINGS
        print(f"{args.locator}: fetched again ({len(source.passages)} passages)")
    return EXIT_OK


def _window(path: str | None, parser: argparse.ArgumentParser) -> int:
    try:
        from citedesk.gui.app import run  # noqa: PLC0415
    except ImportError as exc:
        print(
            f"citedesk: the window needs PySide6 ({exc}); the commands below work without it\n",
            file=sys.stderr,
        )
        parser.print_help()
        return EXIT_USAGE
    return run(path)


def _models(args: argparse.Namespace) -> int:
    from citedesk.evidence import models  # noqa: PLC0415

    if args.action == "list":
        installed = models.installed()
        default = models.default_model()
        print(
            f"Installed in {models.models_dir()}:"
            if installed
            else f"No NLI model installed ({models.models_dir()})."
        )
        for path in installed:
            mark = "*" if default is not None and path == default else " "
            print(f" {mark} {path.name:28} {models.describe(path)}")
        print("\nRecommended (`citedesk models pull NAME` where a network exists):")
        for entry in models.REGISTRY:
            print(
                f"   {entry.name:24} {entry.hub_id:48} {entry.size_mb:5} MB  {entry.licence:10} {entry.labels}; {entry.speed}"
            )
        print("\nWithout a model the heuristic judge is used (labelled `heuristic` in every report).")
        return EXIT_OK
    if not args.target:
        raise UsageError(f"`citedesk models {args.action}` needs a target")
    from citedesk.evidence.judges.nli import ModelError, NliJudge  # noqa: PLC0415

    try:
        if args.action == "import":
            target = models.import_model(Path(args.target), args.name)
            print(f"installed {target.name} ({models.describe(target)})")
        elif args.action == "pull":
            target = models.pull_model(args.target)
            print(f"installed {target.name}")
        elif args.action == "remove":
            models.remove_model(args.target)
            print(f"removed {args.target}")
        elif args.action == "default":
            models.set_default(models.find_model(args.target).name)
            print(f"{args.target} is now the default judge model")
        elif args.action == "verify":
            path = models.find_model(args.target)
            result = models.verify(NliJudge(path))
            for claim, ok, score in result.rows:
                print(f"  {'ok ' if ok else 'BAD'} {score:.2f}  {claim}")
            print(f"{path.name}: {result.correct}/{result.total} known pairs right")
            return EXIT_OK if result.correct == result.total else EXIT_FINDINGS
    except ModelError as exc:
        print(f"citedesk: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


def _with_service_bases(options: AuditOptions) -> AuditOptions:
    """DOI, Crossref and arXiv endpoints from the environment (tests and mirrors point them elsewhere)."""
    return replace(
        options,
        doi_base=os.environ.get("CITEDESK_DOI_BASE"),
        crossref_base=os.environ.get("CITEDESK_CROSSREF_BASE"),
        arxiv_base=os.environ.get("CITEDESK_ARXIV_BASE"),
    )


def _parse_kinds(spec: str) -> set[Kind]:
    kinds: set[Kind] = set()
    for name in spec.split(","):
        name = name.strip().replace("-", "_")
        if name in ("all", "*"):
            return set(Kind)
        try:
            kinds.add(Kind(name))
        except ValueError:
            raise UsageError(
                f"unknown finding kind {name!r}; choose from {', '.join(k.value for k in Kind)}"
            ) from None
    return kinds


if __name__ == "__main__":
    raise SystemExit(main())
