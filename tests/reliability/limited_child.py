"""Run `citedesk` under an address-space limit, then print its exit code and peak memory as JSON.

Used by tests/reliability/test_hostile_network.py:
`python -m tests.reliability.limited_child LIMIT_MIB citedesk-args...`. The limit
(RLIMIT_AS) makes an unbounded allocation fail (a MemoryError) instead of swapping the machine;
the last line of standard error is `{"code": …, "max_rss_mib": …}`.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def run_limited(args: list[str], timeout: float, limit_mib: int) -> tuple[dict[str, Any], str, float]:
    """`citedesk ARGS` in a child under `limit_mib` of address space and a watchdog: its outcome
    (`code`, `max_rss_mib`), what else it said on standard error, and how long it took. A traceback,
    or a peak at the limit, fails the caller's test."""
    started = time.monotonic()
    child = subprocess.run(
        [sys.executable, "-m", "tests.reliability.limited_child", str(limit_mib), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "MALLOC_ARENA_MAX": "2", "PYTHONPATH": str(REPO)},
        check=False,
    )
    elapsed = time.monotonic() - started
    assert "Traceback" not in child.stderr, child.stderr[-3000:]
    lines = child.stderr.strip().splitlines()
    outcome: dict[str, Any] = json.loads(lines[-1])
    assert outcome["max_rss_mib"] < limit_mib
    return outcome, "\n".join(lines[:-1]), elapsed


def main() -> None:
    limit = int(sys.argv[1]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from citedesk.cli import main as citedesk

    code = citedesk(sys.argv[2:])
    print(json.dumps({"code": code, "max_rss_mib": peak_rss_mib()}), file=sys.stderr)


def peak_rss_mib() -> int:
    """This process's peak resident memory since it began running Python.

    /proc's VmHWM belongs to the address space, which exec replaces; getrusage's ru_maxrss survives
    exec and may still hold the peak of the process that forked us (a large test runner)."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    line = next(line for line in status.splitlines() if line.startswith("VmHWM:"))
    return int(line.split()[1]) // 1024


if __name__ == "__main__":
    main()
