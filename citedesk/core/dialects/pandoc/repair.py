"""Repairs in pandoc citation syntax: swap, add and remove keys, as text edits on the original.

Operations name a citation group by its index in `find_citations(text)` (or an offset, for a new
group) and merge into one edit per group, so "fix all" never produces overlapping edits. A group
keeps everything that is not changed byte for byte: every other item's prefix, key, locator and
suffix, the separators as written (`;` then a line break stays so), the spaces inside the brackets.
An emptied group goes with its surrounding space, as `core.repair.removal_edit` removes numbered
markers, and `citation_prose` is what must stay byte-identical: the text with every citation
group taken out the same way.

In-text citations (`@smith04 says`) are part of the sentence: swapping the key keeps the sentence
as it reads, but removing one would leave a sentence without its subject, so it is refused unless
the caller asks for it (`allow_in_text=True`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from citedesk.core.document.citekeys import CitationGroup, CiteItem, render_key
from citedesk.core.document.model import Structure
from citedesk.core.findings import TextEdit
from citedesk.core.operations import (
    AddCitation,
    MergeReference,
    Operation,
    RemoveCitation,
    RemoveMarker,
    RetargetCitation,
)
from citedesk.core.repair import exposes_structure, normalise_edits, removal_edit
from citedesk.errors import RepairError


@dataclass(frozen=True, slots=True)
class SwapKey:
    """In group number `group`, cite `new` instead of `old`, keeping prefix and locator."""

    group: int
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class RemoveKey:
    """Take `key` out of group number `group`; the group goes entirely if nothing is left."""

    group: int
    key: str


@dataclass(frozen=True, slots=True)
class AddKey:
    """Add `key` at the end of group number `group` (`[@a]` → `[@a; @b]`)."""

    group: int
    key: str


@dataclass(frozen=True, slots=True)
class CiteAt:
    """Cite `key` at `offset` (a sentence end): joins a bracketed group that ends exactly there,
    else a new group `[@key]` is inserted, with a space before it where the text has none."""

    offset: int
    key: str


KeyOperation = SwapKey | RemoveKey | AddKey | CiteAt


@dataclass(slots=True)
class _Slot:
    item: CiteItem | None
    key: str


@dataclass(frozen=True, slots=True)
class _Piece:
    span: tuple[int, int] | None
    """Where the piece was in the original text; None for an added key."""
    text: str


def key_edits(
    text: str,
    groups: Sequence[CitationGroup],
    operations: Sequence[KeyOperation],
    *,
    allow_in_text: bool = False,
) -> list[TextEdit]:
    """One consistent, sorted edit list for all `operations` on the citations `groups` of `text`.

    Raises RepairError for an edit that cannot be made safely: removing an in-text citation
    (unless `allow_in_text`), adding a key to a bare in-text citation, a key pandoc cannot cite,
    a new group inside another citation or where it would read as a link, or a removal that would
    turn the rest of its line into Markdown structure.
    """
    slots: dict[int, list[_Slot]] = {}
    removing: dict[int, set[str]] = {}  # taken together: a plan removing 20,000 keys is linear

    def slots_of(index: int) -> list[_Slot]:
        if not 0 <= index < len(groups):
            raise RepairError(f"there is no citation group number {index}")
        if index not in slots:
            slots[index] = [_Slot(item, item.key) for item in groups[index].items]
        gone = removing.pop(index, None)
        if gone:
            slots[index] = [s for s in slots[index] if s.key not in gone]
        return slots[index]

    additions: dict[int, list[str]] = {}
    ends = (
        {g.end: i for i, g in enumerate(groups) if g.bracket is not None and g.bracket[1] == g.end}
        if any(isinstance(op, CiteAt) for op in operations)
        else {}
    )
    for op in operations:
        if isinstance(op, SwapKey):
            for slot in slots_of(op.group):
                if slot.key == op.old:
                    slot.key = op.new
        elif isinstance(op, RemoveKey):
            slots_of(op.group)
            removing.setdefault(op.group, set()).add(op.key)
        elif isinstance(op, AddKey):
            slots_of(op.group).append(_Slot(None, op.key))
        elif op.offset in ends:
            slots_of(ends[op.offset]).append(_Slot(None, op.key))
        else:
            additions.setdefault(op.offset, []).append(op.key)

    for index in list(removing):
        slots_of(index)
    edits: list[TextEdit] = []
    deleted: list[int] = []
    for index in sorted(slots):
        group = groups[index]
        kept = _dedupe(slots[index])
        if [(s.item, s.key) for s in kept] == [(item, item.key) for item in group.items]:
            continue
        removed_in_text = group.in_text and (not kept or kept[0].item is not group.items[0])
        if removed_in_text and not allow_in_text:
            raise RepairError(
                f"@{group.items[0].key} is part of the sentence (an in-text citation); edit it by hand"
            )
        if not kept:
            deleted.append(index)
        else:
            edits.append(
                TextEdit(group.start, group.end, render_group(text, group, [(s.item, s.key) for s in kept]))
            )
    removals = [
        removal_edit(text, groups[first].start, groups[last].end)
        for first, last in _runs(text, groups, deleted)
    ]
    for removal in removals:
        if exposes_structure(text, removal):
            raise RepairError(
                "removing this citation would turn the rest of its line into Markdown structure; edit it by hand"
            )
    edits.extend(removals)
    for offset, keys in sorted(additions.items()):
        edits.append(new_group_edit(text, groups, offset, keys))
    return normalise_edits(edits)


def pandoc_edits(structure: Structure, operations: Sequence[Operation]) -> list[TextEdit]:
    """`core.repair`'s operations on a pandoc document, as citation-syntax edits (`key_edits`):
    a citation removed is a key taken out of its group, a retarget swaps the key in place, an
    added citation joins the group ending there or is a new `[@key]`, a merge of two entries
    cites the first wherever the second was. The bibliography is never edited, so an operation on
    reference entries (remove, renumber) or on malformed markers (which pandoc documents do not
    have) is refused with a RepairError."""
    if len(operations) == 1 and isinstance(operations[0], RemoveCitation | RetargetCitation):
        local = _local_edit(structure, operations[0])
        if local is not None:
            return [local]
    groups = structure.citations
    renames = {op.duplicate: op.into for op in operations if isinstance(op, MergeReference)}
    ops: list[KeyOperation] = []
    additions: list[KeyOperation] = []  # after the swaps and removals, which mean the citations as written
    for op in operations:
        if isinstance(op, RemoveCitation):
            ops.append(RemoveKey(op.marker, op.key))
        elif isinstance(op, RemoveMarker):
            ops.extend(RemoveKey(op.marker, key) for key in groups[op.marker].keys)
        elif isinstance(op, RetargetCitation):
            if not op.same_work:
                _refuse_moving_locator(structure, op)
            ops.append(SwapKey(op.marker, op.old, renames.get(op.new, op.new)))
        elif isinstance(op, AddCitation):
            additions.append(CiteAt(op.offset, renames.get(op.key, op.key)))
        elif not isinstance(op, MergeReference):
            raise RepairError(
                "a pandoc document's bibliography is never edited and its citations have no numbers; "
                f"this repair ({type(op).__name__}) does not apply to it"
            )
    citing = structure.markers_citing
    for duplicate, into in renames.items():
        ops.extend(SwapKey(index, duplicate, into) for index in citing.get(duplicate, ()))
    return key_edits(structure.text, groups, [*ops, *additions])


LOCAL_FROM_ITEMS = 16
"""A bracketed group of at least this many keys loses one by a local edit (the item and the `; `
after it), not by being rewritten whole: each of 20,000 keys in one group has its own fix, and a
rewrite per fix made offering them quadratic (34 s). Smaller groups are rewritten as before."""


def _local_edit(structure: Structure, op: RemoveCitation | RetargetCitation) -> TextEdit | None:
    """One key of a large bracketed group taken out, or swapped for a key the group does not cite,
    in place; None where the group is rewritten."""
    if not 0 <= op.marker < len(structure.citations):
        return None
    group, marker = structure.citations[op.marker], structure.markers[op.marker]
    key = op.key if isinstance(op, RemoveCitation) else op.old
    if group.in_text or len(group.items) < LOCAL_FROM_ITEMS or marker.cited_once(key) is None:
        return None
    index = marker.item_of[key]
    item = group.items[index]
    if isinstance(op, RetargetCitation):
        if op.new in marker.item_of or (not op.same_work and item.locator is not None):
            return None
        return TextEdit(item.start, item.end, _item_text(structure.text, item, op.new))
    if index + 1 < len(group.items):
        return TextEdit(item.start, group.items[index + 1].start, "")
    return TextEdit(group.items[index - 1].end, item.end, "")


def _refuse_moving_locator(structure: Structure, op: RetargetCitation) -> None:
    """A swap to another work never carries a locator with it (`p. 45` of the old work)."""
    for item in structure.citations[op.marker].items:
        if item.key == op.old and item.locator is not None:
            written = structure.text[item.suffix[0] : item.suffix[1]].strip(" ,")
            raise RepairError(
                f"@{op.old} is cited with a locator ({written}) that belongs to that work; "
                "swap it by hand and give the locator in the other work"
            )


def new_group_edit(text: str, groups: Sequence[CitationGroup], offset: int, keys: Sequence[str]) -> TextEdit:
    """The insertion of a new group `[@a; @b]` at `offset`, with a space before it where needed."""
    if not 0 <= offset <= len(text):
        raise RepairError(f"offset {offset} is outside the text")
    if any(g.start < offset < g.end for g in groups):
        raise RepairError("a new citation cannot go inside another one")
    previous = text[offset - 1 : offset]
    following = text[offset : offset + 1]
    if previous == "\\" or following in ("(", "[", "{"):
        raise RepairError("a citation here would read as something else (a link, a span or an escape)")
    if following.isalnum() or following == "_":
        raise RepairError("a citation here would join the word after it")
    group = "[" + "; ".join(_render(key) for key in dict.fromkeys(keys)) + "]"
    space = "" if previous in ("", " ", "\t", "\n", "(") else " "
    return TextEdit(offset, offset, space + group)


def render_group(text: str, group: CitationGroup, slots: Sequence[tuple[CiteItem | None, str]]) -> str:
    """The group's new text, citing `slots` in order: each an original item (kept as written,
    its key swapped when it differs) or None with a key to add (`@key`)."""
    pieces = [
        _Piece((item.start, item.end), _item_text(text, item, key)) if item else _Piece(None, _render(key))
        for item, key in slots
    ]
    if group.bracket is None:  # a bare in-text citation: nothing to add to
        if len(pieces) != 1 or pieces[0].span is None:
            raise RepairError(
                f"@{group.items[0].key} is an in-text citation without brackets; cite the new key in a new group"
            )
        return pieces[0].text
    open_pos, close_end = group.bracket
    close = close_end - 1
    originals = [(item.start, item.end) for item in group.items]
    if not group.in_text:
        inner = _join(text, pieces, originals, group.separator)
        return "[" + text[open_pos + 1 : originals[0][0]] + inner + text[originals[-1][1] : close] + "]"
    first = group.items[0]
    in_text_kept = slots[0][0] is first
    bracket_pieces = pieces[1:] if in_text_kept else pieces
    bracket_originals = originals[1:]
    if first.suffix[1] > first.suffix[0]:  # `@a [p. 33; …]`: the locator opens the bracket
        locator = (first.suffix[0], first.suffix[1])
        bracket_originals = [locator, *bracket_originals]
        if in_text_kept:
            bracket_pieces = [_Piece(locator, text[locator[0] : locator[1]]), *bracket_pieces]
    if not in_text_kept:  # the in-text key was removed: the rest becomes a bracketed group
        return "[" + _join(text, bracket_pieces, bracket_originals, group.separator) + "]"
    head = pieces[0].text
    if not bracket_pieces:
        return head
    lead = text[open_pos + 1 : bracket_originals[0][0]] if bracket_originals else ""
    trail = text[bracket_originals[-1][1] : close] if bracket_originals else ""
    inner = _join(text, bracket_pieces, bracket_originals, group.separator)
    return head + text[first.token[1] : open_pos] + "[" + lead + inner + trail + "]"


def citation_prose(text: str, groups: Sequence[CitationGroup]) -> str:
    """The text with every citation group removed as a repair removes it: what repairs keep."""
    edits = [
        removal_edit(text, groups[first].start, groups[last].end, check=False)
        for first, last in _runs(text, groups, range(len(groups)))
    ]
    pieces: list[str] = []
    cursor = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if edit.end <= cursor:
            continue
        pieces.append(text[cursor : max(edit.start, cursor)])
        pieces.append(edit.replacement)
        cursor = edit.end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _runs(text: str, groups: Sequence[CitationGroup], indexes: Sequence[int]) -> list[tuple[int, int]]:
    """Consecutive groups separated only by spaces or tabs (`[@a] [@b]`), as (first, last) runs."""
    runs: list[list[int]] = []
    for index in sorted(indexes):
        if (
            runs
            and runs[-1][1] == index - 1
            and not text[groups[index - 1].end : groups[index].start].strip(" \t")
        ):
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return [(first, last) for first, last in runs]


def _join(text: str, pieces: Sequence[_Piece], originals: Sequence[tuple[int, int]], default: str) -> str:
    """Pieces joined by the separator that followed each one as written, else `default`."""
    follows = {
        originals[i][1]: text[originals[i][1] : originals[i + 1][0]] for i in range(len(originals) - 1)
    }
    out: list[str] = []
    for index, piece in enumerate(pieces):
        if index:
            before = pieces[index - 1].span
            out.append(follows.get(before[1], default) if before is not None else default)
        out.append(piece.text)
    return "".join(out)


def _item_text(text: str, item: CiteItem, key: str) -> str:
    """The item as written, with its key replaced by `key` when it changed."""
    written = text[item.start : item.end]
    if key == item.key:
        return written
    key_start, key_end = item.key_span
    if item.braced:
        _render(key)  # a key pandoc cannot cite raises RepairError
        new_key = key  # the braces stay
    else:
        new_key = _render(key)[1:]  # `key` or `{key}`
    offset = item.start
    return written[: key_start - offset] + new_key + written[key_end - offset :]


def _render(key: str) -> str:
    try:
        return render_key(key)
    except ValueError as exc:
        raise RepairError(str(exc)) from exc


def _dedupe(slots: list[_Slot]) -> list[_Slot]:
    seen: set[str] = set()
    kept: list[_Slot] = []
    for slot in slots:
        if slot.key not in seen:
            seen.add(slot.key)
            kept.append(slot)
    return kept
