"""The packaged app's entry point: the same as the `citedesk` console command.

`citedesk.main.main` calls `multiprocessing.freeze_support()` first when frozen, so the audit
process (started with spawn) re-enters this executable and runs its worker instead of the CLI.

`citedesk --version` alone answers before the CLI is imported: in the frozen build every module
comes out of the compressed archive, and the CLI's imports were most of a second on a loaded
machine (tests/test_packaging.py checks that it says what the CLI says).
"""

import sys

if sys.argv[1:] == ["--version"]:
    from citedesk import __version__

    print(f"citedesk {__version__}")
    raise SystemExit(0)

from citedesk.main import main  # after the --version answer, on purpose

raise SystemExit(main())
