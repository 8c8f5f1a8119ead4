"""Half-open character spans and a sorted, non-overlapping span set with O(log n) lookups."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class SpanSet:
    """Sorted, merged half-open spans."""

    starts: tuple[int, ...]
    ends: tuple[int, ...]

    @classmethod
    def of(cls, spans: Iterable[Span]) -> SpanSet:
        merged: list[list[int]] = []
        for start, end in sorted(s for s in spans if s[1] > s[0]):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        return cls(tuple(s for s, _ in merged), tuple(e for _, e in merged))

    def contains(self, offset: int) -> bool:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i >= 0 and offset < self.ends[i]

    def overlaps(self, start: int, end: int) -> bool:
        i = bisect.bisect_right(self.starts, start) - 1
        if i >= 0 and start < self.ends[i]:
            return True
        j = bisect.bisect_left(self.starts, start)
        return j < len(self.starts) and self.starts[j] < end

    def within(self, start: int, end: int) -> Iterator[Span]:
        """Spans that intersect [start, end), clipped to it."""
        i = max(bisect.bisect_right(self.starts, start) - 1, 0)
        while i < len(self.starts) and self.starts[i] < end:
            s, e = max(self.starts[i], start), min(self.ends[i], end)
            if s < e:
                yield s, e
            i += 1

    def without(self, spans: Iterable[Span]) -> SpanSet:
        """These spans with `spans` cut out of them."""
        cut = SpanSet.of(spans)
        if not cut:
            return self
        kept: list[Span] = []
        for start, end in self:
            pos = start
            for cut_start, cut_end in cut.within(start, end):
                kept.append((pos, cut_start))
                pos = cut_end
            kept.append((pos, end))
        return SpanSet.of(kept)

    def union(self, spans: Iterable[Span]) -> SpanSet:
        return SpanSet.of([*self, *spans])

    def __iter__(self) -> Iterator[Span]:
        return iter(zip(self.starts, self.ends, strict=True))

    def __len__(self) -> int:
        return len(self.starts)
