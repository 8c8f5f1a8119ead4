"""Repairs as operations, turned into pure text edits, with proof that prose is unchanged.

A fix is a list of operations (`core.operations`: remove a citation, drop a reference entry,
renumber, correct a field inside an entry …). Operations are the same in every citation dialect (`core.dialects`):
`build_edits` asks the document's dialect to write them — a numbered document's in markers and
reference entries (`core.dialects.numbered.repair`), a pandoc document's in citation syntax
(`core.dialects.pandoc.repair`) — and operations from many fixes merge into one consistent set of edits,
so "fix all" never produces overlapping edits. `prose_of` defines what must never change: the text
with every marker (and its removal whitespace) and every reference entry taken out.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Sequence

from citedesk.core.document.model import Structure, reparse
from citedesk.core.document.references import Reference
from citedesk.core.document.sentences import Sentence
from citedesk.core.findings import Fix, TextEdit
from citedesk.core.operations import (
    AddCitation,
    EditReference,
    FixMalformed,
    MergeReference,
    Operation,
    RemoveCitation,
    RemoveReference,
    Renumber,
)
from citedesk.core.text import line_end, line_start, next_line_start
from citedesk.errors import RepairError


def make_fix(title: str, structure: Structure, operations: Sequence[Operation]) -> Fix | None:
    """A fix for these operations, or None when they cannot be applied safely (`try_fix` says why)."""
    made = try_fix(title, structure, operations)
    return made if isinstance(made, Fix) else None


def try_fix(title: str, structure: Structure, operations: Sequence[Operation]) -> Fix | str:
    """A fix for these operations, or why they cannot be applied safely.

    Marker edits are made safe by local rules (`removal_edit`, `exposes_structure`); fixes that
    touch the reference list, rewrite a malformed marker, or bring text to the start of a line are
    also proven by re-parsing the result (they are few, and a reference section's boundaries
    depend on the whole document).
    """
    try:
        edits = build_edits(structure, operations)
    except RepairError as exc:
        return exc.message
    if _needs_proof(structure, operations, edits):
        result = apply_edits(structure.text, edits)
        if prose_of(reparse(structure, result)) != prose_of(structure):
            return "it would change the prose"
    return Fix(title, tuple(edits), tuple(operations))


def remove_everywhere(structure: Structure, key: str) -> Fix | None:
    """Remove every citation of `key` and its reference entry; in a pandoc document the citations
    only (the bibliography is never edited)."""
    name = structure.label(key)
    citations = [RemoveCitation(i, key) for i in structure.markers_citing.get(key, ())]
    if not structure.dialect.works_in_text:
        return make_fix(f"Remove every citation of {name}", structure, citations)
    return make_fix(
        f"Remove reference {name} and every citation of it", structure, [RemoveReference(key), *citations]
    )


def _needs_proof(structure: Structure, operations: Sequence[Operation], edits: Sequence[TextEdit]) -> bool:
    """Whether a fix's safety must be proven by re-parsing the result: a rewritten malformed
    marker, renumbering, an entry removed outside the reference section or one that leaves the
    section nearly empty (its boundaries depend on what is in it), or a marker edit that brings
    text to the start of a line. Removing one entry among several in the section is safe without
    it (the section is never prose), which keeps offering a fix per orphan linear."""
    if any(isinstance(op, FixMalformed | Renumber | EditReference) for op in operations):
        return True
    removed = {
        op.duplicate if isinstance(op, MergeReference) else op.key
        for op in operations
        if isinstance(op, RemoveReference | MergeReference)
    }
    entry_spans = set()
    for key in removed:
        for entry in structure.entries_by_key.get(key, ()):
            if not entry.in_section:
                return True
            entry_spans.add(entry_removal_span(structure.text, entry))
    if removed and len(structure.references.entries) - len(removed) < 2:
        return True
    return any(
        (edit.start, edit.end) not in entry_spans
        and (_starts_a_line(structure.text, edit) or _joins_brackets(structure.text, edit))
        for edit in edits
    )


_BRACKET_REACH = 200


def _joins_brackets(text: str, edit: TextEdit) -> bool:
    """A removal that brings a `[`, `!` or `]` next to a `[` or `(` (spaces aside: `[[1][^a]:` →
    `[[^a]:`), or one inside a bracket left open before it on its line (within `_BRACKET_REACH`
    characters, so a paragraph of many markers stays linear): brackets may pair into a link or a
    note where there was none, so the result is proven by re-parsing."""
    reach = max(0, edit.start - _BRACKET_REACH)
    prefix = text[max(text.rfind("\n", reach, edit.start) + 1, reach) : edit.start]
    if prefix.count("[") > prefix.count("]"):
        return True  # inside an open bracket: what the marker closed may now pair elsewhere
    before = (prefix + edit.replacement).rstrip(" \t")[-1:]
    after = text[edit.end : edit.end + _BRACKET_REACH].lstrip(" \t")[:1]
    return before in ("[", "!", "]") and before != "" and after in ("[", "(")


def merge_fixes(structure: Structure, fixes: Iterable[Fix]) -> list[TextEdit]:
    """One consistent edit list for many fixes at once ("fix all of this kind")."""
    operations: list[Operation] = []
    for fix in fixes:
        operations.extend(op for op in fix.operations if isinstance(op, Operation))
    return build_edits(structure, operations)


def cite_sentence(structure: Structure, sentence: Sentence, keys: Sequence[str]) -> list[AddCitation]:
    """The operations that cite `keys` for a whole sentence, where the document puts its markers."""
    at = citation_offset(structure, sentence.start, sentence.end)
    return [AddCitation(at, key) for key in keys]


def citation_offset(structure: Structure, start: int, end: int) -> int:
    """Where a new marker goes in the sentence [start, end): before its full stop when the document
    puts markers there (`drought [3].`), after it when the document does (`drought.[3]`)."""
    text = structure.text
    if end <= start or text[end - 1] not in ".!?":
        return end
    # an in-text citation (`@doe99 says`) is a word of its sentence, not where citations go
    markers = [m for i, m in enumerate(structure.markers) if not structure.dialect.in_text(structure, i)]
    inside = sum(1 for m in markers if text[m.end : m.end + 1] in (".", "!", "?"))
    outside = sum(1 for m in markers if text[max(0, m.start - 2) : m.start].strip() in (".", "!", "?"))
    return end - 1 if inside >= outside else end


def build_edits(structure: Structure, operations: Sequence[Operation]) -> list[TextEdit]:
    """One consistent, sorted edit list for `operations`, written in the document's dialect."""
    return structure.dialect.edits(structure, operations)


_LIST_NUMBER = re.compile(r"\d{1,9}[.)](?:[ \t]|$)")
_DEFINITION_START = re.compile(r"\[\^?[^\]\n]*\]:")


_UNDERLINE_OR_RULE = re.compile(r"[ \t]{0,3}(?:=+|-+|(?:[-*_][ \t]*){3,})[ \t]*")


def _starts_a_line(text: str, edit: TextEdit) -> bool:
    """An edit with only indentation before it on its line: what follows moves to a line start,
    where Markdown (headings, the reference section's title) can begin; such fixes are proven."""
    return not (text[line_start(text, edit.start) : edit.start] + edit.replacement).strip(" \t")


def exposes_structure(text: str, edit: TextEdit) -> bool:
    """True when a deletion would turn its line into Markdown structure: a heading, list, quote,
    a setext underline or a rule (`- [1]` under a paragraph leaves `-`, which underlines it)."""
    start, end = line_start(text, edit.start), line_end(text, edit.end)
    remaining = text[start : edit.start] + edit.replacement + text[edit.end : end]
    if remaining.strip() and _UNDERLINE_OR_RULE.fullmatch(remaining):
        return True
    prefix = text[start : edit.start] + edit.replacement
    if prefix.strip(" \t"):
        return False  # words stay before it on the line: no new line start
    rest = text[edit.end : end]
    stripped = rest.lstrip(" \t")
    if not stripped:
        return False
    if len(prefix) + len(rest) - len(stripped) >= 4:
        return True  # four spaces of indentation: the line would become a code block
    at = edit.end + len(rest) - len(stripped)
    following = stripped[0]
    if following == "[":
        return bool(_DEFINITION_START.match(text, at))
    return not (following.isalnum() or following in "\"'“‘(") or bool(_LIST_NUMBER.match(text, at))


_TIGHT = frozenset(".,;:!?)]}…%\n\r")


def removal_edit(text: str, start: int, end: int, *, check: bool = True) -> TextEdit:
    """The edit that removes text[start:end] (a marker or a run of them) without doubling spaces.

    The spaces on both sides become one space, or none where the next character is punctuation,
    the line ends or the line starts: `done [4].` → `done.`; `done.[4] Next` → `done. Next`;
    `[4] Start` → `Start`; `word [4]word` → `word word`; a line that is only `[4]` goes with its
    line ending. Indentation is never touched. With
    `check`, a removal that would join Markdown markup (`` `[1]` `` between backticks) raises
    RepairError.
    """
    s = start
    while s > 0 and text[s - 1] in " \t":
        s -= 1
    if s == 0 or text[s - 1] in "\r\n":
        s = start  # leading indentation stays
    e = end
    while e < len(text) and text[e] in " \t":
        e += 1
    previous = text[s - 1] if s > 0 else ""
    following = text[e] if e < len(text) else ""
    had_space = s < start or e > end
    if previous in ("", "\n", "\r") or following in ("", "\n", "\r") or following in _TIGHT:
        replacement = ""
    else:
        replacement = " " if had_space else ""
    if check and not replacement and _joins_markup(previous, following):
        raise RepairError("removing the marker would join Markdown markup on either side of it")
    if previous in ("", "\n", "\r") and following in ("\n", "\r"):
        # a line that was only the marker goes whole, with its own ending: the paragraph around it
        # stays one paragraph (an empty line would split it), and no lone CR fuses with an LF
        e += 2 if text.startswith("\r\n", e) else 1
    return TextEdit(s, e, replacement)


def _joins_markup(previous: str, following: str) -> bool:
    """Would `previous` + `following`, once adjacent, read as different Markdown than apart?

    Joined backtick, emphasis or strikethrough runs change which code spans and emphasis exist;
    a backslash would escape the next character; `]` + `(` or `!` + `[` would make a link.
    """
    if previous and previous == following and previous in "`*_~":
        return True
    return previous == "\\" or (previous, following) in {("]", "("), ("!", "[")}


def entry_removal_span(text: str, entry: Reference) -> tuple[int, int]:
    """An entry's whole lines, with the line ending (LF, CRLF or CR), so the list closes up."""
    return line_start(text, entry.start), next_line_start(text, entry.end)


def normalise_edits(edits: Iterable[TextEdit]) -> list[TextEdit]:
    """Sorted edits; raises RepairError if two overlap (a bug in whoever built them)."""
    ordered = sorted(set(edits), key=lambda e: (e.start, e.end))
    for before, after in itertools.pairwise(ordered):
        if after.start < before.end or (
            after.start == before.start and before.end == before.start == after.end
        ):
            raise RepairError(f"edits overlap at {after.start}")
    return ordered


def apply_edits(text: str, edits: Iterable[TextEdit]) -> str:
    ordered = normalise_edits(edits)
    pieces: list[str] = []
    cursor = 0
    for edit in ordered:
        if edit.start < cursor or edit.end > len(text) or edit.start > edit.end:
            raise RepairError(f"edit {edit.start}–{edit.end} is outside the text")
        pieces.append(text[cursor : edit.start])
        pieces.append(edit.replacement)
        cursor = edit.end
    pieces.append(text[cursor:])
    return "".join(pieces)


def prose_of(structure: Structure) -> str:
    """The document with every marker and reference entry removed: what repairs must not change.

    Markers separated only by spaces form one run, removed as a whole by `removal_edit`; the
    reference section and reference definitions are dropped with their lines.
    """
    text = structure.text
    pieces: list[str] = []
    cursor = 0
    for edit in prose_removals(structure):
        pieces.append(text[cursor : edit.start])
        pieces.append(edit.replacement)
        cursor = edit.end
    pieces.append(text[cursor:])
    return "".join(pieces)


def prose_removals(structure: Structure) -> list[TextEdit]:
    """The sorted, non-overlapping edits that turn the document into its prose (`prose_of`)."""
    text = structure.text
    spans = sorted(
        [(m.start, m.end) for m in structure.markers] + [(m.start, m.end) for m in structure.malformed]
    )
    runs: list[list[int]] = []
    for start, end in spans:
        if runs and start >= runs[-1][1] and not text[runs[-1][1] : start].strip(" \t"):
            runs[-1][1] = max(runs[-1][1], end)
        else:
            runs.append([start, end])
    edits = [
        structure.dialect.removal(text, removal_edit(text, start, end, check=False)) for start, end in runs
    ]
    section = structure.references.section
    if section is not None:
        edits.append(TextEdit(section[0], section[1], ""))
    edits.extend(
        TextEdit(*entry_removal_span(text, e), "") for e in structure.references.entries if not e.in_section
    )
    kept: list[TextEdit] = []
    cursor = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if edit.end <= cursor:
            continue
        if edit.start < cursor:  # overlaps the previous removal: only its remainder is removed
            edit = TextEdit(cursor, edit.end, "")
        kept.append(edit)
        cursor = edit.end
    return kept


def prose_offsets(structure: Structure, positions: Sequence[int]) -> list[int]:
    """Where each text position lies in the prose (`prose_of`): a position inside something the
    prose drops (a marker, the reference list) lies where that was removed."""
    removals = prose_removals(structure)
    starts = [edit.start for edit in removals]
    shifts = list(
        itertools.accumulate((edit.end - edit.start - len(edit.replacement) for edit in removals), initial=0)
    )
    found = []
    for position in positions:
        i = bisect.bisect_right(starts, position) - 1
        if i < 0:
            found.append(position)
        elif position < removals[i].end:
            found.append(removals[i].start - shifts[i])
        else:
            found.append(position - shifts[i + 1])
    return found


def apply_checked(
    text: str,
    edits: Sequence[TextEdit],
    *,
    like: Structure,
    allow_prose_change: bool = False,
) -> str:
    """Apply edits, refusing (RepairError) any result whose prose differs from the original's; both
    are read the way `like` was (its dialect and bibliography)."""
    result = apply_edits(text, edits)
    before, after = reparse(like, text), reparse(like, result)
    if not allow_prose_change and prose_of(after) != prose_of(before):
        raise RepairError("this repair would change the prose, so it was not applied")
    return result
