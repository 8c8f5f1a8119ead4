"""The `citedesk` command: argument parsing and printing; every job is the desk's.

Exit codes (one contract, documented in the README and tested):
  0 — no findings at or above the fail threshold (`--fail-on`, default `warning`), or the job done;
  1 — findings (or a repair refused, which leaves them);
  2 — a known condition: bad usage, an unreadable document, an unwritable output, a locked store;
  3 — an internal error (a bug): a short message with how to report it; `--debug` shows the
      traceback too (and the exit code is still 3, so a CI gate never reads a crash as findings).
Nothing ends in a raw traceback without `--debug`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from citedesk.cli.output import printable
from citedesk.cli.parser import build_parser
from citedesk.errors import EXIT_BUG, EXIT_INTERRUPTED, EXIT_USAGE, CiteDeskError

BUG_HINT = (
    "this is a bug in CiteDesk, not a problem with your document: please report it at "
    "https://github.com/citedesk/citedesk/issues with the command you ran (add --debug for details)"
)
OpenWindow = Callable[[str | None], int]

__all__ = ["BUG_HINT", "build_parser", "main"]


def main(argv: Sequence[str] | None = None, *, open_window: OpenWindow | None = None) -> int:
    """Run one command; `open_window` is how the entry point opens the window (no command)."""
    parser = build_parser()
    args = parser.parse_args(argv)  # `--version`, `--help` and usage errors end here, instantly
    try:
        if args.command is None or args.command == "open":
            if open_window is None:
                parser.print_help()
                return EXIT_USAGE
            return open_window(getattr(args, "file", None))
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
