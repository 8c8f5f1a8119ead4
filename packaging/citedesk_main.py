"""The packaged app's entry point: the same as the `citedesk` console command.

`citedesk.main.main` calls `multiprocessing.freeze_support()` first when frozen, so the audit
process (started with spawn) re-enters this executable and runs its worker instead of the CLI.
"""

from citedesk.main import main

raise SystemExit(main())
