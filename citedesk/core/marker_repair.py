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

from citedesk.core.document import Structure
from citedesk.core.entries import entry_holding
from citedesk.core.findings import TextEdit
from citedesk.core.markers import Marker, MarkerStyle, find_markers, format_numeric
from citedesk.core.references import Reference
from citedesk.core.repair import (
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
    entry_removal_span,
    exposes_structure,
    normalise_edits,
    removal_edit,
)
from citedesk.core.spans import SpanSet
from citedesk.errors import RepairError


def marker_edits(structure: Structure, operations: Sequence[Operation]) -> list[TextEdit]:
    """The operations on a numbered document: markers rewritten or removed, reference entries
    removed, renumbered or corrected (the numbered dialect's `edits`)."""
    text = structure.text
    markers = structure.markers
    entries = structure.references.entries
    removed_entries: set[str] = set()
    renames: dict[str, str] = {}
    per_marker: dict[int, list[str]] = {}
    additions: dict[int, list[str]] = {}
    malformed_fixes: list[FixMalformed] = []
    entry_edits: list[EditReference] = []
    renumber = False

    def keys_of(index: int) -> list[str]:
        return per_marker.setdefault(index, list(markers[index].keys))

    for op in operations:
        if isinstance(op, RemoveCitation):
            per_marker[op.marker] = [k for k in keys_of(op.marker) if k != op.key]
        elif isinstance(op, RemoveMarker):
            per_marker[op.marker] = []
        elif isinstance(op, RetargetCitation):
            per_marker[op.marker] = [op.new if k == op.old else k for k in keys_of(op.marker)]
        elif isinstance(op, AddCitation):
            additions.setdefault(op.offset, []).append(op.key)
        elif isinstance(op, RemoveReference):
            removed_entries.add(op.key)
        elif isinstance(op, MergeReference):
            removed_entries.add(op.duplicate)
            renames[op.duplicate] = op.into
        elif isinstance(op, FixMalformed):
            malformed_fixes.append(op)
        elif isinstance(op, Renumber):
            renumber = True
        elif isinstance(op, EditReference):
            entry_edits.append(op)

    if removed_entries and structure.unnumbered:
        renumber = True  # unnumbered lists are keyed by position: removing one shifts the rest
    kept_entries = [e for e in entries if e.key not in removed_entries] if renumber else []
    rewritten = [(op, _parse_marker(op.replacement)) for op in malformed_fixes]
    cited_after = (
        [[renames.get(k, k) for k in per_marker.get(i, list(m.keys))] for i, m in enumerate(markers)]
        + [[renames.get(k, k) for k in marker.keys] for _, marker in rewritten if marker is not None]
        if renumber
        else []
    )
    numbering = _numbering(kept_entries, cited_after) if renumber else {}

    def final(key: str) -> str:
        key = renames.get(key, key)
        return numbering.get(key, key)

    edits: list[TextEdit] = []
    # markers: rewrite those whose keys change; delete emptied ones, neighbours as one run
    deleted: list[int] = []
    if numbering:
        touched: Iterable[int] = range(len(markers))
    else:  # only the markers these operations change: each fix costs what it touches
        citing = structure.markers_citing
        touched = sorted(set(per_marker).union(*(citing.get(k, ()) for k in renames)))
    for index in touched:
        marker = markers[index]
        keys = _dedupe(final(k) for k in per_marker.get(index, list(marker.keys)))
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
    # citations added at sentence ends: join a marker that ends exactly there, else insert one
    ends = structure.marker_ending_at if additions else {}
    for offset, keys in sorted(additions.items()):
        new_keys = [final(k) for k in keys]
        if offset in ends:
            index = ends[offset]
            marker = markers[index]
            existing = [final(k) for k in per_marker.get(index, list(marker.keys))]
            merged = _dedupe([*existing, *new_keys])
            edits = [e for e in edits if not (e.start <= marker.start and e.end >= marker.end)]
            edits.append(TextEdit(marker.start, marker.end, render_marker(marker, merged)))
        else:
            edits.append(TextEdit(offset, offset, " " + _render_new(new_keys, structure)))
    # reference entries: the removed ones, and every label when renumbering
    by_key = structure.entries_by_key
    for entry in (e for key in sorted(removed_entries) for e in by_key.get(key, ())):
        start, end = entry_removal_span(text, entry)
        edits.append(TextEdit(start, end, ""))
    for entry in entries if numbering else ():
        if (
            entry.key not in removed_entries
            and entry.key in numbering
            and numbering[entry.key] != entry.key
            and entry.label_end > entry.label_start
        ):
            edits.append(TextEdit(entry.label_start, entry.label_end, numbering[entry.key]))
    for op, rewrite in rewritten:  # a rewritten marker cites what it meant, renumbered like the rest
        keys = _dedupe(final(k) for k in rewrite.keys) if rewrite is not None else []
        replacement = (
            render_marker(rewrite, keys)
            if rewrite is not None and keys != list(rewrite.keys)
            else op.replacement
        )
        edits.append(TextEdit(op.start, op.end, replacement))
    for op in entry_edits:
        holder = entry_holding(structure, op.start, op.end)
        if holder is None or "\n" in op.replacement or "\r" in op.replacement:
            raise RepairError("an edit of a reference entry must stay on the entry's text, after its label")
        if holder.key not in removed_entries:  # an entry that goes needs no correction
            edits.append(TextEdit(op.start, op.end, op.replacement))
    for edit in marker_removals:
        if exposes_structure(text, edit):
            raise RepairError(
                "removing this marker would turn the rest of its line into Markdown structure; edit it by hand"
            )
    return normalise_edits(edits)


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
