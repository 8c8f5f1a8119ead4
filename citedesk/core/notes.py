"""Note-style citations: a note that only cites cites for the sentence that calls it.

In the note styles of the humanities and law (Chicago notes, OSCOLA; Zotero's note styles in Word),
a sentence carries a note mark and the citation lives in the note: `Street trees cool the air.[^1]`
… `[^1]: See [@moreau2021], 4.` Read sentence by sentence, the body sentence would be uncited and the
note's citation attached to "See Moreau, 4.", which makes no claim. So where a note's sentences make
no claim of their own (none needs a citation: `core.claims.assess`), its citations are moved to the
sentence that calls it — the sentence that ends at or before the call, in the same block — and are
judged against it. A note that says something of its own (`[^2]: Moreau found the same in dry
climates [@moreau2021].`) keeps its citations: that sentence is what they support; the sentence
calling it is then `noted` — cited through its note, so never reported uncited.

The move changes only which sentence a marker belongs to: markers keep their offsets (a finding on
one still points into the note), and the calling sentence's span is not stretched to the note.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from citedesk.core.claims import assess
from citedesk.core.sentences import Sentence


def attach_notes(sentences: Sequence[Sentence], links: Sequence[tuple[int, int]]) -> list[Sentence]:
    """`sentences` with each citing-only note's markers moved to the sentence that calls it;
    `links` are (where the note is called, where the note's text begins), as the dialect says."""
    result = list(sentences)
    if not links:
        return result
    starts = {s.start: i for i, s in enumerate(result)}
    for call, note_start in links:
        caller = _caller(result, call)
        note = _note_sentences(result, note_start, starts)
        if caller is None or not note or caller in note:
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


def _caller(sentences: list[Sentence], call: int) -> int | None:
    """The sentence a note call at `call` belongs to: the last one that starts before it, if the
    call lies within that sentence or right after it (`claim.[^1]`, `claim[^1].`)."""
    found = None
    for i, sentence in enumerate(sentences):
        if sentence.start > call:
            break
        found = i
    if found is None:
        return None
    sentence = sentences[found]
    following = sentences[found + 1] if found + 1 < len(sentences) else None
    if following is not None and following.block == sentence.block and following.start <= call:
        return None
    return found


def _note_sentences(sentences: list[Sentence], note_start: int, starts: dict[int, int]) -> list[int]:
    """The sentences of the note whose text begins at `note_start` (its block)."""
    first = next((i for i, s in enumerate(sentences) if s.start >= note_start), None)
    if first is None:
        return []
    block = sentences[first].block
    return [i for i in range(first, len(sentences)) if sentences[i].block == block]


def _makes_claim(sentence: Sentence) -> bool:
    words = sentence.prose if sentence.prose is not None else sentence.text
    return assess(words).needs_citation
