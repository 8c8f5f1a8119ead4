"""The command line's grammar: every command, its flags, and the flags audit, review and fix share.

A flag that is also a setting (`citedesk.config`) has no default here: None means "not given", so the
settings files below it show through (`--judge`, `--timeout`, `--offline/--no-offline`, …)."""

from __future__ import annotations

import argparse
import sys

from citedesk import __version__
from citedesk.core.judge_settings import declared_settings
from citedesk.core.reports import format_names
from citedesk.errors import (
    EXIT_USAGE,
)


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
    audit.add_argument(
        "file",
        nargs="*",
        help="Markdown, text, LaTeX or Word (.docx) documents, a Quarto book's folder (its chapters, with its "
        "bibliography), or a LaTeX main file (thesis.tex: it and the files it includes, with the "
        "bibliographies they name)",
    )
    audit.add_argument(
        "--defaults",
        metavar="FILE",
        help="a pandoc defaults file: audit its input-files with its bibliographies (and those of its "
        "metadata-files); paths inside its folder only",
    )
    audit.add_argument(
        "--format",
        choices=format_names(),
        help="report format (default: text); jsonl: one JSON line per stage of the audit as it "
        "finishes (structure first), then the summary",
    )
    audit.add_argument("--out", metavar="PATH", help="write the report to PATH instead of standard output")
    audit.add_argument(
        "--fail-on",
        metavar="KINDS",
        help="exit 1 on findings of this severity or worse (error, warning, info, none) "
        "or of these kinds (comma-separated, e.g. fabricated,uncited); add `unchecked` to exit 1 "
        "also when a citation could not be checked (warning,unchecked); default: warning",
    )
    _add_source_flags(audit)
    audit.add_argument(
        "--ignore-reviews",
        action="store_true",
        help="report every finding, even those you marked as false alarms",
    )

    _add_batch(commands)

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

    window = commands.add_parser(
        "open",
        help="open the window (the default with no command; `citedesk FILE…` is `citedesk open FILE…`)",
    )
    window.add_argument("file", nargs="*", help="documents to open, one window each")

    commands.add_parser(
        "lsp",
        help="run the language server on stdin/stdout (editors: Neovim, Helix, Zed, Emacs, VS Code)",
        description="A language server over stdio: diagnostics, quick fixes, hover and citation "
        "completion for Markdown, Quarto and LaTeX. Settings come from the editor "
        "(initializationOptions) over citedesk.toml; see docs/editors.md.",
    )

    fix = commands.add_parser(
        "fix",
        help="apply the fixes CiteDesk proposes as one checked plan, writing the file atomically",
        description="Applies the safe fixes of every kind (or of the kinds --kinds names) together, as one "
        "plan that is checked before "
        "anything is written: the prose (the text without markers and the reference list) stays "
        "byte-identical, no citation is left pointing at a missing reference, no reference is left "
        "cited by nothing, and renumbering keeps every marker on the same work. Fixes that conflict "
        "are resolved by meaning (a reference a swap now cites is not removed as an orphan). It "
        "repeats until nothing more changes, so running it again changes nothing. Prints each change.",
    )
    fix.add_argument(
        "file",
        nargs="+",
        help="documents to fix, each on its own (one checked plan per file), or a LaTeX main file "
        "(thesis.tex: it and the files it includes, with the bibliographies they name); a Word "
        ".docx has its citation fields rewritten in place (the package's other parts unchanged)",
    )
    fix.add_argument(
        "--kinds",
        metavar="KINDS",
        help="comma-separated finding kinds to fix, e.g. fabricated,orphan_reference,misattributed, or `all` "
        "(default: the `fix_kinds` setting, else all)",
    )
    fix.add_argument("--renumber", action="store_true", help="also renumber the reference list 1…n")
    fix.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="also apply the judge's suggestions to verify (swaps and added citations the word-level "
        "judge proposes, or a model's that did not pass the evidence gate); read them first",
    )
    fix.add_argument(
        "--dry-run", action="store_true", help="print the changed document instead of writing it"
    )
    fix.add_argument(
        "--fail-on",
        metavar="KINDS",
        help="exit 1 when findings of this severity or worse (or of these kinds, or `unchecked` "
        "citations) remain after the fixes that could be applied, as audit does; default: warning",
    )
    _add_source_flags(fix)

    sources = commands.add_parser("sources", help="inspect the source cache")
    sources.add_argument("action", choices=["list", "show", "refresh", "forget"])
    sources.add_argument(
        "locator", nargs="?", help="a cached source (as `list` prints it) for show / refresh / forget"
    )
    sources.add_argument("--store", metavar="PATH", help=argparse.SUPPRESS)
    sources.add_argument("--allow-private-network", action=argparse.BooleanOptionalAction)

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

    _add_index(commands)

    models = commands.add_parser(
        "models",
        help="NLI models for the judge: list, import, pull, verify, remove; bench: time one here; "
        "prepare [NAME]: make the embedder's (or model NAME's) ONNX file (audits then start without torch)",
    )
    models.add_argument(
        "action", choices=["list", "import", "pull", "verify", "remove", "default", "prepare", "bench"]
    )
    models.add_argument(
        "target",
        nargs="?",
        help="a folder (import), a registry name (pull), an installed name (prepare: none for the embedder)",
    )
    models.add_argument("--name", help="install under this name (import)")
    models.add_argument("--again", action="store_true", help="prepare: make the file even if it exists")
    models.add_argument(
        "--as",
        dest="registry_name",
        metavar="NAME",
        help="import: the folder is this registry model (its format)",
    )
    config = commands.add_parser(
        "config",
        help="the settings in force and where each comes from (show), or where the settings files are (path)",
        description="Settings come in layers, each replacing the one before: defaults, your settings file "
        "(`citedesk config path` says where; $CITEDESK_CONFIG names another), the project's citedesk.toml "
        "(in the document's folder or a parent, up to a .git folder), and the command line. A project file "
        "cannot widen the folders CiteDesk may read, name paths outside its project, or hold a key.",
    )
    config.add_argument("action", choices=["show", "path"])
    config.add_argument(
        "file", nargs="?", help="the document (or folder) whose project file applies (default: this folder)"
    )
    _add_source_flags(config)

    for command in commands.choices.values():  # `citedesk audit FILE --debug` works too
        command.add_argument(
            "--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS
        )
    return parser


def _add_index(commands: argparse._SubParsersAction[_Parser]) -> None:
    """`citedesk index` (cli/index.py): the offline mirror of Crossref or OpenAlex works."""
    index = commands.add_parser(
        "index",
        help="the offline index mirror: import Crossref or OpenAlex works (JSON lines), or see what is there",
        description="`import FILE…` loads JSON-lines files of works (a subset of Crossref's public data file "
        "or of the OpenAlex snapshot, .jsonl or gzipped) into the store, each replacing its own earlier "
        "rows; reference truth then checks the DOIs and titles it holds without asking the network. "
        "`status` lists the files imported.",
    )
    index.add_argument("action", choices=["import", "status"])
    index.add_argument("files", nargs="*", metavar="FILE", help="the JSON-lines files (import)")
    index.add_argument(
        "--source", choices=["crossref", "openalex"], help="whose works (default: told by the records)"
    )
    index.add_argument("--max-works", type=int, metavar="N", help="stop each file after N works kept")
    index.add_argument("--max-seconds", type=float, metavar="S", help="stop each file after S seconds")
    index.add_argument("--store", metavar="PATH", help=argparse.SUPPRESS)


def _add_batch(commands: argparse._SubParsersAction[_Parser]) -> None:
    """`citedesk batch` (cli/corpus_command.py): a corpus, each document audited on its own."""
    batch = commands.add_parser(
        "batch",
        help="audit every document under folders (a corpus) into a folder of reports, a table and an overview",
        description="Audits every Markdown, text, LaTeX and Word (.docx) document under the paths, each as `citedesk audit "
        "--format json` would, into DIR: reports/NAME.json, corpus.csv and corpus.parquet (one row per "
        "finding and per citation not checked), index.html (an overview) and manifest.json. A re-run "
        "audits only the documents (or settings) changed since; a document that cannot be audited is "
        "a row with its error. The works the corpus cites are fetched and looked up once, here, and given to "
        "the workers as data (they read no shared store); a killed run resumes with at most the documents "
        "in flight redone.",
    )
    batch.add_argument("paths", nargs="+", metavar="PATH", help="documents, or folders searched recursively")
    batch.add_argument("--out", metavar="DIR", required=True, help="the folder the outputs go to")
    batch.add_argument(
        "--workers",
        type=_positive_count,
        metavar="N",
        help="audit in N processes, each with its own judge (default: this machine's cores, at most 4)",
    )
    batch.add_argument(
        "--engine",
        choices=["local", "ray"],
        default="local",
        help="local (default): processes on this machine; ray: Ray Data's actors, one judge each "
        '(pip install "citedesk[scale]")',
    )
    batch.add_argument(
        "--address",
        metavar="ADDR",
        help="--engine ray: a running Ray cluster's address (host:port of its head, as `ray start --head` "
        "prints it; default: a local Ray for this run). Sources travel to the actors as data, so a "
        "node needs no store; each node must read the documents at the paths given",
    )
    batch.add_argument(
        "--force",
        action="store_true",
        help="audit every document again, even those unchanged since the last run",
    )
    batch.add_argument(
        "--fail-on",
        metavar="KINDS",
        help="exit 1 when a document has findings of this severity or worse (or of these kinds), as "
        "audit does; default: warning",
    )
    _add_source_flags(batch)


def _positive_count(value: str) -> int:
    if not value.isdigit() or not 1 <= int(value) <= 256:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of workers between 1 and 256")
    return int(value)


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


JUDGE_HELP = (
    "heuristic, server, server:MODEL (a model the server at --judge-url runs, e.g. bespoke-minicheck), "
    "nli, nli:MODEL (an installed name or a folder), seq2seq, seq2seq:MODEL (an installed text-to-text "
    "model), auto (default: the default model if it is text-to-text, else the default NLI model if "
    "installed, else heuristic) or none (no verdicts)"
)


def _add_cascade_flags(parser: argparse.ArgumentParser) -> None:
    """A strong judge that re-reads, within a budget, what the fast judge (`--judge`) flagged."""
    parser.add_argument(
        "--strong-judge",
        metavar="JUDGE",
        help="a cascade: this judge (any --judge value that sends nothing to Claude) re-reads what --judge "
        "flagged, the fixes it drives and the claims it is unsure about, and decides them",
    )
    parser.add_argument(
        "--strong-budget",
        type=_positive_seconds,
        metavar="SECONDS",
        help="time the --strong-judge may spend re-reading (default: 30); the rest keeps --judge's reading",
    )


def _add_source_flags(parser: argparse.ArgumentParser) -> None:
    """What audit, review and fix share: where sources come from and which judge reads them."""
    parser.add_argument(
        "--offline",
        action=argparse.BooleanOptionalAction,
        help="fetch nothing; use local files and the cache only",
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
    parser.add_argument(
        "--zotero",
        action=argparse.BooleanOptionalAction,
        help="look for attachments in Zotero (default; --no-zotero: do not)",
    )
    parser.add_argument("--refresh", action="store_true", help="fetch again even what is cached")
    parser.add_argument(
        "--timeout",
        type=_positive_seconds,
        metavar="SECONDS",
        help="time for the whole audit, sources and judging together (default: 300; one source gets at "
        "most 60): what is not done by then is reported as not checked; for fix, time for the whole "
        "fix: past it, exit 2 and nothing is written",
    )
    parser.add_argument(
        "--allow-folder",
        action="append",
        metavar="DIR",
        help="a folder whose files the document (its references, its bibliography and that "
        "bibliography's attachments) may name, besides the document's own folder and --sources; "
        "repeat for more",
    )
    parser.add_argument(
        "--allow-local-path",
        action=argparse.BooleanOptionalAction,
        help="read files named in the document or its bibliography wherever they are (default: only "
        "below the document's folder, --sources, --allow-folder, the folders of --bibliography files "
        "and Zotero's)",
    )
    parser.add_argument(
        "--allow-private-network",
        action=argparse.BooleanOptionalAction,
        help="allow links to loopback and private addresses (off: a document cannot probe your network)",
    )
    parser.add_argument(
        "--judge",
        metavar="JUDGE",
        # the judge registry's `help_text()`, written out so that `--help` loads no judge module
        # (tests/evidence/test_judge_registry.py keeps the two the same)
        help=JUDGE_HELP,
    )
    _add_judge_settings(parser)
    _add_cascade_flags(parser)
    parser.add_argument(
        "--dense",
        action=argparse.BooleanOptionalAction,
        help="use the embedding model when installed (default); --no-dense: retrieve and judge by words only",
    )
    parser.add_argument(
        "--assist",
        choices=["none", "claude"],
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


def _add_judge_settings(parser: argparse.ArgumentParser) -> None:
    """A flag for each judge's own setting that declares one (`core.judge_settings`: the server
    judge's `--judge-url`, `--judge-remote`, any judge registered by then), its value in the
    setting's key (`SETTING_FLAGS` reads it)."""
    for setting in declared_settings():
        if not setting.flag:
            continue
        if isinstance(setting.default, bool):
            action = argparse.BooleanOptionalAction
            parser.add_argument(setting.flag, dest=setting.key, action=action, help=setting.help)
        else:
            parser.add_argument(setting.flag, dest=setting.key, metavar=setting.metavar, help=setting.help)
