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
