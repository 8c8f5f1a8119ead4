"""What a `DocumentSession` needs from the desk, as a protocol: the options, the store, writing a
report. `Desk` provides it; the session depends on this, not on `Desk`, so `desk.desk` (which opens
sessions) and `desk.session` never import each other."""

from __future__ import annotations

import os
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from citedesk.pipeline import AuditOptions
    from citedesk.store import Store


class DeskServices(Protocol):
    options: AuditOptions

    def store(self) -> AbstractContextManager[Store]:
        """The store for one job, closed after it."""
        ...

    def write_report(self, path: str | os.PathLike[str], text: str) -> None:
        """Write a report to `path` atomically (OutputError when it cannot be)."""
        ...
