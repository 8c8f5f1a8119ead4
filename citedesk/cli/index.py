"""`citedesk index import FILE… | status`: the offline index mirror, works imported from a Crossref
or OpenAlex snapshot (JSON lines, gzipped or not) that reference truth asks before the network.

Standard output says, per file, what was read and kept (one line each); standard error shows a bar
by bytes read while a big file imports. A file that is not JSON lines of works, or is damaged, is
refused (exit 2) and its earlier rows stay; the files after it are still imported.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from citedesk.cli.output import printable
from citedesk.cli.progress import Progress
from citedesk.desk import Desk
from citedesk.errors import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, InputError, UsageError

SOURCE_NAMES = {"crossref": "Crossref", "openalex": "OpenAlex"}


def index_command(args: argparse.Namespace, desk: Desk) -> int:
    if args.action == "status":
        return _status(desk)
    if not args.files:
        raise UsageError("`citedesk index import` needs one or more JSON-lines files of works")
    failed = 0
    with Progress() as progress:
        for name in args.files:
            try:
                result = desk.import_index(
                    name,
                    source=args.source,
                    max_works=args.max_works,
                    max_seconds=args.max_seconds,
                    progress=_bytes_read(progress, name),
                )
            except InputError as exc:
                failed += 1
                print(printable(f"citedesk: {exc.message}"), file=sys.stderr)
                continue
            skipped = sum(result.skipped.values())
            why = ", ".join(f"{n:,} {reason}" for reason, n in sorted(result.skipped.items()))
            rate = f", {result.rows / result.seconds:,.0f} records/s" if result.seconds > 0 else ""
            print(
                printable(
                    f"{name}: {SOURCE_NAMES.get(result.source, result.source)} works: {result.rows:,} records, "
                    f"{result.kept:,} kept, {skipped:,} skipped" + (f" ({why})" if why else "")
                    + f", {result.bad_lines:,} bad lines; {result.seconds:.1f} s{rate}"
                    + (f"; {result.stopped}" if result.stopped else "")
                )
            )  # fmt: skip
    return EXIT_USAGE if failed else EXIT_OK


def _bytes_read(progress: Progress, name: str) -> Callable[[int, int], None]:
    return lambda done, total: progress.update(name, done, total, unit="bytes")


def _status(desk: Desk) -> int:
    status = desk.index_status()
    if not status.files:
        print(
            "no index mirror imported (`citedesk index import FILE.jsonl.gz` loads Crossref or OpenAlex works)"
        )
        return EXIT_FINDINGS
    files = f"{len(status.files)} file" + ("s" if len(status.files) != 1 else "")
    print(printable(f"{status.described}: {status.works:,} works from {files}"))
    for f in status.files:
        imported = time.strftime("%Y-%m-%d %H:%M", time.localtime(f.imported_at))
        print(
            printable(
                f"  {f.path}\n    {SOURCE_NAMES.get(f.source, f.source)}, imported {imported}: "
                f"{f.kept:,} of {f.rows:,} records kept, {f.skipped:,} skipped, {f.bad_lines:,} bad lines"
            )
        )
    return EXIT_OK
