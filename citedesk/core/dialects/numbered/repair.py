"""Repairs of a numbered document (the numbered dialect's `edits`): markers rewritten, joined or
removed, reference entries removed, renumbered or corrected — `core.repair`'s operations as text
edits on the original.

Operations from many fixes merge into one edit per marker and per entry label, so "fix all" never
produces overlapping edits; emptied neighbouring markers go as one run (`[1] [2]`), and a marker
that is rewritten keeps its separator, dash and order.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from citedesk.core.document.entries import entry_holding
from citedesk.core.document.markers import Marker, MarkerStyle, find_markers, format_numeric
from citedesk.core.document.model import Structure
from citedesk.core.document.references import Reference
from citedesk.core.findings import TextEdit
from citedesk.core.operations import (
    AddCitation,
    EditReference,
    FixMalformed,
    MergeReference,
    Operation,
    RemoveCitation,
    RemoveMarker,
    RemoveReference,
    Renumber,
    RetargetCitation,
)
from citedesk.core.repair import entry_removal_span, exposes_structure, normalise_edits, removal_edit
from citedesk.core.spans import SpanSet
from citedesk.errors import RepairError


@dataclass
class _Gathered:
    """The operations of many fixes, merged by what they change: one key list per marker touched,
    the keys added at each sentence end, the entries removed or merged, the rewrites."""

    per_marker: dict[int, list[str]] = field(default_factory=dict)
    additions: dict[int, list[str]] = field(default_factory=dict)
    removed_entries: set[str] = field(default_factory=set)
    renames: dict[str, str] = field(default_factory=dict)
    """A merged duplicate's key → the key it was merged into."""
    malformed_fixes: list[FixMalformed] = field(default_factory=list)
    entry_edits: list[EditReference] = field(default_factory=list)
    renumber: bool = False
    numbering: dict[str, str] = field(default_factory=dict)
    """Old key → new number when renumbering (empty otherwise)."""

    def final(self, key: str) -> str:
        """What `key` is written as after the repair: merged, then renumbered."""
        key = self.renames.get(key, key)
        return self.numbering.get(key, key)


LOCAL_FROM_ITEMS = 16
"""A marker of at least this many items loses one by a local edit (the item and a separator), not
by being rewritten whole: each of a group's 30,000 citations has its own fix, and a rewrite per
fix made offering them quadratic. Smaller markers are rewritten as before (`render_marker`)."""


def marker_edits(structure: Structure, operations: Sequence[Operation]) -> list[TextEdit]:
    """The operations on a numbered document: markers rewritten or removed, reference entries
    removed, renumbered or corrected (the numbered dialect's `edits`)."""
    if len(operations) == 1 and isinstance(operations[0], RemoveCitation):
        local = _item_removal(structure, operations[0])
        if local is not None:
            return [local]
    gathered = _gather(structure, operations)
    rewritten = [(op, _parse_marker(op.replacement)) for op in gathered.malformed_fixes]
    if gathered.renumber:
        gathered.numbering = _renumbering(structure, gathered, rewritten)
    edits, marker_removals = _marker_changes(structure, gathered)
    edits = _with_additions(structure, gathered, edits)
    edits.extend(_entry_changes(structure, gathered))
    for op, rewrite in rewritten:  # a rewritten marker cites what it meant, renumbered like the rest
        keys = _dedupe(gathered.final(k) for k in rewrite.keys) if rewrite is not None else []
        replacement = (
            render_marker(rewrite, keys)
            if rewrite is not None and keys != list(rewrite.keys)
            else op.replacement
        )
        edits.append(TextEdit(op.start, op.end, replacement))
    edits.extend(_reference_corrections(structure, gathered))
    for edit in marker_removals:
        if exposes_structure(structure.text, edit):
            raise RepairError(
                "removing this marker would turn the rest of its line into Markdown structure; edit it by hand"
            )
    return normalise_edits(edits)


def _item_removal(structure: Structure, op: RemoveCitation) -> TextEdit | None:
    """One key taken out of a large numeric marker in place (see LOCAL_FROM_ITEMS), with the
    separator after it (before it, for the last); None where a rewrite is needed."""
    if not 0 <= op.marker < len(structure.markers):
        return None
    marker = structure.markers[op.marker]
    if marker.style is not MarkerStyle.NUMERIC or len(marker.items) < LOCAL_FROM_ITEMS:
        return None
    item = marker.cited_once(op.key)
    if item is None or item.dash:
        return None
    index = marker.item_of[op.key]
    if index + 1 < len(marker.items):
        return TextEdit(item.start, marker.items[index + 1].start, "")
    return TextEdit(marker.items[index - 1].end, item.end, "")


def _gather(structure: Structure, operations: Sequence[Operation]) -> _Gathered:
    """Each operation folded into what it changes (later operations on a marker see earlier ones;
    removals from one marker are taken together, so a fix-all over a group of 30,000 is linear)."""
    markers = structure.markers
    gathered = _Gathered()
    per_marker = gathered.per_marker
    removing: dict[int, set[str]] = {}

    def keys_of(index: int) -> list[str]:
        if index not in per_marker:
            per_marker[index] = list(markers[index].keys)
        keys = per_marker[index]
        gone = removing.pop(index, None)
        if gone:
            keys[:] = [k for k in keys if k not in gone]
        return keys

    for op in operations:
        if isinstance(op, RemoveCitation):
            if op.marker not in per_marker:
                per_marker[op.marker] = list(markers[op.marker].keys)
            removing.setdefault(op.marker, set()).add(op.key)
        elif isinstance(op, RemoveMarker):
            removing.pop(op.marker, None)
            per_marker[op.marker] = []
        elif isinstance(op, RetargetCitation):
            per_marker[op.marker] = [op.new if k == op.old else k for k in keys_of(op.marker)]
        elif isinstance(op, AddCitation):
            gathered.additions.setdefault(op.offset, []).append(op.key)
        elif isinstance(op, RemoveReference):
            gathered.removed_entries.add(op.key)
        elif isinstance(op, MergeReference):
            gathered.removed_entries.add(op.duplicate)
            gathered.renames[op.duplicate] = op.into
        elif isinstance(op, FixMalformed):
            gathered.malformed_fixes.append(op)
        elif isinstance(op, Renumber):
            gathered.renumber = True
        elif isinstance(op, EditReference):
            gathered.entry_edits.append(op)
    for index in list(removing):
        keys_of(index)
    if gathered.removed_entries and structure.unnumbered:
        gathered.renumber = True  # unnumbered lists are keyed by position: removing one shifts the rest
    return gathered


def _renumbering(
    structure: Structure, gathered: _Gathered, rewritten: list[tuple[FixMalformed, Marker | None]]
) -> dict[str, str]:
    """The new numbers, in order of first citation after the repair (markers as changed, then the
    malformed markers' rewrites), of the entries that stay."""
    renames = gathered.renames
    kept_entries = [e for e in structure.references.entries if e.key not in gathered.removed_entries]
    cited_after = [
        [renames.get(k, k) for k in gathered.per_marker.get(i, list(m.keys))]
        for i, m in enumerate(structure.markers)
    ] + [[renames.get(k, k) for k in marker.keys] for _, marker in rewritten if marker is not None]
    return _numbering(kept_entries, cited_after)


def _marker_changes(structure: Structure, gathered: _Gathered) -> tuple[list[TextEdit], list[TextEdit]]:
    """(every marker edit, the removals among them): markers whose keys change are rewritten,
    emptied ones deleted, neighbours as one run."""
    text, markers = structure.text, structure.markers
    edits: list[TextEdit] = []
    deleted: list[int] = []
    if gathered.numbering:
        touched: Iterable[int] = range(len(markers))
    else:  # only the markers these operations change: each fix costs what it touches
        citing = structure.markers_citing
        touched = sorted(set(gathered.per_marker).union(*(citing.get(k, ()) for k in gathered.renames)))
    for index in touched:
        marker = markers[index]
        keys = _dedupe(gathered.final(k) for k in gathered.per_marker.get(index, list(marker.keys)))
        if keys == list(marker.keys):
            continue
        if keys:
            edits.append(TextEdit(marker.start, marker.end, render_marker(marker, keys)))
        else:
            deleted.append(index)
    runs: list[list[int]] = []
    for index in deleted:
        previous = runs[-1][1] if runs else -1
        if (
            runs
            and previous == index - 1
            and not text[markers[previous].end : markers[index].start].strip(" \t")
        ):
            runs[-1][1] = index
        else:
            runs.append([index, index])
    gone = set(deleted)
    marker_removals = [
        _run_removal(structure, gone, markers[first].start, markers[last].end) for first, last in runs
    ]
    edits.extend(marker_removals)
    return edits, marker_removals


def _with_additions(structure: Structure, gathered: _Gathered, edits: list[TextEdit]) -> list[TextEdit]:
    """`edits` with the citations added at sentence ends: joined to a marker that ends exactly
    there (replacing that marker's own edit), else inserted as a new marker."""
    markers = structure.markers
    ends = structure.marker_ending_at if gathered.additions else {}
    for offset, keys in sorted(gathered.additions.items()):
        new_keys = [gathered.final(k) for k in keys]
        if offset in ends:
            index = ends[offset]
            marker = markers[index]
            existing = [gathered.final(k) for k in gathered.per_marker.get(index, list(marker.keys))]
            merged = _dedupe([*existing, *new_keys])
            edits = [e for e in edits if not (e.start <= marker.start and e.end >= marker.end)]
            edits.append(TextEdit(marker.start, marker.end, render_marker(marker, merged)))
        else:
            edits.append(TextEdit(offset, offset, " " + _render_new(new_keys, structure)))
    return edits


def _entry_changes(structure: Structure, gathered: _Gathered) -> list[TextEdit]:
    """Reference entries: the removed ones, and every label when renumbering."""
    edits = []
    by_key = structure.entries_by_key
    removed, numbering = gathered.removed_entries, gathered.numbering
    for entry in (e for key in sorted(removed) for e in by_key.get(key, ())):
        start, end = entry_removal_span(structure.text, entry)
        edits.append(TextEdit(start, end, ""))
    for entry in structure.references.entries if numbering else ():
        if (
            entry.key not in removed
            and entry.key in numbering
            and numbering[entry.key] != entry.key
            and entry.label_end > entry.label_start
        ):
            edits.append(TextEdit(entry.label_start, entry.label_end, numbering[entry.key]))
    return edits


def _reference_corrections(structure: Structure, gathered: _Gathered) -> list[TextEdit]:
    """Corrections of reference entries' text, each kept on its entry after the label (an entry
    that goes needs none)."""
    edits = []
    for op in gathered.entry_edits:
        holder = entry_holding(structure, op.start, op.end)
        if holder is None or "\n" in op.replacement or "\r" in op.replacement:
            raise RepairError("an edit of a reference entry must stay on the entry's text, after its label")
        if holder.key not in gathered.removed_entries:
            edits.append(TextEdit(op.start, op.end, op.replacement))
    return edits


def _parse_marker(text: str) -> Marker | None:
    """`text` read as one marker (a malformed marker's rewrite), or None."""
    markers, _ = find_markers(text, [(0, len(text))], SpanSet.of([]))
    return markers[0] if len(markers) == 1 and (markers[0].start, markers[0].end) == (0, len(text)) else None


def _run_removal(structure: Structure, gone: set[int], start: int, end: int) -> TextEdit:
    """Remove the marker run [start, end); beside a marker (or malformed marker) that stays
    (`[1] [2]`), take the gap with it so the remaining run reads as before."""
    text, spans = structure.text, structure.marker_spans
    after = bisect.bisect_left(spans, (end, -1, -2))
    while after < len(spans) and spans[after][2] in gone:
        after += 1
    if after < len(spans) and not text[end : spans[after][0]].strip(" \t"):
        return TextEdit(start, spans[after][0], "")
    before = bisect.bisect_right(structure.marker_span_ends, start) - 1
    while before >= 0 and spans[before][2] in gone:
        before -= 1
    if before >= 0 and not text[spans[before][1] : start].strip(" \t"):
        return TextEdit(spans[before][1], end, "")
    return removal_edit(text, start, end)


def _dedupe(keys: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(keys))


def _numbering(kept: list[Reference], cited: Sequence[Sequence[str]]) -> dict[str, str]:
    """Old key → new number for numbered entries in list order; unknown numbers move past the end."""
    numbering: dict[str, str] = {}
    position = 0
    for entry in sorted(kept, key=lambda e: e.start):
        if entry.numeric and entry.key not in numbering:
            position += 1
            numbering[entry.key] = str(position)
    unknown = sorted({int(k) for keys in cited for k in keys if k.isdecimal() and k not in numbering})
    for offset, number in enumerate(unknown, start=1):
        numbering[str(number)] = str(position + offset)
    return numbering


def render_marker(marker: Marker, keys: list[str]) -> str:
    if marker.style is MarkerStyle.FOOTNOTE and len(keys) == 1:
        return f"[^{keys[0]}]"
    if marker.style is MarkerStyle.FOOTNOTE:
        return "".join(f"[^{k}]" for k in keys)
    if all(k.isdecimal() for k in keys):
        dash = next((item.dash for item in marker.items if item.dash), "")
        numbers = [int(k) for k in keys]
        if _was_sorted(marker):
            numbers.sort()
        return "[" + format_numeric(numbers, marker.separator, dash) + "]"
    return "[" + marker.separator.join(keys) + "]"


def marker_numbers(marker: Marker) -> list[int]:
    return [int(k) for k in marker.keys if k.isdecimal()]


def _was_sorted(marker: Marker) -> bool:
    numbers = marker_numbers(marker)
    return numbers == sorted(numbers)


def _render_new(keys: list[str], structure: Structure) -> str:
    footnote_style = structure.markers and all(m.style is MarkerStyle.FOOTNOTE for m in structure.markers)
    if footnote_style or not all(k.isdecimal() for k in keys):
        return "".join(f"[^{k}]" for k in keys)
    return "[" + ", ".join(keys) + "]"
