"""The repair operations, the same in every citation dialect: remove a citation or a marker,
retarget or add a citation, remove, merge or edit a reference entry, fix a malformed marker,
renumber.

A fix is a list of them; the document's dialect writes them as text edits (`CitationDialect.edits`)
and `core.repair` checks the result. They are plain data, below the document model, so the model
can say what it asks of its dialect (`core.document.model.CitationDialect`) without importing the repairs.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RemoveCitation:
    """Take `key` out of marker number `marker`; the marker goes entirely if nothing is left."""

    marker: int
    key: str


@dataclass(frozen=True, slots=True)
class RemoveMarker:
    marker: int


@dataclass(frozen=True, slots=True)
class RetargetCitation:
    """In marker number `marker`, cite `new` instead of `old` (swap to the right source).

    A swap cites *another work*: a locator written for the old one (`[@a, p. 45]`) would then
    point into the wrong book, so a dialect refuses a swap whose citation carries one (RepairError:
    the writer moves it by hand). `same_work`: `new` names the work `old` meant (a typo in a key,
    a duplicate entry merged): the locator stays."""

    marker: int
    old: str
    new: str
    same_work: bool = False


@dataclass(frozen=True, slots=True)
class AddCitation:
    """Cite `key` at `offset` (the end of a sentence); joins a marker that already ends there."""

    offset: int
    key: str


@dataclass(frozen=True, slots=True)
class RemoveReference:
    key: str


@dataclass(frozen=True, slots=True)
class MergeReference:
    """Point every citation of `duplicate` at `into`, then drop the duplicate's entry."""

    duplicate: str
    into: str


@dataclass(frozen=True, slots=True)
class FixMalformed:
    """Rewrite a malformed marker at [start, end) as `replacement`."""

    start: int
    end: int
    replacement: str


@dataclass(frozen=True, slots=True)
class Renumber:
    """Number the reference list 1…n in its order and rewrite every marker to match."""


@dataclass(frozen=True, slots=True)
class EditReference:
    """Replace text[start:end] — inside one reference entry's text, after its label — with
    `replacement` (one line): a wrong year, name or DOI corrected, a DOI added. The reference list
    is not prose, so the prose stays identical; the plan checks that too."""

    start: int
    end: int
    replacement: str


Operation = (
    RemoveCitation
    | RemoveMarker
    | RetargetCitation
    | AddCitation
    | RemoveReference
    | MergeReference
    | FixMalformed
    | Renumber
    | EditReference
)
