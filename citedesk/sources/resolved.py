"""What gathering a reference's source gives: its status, the source resolved (text, passages,
where it came from) and the options that steer the gathering (`sources.gather`).

Kept apart from the gathering itself so that what reads a resolved source — coverage, checks,
retrieval, judging — depends on these plain records, not on the fetching machinery.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from citedesk.sources.fetch import FetchPolicy
from citedesk.sources.identifiers import ARXIV_BASE, CROSSREF_BASE, DOI_BASE
from citedesk.sources.passages import Passage


class SourceStatus(StrEnum):
    LOCAL = "local"  # read from a local file
    FETCHED = "fetched"  # fetched now
    CACHED = "cached"  # reused from the store
    DEAD = "dead"  # gone: 404/410, a soft 404, a host that does not exist (a last good copy may be used)
    NOT_FOUND = "not_found"  # the DOI / arXiv id does not exist
    UNREADABLE = "unreadable"  # reached, but no usable text
    OFFLINE = "offline"  # not in the cache and fetching is off
    BLOCKED = "blocked"  # refused by the network guard
    UNLOCATED = "unlocated"  # the entry names no URL, DOI, arXiv id or file
    INVALID_LINK = "invalid_link"  # the entry's link is not a valid web address
    OUTSIDE = "outside"  # the entry names a file outside the folders sources may come from
    NOT_CHECKED = "not_checked"  # the time budget for sources ran out before it was checked
    # reached for nothing now, whether the page exists unknown (a last good copy may still be used):
    SERVER_ERROR = "server_error"  # the server failed (HTTP 5xx)
    REFUSED = "refused"  # the server refused the request (HTTP 401, 403, 429, …: any 4xx but 404/410)
    TIMED_OUT = "timed_out"  # a limit of the fetch fired (read, connect, the deadline per source)
    RESET = "reset"  # the server closed the connection before its answer was complete
    UNREACHABLE = "unreachable"  # the connection could not be opened (refused, TLS), other hosts answering


NOT_CHECKED_MESSAGE = "not checked: the time budget for sources ran out"


@dataclass(frozen=True)
class SourceOptions:
    offline: bool = False
    sources_dir: Path | None = None
    document_dir: Path | None = None
    refresh: bool = False
    refresh_keys: frozenset[str] = frozenset()
    """Fetch these references again even when cached (the window's per-source Refresh)."""
    attached: tuple[tuple[str, Path], ...] = ()
    """(reference key, file) pairs: a file the writer attached as that reference's content."""
    doi_base: str = DOI_BASE
    crossref_base: str = CROSSREF_BASE
    arxiv_base: str = ARXIV_BASE
    fetch: FetchPolicy = field(default_factory=FetchPolicy)
    local_roots: tuple[Path, ...] = ()
    """Folders besides the document's and `sources_dir` that named files may come from: those the
    writer named (`--allow-folder`, settings, their own bibliographies' folders) and Zotero's data
    folder — never one a document names (`sources.local`)."""
    allow_local_paths: bool = False
    """Read a file the document names wherever it is (`--allow-local-path`)."""
    settled: Mapping[str, ResolvedSource] = field(default_factory=dict)
    """By locator: sources already had (or failed) for this run — a corpus's, gathered once in its
    parent (`sources.provisions`): taken as they are, never asked for again."""
    budget: float | None = None
    """Seconds for all the network sources together, from the start of `gather_sources`; those not
    finished then are NOT_CHECKED (a cached copy, if any, is still used). None: each fetch has
    only its own deadline (`fetch.deadline`)."""


@dataclass
class ResolvedSource:
    key: str
    status: SourceStatus
    locator: str | None = None
    location: str | None = None
    title: str | None = None
    text: str = ""
    passages: list[Passage] = field(default_factory=list)
    message: str = ""
    from_cache: bool = False
    fetched_at: float | None = None
    date: str | None = None
    private: bool = False
    """Read from outside the folders sources may come from, because the writer allowed every local
    path: its text is used here, and never sent to Claude (its pairs are judged locally)."""
    detail: str = ""
    """The figure that goes with a network status, for its words: `HTTP 500`, `after 20 s`, `host
    not found`, `soft 404` (`core.coverage.reason_words`)."""

    @property
    def usable(self) -> bool:
        return bool(self.passages)
