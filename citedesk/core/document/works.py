"""The works a document cites: entries of its own reference list, or of a bibliography file.

A numbered document lists its references in its own text (`core.document.references.Reference`, with the
entry's offsets: checks point at it, repairs remove it). A pandoc document cites keys of a
bibliography that lives elsewhere (`refs.bib`, a CSL-JSON export): its entries have no place in
the document and are never edited. What sources, coverage and reports need of either is the same
handful of fields — key, title, authors, year, identifiers, a local file — so they read a
`CitedEntry`, which both kinds of entry are, and nothing pretends a bibliography entry has an
offset in the document.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from citedesk.core.bibliographies.model import BibEntry


class CitedEntry(Protocol):
    """What a cited work is, wherever it is listed: the fields sources and reports read."""

    @property
    def key(self) -> str: ...
    @property
    def title(self) -> str | None: ...
    @property
    def url(self) -> str | None: ...
    @property
    def doi(self) -> str | None: ...
    @property
    def arxiv(self) -> str | None: ...
    @property
    def path(self) -> str | None:
        """A local file holding the work (absolute, or relative to the document's folder)."""

    @property
    def year(self) -> str | None: ...
    @property
    def authors(self) -> str | None: ...
    @property
    def text(self) -> str:
        """The entry in one line, as a reader would see it."""


@dataclass(frozen=True, slots=True)
class BibReference:
    """A bibliography entry as a cited work. `path` is the attachment chosen as its content (the
    entry's `file` field, or Zotero's copy), already resolved by whoever read the bibliography."""

    key: str
    title: str | None
    url: str | None
    doi: str | None
    arxiv: str | None
    path: str | None
    year: str | None
    authors: str | None
    """"Family, Given; Family, Given", as the bibliography names them."""
    text: str
    source: str | None
    """The bibliography file the entry comes from (as the writer named it)."""
    entry: BibEntry

    @classmethod
    def from_entry(
        cls, entry: BibEntry, *, path: str | None = None, source: str | None = None
    ) -> BibReference:
        return cls(
            key=entry.key,
            title=entry.title,
            url=entry.url,
            doi=entry.doi,
            arxiv=entry.arxiv,
            path=path,
            year=entry.year,
            authors=entry.authors_text or None,
            text=describe(entry),
            source=source,
            entry=entry,
        )

    @property
    def family_name(self) -> str | None:
        """The first author's family name (`Moreau` of "Moreau, Anne"), or None."""
        if not self.entry.authors:
            return None
        first = self.entry.authors[0]
        return (first.split(",", 1)[0] if "," in first else first).strip() or None


def describe(entry: BibEntry) -> str:
    """`Moreau, Anne; Roe, Ben (2021). Urban trees. Journal of Forestry.` — what a reader sees."""
    head = entry.authors_text
    if entry.year:
        head = f"{head} ({entry.year})" if head else f"({entry.year})"
    parts = [p.strip().rstrip(".") for p in (head, entry.title or "", entry.container or "") if p.strip()]
    return ". ".join(parts) + "." if parts else entry.key
