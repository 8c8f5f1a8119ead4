"""The application layer: everything the CLI and the window do, and nothing they should do alone.

- `Desk` — one per run or window: options, the store, the source cache, the retraction snapshot,
  models, the Anthropic key.
- `DocumentSession` — one per document: read, audit, plan and apply repairs, decisions,
  attachments, what Claude would be sent, save and export.
- `desk.services` — what a session needs of its desk (a protocol: no import back to `desk.desk`).
- `desk.jobs` — the jobs on the store and the sources (the source cache, the retraction snapshot,
  bibliographies): imported on the first such job, never to open the window (`Desk.jobs()`).
- `desk.background` — audits in a child process, typed messages each way (the window's runner,
  Qt-free); the window's other slow work (store writes, look-ups, exports) runs on `gui.ops`.
- `desk.recovery` — recovery copies of unsaved text.
- `desk.models` — the NLI models.

The front ends import this package, `citedesk.core` types and `citedesk.errors` — never the store,
the sources, the evidence, Claude assistance or the repair machinery (import-linter checks it).
"""

from __future__ import annotations

from citedesk.core.plan import RepairPlan
from citedesk.desk.desk import (
    CachedSource,
    CachedSourceDetail,
    Desk,
    RefreshOutcome,
    SnapshotImport,
    SnapshotStatus,
)
from citedesk.desk.session import STRUCTURAL_KINDS, DocumentSession, FixOutcome, parse_kinds
from citedesk.pipeline import AuditOptions, AuditState

__all__ = [
    "STRUCTURAL_KINDS",
    "AuditOptions",
    "AuditState",
    "CachedSource",
    "CachedSourceDetail",
    "Desk",
    "DocumentSession",
    "FixOutcome",
    "RefreshOutcome",
    "RepairPlan",
    "SnapshotImport",
    "SnapshotStatus",
    "parse_kinds",
]
