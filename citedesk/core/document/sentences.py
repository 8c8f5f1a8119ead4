"""Sentences with pysbd, and the markers that belong to each.

pysbd reads a *neutral* copy of each prose block in which markers, URLs, HTML and markup are blanked
to spaces and inline code to `x`s: the copy has the block's exact length, so every offset pysbd
gives is an offset into the document. pysbd's own `char_span=True` re-searches the whole text for
each sentence (quadratic, and wrong for repeated sentences); we walk the segments in order with a
cursor instead, which is linear and exact.
"""

from __future__ import annotations

import bisect
import functools
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from citedesk.core.document.markers import Marker
from citedesk.core.spans import SpanSet

MAX_SEGMENT_CHARS = 5_000
"""Blocks longer than this are cut at line breaks or spaces before segmentation (bounded cost)."""
PIECE_CHARS = 1_000
"""A block longer than `MAX_SEGMENT_CHARS` is cut in pieces of about this many characters, each at
a sure sentence end, so that an edit re-segments one piece (`_chunk_spans`), not the block."""

_local = threading.local()


def _segmenter() -> object:
    """One pysbd segmenter per thread: pysbd keeps state on the instance."""
    seg = getattr(_local, "segmenter", None)
    if seg is None:
        import pysbd  # noqa: PLC0415 - a light import, but kept off the start-up path

        seg = pysbd.Segmenter(language="en", clean=False)
        _local.segmenter = seg
    return seg


@dataclass(frozen=True, slots=True)
class Sentence:
    index: int
    start: int
    end: int
    """Span of the sentence's prose, trimmed; trailing markers are not inside it."""
    span_end: int
    """End of the sentence including the markers attached after it (`…done.[4]`)."""
    block: int
    markers: tuple[int, ...]
    """Indices into the document's marker list."""
    text: str
    """The sentence as a reader hears it: markers, URLs and markup removed, whitespace collapsed."""
    prose: str | None = None
    """`text` with its inline code left out: what claim detection reads, since a code span
    (`data/2021.csv`, `--survey`) is the writer's instruction to a machine, never a claim to cite;
    `text` keeps it so the window and the reports show the sentence the writer wrote."""
    noted: bool = False
    """It calls a note that cites and says something of its own (`core.document.notes`): not uncited, though
    the note's citations are judged against the note's words."""


def split_sentences(
    text: str,
    blocks: Sequence[tuple[int, int]],
    markers: Sequence[Marker],
    hidden: SpanSet,
    code: SpanSet,
    spoken: Sequence[tuple[int, int, str]] = (),
    joined: SpanSet | None = None,
) -> list[Sentence]:
    """Sentences of the prose `blocks`, each with the markers attached to it.

    `joined` are hidden spans read as nothing rather than a space, in a sentence's text: markup
    inside a word (LaTeX's `25\\%`, `\\emph{wo}rd`, `caf\\'e`; `core.document.markdown.Layout.joins`).

    `spoken` are citations that are words of their sentence — pandoc's in-text `@smith04 says` —
    as (start, end, words): a name for the segmenter (not a gap), and `words` in the sentence's
    text (`Smith says`), though they stay markers for everything else.
    """
    voiced = sorted(spoken)
    marker_spans = SpanSet.of(_minus([(m.start, m.end) for m in markers], [(s, e) for s, e, _ in voiced]))
    inner, parent = _nesting(blocks)
    raw: list[tuple[int, int, int]] = []  # (start, end, block)
    for block_index, (block_start, block_end) in enumerate(blocks):
        cut = hidden.union(inner[block_index]) if inner[block_index] else hidden
        neutral = _neutral(text, block_start, block_end, cut, code, marker_spans, voiced)
        for start, end in segment_spans(neutral):
            raw.append((block_start + start, block_start + end, block_index))
    if any(inner):
        raw.sort()  # a paragraph's sentence around a footnote comes before the footnote's

    # attach markers: to the last sentence of their block that starts at or before them, so a
    # marker after the full stop (…done.[4] Next, …done. [4]) belongs to the sentence it follows
    attached: list[list[int]] = [[] for _ in raw]
    span_ends = [end for _, end, _ in raw]
    of_block: dict[int, list[int]] = {}
    for index, (_, _, block) in enumerate(raw):
        of_block.setdefault(block, []).append(index)
    for mi, marker in enumerate(markers):
        found = _block_of(blocks, parent, marker.start)
        if found is None or found not in of_block:
            continue  # in no block (a heading's citation): no sentence's
        own_sentences = of_block[found]
        at = bisect.bisect_right(own_sentences, marker.start, key=lambda i: raw[i][0]) - 1
        si = own_sentences[max(0, at)]
        attached[si].append(mi)
        span_ends[si] = max(span_ends[si], marker.end)

    sentences: list[Sentence] = []
    for index, ((start, end, block), own) in enumerate(zip(raw, attached, strict=True)):
        cut = hidden.union(inner[block]) if inner[block] else hidden
        sentences.append(
            Sentence(
                index=index,
                start=start,
                end=end,
                span_end=span_ends[index],
                block=block,
                markers=tuple(own),
                text=readable(text, start, end, cut, code, marker_spans, voiced, joined=joined),
                prose=readable(
                    text, start, end, cut, code, marker_spans, voiced, keep_code=False, joined=joined
                ),
            )
        )
    return sentences


def _nesting(blocks: Sequence[tuple[int, int]]) -> tuple[list[list[tuple[int, int]]], list[int | None]]:
    """For each block, the blocks inside it (LaTeX's footnote inside its paragraph: never words of
    the block around it) and the block it is inside (None at the top). Blocks are sorted by start
    and never cross; in Markdown none is inside another."""
    inner: list[list[tuple[int, int]]] = [[] for _ in blocks]
    parent: list[int | None] = [None] * len(blocks)
    open_blocks: list[int] = []
    for index, (start, end) in enumerate(blocks):
        while open_blocks and blocks[open_blocks[-1]][1] <= start:
            open_blocks.pop()
        if open_blocks and end <= blocks[open_blocks[-1]][1]:
            inner[open_blocks[-1]].append((start, end))
            parent[index] = open_blocks[-1]
        open_blocks.append(index)
    return inner, parent


def _block_of(blocks: Sequence[tuple[int, int]], parent: Sequence[int | None], offset: int) -> int | None:
    """The innermost block holding `offset`, if any: the last block to start before it, or one
    around that block."""
    index: int | None = bisect.bisect_right(blocks, offset, key=lambda b: b[0]) - 1
    while index is not None and index >= 0:
        if blocks[index][0] <= offset < blocks[index][1]:
            return index
        index = parent[index]
    return None


def _covered(spans: SpanSet, start: int, end: int) -> bool:
    """Whether `spans` cover all of [start, end)."""
    return sum(e - s for s, e in spans.within(start, end)) == end - start


def _minus(spans: Sequence[tuple[int, int]], holes: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """`spans` with the (sorted) `holes` inside them cut out."""
    if not holes:
        return list(spans)
    pieces: list[tuple[int, int]] = []
    for start, end in spans:
        cursor = start
        i = bisect.bisect_left(holes, (start, start))
        while i < len(holes) and holes[i][0] < end:
            pieces.append((cursor, holes[i][0]))
            cursor = max(cursor, holes[i][1])
            i += 1
        pieces.append((cursor, end))
    return [(s, e) for s, e in pieces if e > s]


def _spoken_within(
    voiced: Sequence[tuple[int, int, str]], start: int, end: int
) -> list[tuple[int, int, str]]:
    """The spoken citations inside [start, end) (`voiced` is sorted)."""
    found = []
    i = bisect.bisect_left(voiced, start, key=lambda v: v[0])
    while i < len(voiced) and voiced[i][0] < end:
        if voiced[i][1] <= end:
            found.append(voiced[i])
        i += 1
    return found


def _neutral(
    text: str,
    start: int,
    end: int,
    hidden: SpanSet,
    code: SpanSet,
    markers: SpanSet,
    voiced: Sequence[tuple[int, int, str]] = (),
) -> str:
    pieces: list[str] = []
    cursor = start
    blanks = sorted(
        [(s, e, "x") for s, e in code.within(start, end)]
        + [(s, e, " ") for s, e in hidden.within(start, end) if not code.overlaps(s, e)]
        + [(s, e, " ") for s, e in markers.within(start, end)]
        + [(s, e, "X") for s, e, _ in _spoken_within(voiced, start, end)]
    )
    for s, e, fill in blanks:
        if e <= cursor:
            continue
        s = max(s, cursor)
        pieces.append(text[cursor:s])
        # a spoken citation reads as a name (`Xxxxxx says`), so the segmenter sees a subject
        pieces.append("X" + "x" * (e - s - 1) if fill == "X" else fill * (e - s))
        cursor = e
    pieces.append(text[cursor:end])
    joined = "".join(pieces).replace("\r\n", _CRLF + "\n")
    return joined.replace("\n", " ").replace("\r", " ").replace("\t", " ")


_CRLF = "\x1e"
"""Stands for the CR of a CRLF in a neutral block: left out of what pysbd reads, so a CRLF file is
split into sentences as its LF twin is (pysbd reads `." A` and `."  A` differently)."""


@functools.lru_cache(maxsize=32_768)
def segment_spans(neutral: str) -> tuple[tuple[int, int], ...]:
    """Sentence spans in one neutral block; cached, so re-auditing an edited document only
    re-segments the paragraphs that changed."""
    if _CRLF not in neutral:
        return tuple(_segment(neutral))
    kept = [i for i, c in enumerate(neutral) if c != _CRLF]  # offsets in the block, CRs left out
    collapsed = "".join(neutral[i] for i in kept)
    return tuple((kept[start], kept[end - 1] + 1) for start, end in _segment(collapsed) if end > start)


def _segment(neutral: str) -> Iterable[tuple[int, int]]:
    """Sentence spans in `neutral`, trimmed of surrounding whitespace."""
    for chunk_start, chunk in _chunks(neutral):
        for start, end in _chunk_spans(chunk):
            yield chunk_start + start, chunk_start + end


@functools.lru_cache(maxsize=4_096)
def _chunk_spans(chunk: str) -> tuple[tuple[int, int], ...]:
    """Sentence spans in one piece of a block; cached, so an edit of a long block (a page without
    a paragraph break) re-segments only the piece it is in: the pieces are cut at sentence ends
    found in their own text, so those before and after the edit are the same strings again."""
    chunk = _CONTROL.sub(" ", chunk)  # same length; pysbd's list rules crash on some controls
    try:
        segments: list[str] = _segmenter().segment(chunk)  # type: ignore[attr-defined]
    except Exception:  # a pysbd bug must not lose the document: split at full stops instead
        segments = _FALLBACK_SPLIT.split(chunk)
    spans = []
    cursor = 0
    for segment in segments:
        core = segment.strip()
        if not core:
            continue
        found = chunk.find(core, cursor)
        if found == -1:  # pysbd changed the text; fall back to the raw segment length
            found = cursor + (len(segment) - len(segment.lstrip()))
        cursor = found + len(core)
        spans.append((found, cursor))
    return tuple(spans)


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_FALLBACK_SPLIT = re.compile(r"(?<=[.!?])\s+")


def _chunks(neutral: str) -> Iterable[tuple[int, str]]:
    """The block, or a long one in pieces: each ends at the last sure sentence end of its second
    half (`PIECE_CHARS`), else as before at one within `MAX_SEGMENT_CHARS` (else at a space)."""
    if len(neutral) <= MAX_SEGMENT_CHARS:
        yield 0, neutral
        return
    start = 0
    while start < len(neutral):
        end = len(neutral)
        if start + PIECE_CHARS < len(neutral):
            end = _safe_cut(neutral, start + PIECE_CHARS // 2, start + PIECE_CHARS, space=False) or 0
            if not end:
                end = min(start + MAX_SEGMENT_CHARS, len(neutral))
                if end < len(neutral):
                    end = _safe_cut(neutral, start + MAX_SEGMENT_CHARS // 2, end) or end
        yield start, neutral[start:end]
        start = end


# a sentence end that is no abbreviation: a word of 4+ letters (or a number) and a full stop, then
# a capital ("…in 2021. The next", not "Dr. Smith" or "e.g. The"); the blanks of a marker may stand
# between the word and its full stop ("…in summer [1]. The next" reads "…in summer    . The next")
_SAFE_END = re.compile(r"(?:[A-Za-z]{4,}|\d+) *[.!?][\"')\]]*\s+(?=[\"'(\[]?[A-Z])")


def _safe_cut(text: str, lo: int, hi: int, *, space: bool = True) -> int | None:
    """The last safe sentence boundary in [lo, hi) (pysbd is slow on long blocks: they are cut in
    pieces it splits separately), else (`space`) the last space, else None."""
    last = None
    for match in _SAFE_END.finditer(text, lo, hi):
        last = match.end()
    if last is None and space:
        blank = text.rfind(" ", lo, hi)
        last = blank + 1 if blank > lo else None
    return last


def readable(
    text: str,
    start: int,
    end: int,
    hidden: SpanSet,
    code: SpanSet,
    markers: SpanSet,
    voiced: Sequence[tuple[int, int, str]] = (),
    *,
    keep_code: bool = True,
    joined: SpanSet | None = None,
) -> str:
    """The words of [start, end): code content kept (or, without `keep_code`, each code span said as
    ` `` `, no word), markers and markup dropped (a spoken citation said by its words), spaces
    collapsed."""
    pieces: list[str] = []
    cursor = start
    spoken = _spoken_within(voiced, start, end)
    if spoken:  # what is said in words says all of its span, markup inside it or not
        hidden = hidden.without((s, e) for s, e, _ in spoken)
    drops = sorted(
        [(s, e, None if keep_code else " `` ") for s, e in code.within(start, end)]
        + [
            (s, e, "" if joined and _covered(joined, s, e) else " ")
            for s, e in hidden.within(start, end)
            if not code.overlaps(s, e)
        ]
        + [(s, e, " ") for s, e in markers.within(start, end)]
        + [(s, e, f" {words} ") for s, e, words in spoken]
    )
    for s, e, said in drops:
        if e <= cursor:
            continue
        s = max(s, cursor)
        pieces.append(text[cursor:s])
        pieces.append(text[s:e].strip("`") if said is None else said)
        cursor = e
    pieces.append(text[cursor:end])
    words = " ".join("".join(pieces).split())
    for punct in (" .", " ,", " ;", " :", " ?", " !"):
        words = words.replace(punct, punct[1])
    return words
