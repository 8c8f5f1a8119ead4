"""Whether a passage is body text: the only evidence strong enough to act on.

A word-level judge scores a source's *title line* highly against any sentence on its topic ("Urban
tree canopy and summer heat" against "Street trees cool cities"), and so can a model: a title
names what a work is about, never what it found. The same holds for a heading inside the source,
a line of metadata (DOI, dates, keywords, authors) and an entry of its own reference list (those
are dropped before retrieval, `sources/passages.py`, but a numbered line can slip through). A
verdict resting on such a line may be shown, never used to raise an error or to propose a swap or
an added citation (`policy.swap_gate`).

`not_body(evidence, source_text)` says why a passage is not body text, or None when it is: a
sentence inside a paragraph of prose.
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from citedesk.core.findings import Evidence

TITLE_LIKE = 88
"""rapidfuzz ratio (0–100) from which a passage is read as the work's title."""
HEADING_WORDS = 15
"""A paragraph of one line, without a sentence's closing punctuation, up to this many words, is a
heading (or a title, a caption's label, a menu item)."""

_METADATA = re.compile(
    r"^\s*(?:(?:doi|issn|isbn)\b|https?://(?:dx\.)?doi\.org|copyright\b|©|vol(?:ume)?\.?\s*\d|"
    r"(?:published|received|accepted|revised|keywords?|key words|authors?|affiliations?|correspondence|"
    r"citation|cite this(?: article)?|retrieved|accessed|funding|licen[cs]e|open access|abstract)\s*[:\-–—|])",
    re.IGNORECASE,
)
_REFERENCE_LINE = re.compile(
    r"^\s*(?:\[\d{1,4}\]|\d{1,4}\.)\s+[A-Z][^.]{0,80}\.\s.{0,200}?(?:\(\d{4}\)|\b(?:19|20)\d{2}\b)"
)
_CLOSES_SENTENCE = re.compile(r"[.!?…:;][\"'”’)\]]*\s*$")


TITLE_WHERE = "the source's title"


def not_body(evidence: Evidence, source_text: str) -> str | None:
    """Why the passage of `evidence` is not body text (`the source's title`, `a heading of the
    source`, `a line of the source's metadata`, `an entry of the source's reference list`), or
    None when it is a sentence of prose."""
    passage = " ".join(evidence.passage.split())
    title = " ".join((evidence.title or "").split())
    if title and _title_like(passage, title):
        return TITLE_WHERE
    if _METADATA.match(passage):
        return "a line of the source's metadata"
    paragraph = _paragraph_at(source_text, evidence.start, evidence.end)
    if _REFERENCE_LINE.match(passage):
        return "an entry of the source's reference list"
    stripped = paragraph.strip()
    if stripped.startswith("#"):
        return "a heading of the source"
    if (
        "\n" not in stripped
        and len(stripped.split()) <= HEADING_WORDS
        and not _CLOSES_SENTENCE.search(stripped)
    ):
        return "a heading of the source"
    return None


def restates_title(sentence: str, title: str) -> bool:
    """The writer's sentence is the source's title, near word for word ("Sars-cov-2 genome evolution
    exposes early human adaptations."), its end punctuation aside."""
    folded_sentence = " ".join(sentence.split()).rstrip(".!?").casefold()
    folded_title = " ".join(title.split()).rstrip(".!?").casefold()
    return bool(folded_title) and fuzz.ratio(folded_sentence, folded_title) >= TITLE_LIKE


def _title_like(passage: str, title: str) -> bool:
    """The passage is the title, or the title with little around it (a title line with its site
    name: "Urban tree canopy and heat | City News")."""
    folded_passage, folded_title = passage.casefold(), title.casefold()
    if fuzz.ratio(folded_passage, folded_title) >= TITLE_LIKE:
        return True
    return folded_title in folded_passage and len(folded_passage) <= len(folded_title) + 30


def _paragraph_at(text: str, start: int, end: int) -> str:
    """The paragraph (between blank lines) that holds text[start:end]; the passage itself when
    its offsets do not fall inside `text`."""
    if not 0 <= start <= end <= len(text):
        return text[start:end]
    before = text.rfind("\n\n", 0, start)
    after = text.find("\n\n", end)
    return text[before + 2 if before >= 0 else 0 : after if after >= 0 else len(text)]
