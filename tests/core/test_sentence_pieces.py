"""A long block (a page without a paragraph break) is segmented in pieces cut at sentence ends,
each cached: its sentences are the ones written, and an edit re-segments one piece, not the page
(what keeps the editor's structural diagnostics quick after a keystroke)."""

from __future__ import annotations

from citedesk.core.document import sentences
from citedesk.core.document.sentences import MAX_SEGMENT_CHARS, segment_spans

SENTENCE = "Street trees cool the pavement below them by several degrees in summer afternoons    . "
"""A sentence as pysbd reads it: its marker (`[1]`) blanked to spaces before the full stop."""


def _page(count: int, first: str = SENTENCE) -> str:
    return first + SENTENCE * (count - 1)


def test_a_long_block_is_cut_only_at_sentence_ends() -> None:
    page = _page(80)
    assert len(page) > MAX_SEGMENT_CHARS
    spans = segment_spans(page)
    assert len(spans) == 80
    assert all(page[start:end] == SENTENCE.strip() for start, end in spans)


def test_an_edit_of_a_long_block_re_segments_one_piece() -> None:
    segment_spans(_page(90))
    before = sentences._chunk_spans.cache_info().misses
    edited = _page(90, first="So " + SENTENCE)
    spans = segment_spans(edited)
    assert sentences._chunk_spans.cache_info().misses == before + 1
    assert edited[spans[0][0] : spans[0][1]] == "So " + SENTENCE.strip()
    assert len(spans) == 90
