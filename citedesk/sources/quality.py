"""A source quality score with its components: authority, recency, relevance, density (each 0…1)."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from urllib.parse import urlsplit

from citedesk.core.reports.summaries import Quality

__all__ = ["Quality", "assess_quality", "authority", "density", "recency", "relevance"]

SOCIAL = (
    "twitter.com",
    "x.com",
    "facebook.com",
    "instagram.com",
    "tiktok.com",
    "reddit.com",
    "quora.com",
    "linkedin.com",
    "youtube.com",
    "medium.com",
    "substack.com",
    "pinterest.com",
    "threads.net",
)
SCHOLARLY = (
    "doi.org",
    "nature.com",
    "science.org",
    "sciencedirect.com",
    "springer.com",
    "link.springer.com",
    "wiley.com",
    "onlinelibrary.wiley.com",
    "thelancet.com",
    "nejm.org",
    "bmj.com",
    "jamanetwork.com",
    "plos.org",
    "pnas.org",
    "cell.com",
    "arxiv.org",
    "ncbi.nlm.nih.gov",
    "pubmed.ncbi.nlm.nih.gov",
    "acm.org",
    "ieee.org",
    "jstor.org",
    "tandfonline.com",
    "sagepub.com",
    "oup.com",
    "cambridge.org",
    "frontiersin.org",
    "mdpi.com",
    "biorxiv.org",
    "medrxiv.org",
    "ssrn.com",
    "who.int",
    "oecd.org",
    "worldbank.org",
    "imf.org",
    "un.org",
    "europa.eu",
)
MAJOR_PRESS = (
    "nytimes.com",
    "washingtonpost.com",
    "theguardian.com",
    "bbc.co.uk",
    "bbc.com",
    "reuters.com",
    "apnews.com",
    "economist.com",
    "ft.com",
    "wsj.com",
    "bloomberg.com",
    "npr.org",
    "lemonde.fr",
    "spiegel.de",
    "nature.com/news",
    "scientificamerican.com",
    "newscientist.com",
    "theatlantic.com",
)


def authority(url: str | None, *, has_doi: bool = False, local: bool = False) -> float:
    """Domain tier: scholarly and government highest, major press, .org, general web, social lowest."""
    if has_doi:
        return 0.95
    if not url:
        return 0.6 if local else 0.4
    try:
        host = (urlsplit(url).hostname or "").lower().removeprefix("www.")
    except ValueError:  # a malformed link has no domain to judge
        host = ""

    def on(domains: tuple[str, ...]) -> bool:
        return any(host == d or host.endswith("." + d) for d in domains)

    if on(SOCIAL):
        return 0.15
    if on(SCHOLARLY) or host.endswith((".gov", ".edu", ".mil", ".int")) or ".gov." in host or ".ac." in host:
        return 0.95
    if on(MAJOR_PRESS):
        return 0.75
    if host.endswith(".org"):
        return 0.6
    return 0.45


def recency(date: str | None, *, now: datetime | None = None, half_life_years: float = 8.0) -> float:
    """1.0 for this year, halving every `half_life_years`; 0.5 when the date is unknown."""
    if not date:
        return 0.5
    match = re.search(r"\b(1[5-9]\d{2}|20\d{2})\b", date)
    if not match:
        return 0.5
    now = now or datetime.now(UTC)
    age = max(0.0, now.year - int(match.group(1)))
    return math.pow(0.5, age / half_life_years)


_WORD = re.compile(r"[a-z][a-z0-9-]{2,}")
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "that",
        "with",
        "this",
        "from",
        "are",
        "was",
        "were",
        "have",
        "has",
        "had",
        "been",
        "not",
        "but",
        "its",
        "their",
        "they",
        "which",
        "into",
        "than",
        "also",
        "more",
        "most",
        "such",
        "can",
        "may",
        "will",
        "would",
        "about",
        "after",
        "before",
        "over",
        "under",
        "between",
        "there",
        "these",
        "those",
    ]
)


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def relevance(source_text: str, citing_sentences: list[str]) -> float:
    """Share of the citing sentences' content words that the source contains."""
    wanted: set[str] = set()
    for sentence in citing_sentences:
        wanted |= _content_words(sentence)
    if not wanted:
        return 0.0
    return len(wanted & _content_words(source_text[:200_000])) / len(wanted)


def density(text: str) -> float:
    """Information vs filler: content-word share, sentence length in a readable band, figures present."""
    words = text.split()
    if len(words) < 30:
        return 0.1
    content = len([w for w in words if w.lower().strip(".,;:()") not in _STOP and len(w) > 3]) / len(words)
    sentences = max(1, len(re.findall(r"[.!?](?:\s|$)", text)))
    mean_length = len(words) / sentences
    band = 1.0 if 10 <= mean_length <= 35 else 0.6
    figures = min(1.0, len(re.findall(r"\d", text)) / max(1, len(words)) * 10)
    return max(0.0, min(1.0, 0.6 * content / 0.6 * band + 0.4 * figures))


def assess_quality(
    *, url: str | None, has_doi: bool, local: bool, date: str | None, text: str, citing_sentences: list[str]
) -> Quality:
    return Quality(
        authority=authority(url, has_doi=has_doi, local=local),
        recency=recency(date),
        relevance=relevance(text, citing_sentences),
        density=density(text),
    )
