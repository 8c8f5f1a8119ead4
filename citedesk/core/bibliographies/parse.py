"""`parse_bibliography(text, format)`: one entry point for the four bibliography readers.

The readers (`core.bibliographies.readers` for BibTeX/BibLaTeX and RIS, `core.bibliographies.csl` for CSL-JSON and CSL-YAML)
map their format onto the model in `core.bibliographies.model`; this module picks one by format and keeps
the first definition of a key defined twice, with a warning.
"""

from __future__ import annotations

from citedesk.core.bibliographies import csl
from citedesk.core.bibliographies import readers as bibformats
from citedesk.core.bibliographies.model import BibEntry, BibFormat, Bibliography


def parse_bibliography(text: str, fmt: BibFormat, *, source: str | None = None) -> Bibliography:
    """Entries of a bibliography in the given format; BibliographyError names where input is bad."""
    readers = {
        BibFormat.BIBTEX: bibformats.read_bibtex,
        BibFormat.CSL_JSON: csl.read_csl_json,
        BibFormat.CSL_YAML: csl.read_csl_yaml,
        BibFormat.RIS: bibformats.read_ris,
    }
    entries, warnings = readers[fmt](text, source)
    seen: set[str] = set()
    kept: list[BibEntry] = []
    notes = list(warnings)
    for entry in entries:
        if entry.key in seen:
            where = f" (line {entry.line})" if entry.line else ""
            notes.append(f"the key {entry.key!r} is defined again{where}; the first definition is used")
            continue
        seen.add(entry.key)
        kept.append(entry)
    return Bibliography(tuple(kept), fmt, source, tuple(notes))
