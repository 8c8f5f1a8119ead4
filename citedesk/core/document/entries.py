"""Where things lie inside a reference entry: the entry holding a span, where its text begins.

An entry's span (`Reference.start`…`end`) includes its label (`[3]`, `3.`, `[^k]:`); its text
(`Reference.text`, whitespace collapsed) is what follows. Edits to an entry's details
(`operations.EditReference`) must lie in that text, never on the label.
"""

from __future__ import annotations

from citedesk.core.document.model import Structure
from citedesk.core.document.references import Reference


def entry_holding(structure: Structure, start: int, end: int) -> Reference | None:
    """The reference entry whose text (after its label) holds [start, end), or None."""
    for entry in structure.references.entries:
        if entry.start <= start <= end <= entry.end:
            return entry if entry_body_start(structure.text, entry) <= start else None
    return None


def entry_body_start(text: str, entry: Reference) -> int:
    """Where the entry's text (`entry.text`, the entry without its label) begins in the document."""
    for at in range(max(entry.start, entry.label_end), entry.end + 1):
        if " ".join(text[at : entry.end].split()) == entry.text:
            return at
    return entry.end
