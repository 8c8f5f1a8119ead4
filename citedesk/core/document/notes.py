"""Note-style citations: a note that only cites cites for the sentence that calls it.

In the note styles of the humanities and law (Chicago notes, OSCOLA; Zotero's note styles in Word),
a sentence carries a note mark and the citation lives in the note: `Street trees cool the air.[^1]`
… `[^1]: See [@moreau2021], 4.` Read sentence by sentence, the body sentence would be uncited and the
note's citation attached to "See Moreau, 4.", which makes no claim. So where a note's sentences make
no claim of their own (none needs a citation: `core.document.claims.assess`), its citations are moved to the
sentence that calls it — the sentence that ends at or before the call, in the same block — and are
judged against it. A note that says something of its own (`[^2]: Moreau found the same in dry
climates [@moreau2021].`) keeps its citations: that sentence is what they support; the sentence
calling it is then `noted` — cited through its note, so never reported uncited.

The move changes only which sentence a marker belongs to: markers keep their offsets (a finding on
one still points into the note), and the calling sentence's span is not stretched to the note.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import replace

from citedesk.core.document.claims import assess
from citedesk.core.document.sentences import Sentence


def attach_notes(sentences: Sequence[Sentence], links: Sequence[tuple[int, int]]) -> list[Sentence]:
    """`sentences` with each citing-only note's markers moved to the sentence that calls it;
    `links` are (where the note is called, where the note's text begins), as the dialect says.
    Each link is found by bisection (sentences are in text order): a book of a thousand notes costs
    a thousand look-ups, not a thousand passes over its sentences."""
    result = list(sentences)
    if not links:
        return result
    starts = [s.start for s in result]
    for call, note_start in links:
        caller = bisect.bisect_right(starts, call) - 1  # the last sentence starting at or before the call
        note = _note_sentences(result, bisect.bisect_left(starts, note_start))
        if caller < 0 or not note or caller in note:
            continue
        moved = [m for i in note for m in result[i].markers]
        if not moved:
            continue
        if any(_makes_claim(result[i]) for i in note):
            result[caller] = replace(result[caller], noted=True)
            continue
        for i in note:
            result[i] = replace(result[i], markers=())
        result[caller] = replace(result[caller], markers=tuple(sorted({*result[caller].markers, *moved})))
    return result


def _note_sentences(sentences: list[Sentence], first: int) -> range:
    """The sentences of the note whose first sentence is `first` (those of its block)."""
    if first >= len(sentences):
        return range(0)
    block = sentences[first].block
    last = first
    while last + 1 < len(sentences) and sentences[last + 1].block == block:
        last += 1
    return range(first, last + 1)


def _makes_claim(sentence: Sentence) -> bool:
    words = sentence.prose if sentence.prose is not None else sentence.text
    return assess(words).needs_citation
