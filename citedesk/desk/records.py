"""What the desk's jobs on the store answer with (the source cache, the retraction snapshot): typed
rows for the front ends, in a module of their own so that `desk.desk` (imported to open the
window) and `desk.jobs` (imported when the first such job runs) share them without importing each
other."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class CachedSource:
    """A source in the store, as `citedesk sources list` shows it."""

    locator: str
    status: str
    title: str | None
    passages: int


@dataclass(frozen=True)
class CachedSourceDetail:
    locator: str
    status: str
    title: str | None
    final_url: str | None
    fetched_at: float
    passages: int
    text: str
    fetches: list[str] = field(default_factory=list)
    """The latest fetches, newest first, one line each."""


@dataclass(frozen=True)
class SnapshotImport:
    """What `citedesk retractions import` did: the rows the file had, those kept, those skipped
    (by reason), and its newest notice's date."""

    path: str
    rows: int
    imported: int
    skipped: dict[str, int]
    newest: str | None


@dataclass(frozen=True)
class SnapshotStatus:
    """The retraction snapshot in the store."""

    path: str
    imported_at: float
    rows: int
    imported: int
    newest: str | None
    age_days: float
    """How old its newest notice is, in days."""
    cached_answers: int
    """Answers of Crossref, OpenAlex and doi.org kept in the store."""


@dataclass(frozen=True)
class RefreshOutcome:
    locator: str
    ok: bool
    status: str
    message: str
    passages: int
