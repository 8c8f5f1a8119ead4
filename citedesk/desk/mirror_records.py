"""What the desk's index-mirror jobs answer with (`citedesk index import` / `status`): typed rows for
the front ends, apart from `desk.jobs` (imported when the first such job runs) so that `desk.desk`
can name them without importing the store."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class IndexImport:
    """One file imported into the index mirror: its source (`crossref` / `openalex`), its lines and
    records, the works kept, those skipped (by reason), bad lines, and why it stopped early (a cap)."""

    path: str
    source: str
    lines: int
    rows: int
    kept: int
    skipped: dict[str, int]
    bad_lines: int
    stopped: str
    seconds: float


@dataclass(frozen=True)
class IndexFile:
    """One file in the mirror, as `citedesk index status` lists it."""

    path: str
    source: str
    imported_at: float
    rows: int
    kept: int
    skipped: int
    bad_lines: int


@dataclass(frozen=True)
class IndexStatus:
    """The index mirror in the store: its files (the latest import first), the works held, and the
    sentence reports use for it (`the local Crossref mirror (imported 2026-11-26)`)."""

    files: tuple[IndexFile, ...]
    works: int
    described: str
