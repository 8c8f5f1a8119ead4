"""The `citedesk` command: argument parsing and printing; every job is the desk's.

Exit codes (one contract, documented in the README and tested):
  0 — no findings at or above the fail threshold (`--fail-on`, default `warning`), or the job done;
  1 — findings (or a repair refused, which leaves them);
  2 — a known condition: bad usage, an unreadable document, an unwritable output, a locked store;
  3 — an internal error (a bug): a short message with how to report it; `--debug` shows the
      traceback too (and the exit code is still 3, so a CI gate never reads a crash as findings).
Nothing ends in a raw traceback without `--debug`.

`citedesk draft.md` (a bare path, no command) is `citedesk open draft.md`, and several paths open
several documents: argparse's subcommands would refuse a path as an "invalid choice", so it is
recognised before argparse sees it (`start_arguments`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from citedesk.cli.output import printable
from citedesk.cli.parser import build_parser
from citedesk.core.formats import matches
from citedesk.errors import EXIT_BUG, EXIT_INTERRUPTED, EXIT_USAGE, CiteDeskError

BUG_HINT = (
    "this is a bug in CiteDesk, not a problem with your document: please report it at "
    "https://github.com/citedesk/citedesk/issues with the command you ran (add --debug for details)"
)
OpenWindow = Callable[[Sequence[str]], int]
"""Opens the window on these documents (none: an empty window), one window each; its exit code."""
ServeLanguageServer = Callable[[], int]
"""Runs the language server on stdin/stdout until the editor stops it; its exit code."""

__all__ = ["BUG_HINT", "build_parser", "main", "start_arguments"]


def start_arguments(argv: Sequence[str], commands: Sequence[str]) -> list[str]:
    """`argv` with a bare document path turned into `open PATH…`: when the first argument after
    the global flags is no command and is an existing file or ends in a document format's suffix
    (`core.formats`, even when missing). Anything
    else is left for argparse, whose messages stay what they were (`citedesk audti` is still "invalid
    choice", not "no such file")."""
    argv = list(argv)
    first = next((i for i, arg in enumerate(argv) if arg != "--debug"), None)
    if first is None or argv[first].startswith("-") or argv[first] in commands:
        return argv
    candidate = argv[first]
    if not (Path(candidate).is_file() or matches(candidate)):
        return argv
    return [*argv[:first], "open", *argv[first:]]


def _missing(paths: Sequence[str]) -> str | None:
    """Why the window cannot open these paths, in words (None: it can)."""
    for path in paths:
        if Path(path).is_dir():
            return f"{path} is a folder: give a document in it (citedesk {path.rstrip('/')}/draft.md)"
        if not Path(path).is_file():
            return f"no such file: {path} (start citedesk with no file for a new document)"
    return None


def main(
    argv: Sequence[str] | None = None,
    *,
    open_window: OpenWindow | None = None,
    serve_lsp: ServeLanguageServer | None = None,
) -> int:
    """Run one command; `open_window` is how the entry point opens the window (no command, `open`,
    or bare document paths), `serve_lsp` how it runs the language server (`lsp`): the CLI imports
    neither front end."""
    parser = build_parser()
    argv = start_arguments(sys.argv[1:] if argv is None else argv, _command_names(parser))
    args = parser.parse_args(argv)  # `--version`, `--help` and usage errors end here, instantly
    try:
        if args.command is None or args.command == "open":
            if open_window is None:
                parser.print_help()
                return EXIT_USAGE
            paths = list(getattr(args, "file", None) or [])
            missing = _missing(paths)
            if missing is not None:
                print(f"citedesk: {printable(missing)}", file=sys.stderr)
                return EXIT_USAGE
            return open_window(paths)
        if args.command == "lsp":
            if serve_lsp is None:
                print("citedesk: the language server is started by the citedesk command", file=sys.stderr)
                return EXIT_USAGE
            return serve_lsp()
        from citedesk.cli.commands import COMMANDS  # noqa: PLC0415 - the desk, only once a command runs

        return COMMANDS[args.command](args)
    except CiteDeskError as exc:
        if not exc.silent:  # a cancellation is no error: nothing to say
            print(f"citedesk: {printable(exc.message)}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("citedesk: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`citedesk audit … | head`): stop, as a pipe does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + 13
    except Exception:
        import traceback  # noqa: PLC0415

        if args.debug:  # the whole traceback, and still the exit code of a bug
            traceback.print_exc(file=sys.stderr)
        last = traceback.format_exc().strip().splitlines()[-1]
        print(f"citedesk: internal error: {printable(last)}\ncitedesk: {BUG_HINT}", file=sys.stderr)
        return EXIT_BUG


def _command_names(parser: argparse.ArgumentParser) -> list[str]:
    """The subcommands' names, as the parser knows them (a new command is never taken for a path)."""
    for action in parser._actions:  # argparse keeps its subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []
