"""Repair plans: every fix that is applied together is built, checked and accepted as one.

A fix is right on its own; fixes applied together can contradict each other ("Cite [3] instead of
[2]" and "Remove reference [3]" are each right alone; together they fabricate a citation). So every
repair path — `citedesk fix`, the window's "Apply fix" and "Fix all", Claude's insertions — goes
through `plan_repairs`, which

1. resolves conflicts by **meaning**: a reference that a swap, an addition, a merge or a rewritten
   marker cites after the repair is not an orphan, so removing it is dropped; a reference that the
   repair leaves cited by nothing (the old target of a swap) is removed with it, so a repair never
   creates an orphan;
2. builds one consistent set of edits (`repair.build_edits`), renumbering if asked;
3. re-parses the result and **accepts it only if** the prose is byte-identical (unless a fix says
   it changes prose), no citation of a missing reference, malformed marker or orphan entry was
   added, and every marker still points at the same works as the repair meant — renumbering
   included, and an entry whose details were corrected (`EditReference`) counting as the same
   work with its new text.

Every citation dialect (`core.dialects`) goes through the same plan: the operations are the same,
the dialect writes them (`Structure.dialect.edits`; a pandoc document's in citation syntax), the
result is re-parsed in the same dialect with the same bibliography (`document.reparse`), and a
"missing reference" is a key no work has. Where the works are kept elsewhere (a pandoc
bibliography, `CitationDialect.works_in_text` false) a work is its entry by key, and since
uncited bibliography entries are no orphans, nothing is ever removed from the bibliography (which
is never edited).

What the plan decided on its own is said in `notes`; a plan that would break something raises
`RepairError` naming what, and nothing is applied.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from citedesk.core.document.entries import entry_body_start, entry_holding
from citedesk.core.document.markers import find_markers, repair_malformed
from citedesk.core.document.model import Structure, reparse
from citedesk.core.document.references import Reference
from citedesk.core.findings import Finding, Fix, TextEdit
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
from citedesk.core.repair import apply_edits, build_edits, prose_of, prose_offsets
from citedesk.core.spans import SpanSet
from citedesk.errors import RepairError


@dataclass(frozen=True)
class RepairPlan:
    """The fixes carried out together, the edits that do it, and the text they give."""

    original: str
    result: str
    edits: tuple[TextEdit, ...]
    fixes: tuple[Fix, ...]
    notes: tuple[str, ...] = ()
    """What the plan decided beyond the fixes' own words (a removal dropped, an orphan removed)."""

    @property
    def changed(self) -> bool:
        return self.result != self.original

    def describe(self) -> list[str]:
        """One line per fix, then the plan's own decisions: what a writer is told was changed."""
        return [fix.title for fix in self.fixes] + list(self.notes)


def plan_repairs(structure: Structure, fixes: Sequence[Fix], *, renumber: bool = False) -> RepairPlan:
    """The checked plan for applying `fixes` (and renumbering) to the document together."""
    chosen = tuple(dict.fromkeys(fixes))
    operations: list[Operation] = [op for fix in chosen for op in fix.operations if isinstance(op, Operation)]
    if renumber:
        operations.append(Renumber())
    operations, notes, kept_keys = _resolve(structure, operations)
    chosen = tuple(
        fix
        for fix in chosen
        if not fix.operations
        or not all(isinstance(op, RemoveReference) and op.key in kept_keys for op in fix.operations)
    )
    if not operations:
        return RepairPlan(structure.text, structure.text, (), chosen, tuple(notes))
    edits = build_edits(structure, operations)
    result = apply_edits(structure.text, edits)
    after = reparse(structure, result)
    _check(structure, after, operations, allow_prose_change=any(f.changes_prose for f in chosen))
    return RepairPlan(structure.text, result, tuple(edits), chosen, tuple(notes))


def sparing_proposed(fixes: Sequence[Fix], findings: Iterable[Finding]) -> list[Fix]:
    """`fixes` without the removal of a reference that some finding proposes to cite (the target
    of a swap, an added citation, a suggestion) with none of its fixes among `fixes`: "Remove
    reference [3]" (an orphan) must not take away what a pending "Cite [3] instead of [2]" needs.
    A proposal applied together is the plan's to resolve (`_resolve` keeps what it cites)."""
    chosen = set(fixes)
    proposed: set[str] = set()
    for finding in findings:
        if any(fix in chosen for fix in finding.fixes):
            continue  # applied now: the plan keeps what it cites ("Kept reference [3]: …")
        if finding.suggestion is not None:
            proposed.add(finding.suggestion.key)
        for fix in finding.fixes:
            for op in fix.operations:
                if isinstance(op, RetargetCitation):
                    proposed.add(op.new)
                elif isinstance(op, AddCitation):
                    proposed.add(op.key)
    return [
        fix
        for fix in fixes
        if not (
            fix.operations
            and all(isinstance(op, RemoveReference) and op.key in proposed for op in fix.operations)
        )
    ]


def verify_plan(structure: Structure, fixes: Sequence[Fix]) -> str | None:
    """Why applying `fixes` together would be refused, or None when the plan holds."""
    try:
        plan_repairs(structure, fixes)
    except RepairError as exc:
        return exc.message
    return None


# 1. conflicts, resolved by meaning ------------------------------------------------------------------
def _resolve(
    structure: Structure, operations: list[Operation]
) -> tuple[list[Operation], list[str], set[str]]:
    """The operations to carry out, what was decided, and the references whose removal was
    dropped because the repair cites them."""
    entries = structure.entry_by_key
    before = _cited(structure, [])
    after = _cited(structure, operations)
    notes: list[str] = []
    kept: list[Operation] = []
    removed: set[str] = set()
    spared: set[str] = set()
    for op in operations:
        if isinstance(op, RemoveReference) and op.key in after:
            if op.key not in spared:
                notes.append(f"Kept reference {_name(entries.get(op.key), op.key)}: the repair cites it.")
            spared.add(op.key)
            continue
        if isinstance(op, RemoveReference):
            if op.key in removed:
                continue
            removed.add(op.key)
        kept.append(op)
    merged_away = {op.duplicate for op in kept if isinstance(op, MergeReference)}
    for key in sorted(before - after - removed - merged_away, key=_order):
        if key in entries:
            kept.append(RemoveReference(key))
            notes.append(f"Removed reference {_name(entries[key], key)}: nothing cites it after this repair.")
    return kept, notes, spared


def _cited(structure: Structure, operations: Sequence[Operation]) -> set[str]:
    """The reference keys cited once `operations` are applied (by markers, and by malformed markers
    whose intent is clear — `[2,,3]` means 2 and 3), before any renumbering."""
    after = _MarkerKeys(structure)
    intended = _intended(structure)
    renames: dict[str, str] = {}
    added: list[str] = []
    for op in operations:
        if isinstance(op, RemoveCitation | RemoveMarker | RetargetCitation):
            after.apply(op)
        elif isinstance(op, AddCitation):
            added.append(op.key)
        elif isinstance(op, MergeReference):
            renames[op.duplicate] = op.into
        elif isinstance(op, FixMalformed):
            intended[op.start] = _keys_of(op.replacement)
    keys = after.keys()
    cited = {k for ks in keys.values() for k in ks} | set(added) | {k for ks in intended.values() for k in ks}
    return {renames.get(k, k) for k in cited}


class _MarkerKeys:
    """Each marker's keys as operations change them, in order; the removals from one marker are
    taken together (a plan removing 30,000 citations from one group is linear, not quadratic)."""

    def __init__(self, structure: Structure) -> None:
        self._markers = structure.markers
        self._keys: dict[int, list[str]] = {}
        self._removing: dict[int, set[str]] = {}

    def _of(self, index: int) -> list[str]:
        if index not in self._keys:
            self._keys[index] = list(self._markers[index].keys)
        keys = self._keys[index]
        gone = self._removing.pop(index, None)
        if gone:
            keys[:] = [k for k in keys if k not in gone]
        return keys

    def apply(self, op: RemoveCitation | RemoveMarker | RetargetCitation) -> None:
        if isinstance(op, RemoveCitation):
            self._removing.setdefault(op.marker, set()).add(op.key)
        elif isinstance(op, RemoveMarker):
            self._removing.pop(op.marker, None)
            self._keys[op.marker] = []
        else:
            keys = self._of(op.marker)
            keys[:] = [op.new if k == op.old else k for k in keys]

    def keys(self) -> dict[int, list[str]]:
        """Every marker's keys after the operations applied."""
        return {i: self._of(i) for i in range(len(self._markers))}


def _intended(structure: Structure) -> dict[int, list[str]]:
    """Malformed marker start → the keys its clear intent cites (none when unclear)."""
    found: dict[int, list[str]] = {}
    for bad in structure.malformed:
        repaired = repair_malformed(bad, structure.text[bad.start : bad.end])
        found[bad.start] = _keys_of(repaired) if repaired else []
    return found


def _keys_of(marker_text: str) -> list[str]:
    markers, _ = find_markers(marker_text, [(0, len(marker_text))], SpanSet.of([]))
    return [k for m in markers for k in m.keys]


def _order(key: str) -> tuple[int, str]:
    return (int(key), "") if key.isdecimal() else (1 << 30, key)


def _name(entry: Reference | None, key: str) -> str:
    return f"[^{key}]" if entry is not None and entry.style.value == "footnote" else f"[{key}]"


# 3. the checks -------------------------------------------------------------------------------------------
def _check(
    before: Structure, after: Structure, operations: Sequence[Operation], *, allow_prose_change: bool
) -> None:
    if not allow_prose_change and prose_of(after) != prose_of(before):
        raise RepairError("this repair would change the prose, so it was not applied")
    added = _missing(after) - _missing(before)  # by key: removing one does not pay for adding another
    if added:
        raise RepairError(
            f"this repair would leave {added.total()} citation(s) pointing at a reference "
            "that does not exist, so it was not applied"
        )
    if len(after.malformed) > len(before.malformed):
        raise RepairError("this repair would leave a malformed marker, so it was not applied")
    edited = _edited_entries(before, operations)
    new_orphans = _orphans(after) - Counter({edited.get(t, t): n for t, n in _orphans(before).items()})
    if new_orphans:
        raise RepairError(
            f"this repair would leave {len(new_orphans)} reference(s) cited by nothing, so it was not applied"
        )
    expected = {
        at: {edited.get(work, work) for work in works}
        for at, works in _expected_works(before, operations).items()
    }
    positions = prose_offsets(after, [m.start for m in after.markers])
    actual: dict[int, set[str]] = {}
    for at, marker in zip(positions, after.markers, strict=True):
        actual.setdefault(at, set()).update(_work(after, k) for k in marker.keys)
    if expected != actual:
        raise RepairError(
            "after this repair a marker would point at a different work than intended, so it was not applied"
        )


def _edited_entries(structure: Structure, operations: Sequence[Operation]) -> dict[str, str]:
    """An edited entry's text before → after its `EditReference`s (what its markers then cite)."""
    per_entry: dict[Reference, list[EditReference]] = {}
    for op in operations:
        if isinstance(op, EditReference):
            entry = entry_holding(structure, op.start, op.end)
            if entry is not None:
                per_entry.setdefault(entry, []).append(op)
    text = structure.text
    renamed: dict[str, str] = {}
    for entry, ops in per_entry.items():
        start = entry_body_start(text, entry)
        body = [(op.start, op.end, op.replacement) for op in sorted(ops, key=lambda o: (o.start, o.end))]
        pieces, cursor = [], start
        for s, e, replacement in body:
            pieces += [text[cursor:s], replacement]
            cursor = e
        pieces.append(text[cursor : entry.end])
        renamed[entry.text] = " ".join("".join(pieces).split())
    return renamed


def _missing(structure: Structure) -> Counter[str]:
    """Citations of a reference that does not exist, counted by key, by markers and by the clear
    intent of malformed markers (rewriting `[1,,9]` as `[1, 9]` does not add the missing 9: it was
    cited)."""
    known = structure.work_by_key
    cited = [k for m in structure.markers for k in m.keys] + [
        k for keys in _intended(structure).values() for k in keys
    ]
    return Counter(k for k in cited if k not in known)


def _orphans(structure: Structure) -> Counter[str]:
    """The works (entry texts) that no marker cites, counted (two identical entries are two)."""
    cited = {k for m in structure.markers for k in m.keys} | {
        k for keys in _intended(structure).values() for k in keys
    }
    return Counter(e.text for e in structure.references.entries if e.key not in cited)


def _work(structure: Structure, key: str) -> str:
    """What a key cites: its entry's text without the label (numbering aside), its bibliography
    entry (by key: the bibliography is never edited), or the missing key."""
    if not structure.dialect.works_in_text:
        return f"@{key}" if key in structure.work_by_key else "<a reference that does not exist>"
    entry = structure.entry_by_key.get(key)
    return entry.text if entry is not None else "<a reference that does not exist>"


def _expected_works(before: Structure, operations: Sequence[Operation]) -> dict[int, set[str]]:
    """Where in the prose each citation of the result should be, and the works cited there: what
    the repair means, to be compared with what the re-parsed result says."""
    after = _MarkerKeys(before)
    renames: dict[str, str] = {}
    at: list[tuple[int, list[str]]] = []
    for op in operations:
        if isinstance(op, RemoveCitation | RemoveMarker | RetargetCitation):
            after.apply(op)
        elif isinstance(op, AddCitation):
            at.append((op.offset, [op.key]))
        elif isinstance(op, MergeReference):
            renames[op.duplicate] = op.into
        elif isinstance(op, FixMalformed):
            at.append((op.start, _keys_of(op.replacement)))
    keys = after.keys()
    at.extend((marker.start, keys[i]) for i, marker in enumerate(before.markers))
    offsets = prose_offsets(before, [offset for offset, _ in at])
    works: dict[int, set[str]] = {}
    for offset, (_, cited) in zip(offsets, at, strict=True):
        final = [renames.get(k, k) for k in cited]
        if final:
            works.setdefault(offset, set()).update(_work(before, k) for k in final)
    return works
