"""A source's text → sentence passages with offsets back into it.

Menus, cookie banners and other short fragments are dropped, and so is the source's own reference
list: evidence must never come from a source's bibliography.
"""

from __future__ import annotations

import re

from citedesk.core.document.sentences import segment_spans
from citedesk.store.records import Passage

__all__ = ["Passage", "bibliography_start", "split_passages"]

_BIBLIOGRAPHY = re.compile(
    r"^[#*\s]*(?:\d+\.?\s*)?(?:references|bibliography|works cited|literature cited|citations|"
    r"references and notes|sources|further reading|notes and references)[\s:*]*$",
    re.IGNORECASE | re.MULTILINE,
)
_CITATION_LINE = re.compile(
    r"^\s*(?:\[\d{1,4}\]|\d{1,4}\.)\s+\S.{0,200}?(?:\(\d{4}\)|\b\d{4}\b|doi|https?://|et al\.)", re.IGNORECASE
)
_BOILERPLATE = re.compile(
    r"\b(?:cookie|cookies|subscribe|sign up|sign in|log in|newsletter|all rights reserved|privacy policy|"
    r"terms of (?:use|service)|share this|follow us|advertisement|skip to (?:main )?content)\b",
    re.IGNORECASE,
)
MIN_WORDS = 4
MAX_PASSAGE_CHARS = 1200


def bibliography_start(text: str) -> int | None:
    """Offset where the source's own reference list begins (its last such heading), if any."""
    found = None
    for match in _BIBLIOGRAPHY.finditer(text):
        if match.start() > len(text) * 0.3:  # a heading near the top is a table of contents, not the list
            found = match.start()
    return found


def split_passages(text: str, pages: list[tuple[int, int]] | None = None) -> list[Passage]:
    cut = bibliography_start(text)
    body_end = cut if cut is not None else len(text)
    passages: list[Passage] = []
    for para_start, para_end in _paragraphs(text, body_end):
        paragraph = text[para_start:para_end]
        if _CITATION_LINE.match(paragraph) or _is_boilerplate(paragraph):
            continue
        neutral = paragraph.replace("\n", " ").replace("\r", " ").replace("\t", " ")
        for s, e in segment_spans(neutral):
            start, end = para_start + s, para_start + e
            sentence = " ".join(text[start:end].split())
            if len(sentence.split()) < MIN_WORDS:
                continue
            for piece_start, piece_end in _cap(start, end):
                piece = " ".join(text[piece_start:piece_end].split())
                passages.append(
                    Passage(len(passages), piece_start, piece_end, piece, _page(pages, piece_start))
                )
    return passages


def _paragraphs(text: str, end: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for match in re.finditer(r"[^\n]+(?:\n(?!\s*\n)[^\n]+)*", text[:end]):
        start, stop = match.span()
        lead = len(match.group(0)) - len(match.group(0).lstrip())
        trail = len(match.group(0)) - len(match.group(0).rstrip())
        if stop - trail > start + lead:
            spans.append((start + lead, stop - trail))
    return spans


def _is_boilerplate(paragraph: str) -> bool:
    words = paragraph.split()
    if len(words) < MIN_WORDS:
        return True
    if len(words) < 25 and _BOILERPLATE.search(paragraph):
        return True
    # menus: many short lines without sentence punctuation
    lines = [ln.strip() for ln in paragraph.splitlines() if ln.strip()]
    short = sum(1 for ln in lines if len(ln.split()) <= 3 and not ln.endswith((".", "!", "?", ":")))
    return len(lines) >= 3 and short / len(lines) > 0.7


def _cap(start: int, end: int) -> list[tuple[int, int]]:
    if end - start <= MAX_PASSAGE_CHARS:
        return [(start, end)]
    return [(s, min(s + MAX_PASSAGE_CHARS, end)) for s in range(start, end, MAX_PASSAGE_CHARS)]


def _page(pages: list[tuple[int, int]] | None, offset: int) -> int | None:
    if not pages:
        return None
    page = None
    for start, number in pages:
        if start > offset:
            break
        page = number
    return page
