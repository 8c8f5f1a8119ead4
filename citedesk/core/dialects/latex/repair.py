"""Repairs in LaTeX citation syntax: swap, remove and add keys, as text edits on the original.

Every edit stays inside what a citation is: a key replaced by another at its exact offsets; a key
taken out of `\\cite{a, b}` with the comma and spaces between it and its neighbour (the other keys'
bytes untouched); a command left with no key removed whole, with its tie `~` (it is part of the
marker's span, `core.dialects.latex.reading.Cite.start`) or the one space before it (`core.repair.removal_edit`, as
markers are removed in every dialect), so `text~\\cite{a}.` becomes `text.`; a new key appended
inside a citation already at the sentence's end, or a new `\\cite{key}` before its full stop. The
bibliography is never edited. `core.plan.plan_repairs` re-parses each result in this dialect and
keeps it only when the prose is byte-identical and no key dangles.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate

from citedesk.core.dialects.latex.cites import Cite, CiteKey, KeyGroup
from citedesk.core.dialects.latex.reading import read_latex
from citedesk.core.document.model import Structure
from citedesk.core.findings import TextEdit
from citedesk.core.operations import (
    AddCitation,
    FixMalformed,
    MergeReference,
    Operation,
    RemoveCitation,
    RemoveMarker,
    RetargetCitation,
)
from citedesk.core.repair import normalise_edits, removal_edit
from citedesk.core.text import unify_line_breaks
from citedesk.errors import RepairError

_KEY = re.compile(r"[^,{}\\%\s~#]+")
"""What a new key may be written as inside braces (BibTeX's keys hold none of these)."""
_CONTROL_WORD_END = re.compile(r"\\[A-Za-z@]+$")


def cites_of(structure: Structure) -> tuple[Cite, ...]:
    """The citation commands of the structure's text, at the same index as its markers."""
    return read_latex(unify_line_breaks(structure.text)).cites


@dataclass(frozen=True, slots=True)
class _Keys:
    """One command's keys, indexed once, so that an edit of a few of them costs what it touches
    (a fix per missing key of `\\cite{k0,…,k49999}` is one look-up each, not a pass each)."""

    keys: tuple[CiteKey, ...]
    """Every key of every group, in order (a position is an index into this)."""
    positions: dict[str, list[int]]
    repeats: tuple[int, ...]
    """Positions of a key written earlier in the command: any edit of it takes them out."""
    group_starts: tuple[int, ...]
    """The position of each group's first key."""

    @classmethod
    def of(cls, cite: Cite) -> _Keys:
        keys = cite.keys
        positions: dict[str, list[int]] = {}
        for position, key in enumerate(keys):
            positions.setdefault(key.key, []).append(position)
        repeats = tuple(sorted(p for found in positions.values() for p in found[1:]))
        starts = list(accumulate((len(g.keys) for g in cite.groups[:-1]), initial=0))
        return cls(keys, positions, repeats, tuple(starts))

    def group_of(self, position: int) -> int:
        return bisect.bisect_right(self.group_starts, position) - 1


@lru_cache(maxsize=8)
def _indexed(text: str) -> tuple[_Keys, ...]:
    """Each citation command of `text` (as `cites_of` reads it) with its keys indexed."""
    return tuple(_Keys.of(cite) for cite in read_latex(text).cites)


def latex_edits(structure: Structure, operations: Sequence[Operation]) -> list[TextEdit]:
    """The operations as one sorted list of edits; RepairError for one that does not apply."""
    text = structure.text
    cites = cites_of(structure)
    indexed = _indexed(unify_line_breaks(text))
    removed: dict[int, set[str]] = {}
    renamed: dict[int, dict[str, str]] = {}
    added: dict[int, list[str]] = {}
    edits: list[TextEdit] = []

    def cite(index: int) -> Cite:
        if not 0 <= index < len(cites):
            raise RepairError(f"there is no citation number {index}")
        return cites[index]

    for op in operations:
        if isinstance(op, RemoveCitation):
            cite(op.marker)  # one that exists
            if op.key not in indexed[op.marker].positions:
                raise RepairError(f"citation {op.marker} does not cite {op.key}")
            removed.setdefault(op.marker, set()).add(op.key)
        elif isinstance(op, RemoveMarker):
            removed.setdefault(op.marker, set()).update(k.key for k in cite(op.marker).keys)
        elif isinstance(op, RetargetCitation):
            current = cite(op.marker)
            if current.locator and not op.same_work:
                raise RepairError("its note may be a page of the old work: move the citation by hand")
            renamed.setdefault(op.marker, {})[op.old] = _checked_key(op.new)
        elif isinstance(op, MergeReference):
            for index in structure.markers_citing.get(op.duplicate, ()):
                renamed.setdefault(index, {})[op.duplicate] = _checked_key(op.into)
        elif isinstance(op, AddCitation):
            added.setdefault(op.offset, []).append(_checked_key(op.key))
        elif isinstance(op, FixMalformed):
            edits.append(_fix_malformed(text, op))
        else:
            raise RepairError("a LaTeX document's bibliography is never edited")
    for index in sorted(set(removed) | set(renamed)):
        edits.extend(
            _cite_edits(text, cites[index], indexed[index], removed.get(index, set()), renamed.get(index, {}))
        )
    for offset, keys in added.items():
        edits.append(_addition(structure, cites, offset, list(dict.fromkeys(keys))))
    return normalise_edits(edits)


def _checked_key(key: str) -> str:
    if not _KEY.fullmatch(key):
        raise RepairError(f"{key!r} cannot be written as a LaTeX citation key")
    return key


def _cite_edits(
    text: str, cite: Cite, indexed: _Keys, removed: set[str], renamed: dict[str, str]
) -> list[TextEdit]:
    """One command's edits: its keys renamed where they stand, removed with their commas, or the
    whole command removed when no key is left (refused for an in-text one: it is a word)."""
    renamed = {old: new for old, new in renamed.items() if old not in removed and old in indexed.positions}
    drop = _dropped(indexed, removed, renamed)
    if len(drop) == len(indexed.keys):
        if cite.in_text:
            raise RepairError("the citation is a word of its sentence: edit the sentence by hand")
        return [_removal(text, cite.start, cite.end)]
    in_group: dict[int, list[int]] = {}
    for position in sorted(drop):
        in_group.setdefault(indexed.group_of(position), []).append(position)
    edits: list[TextEdit] = []
    for number, dropped in in_group.items():
        group = cite.groups[number]
        if len(dropped) == len(group.keys):
            edits.append(TextEdit(group.start, group.end, ""))  # `\cites{a}[p.~3]{b}`: `[p.~3]{b}` goes
        else:
            edits.extend(_group_removals(group, [p - indexed.group_starts[number] for p in dropped]))
    for old, new in renamed.items():
        if new != old:
            keys = (indexed.keys[p] for p in indexed.positions[old] if p not in drop)
            edits.extend(TextEdit(k.start, k.end, new) for k in keys)
    return edits


def _dropped(indexed: _Keys, removed: set[str], renamed: dict[str, str]) -> set[int]:
    """The positions an edit takes out: the removed keys, the keys written twice, and a key renamed
    onto one the command cites already (the later of the two goes)."""
    drop = {p for key in removed for p in indexed.positions.get(key, ())}
    drop.update(indexed.repeats)
    onto: dict[str, list[int]] = {}
    for old, new in renamed.items():
        onto.setdefault(new, []).append(indexed.positions[old][0])
    for new, firsts in onto.items():
        if new in indexed.positions and new not in renamed:
            firsts.append(indexed.positions[new][0])
        drop.update(sorted(firsts)[1:])
    return drop


def _group_removals(group: KeyGroup, dropped: list[int]) -> list[TextEdit]:
    """Each run of dropped keys (`dropped`: their indexes in the group, in order, not all of them)
    with its commas: up to the next kept key (`a, b, c` → `b, c` when `a` goes) or, for a run at
    the end, from the kept key before it (`a, b` → `a`)."""
    keys = group.keys
    edits: list[TextEdit] = []
    i = 0
    while i < len(dropped):
        j = i
        while j + 1 < len(dropped) and dropped[j + 1] == dropped[j] + 1:
            j += 1
        first, last = dropped[i], dropped[j]
        if last + 1 < len(keys):
            edits.append(TextEdit(keys[first].start, keys[last + 1].start, ""))
        else:
            edits.append(TextEdit(keys[first - 1].end, keys[last].end, ""))
        i = j + 1
    return edits


def _removal(text: str, start: int, end: int) -> TextEdit:
    """A whole command (with its tie) removed as markers are, but never where a command name
    before it would run into the word after it (`\\foo\\cite{a}bar` → `\\foobar`)."""
    edit = soft_break(text, removal_edit(text, start, end))
    before = text[: edit.start] + edit.replacement
    if _CONTROL_WORD_END.search(before[-40:]) and text[edit.end : edit.end + 1].isalpha():
        raise RepairError("removing the citation would join a command to the word after it")
    return edit


_PUNCTUATION_AFTER = frozenset(".,;:!?)")
_COMMENT = re.compile(r"(?<!\\)(?:\\\\)*%")


def soft_break(text: str, edit: TextEdit) -> TextEdit:
    """A command that began its line, followed by punctuation (`less clear` ⏎ `\\cite{x}.`), goes with
    the line break before it: in LaTeX one line break is a space, so leaving it would typeset
    `clear .`. Not after a blank line (a paragraph break) nor after a line ending in a comment
    (the punctuation would move into the comment)."""
    start = edit.start
    if edit.replacement or text[edit.end : edit.end + 1] not in _PUNCTUATION_AFTER:
        return edit
    while start > 0 and text[start - 1] in " \t":
        start -= 1  # the line's indentation
    if start == 0 or text[start - 1] not in "\r\n":
        return edit
    s = start - 1
    if text[s] == "\n" and s > 0 and text[s - 1] == "\r":
        s -= 1
    line_start = max(text.rfind("\n", 0, s), text.rfind("\r", 0, s)) + 1
    previous_line = text[line_start:s]
    if not previous_line.strip() or _COMMENT.search(previous_line):
        return edit
    while s > line_start and text[s - 1] in " \t":
        s -= 1
    return TextEdit(s, edit.end, "")


def _fix_malformed(text: str, op: FixMalformed) -> TextEdit:
    """A malformed command rewritten; rewritten as nothing, it is removed as a citation is."""
    if op.replacement:
        return TextEdit(op.start, op.end, op.replacement)
    return _removal(text, op.start, op.end)


def _addition(structure: Structure, cites: Sequence[Cite], offset: int, keys: list[str]) -> TextEdit:
    """Keys cited at `offset`: appended inside a (single-group, not in-text) citation that ends
    there, else a new `\\cite{…}` — in the command the document uses most — tied to the word before."""
    text = structure.text
    if not 0 <= offset <= len(text):
        raise RepairError(f"offset {offset} is outside the text")
    for cite in cites:
        if cite.start < offset < cite.end:
            raise RepairError("a new citation cannot go inside another one")
        if cite.end == offset and not cite.in_text and len(cite.groups) == 1:
            group = cite.groups[0]
            new = [k for k in keys if k not in {c.key for c in group.keys}]
            if not new:
                raise RepairError("the citation there cites it already")
            spacing = ", " if re.search(r",\s", text[group.brace : group.end]) else ","
            last = group.keys[-1].end
            return TextEdit(last, last, "".join(spacing + k for k in new))
    if structure.layout.opaque.contains(offset) or structure.layout.opaque.contains(offset - 1):
        raise RepairError("a citation cannot go there (a comment, math or a command)")
    before = text[offset - 1 : offset]
    tie = "" if not before or before.isspace() or before == "~" else "~"
    return TextEdit(offset, offset, f"{tie}\\{_usual_command(cites)}{{{','.join(keys)}}}")


def _usual_command(cites: Sequence[Cite]) -> str:
    """The parenthetical command the document cites with most (`citep`, `parencite`), else `cite`."""
    counts = Counter(c.command for c in cites if not c.in_text and len(c.groups) == 1)
    return counts.most_common(1)[0][0] if counts else "cite"
