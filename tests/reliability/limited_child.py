"""Run `citedesk` under an address-space limit, then print its exit code and peak memory as JSON.

Used by tests/reliability/test_hostile_network.py:
`python -m tests.reliability.limited_child LIMIT_MIB citedesk-args...`. The limit
(RLIMIT_AS) makes an unbounded allocation fail (a MemoryError) instead of swapping the machine;
the last line of standard error is `{"code": …, "max_rss_mib": …}`.
"""

from __future__ import annotations

import json
import resource
import sys


def main() -> None:
    limit = int(sys.argv[1]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from citedesk.cli import main as citedesk

    code = citedesk(sys.argv[2:])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(json.dumps({"code": code, "max_rss_mib": peak}), file=sys.stderr)


if __name__ == "__main__":
    main()
