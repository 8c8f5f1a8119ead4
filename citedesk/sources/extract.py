"""Bytes of a source → its main text and metadata: HTML (trafilatura), PDF (pypdf), plain text.

PDF extraction uses pypdf: pure Python (no native build to break a packaged app), maintained, and
BSD-licensed; it reads the text layer page by page, so evidence can cite its page. Scanned PDFs with
no text layer come back empty and are reported as unreadable rather than guessed at.

A PDF is never read in this process: `pdfworker` reads it in a child process that is killed past
its time limit (`pdfworker.PDF_TIME_LIMIT_S`, 30 s a PDF, or `CITEDESK_PDF_TIME_LIMIT` seconds;
never past the `deadline` a caller passes: what is left of an audit's time budget) and that cannot
use more than `pdfworker.PDF_MEMORY_LIMIT_MIB` (1 GiB) of memory. A decompression bomb, a damaged
file, or one that makes pypdf fail in any way comes back as an `Extracted` whose `problem` says so
("unreadable PDF: …", "the PDF took longer than 30 s to read", "the PDF needs more than 1024 MiB to
read"), never as an exception; pypdf's warnings are logged (`citedesk.sources.pdfworker`, at INFO),
never printed.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from citedesk.core.text import DocumentError, decode_document
from citedesk.sources.pdfworker import read_pdf

log = logging.getLogger(__name__)

MIN_TEXT_CHARS = 200
"""Less main text than this is an unreadable source (a paywall, a login page, a scanned PDF)."""

_SOFT_404 = re.compile(
    r"\b(?:page not found|404|not be found|doesn'?t exist|does not exist|no longer available|"
    r"page you requested|nothing (?:was )?found|error 404)\b",
    re.IGNORECASE,
)


@dataclass
class Extracted:
    text: str
    kind: str  # html, pdf, text
    title: str | None = None
    author: str | None = None
    date: str | None = None
    pages: list[tuple[int, int]] = field(default_factory=list)
    """(start offset, page number) for each PDF page, in order."""
    soft_404: bool = False
    problem: str = ""
    """Why there is no text, when the bytes say so: not really a PDF, a damaged PDF, no text layer."""

    @property
    def readable(self) -> bool:
        return len(self.text.strip()) >= MIN_TEXT_CHARS


def sniff_kind(data: bytes, content_type: str | None, name: str = "") -> str:
    name = name.lower()
    head = data[:1024].lstrip().lower()
    if data.startswith(b"%PDF") or content_type == "application/pdf" or name.endswith(".pdf"):
        return "pdf"
    if (
        (content_type or "").startswith(("text/html", "application/xhtml"))
        or name.endswith((".html", ".htm"))
        or head.startswith((b"<!doctype html", b"<html"))
    ):
        return "html"
    return "text"


def extract(
    data: bytes, content_type: str | None = None, name: str = "", *, deadline: float | None = None
) -> Extracted:
    """A source's text and metadata. `deadline` (a `time.monotonic()` value) bounds the reading of a
    PDF besides its own time limit; past it, the PDF is unread and its `problem` says so."""
    kind = sniff_kind(data, content_type, name)
    if kind == "pdf":
        return extract_pdf(data, deadline=deadline)
    if kind == "html":
        return extract_html(data)
    try:
        text = decode_document(data).text
    except DocumentError:
        return Extracted("", "text")
    return Extracted(text, "text", title=_text_title(text))


TITLE_MAX = 200


def _text_title(text: str) -> str | None:
    """A plain text's title: its first line when that is short, else the first line's first sentence
    when that is; else none (a title cut mid-word would name nothing)."""
    first = next((line.strip("# ").strip() for line in text.splitlines() if line.strip()), "")
    if len(first) <= TITLE_MAX:
        return first or None
    end = first.find(". ", 15)  # not at "Dr. " or "U.S. " near the start
    return first[:end] if 0 < end <= TITLE_MAX else None


def extract_html(data: bytes) -> Extracted:
    import trafilatura  # noqa: PLC0415 - lxml and friends load only when a page is read

    try:
        html = decode_document(data).text
    except DocumentError:
        html = data.decode("utf-8", errors="replace")
    text = (
        trafilatura.extract(
            html, include_comments=False, include_tables=True, favor_precision=True, deduplicate=True
        )
        or ""
    )
    if len(text) < MIN_TEXT_CHARS:
        recall = (
            trafilatura.extract(html, include_comments=False, include_tables=True, favor_recall=True) or ""
        )
        text = recall if len(recall) > len(text) else text
    meta = trafilatura.extract_metadata(html)
    title = getattr(meta, "title", None) if meta else None
    page_title = _html_title(html)
    soft = bool(
        len(text) < 1500 and (_SOFT_404.search(title or page_title or "") or _SOFT_404.search(text[:400]))
    )
    return Extracted(
        text=text,
        kind="html",
        title=title or page_title,
        author=getattr(meta, "author", None) if meta else None,
        date=getattr(meta, "date", None) if meta else None,
        soft_404=soft,
    )


def _html_title(html: str) -> str | None:
    match = re.search(r"<title[^>]*>([^<]{1,500})</title>", html, re.IGNORECASE)
    return " ".join(match.group(1).split()) if match else None


def extract_pdf(data: bytes, *, deadline: float | None = None) -> Extracted:
    """A PDF's text layer, page by page, read in a worker process within its time and memory
    limits (see `pdfworker`); never raises."""
    if not data.startswith(b"%PDF"):
        return Extracted("", "pdf", problem=f"it is not a PDF ({_looks_like(data)})")
    read = read_pdf(data, deadline)
    return Extracted(
        read.text, "pdf", title=read.title, author=read.author, pages=read.pages, problem=read.problem
    )


_SIGNATURES = (
    (b"PK\x03\x04", "a ZIP archive or an office document"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"\x1f\x8b", "gzip-compressed data"),
    (b"{", "JSON data"),
)


def _looks_like(data: bytes) -> str:
    """What some bytes that should have been a PDF are, in words."""
    head = data[:512].lstrip()
    for signature, name in _SIGNATURES:
        if head.startswith(signature):
            return f"it is {name}"
    if (
        head.lower().startswith((b"<!doctype", b"<html", b"<?xml", b"<head", b"<body"))
        or b"<html" in head.lower()
    ):
        return "it is a web page, perhaps a login or an error page"
    if not head:
        return "it is empty"
    return "its content is not recognised"
