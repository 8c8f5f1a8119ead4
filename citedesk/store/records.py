"""What the store keeps about a source: its record and its passages (plain data)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Passage:
    """One sentence-sized piece of a source's text, with its offsets into that text."""

    index: int
    start: int
    end: int
    text: str
    page: int | None = None


@dataclass
class SourceRecord:
    locator: str
    """What was asked for: `url:https://…`, `doi:10.…`, `arxiv:…`, `file:/abs/path`."""
    kind: str
    status: str
    fetched_at: float
    final_url: str | None = None
    http_status: int | None = None
    content_type: str | None = None
    content_hash: str | None = None
    title: str | None = None
    author: str | None = None
    date: str | None = None
    text: str = ""
    message: str = ""
    metadata: dict[str, Any] | None = None

    @property
    def has_text(self) -> bool:
        return bool(self.text.strip())


@dataclass(frozen=True, slots=True)
class RetractionRow:
    """One record of an imported Retraction Watch snapshot, as the store keeps it: DOIs lower
    case, ISO dates, `kind` a notice kind's value (`retraction`, `expression_of_concern`, …)."""

    record_id: str
    original_doi: str
    notice_doi: str | None
    kind: str
    nature: str
    date: str | None = None
    reasons: tuple[str, ...] = ()
    original_date: str | None = None
    title: str = ""
    journal: str = ""


@dataclass(frozen=True, slots=True)
class SnapshotInfo:
    """The retraction snapshot in the store: where it came from, when it was imported, how many
    rows the file had and how many were kept, and its newest notice's date (how current it is)."""

    path: str
    imported_at: float
    rows: int
    imported: int
    newest: str | None
