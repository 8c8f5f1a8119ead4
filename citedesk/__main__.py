"""`python -m citedesk` — the same as the `citedesk` command."""

from citedesk.main import main

raise SystemExit(main())
