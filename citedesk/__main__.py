"""`python -m citedesk` — the same as the `citedesk` command."""

from citedesk.cli import main

raise SystemExit(main())
