"""What a `DocumentSession` needs from the desk, as a protocol: the options, the store, writing a
report, the jobs on the store and the sources (`desk.jobs`). `Desk` provides it; the session depends
on this, not on `Desk`, so `desk.desk` (which opens sessions) and `desk.session` never import each
other, and the session reaches the sources through its desk's one seam."""

from __future__ import annotations

import os
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from citedesk.desk.jobs import Jobs
    from citedesk.pipeline import AuditOptions
    from citedesk.store import Store


class DeskServices(Protocol):
    options: AuditOptions

    def store(self) -> AbstractContextManager[Store]:
        """The store for one job, closed after it."""
        ...

    def jobs(self) -> Jobs:
        """The jobs that need the store or the sources (bibliographies read, cited works found)."""
        ...

    def write_report(self, path: str | os.PathLike[str], text: str) -> None:
        """Write a report to `path` atomically (OutputError when it cannot be)."""
        ...
