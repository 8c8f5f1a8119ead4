"""Which reference a local file is the source of: by key, by number, else by title.

The window takes several files dropped at once onto its Sources list and attaches each to the
reference it matches, the way `--sources DIR` names files: `smith2020.pdf` is reference
`smith2020`, `3.pdf` (or `ref-3.pdf`, `[3].txt`) is reference 3. A file named otherwise is matched
by title: the words of its name against each reference's title; the best title wins only when it
holds most of the name's words and no other title does as well. Pure: no file is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from citedesk.core.document.references import Reference

NUMBERED = re.compile(r"(?:ref(?:erence)?|source|src)?[\s_.\-\[(#]*0*(\d+)[\])]?", re.IGNORECASE)
WORD = re.compile(r"[^\W_]+", re.UNICODE)
STOPWORDS = frozenset(
    {"a", "an", "and", "the", "of", "in", "on", "for", "to", "by", "with", "from", "at", "as", "is", "are"}
    | {"or", "its", "their", "our", "how", "what", "why", "when"}
)
MIN_TITLE_SHARE = 0.5
"""A name matches a title when at least half of its words are in the title."""


@dataclass(frozen=True)
class FileMatch:
    path: Path
    key: str | None
    """The reference the file is the source of; None when nothing matched."""
    how: str
    """"key", "number", "title" — or why nothing matched."""


def _words(text: str) -> set[str]:
    return {w for w in (m.group(0).lower() for m in WORD.finditer(text)) if w not in STOPWORDS and len(w) > 1}


def match_file(path: Path, references: Sequence[Reference]) -> FileMatch:
    stem = path.stem.strip()
    keys = {ref.key.lower(): ref.key for ref in references}
    if stem.lower() in keys:
        key = keys[stem.lower()]
        return FileMatch(path, key, "number" if key.isdecimal() else "key")
    numbered = NUMBERED.fullmatch(stem)
    if numbered and numbered.group(1) in keys:
        return FileMatch(path, keys[numbered.group(1)], "number")
    words = _words(stem)
    if not words:
        return FileMatch(path, None, "no reference has that key or number")
    scored = sorted(
        ((len(words & _words(ref.title or ref.text)) / len(words), ref.key) for ref in references),
        reverse=True,
    )
    if not scored or scored[0][0] < MIN_TITLE_SHARE:
        return FileMatch(path, None, "no reference has that key, number or title")
    if len(scored) > 1 and scored[1][0] == scored[0][0] and scored[1][1] != scored[0][1]:
        return FileMatch(path, None, f"its name fits references [{scored[0][1]}] and [{scored[1][1]}] alike")
    return FileMatch(path, scored[0][1], "title")


def match_files(paths: Iterable[Path], references: Sequence[Reference]) -> list[FileMatch]:
    """Each file's reference. Two files matching one reference: the one matched by key or number
    wins over one matched by title; between equals, the first keeps it and the other is unmatched."""
    unique = list(dict.fromkeys(ref.key for ref in references))
    entries = [next(r for r in references if r.key == key) for key in unique]
    matches = [match_file(Path(p), entries) for p in paths]
    rank = {"key": 0, "number": 0, "title": 1}
    taken: dict[str, int] = {}
    for index, match in enumerate(matches):
        if match.key is None:
            continue
        holder = taken.get(match.key)
        if holder is None or rank[match.how] < rank[matches[holder].how]:
            if holder is not None:
                matches[holder] = FileMatch(matches[holder].path, None, f"[{match.key}] has a better match")
            taken[match.key] = index
        else:
            matches[index] = FileMatch(match.path, None, f"[{match.key}] has a file already")
    return matches
