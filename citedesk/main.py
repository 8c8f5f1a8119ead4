"""The entry point: `citedesk` with a command runs the CLI; with none, `open FILE…` or bare document
paths (`citedesk draft.md`), the window.

The one module that knows every front end (the composition root): the CLI, the window and the
language server never import one another.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from citedesk.cli import main as run_command
from citedesk.gui.syslibs import platform_problem


def main(argv: Sequence[str] | None = None) -> int:
    if getattr(sys, "frozen", False):  # a packaged build: let the audit process start (spawn)
        import multiprocessing  # noqa: PLC0415

        multiprocessing.freeze_support()

    return run_command(argv, open_window=open_window, serve_lsp=serve_lsp)


def serve_lsp() -> int:
    """Run the language server on stdin/stdout (`citedesk lsp`)."""
    from citedesk.lsp.serve import serve  # noqa: PLC0415 - pygls, only for the server

    return serve()


def open_window(paths: Sequence[str] = ()) -> int:
    """Open the window: on each of `paths` (one window each), or empty; without PySide6, say so and
    point at the commands; without the system libraries Qt's X11 platform needs (Qt would abort),
    name the packages that provide them (exit 2)."""
    problem = platform_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    try:
        from citedesk.gui.app import run  # noqa: PLC0415
    except ImportError as exc:
        print(
            f"citedesk: the window needs PySide6 ({exc}); every command works without it (citedesk --help)",
            file=sys.stderr,
        )
        return 2
    return run(*paths)


if __name__ == "__main__":
    raise SystemExit(main())
