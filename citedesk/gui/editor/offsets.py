"""Python string indices ↔ Qt document positions (UTF-16 code units).

Qt counts a character outside the Basic Multilingual Plane (most emoji, some CJK) as two
positions; Python counts it as one. Every offset the core reports passes through here.
"""

from __future__ import annotations

import re
from bisect import bisect_right

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


class Utf16Map:
    def __init__(self, text: str) -> None:
        self._astral = [m.start() for m in _ASTRAL.finditer(text)]  # in C: a book's text in milliseconds
        self._qt = [i + n + 1 for n, i in enumerate(self._astral)]  # Qt position just after each one

    def to_qt(self, index: int) -> int:
        """The Qt position of Python index `index`."""
        return index + bisect_right(self._astral, index - 1)

    def to_python(self, position: int) -> int:
        """The Python index of Qt position `position` (the middle of a pair maps to its start)."""
        before = bisect_right(self._qt, position)
        index = position - before
        if before < len(self._astral) and self._astral[before] < index:
            return self._astral[before]
        return index
