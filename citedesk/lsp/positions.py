"""Exact positions: the core's offsets (Python str indices) as LSP positions and back.

An LSP position is a line and a character offset in the negotiated encoding: UTF-16 code units by
default, UTF-8 bytes or UTF-32 code points (= Python indices) where the client offers them. Lines
end at `\\n`, `\\r\\n` or a lone `\\r`, as the protocol says. A `PositionMap` is made once per text
(the lines' starts, and per line the places where a character is longer than one unit), so each
conversion is a bisection, not a walk over the text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"
ENCODINGS = (UTF8, UTF16, UTF32)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_WIDE_16 = re.compile(r"[\U00010000-\U0010FFFF]")
_WIDE_8 = re.compile(r"[^\x00-\x7f]")


def _units(char: str, encoding: str) -> int:
    """How many units of `encoding` one character takes."""
    code = ord(char)
    if encoding == UTF16:
        return 2 if code > 0xFFFF else 1
    if encoding == UTF8:
        return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
    return 1


class PositionMap:
    """Offsets of one text ↔ (line, character) in one encoding."""

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        if encoding not in ENCODINGS:
            raise ValueError(f"unknown position encoding {encoding!r}")
        self.text = text
        self.encoding = encoding
        ends = [m.end() for m in _LINE_BREAK.finditer(text)]
        self._starts = [0, *ends]
        """Where each line starts (a text ending in a line break has an empty last line)."""
        self._line_ends = [*(m.start() for m in _LINE_BREAK.finditer(text)), len(text)]
        wide = _WIDE_16 if encoding == UTF16 else _WIDE_8 if encoding == UTF8 else None
        self._wide = [m.start() for m in wide.finditer(text)] if wide is not None else []
        self._extra = list(accumulate(_units(text[i], encoding) - 1 for i in self._wide))
        """Extra units before and at each wide character (running sum)."""

    @property
    def lines(self) -> int:
        return len(self._starts)

    def _units_before(self, offset: int) -> int:
        """Units of the text before `offset`, from the text's start."""
        k = bisect_right(self._wide, offset - 1)
        return offset + (self._extra[k - 1] if k else 0)

    def position(self, offset: int) -> tuple[int, int]:
        """(line, character) of Python index `offset` (clamped to the text)."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self._starts, offset) - 1
        start = self._starts[line]
        offset = min(offset, self._line_ends[line])  # inside a \r\n: the line's end
        return line, self._units_before(offset) - self._units_before(start)

    def offset(self, line: int, character: int) -> int:
        """The Python index of (line, character): past the text's end is its end, past a line's end
        the line's end (the protocol's rule), the middle of a character its start."""
        if line < 0:
            return 0
        if line >= len(self._starts):
            return len(self.text)
        start, end = self._starts[line], self._line_ends[line]
        target = self._units_before(start) + max(0, character)
        if target >= self._units_before(end):
            return end
        low, high = start, end  # the last index whose units before it are <= target
        while low < high:
            middle = (low + high + 1) // 2
            if self._units_before(middle) <= target:
                low = middle
            else:
                high = middle - 1
        return low
