"""A child process for test_concurrent_store: the CLI auditing and reviewing, again and again.

    python -m tests.reliability.store_child FOLDER STORE ROUNDS

Each round writes a new variant of FOLDER/evidence.md (new sentences: new judgements to cache),
audits it with `citedesk audit --store STORE`, and records a review decision with `citedesk
review`. Prints one line per round: the audit's exit code and the review's.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path

from citedesk.cli import main as cli


def main(folder: str, store: str, rounds: str) -> None:
    base = (Path(folder) / "evidence.md").read_text(encoding="utf-8")
    for n in range(int(rounds)):
        variant = Path(folder) / f"cli-{os.getpid()}-{n}.md"
        variant.write_text(
            base.replace("Cities are warmer", f"In round {n}, cities are warmer"), encoding="utf-8"
        )
        flags = ["--offline", "--no-dense", "--judge", "heuristic", "--store", store]
        with contextlib.redirect_stdout(io.StringIO()):
            audited = cli(["audit", str(variant), "--format", "json", *flags])
            reviewed = cli(["review", str(variant), "--mark", "1", "confirmed", *flags])
        print(audited, reviewed, flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
