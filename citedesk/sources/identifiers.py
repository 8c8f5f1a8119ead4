"""DOI and arXiv identifiers: where they resolve, and the CSL-JSON record a DOI answers with.

(Whether that record is the work the entry describes is `refcheck`'s question, not this module's.)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from citedesk.core.document.works import CitedEntry

DOI_BASE = "https://doi.org"
CROSSREF_BASE = "https://api.crossref.org"
ARXIV_BASE = "https://arxiv.org"
CSL_ACCEPT = "application/vnd.citationstyles.csl+json, application/json;q=0.9"


@dataclass(frozen=True)
class WorkMetadata:
    title: str | None
    authors: tuple[str, ...]
    year: str | None
    url: str | None
    abstract: str | None


def parse_csl(body: bytes) -> WorkMetadata | None:
    """CSL-JSON (doi.org content negotiation) or a Crossref `works` answer → WorkMetadata."""
    try:
        data: Any = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    if isinstance(data, dict) and isinstance(data.get("message"), dict):
        data = data["message"]  # Crossref wraps the work in {"message": …}
    if not isinstance(data, dict):
        return None
    title = data.get("title")
    if isinstance(title, list):
        title = title[0] if title else None
    authors = tuple(
        str(a.get("family") or a.get("literal") or "")
        for a in data.get("author") or []
        if isinstance(a, dict)
    )
    year = None
    for field in ("issued", "published-print", "published-online", "created"):
        parts = (data.get(field) or {}).get("date-parts") if isinstance(data.get(field), dict) else None
        if parts and parts[0] and parts[0][0]:
            year = str(parts[0][0])
            break
    abstract = data.get("abstract")
    if isinstance(abstract, str):
        abstract = re.sub(r"<[^>]+>", " ", abstract)
        abstract = " ".join(abstract.split()) or None
    return WorkMetadata(
        title=" ".join(str(title).split()) if title else None,
        authors=tuple(a for a in authors if a),
        year=year,
        url=data.get("URL") if isinstance(data.get("URL"), str) else None,
        abstract=abstract if isinstance(abstract, str) else None,
    )


def doi_url(doi: str, base: str = DOI_BASE) -> str:
    return f"{base.rstrip('/')}/{doi}"


def crossref_url(doi: str, base: str = CROSSREF_BASE) -> str:
    """The Crossref works API record of a DOI (the fallback when doi.org content negotiation fails)."""
    return f"{base.rstrip('/')}/works/{quote(doi, safe='/')}"


PDF_HOSTS = {
    "arxiv.org": "/pdf/",
    "export.arxiv.org": "/pdf/",
    "openreview.net": "/pdf",
    "www.biorxiv.org": ".full.pdf",
    "www.medrxiv.org": ".full.pdf",
    "europepmc.org": "/pdf",
    "www.ncbi.nlm.nih.gov": "/pdf/",
    "pmc.ncbi.nlm.nih.gov": "/pdf/",
    "link.springer.com": "/content/pdf/",
    "dl.acm.org": "/doi/pdf/",
    "www.jstor.org": "/stable/pdf/",
    "papers.ssrn.com": "/delivery.cfm",
}
"""Hosts whose PDF links do not end in .pdf, keyed to the part of the path that marks a PDF link."""


def expects_pdf(url: str) -> bool:
    """True for links that serve a PDF: a path ending in .pdf, or a known host's PDF route."""
    try:
        parts = urlsplit(url)
    except ValueError:  # a malformed link: the fetcher says what is wrong with it
        return False
    path = parts.path.lower()
    if path.endswith(".pdf"):
        return True
    marker = PDF_HOSTS.get((parts.hostname or "").lower())
    return marker is not None and marker in path


def arxiv_abs_url(arxiv_id: str, base: str = ARXIV_BASE) -> str:
    return f"{base.rstrip('/')}/abs/{arxiv_id}"


def locator_of(ref: CitedEntry) -> str | None:
    """What a reference's source is stored and fetched by: its DOI (lower case: DOIs are
    case-insensitive, so `10.1/AB` and `10.1/ab` are one source, fetched once), arXiv id or link."""
    if ref.doi:
        return "doi:" + ref.doi.lower()
    if ref.arxiv:
        return "arxiv:" + ref.arxiv
    if ref.url:
        return "url:" + ref.url
    return None


def location_of(ref: CitedEntry) -> str | None:
    """Where a reference's source is, as the writer wrote it: its link, DOI, arXiv id or file."""
    return (
        ref.url
        or (f"doi:{ref.doi}" if ref.doi else None)
        or (f"arXiv:{ref.arxiv}" if ref.arxiv else None)
        or ref.path
    )
