"""`citedesk batch PATH… --out DIR`: a corpus audited into a folder (`desk.corpus_run` does the work).

Standard output stays empty (the outputs are files); standard error shows the progress (a bar with
documents/s and the time left on a terminal, plain lines in a log), then one line of what was done
a line per file not read (a link out of the corpus, a named pipe) and a line per document that
could not be audited (files not read do not change the exit code: they are not documents). The exit code is `audit`'s for several files:
2 when a document could not be audited, else 1 when one has findings at or above `--fail-on`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from citedesk.cli.output import printable
from citedesk.cli.progress import Progress
from citedesk.config import Configuration
from citedesk.core.reports.report import FailPolicy
from citedesk.desk import Desk
from citedesk.errors import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, UsageError

MAX_ERRORS_SAID = 20
"""Documents not audited named on standard error; the rest are counted (all are in corpus.csv)."""


def batch_command(args: argparse.Namespace, configuration: Configuration, desk: Desk) -> int:
    from citedesk.desk.corpus_run import run_corpus  # noqa: PLC0415 - the store and sources: when it runs

    if args.assist_preview:
        raise UsageError("--assist-preview shows what one document would send: use `citedesk audit FILE`")
    policy = FailPolicy.parse(configuration.settings.fail_on)
    out = Path(args.out)
    with Progress() as progress:
        result = run_corpus(
            desk,
            args.paths,
            out,
            workers=args.workers,
            force=args.force,
            engine=args.engine,
            address=args.address,
            progress=lambda label, done, total, note: progress.update(label, done, total, note=note),
        )
    failed = [o for o in result.outcomes if o.error is not None]
    rate = (
        f", {result.audited / result.audit_seconds:.2f} documents/s"
        if result.audited and result.audit_seconds > 0
        else ""
    )
    print(
        f"citedesk: {len(result.outcomes)} documents ({len(failed)} could not be audited): "
        f"{result.audited} audited now{rate}, {result.skipped} unchanged (reports kept); "
        f"sources: {result.distinct_sources} distinct from the network ({result.fetched} fetched now, "
        f"{result.cached} already cached, {result.failed_sources} could not be had), "
        f"{result.local_sources} read from local files; "
        f"{result.seconds:.1f} s; written to {out}"
        + (f"; {len(result.left_out)} files not read (below)" if result.left_out else ""),
        file=sys.stderr,
    )
    if result.slowest:
        print(
            "citedesk: slowest: "
            + ", ".join(printable(f"{name} {seconds:.1f} s") for name, seconds in result.slowest),
            file=sys.stderr,
        )
    if not result.parquet:
        print(
            "citedesk: corpus.parquet not written: pyarrow is not installed (pip install citedesk[corpus])",
            file=sys.stderr,
        )
    for left in result.left_out[:MAX_ERRORS_SAID]:
        print(printable(f"citedesk: {left.path}: not read: {left.why}"), file=sys.stderr)
    if len(result.left_out) > MAX_ERRORS_SAID:
        print(f"citedesk: and {len(result.left_out) - MAX_ERRORS_SAID} more files not read", file=sys.stderr)
    for outcome in failed[:MAX_ERRORS_SAID]:
        print(printable(f"citedesk: {outcome.document}: {outcome.error}"), file=sys.stderr)
    if len(failed) > MAX_ERRORS_SAID:
        print(f"citedesk: and {len(failed) - MAX_ERRORS_SAID} more (see corpus.csv)", file=sys.stderr)
    if failed:
        return EXIT_USAGE
    return EXIT_FINDINGS if any(o.fails(policy) for o in result.outcomes) else EXIT_OK
