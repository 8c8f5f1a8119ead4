"""Bytes to text, and character offsets to line:column.

Offsets everywhere in CiteDesk are Python string indices into the decoded text. Line endings are
kept as they are in the file (a CRLF file stays CRLF), so an edit written back changes only what it
means to change.
"""

from __future__ import annotations

import bisect
import codecs
import re
from dataclasses import dataclass

from citedesk.errors import DocumentError

__all__ = [
    "DecodedText",
    "DocumentError",
    "LineIndex",
    "decode_document",
    "encode_document",
    "iter_lines",
    "line_end",
    "line_start",
    "next_line_start",
    "too_large",
]

MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
"""Documents larger than this are refused with a clear message (a 10 MB draft is fine)."""

_BOMS: tuple[tuple[bytes, str], ...] = (
    # UTF-32 LE before UTF-16 LE: its mark begins with UTF-16 LE's
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_MARKED = {codec: bom for bom, codec in _BOMS}
SIG = "-sig"
"""`utf-16-be-sig` and the like: that codec after its byte-order mark, as Python's `utf-8-sig`."""
_DECLARED = re.compile(
    rb"""(?:^|\n)(?:encoding|charset)\s*:\s*["']?([A-Za-z0-9_.:-]{2,40})"""
    rb"""|<meta[^>]{0,200}?charset\s*=\s*["']?([A-Za-z0-9_.:-]{2,40})""",
    re.IGNORECASE,
)
_SNIFF = 8192


def too_large(size: int, max_bytes: int, *, at_least: bool = False) -> DocumentError:
    """The error for a document over the size limit (`at_least`: its size is not known exactly)."""
    what = "more than " if at_least else ""
    return DocumentError(
        f"The file is {what}{size / 1e6:.1f} MB; CiteDesk reads documents up to "
        f"{max_bytes / 1e6:.0f} MB. Split it into smaller documents."
    )


@dataclass(frozen=True, slots=True)
class DecodedText:
    text: str
    encoding: str
    """What `encode_document` needs to write the text back as it was read: a Python codec name,
    or `utf-16-le-sig`, `utf-16-be-sig`, `utf-32-le-sig`, `utf-32-be-sig` for UTF-16/32 with their
    byte-order mark (`utf-8-sig` is Python's own), so a big-endian file stays big-endian."""


def encode_document(text: str, encoding: str) -> bytes:
    """The bytes of `text` in a DecodedText's `encoding`, byte-order mark included where it had one."""
    base = encoding.removesuffix(SIG)
    if encoding.endswith(SIG) and base in _MARKED:
        return _MARKED[base] + text.encode(base)
    return text.encode(encoding)


def decode_document(data: bytes, *, max_bytes: int = MAX_DOCUMENT_BYTES) -> DecodedText:
    """Decode a document: a BOM wins, then UTF-8, then a declared charset, then detection.

    Raises DocumentError with a plain-language reason for binary, oversized or undecodable input.
    """
    if len(data) > max_bytes:
        raise too_large(len(data), max_bytes)
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            family = encoding[:6]  # utf-8, utf-16 or utf-32
            try:
                text = data[len(bom) :].decode(encoding)
            except UnicodeDecodeError as exc:
                raise DocumentError(f"The file starts with a {family} mark but is not {family}.") from exc
            return DecodedText(text, "utf-8-sig" if family == "utf-8" else encoding + SIG)
    if looks_binary(data):
        raise DocumentError(
            "This looks like a binary file, not a text document. CiteDesk reads Markdown, LaTeX, plain text and Word (.docx) documents."
        )
    try:
        return DecodedText(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    declared = _declared_encoding(data[:_SNIFF])
    if declared:
        try:
            return DecodedText(data.decode(declared), declared)
        except (UnicodeDecodeError, LookupError):
            pass
    detected = _detect_encoding(data)
    if detected:
        return DecodedText(data.decode(detected), detected)
    raise DocumentError(
        "The file is not UTF-8 and its encoding could not be recognised. Save it as UTF-8 and try again."
    )


def looks_binary(data: bytes) -> bool:
    """True for data with NUL bytes or mostly control characters in its first 8 KiB."""
    head = data[:_SNIFF]
    if not head:
        return False
    if b"\x00" in head:
        return True
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13, 27))
    return controls / len(head) > 0.1


def _declared_encoding(head: bytes) -> str | None:
    match = _DECLARED.search(head)
    if not match:
        return None
    name = (match.group(1) or match.group(2)).decode("ascii")
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def _detect_encoding(data: bytes) -> str | None:
    from charset_normalizer import from_bytes  # noqa: PLC0415 - only needed for rare non-UTF-8 files

    results = from_bytes(data[:1_000_000])
    best = results.best()
    if best is None:
        return None
    for match in results:
        # windows-1252 when it reads the bytes as cleanly as the best guess: on short text the
        # language guess behind the ranking is weak (Müller, Lefèvre read as cp857 or cp1250), and
        # Western European is the most common encoding that is not UTF-8
        if match.encoding == "cp1252" and match.chaos <= best.chaos:
            best = match
            break
    try:
        data.decode(best.encoding)
    except (UnicodeDecodeError, LookupError):
        return None
    return str(best.encoding)


_BREAK = re.compile(r"\r\n|\r|\n")
_LONE_CR = re.compile(r"\r(?!\n)")


def unify_line_breaks(text: str) -> str:
    """`text` with every lone CR made an LF: the same length, so each offset means the same character.

    CommonMark ends a line at LF, CRLF or a lone CR (classic Mac files, or a mixture). The scanners
    read LF and CRLF; they are given this copy, and every offset they return is an offset into the
    original, whose line endings are never changed.
    """
    if "\r" not in text:
        return text
    return _LONE_CR.sub("\n", text)


class LineIndex:
    """Maps string offsets to 1-based (line, column) in O(log n); LF, CRLF and a lone CR end a line."""

    def __init__(self, text: str) -> None:
        starts = [0]
        if "\r" in text:
            starts.extend(match.end() for match in _BREAK.finditer(text))
        else:
            find = text.find
            pos = find("\n")
            while pos != -1:
                starts.append(pos + 1)
                pos = find("\n", pos + 1)
        self._starts = starts

    def line_col(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._starts, offset) - 1
        return line + 1, offset - self._starts[line] + 1

    def line_start(self, line: int) -> int:
        """Offset of the first character of a 1-based line."""
        return self._starts[line - 1]

    @property
    def line_count(self) -> int:
        return len(self._starts)


def iter_lines(text: str) -> list[tuple[int, int, int]]:
    """Return (start, end, next_start) per line; `end` excludes the line ending (LF, CRLF or CR)."""
    lines: list[tuple[int, int, int]] = []
    start = 0
    for match in _BREAK.finditer(text):
        lines.append((start, match.start(), match.end()))
        start = match.end()
    if start < len(text):
        lines.append((start, len(text), len(text)))
    return lines


def line_start(text: str, offset: int) -> int:
    """Offset of the first character of the line holding `offset`."""
    newline = text.rfind("\n", 0, offset)  # then a lone CR only after it: never a scan to the start
    return max(newline, text.rfind("\r", newline + 1, offset)) + 1


def line_end(text: str, offset: int) -> int:
    """Offset of the line ending (or the end of the text) at or after `offset`."""
    match = _BREAK.search(text, offset)
    return len(text) if match is None else match.start()


def next_line_start(text: str, offset: int) -> int:
    """Offset just past the line ending at or after `offset` (CRLF is one ending)."""
    match = _BREAK.search(text, offset)
    return len(text) if match is None else match.end()
