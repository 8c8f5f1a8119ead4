"""Citation markers — `[1]`, `[1, 2]`, `[1–3]`, `[^note]`, `[1][2]` — with exact offsets."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from citedesk.core.spans import SpanSet

MAX_RANGE = 500
"""A range wider than this (`[1-100000]`) is a typo, not a citation."""

_NUMERIC_BODY = re.compile(r"[\d\s,;\-–—]*")
"""What a numeric marker holds between its brackets, of any length: the match stops at the first
other character, `[` included, so scans from successive `[` never overlap (linear in the line)."""
_FOOTNOTE_KEY = re.compile(r"[A-Za-z0-9_.:-]+")
"""A footnote key, of any length (it holds no `[` either: scans never overlap)."""
_DIAGNOSIS_REACH = 100
"""How far past a footnote key's last valid character `[^a b]` is looked at for its `]`, to say
why it is not a marker (a diagnosis only: the key itself has no length limit)."""
_ITEM = re.compile(r"\s*(\d{1,6})\s*(?:([-–—])\s*(\d{1,6})\s*)?")


class MarkerStyle(StrEnum):
    NUMERIC = "numeric"
    FOOTNOTE = "footnote"
    PANDOC = "pandoc"  # a pandoc citation group (`core.document.citekeys`), one item per cited key


@dataclass(frozen=True, slots=True)
class MarkerItem:
    """One element of a marker: a number, a range `3–5`, or a footnote key."""

    start: int
    end: int
    keys: tuple[str, ...]
    dash: str = ""


@dataclass(frozen=True, slots=True)
class Marker:
    start: int
    end: int
    style: MarkerStyle
    items: tuple[MarkerItem, ...]
    separator: str = ", "
    keys: tuple[str, ...] = field(init=False, compare=False, repr=False)
    """The keys it cites, each once, in order (computed once: a group of 30,000 is asked per key)."""
    item_of: dict[str, int] = field(init=False, compare=False, repr=False)
    """Each key → the index of the first item that cites it."""
    repeats: bool = field(init=False, compare=False, repr=False)
    """Whether some key is cited by more than one item (`[2, 1-3]`)."""

    def __post_init__(self) -> None:
        first: dict[str, int] = {}
        cited = 0
        for index, item in enumerate(self.items):
            cited += len(item.keys)
            for key in item.keys:
                first.setdefault(key, index)
        object.__setattr__(self, "item_of", first)
        object.__setattr__(self, "keys", tuple(first))
        object.__setattr__(self, "repeats", cited != len(first))

    def span_of(self, key: str) -> tuple[int, int]:
        """Where this marker cites `key`: the whole marker when that is all it cites, else the item
        (`[2, 3]`'s `3`, `[@a; @b]`'s `@b`) that does."""
        index = self.item_of.get(key)
        if len(self.keys) > 1 and index is not None:
            item = self.items[index]
            return item.start, item.end
        return self.start, self.end

    def cited_once(self, key: str) -> MarkerItem | None:
        """The item that is `key` alone, when no other item cites it (not a range, not repeated)."""
        index = self.item_of.get(key)
        if index is None or self.items[index].keys != (key,):
            return None
        if self.repeats and any(key in item.keys for item in self.items[index + 1 :]):
            return None
        return self.items[index]

    def key_spans(self) -> dict[str, tuple[int, int]]:
        """`span_of` every key it cites, in one pass (a marker may cite thousands of keys)."""
        spans: dict[str, tuple[int, int]] = {}
        for item in self.items:
            for key in item.keys:
                spans.setdefault(key, (item.start, item.end))
        return spans if len(spans) > 1 else dict.fromkeys(spans, (self.start, self.end))


@dataclass(frozen=True, slots=True)
class MalformedMarker:
    start: int
    end: int
    reason: str


def find_markers(
    text: str, regions: Iterable[tuple[int, int]], opaque: SpanSet
) -> tuple[list[Marker], list[MalformedMarker]]:
    """Markers inside the given prose regions, skipping anything in `opaque` (code, links, URLs)."""
    markers: list[Marker] = []
    malformed: list[MalformedMarker] = []
    for region_start, region_end in regions:
        pos = text.find("[", region_start, region_end)
        line_end = -1
        while pos != -1:
            next_pos = pos + 1
            if pos > line_end:  # a marker never spans lines: each is read up to its line's end
                line_end = text.find("\n", pos, region_end)
                if line_end == -1:
                    line_end = region_end
            if not opaque.contains(pos):
                result = _parse_at(text, pos, line_end)
                if isinstance(result, Marker):
                    markers.append(result)
                    next_pos = result.end
                elif isinstance(result, MalformedMarker):
                    malformed.append(result)
                    next_pos = result.end
            pos = text.find("[", next_pos, region_end)
    return markers, malformed


def _parse_at(text: str, pos: int, limit: int) -> Marker | MalformedMarker | None:
    """The marker whose `[` is at `pos`, read no further than `limit` (the end of its line)."""
    if text.startswith("[^", pos):
        return _parse_footnote(text, pos, limit)
    body = _NUMERIC_BODY.match(text, pos + 1, limit)
    close = body.end() if body else pos + 1
    if close >= limit or text[close] != "]":
        return None
    if not any(ch.isdigit() for ch in text[pos + 1 : close]):
        return None
    if close + 1 < len(text) and text[close + 1] == "(":
        return None  # a link whose text happens to be a number
    return _parse_numeric(text, pos, close)


def _parse_numeric(text: str, pos: int, close: int) -> Marker | MalformedMarker:
    end = close + 1
    body_start = pos + 1
    items: list[MarkerItem] = []
    separator = ", "
    cursor = body_start
    first_separator = True
    while True:
        match = _ITEM.match(text, cursor, close)
        if not match:
            return MalformedMarker(pos, end, _why_malformed(text[body_start:close]))
        first, dash, last = match.group(1), match.group(2), match.group(3)
        item_start, item_end = match.start(1), match.end(3) if last else match.end(1)
        if last:
            lo, hi = int(first), int(last)
            if hi <= lo:
                return MalformedMarker(pos, end, f"the range {first}{dash}{last} runs backwards")
            if hi - lo > MAX_RANGE:
                return MalformedMarker(pos, end, f"the range {first}{dash}{last} is implausibly wide")
            keys = tuple(str(k) for k in range(lo, hi + 1))
            items.append(MarkerItem(item_start, item_end, keys, dash or "-"))
        else:
            items.append(MarkerItem(item_start, item_end, (str(int(first)),)))
        cursor = match.end()
        if cursor >= close:
            break
        if text[cursor] not in ",;":
            return MalformedMarker(pos, end, _why_malformed(text[body_start:close]))
        sep_end = cursor + 1
        while sep_end < close and text[sep_end] in " \t":
            sep_end += 1
        if first_separator:
            separator = text[cursor:sep_end]
            first_separator = False
        cursor = cursor + 1
        if cursor >= close:
            return MalformedMarker(pos, end, "the marker ends with a separator and no number")
    return Marker(pos, end, MarkerStyle.NUMERIC, tuple(items), separator)


def _why_malformed(body: str) -> str:
    compact = re.sub(r"\s+", "", body)
    if re.search(r"[,;]{2,}", compact):
        return "two separators in a row, with no number between them"
    if compact[:1] in ",;":
        return "the marker starts with a separator"
    if compact[-1:] in ",;":
        return "the marker ends with a separator and no number"
    if re.search(r"[-–—]{2,}|^[-–—]|[-–—]$", compact):
        return "a range is missing one of its ends"
    return "numbers must be separated by commas"


def _parse_footnote(text: str, pos: int, limit: int) -> Marker | MalformedMarker | None:
    key_start = pos + 2
    match = _FOOTNOTE_KEY.match(text, key_start, limit)
    if match and match.end() < len(text) and text[match.end()] == "]":
        end = match.end() + 1
        if end < len(text) and text[end] == ":":
            return None  # a definition, not a marker
        item = MarkerItem(key_start, match.end(), (match.group(0),))
        return Marker(pos, end, MarkerStyle.FOOTNOTE, (item,))
    stop = match.end() if match else key_start
    reach = stop + _DIAGNOSIS_REACH
    while stop < limit and stop < reach and text[stop] not in "]\n":
        stop += 1
    if stop < limit and text[stop] == "]":
        return MalformedMarker(
            pos, stop + 1, "a footnote key may hold only letters, digits, '-', '_', '.' or ':'"
        )
    end = match.end() if match else key_start
    return MalformedMarker(pos, max(end, key_start), "the footnote marker is never closed with ']'")


def format_numeric(numbers: list[int], separator: str = ", ", dash: str = "–") -> str:
    """`[1, 2, 3, 5]` → `1–3, 5` when a range was used; runs of 3+ become ranges only if `dash`."""
    parts: list[str] = []
    i = 0
    while i < len(numbers):
        j = i
        while dash and j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{numbers[i]}{dash}{numbers[j]}")
        else:
            parts.extend(str(k) for k in numbers[i : j + 1])
        i = j + 1
    return separator.join(parts)


def repair_malformed(bad: MalformedMarker, raw: str) -> str | None:
    """A well-formed rewrite of a malformed marker when its intent is unambiguous."""
    if raw.startswith("[^"):
        key = re.match(r"\[\^([A-Za-z0-9_.:-]+)", raw)
        return f"[^{key.group(1)}]" if key and not raw.endswith("]") else None
    if "backwards" in bad.reason:
        return re.sub(
            r"(\d+)(\s*[-–—]\s*)(\d+)",
            lambda m: f"{min(int(m[1]), int(m[3]))}{m[2]}{max(int(m[1]), int(m[3]))}",
            raw,
        )
    if "range" in bad.reason:
        return None
    numbers = [int(n) for n in re.findall(r"\d+", raw)]
    if not numbers:
        return None
    return (
        "["
        + format_numeric(sorted(dict.fromkeys(numbers)) if numbers == sorted(numbers) else numbers, ", ", "")
        + "]"
    )
