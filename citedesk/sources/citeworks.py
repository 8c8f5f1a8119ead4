"""The works a pandoc document cites: its bibliographies read (once), each entry's local copy found.

A document is read against a bibliography when it names one — `bibliography:` in its YAML front
matter (one file or a list, relative to the document), entries of its own (`references:` in the
front matter), a LaTeX file's `\\bibliography{refs}` or `\\addbibresource{refs.bib}`
(`core.projects.latex`, relative to the file: a single-file paper audits with no flags), or files
given by the caller (`--bibliography`, the window's per-document setting, a project's). Each entry becomes a `BibReference` whose `path` is its best local copy:

1. an attachment the entry's `file` field names (relative to the .bib) that exists, a readable
   kind first (PDF, HTML, text);
2. else Zotero's copy (read-only, `sources.zotero`), found by citation key or DOI;
3. else the first attachment named (reported as missing, unless a DOI or link can be fetched).

A `--sources DIR` file named by key, or a file the writer attached by hand, still wins
(`sources.gather`). Which files may be read is the writer's choice, never the input's
(`sources.local`): a bibliography the front matter names is read only inside the document's folder
or another folder the writer allowed, and its folder allows nothing more. The folders of the
bibliographies the writer gave (`extra`) and Zotero's data folder are the writer's, so their
attachments may be read; a `file` field pointing anywhere else is refused like any file a document
names outside the allowed folders, since a bibliography may come with someone else's document.

An audit reads the sources of the cited keys (`works_to_check`), and of a few uncited entries
whose copy is on this machine, as candidates for a swap or an added key — never fetched.

Bibliography files are parsed once per content: a book's chapters audited one after another, or a
document re-audited as the writer types, reuse the parsed entries while the file is unchanged.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from citedesk.core.bibliographies.model import BibEntry, Bibliography, BibliographyError, OutsideFoldersError
from citedesk.core.document.model import Document
from citedesk.core.document.works import BibReference, CitedEntry
from citedesk.core.formats import is_format
from citedesk.core.projects.latex import bibliography_names, line_of
from citedesk.files import not_a_file
from citedesk.sources.bibfiles import (
    LoadedBibliography,
    front_matter_bibliographies,
    front_matter_references,
    read_bibliography,
)
from citedesk.sources.local import LOCAL_EXTENSIONS, allowed_roots, is_within
from citedesk.sources.zotero import ZoteroError, ZoteroLibrary, default_data_dir

_T = TypeVar("_T")
_CACHE_SIZE = 8
MAX_CANDIDATES = 40
"""Uncited entries with a local copy read as candidates for swaps and additions, at most."""


@dataclass(frozen=True)
class CitedWorks:
    """What a pandoc document cites from: the entries, where their files may be read, and what
    the writer should know about the bibliographies (a key defined twice, Zotero unreadable)."""

    works: tuple[BibReference, ...]
    files: tuple[Path, ...]
    """The bibliography files read, in order."""
    folders: tuple[Path, ...]
    """The folders of the bibliographies the writer gave, and Zotero's data folder: where their
    attachments may be read (a bibliography the document names adds none)."""
    notices: tuple[str, ...] = ()


def named_bibliographies(text: str, document: Path | None, extra: Sequence[Path] = ()) -> list[Path]:
    """The bibliographies a document names: a LaTeX file's `\\bibliography`/`\\addbibresource`
    (one that does not exist is a BibliographyError on the line that names it — unless it is one of
    `extra`: a thesis's chapter names it relative to the main file, whose project gave it), any
    other's front matter."""
    if not is_format(document, "latex"):
        return front_matter_bibliographies(text, document)
    folder = document.parent if document is not None else Path()
    found: list[Path] = []
    for named in bibliography_names(text):
        path = folder / named.name
        parts = Path(named.name).parts
        if not path.exists() and any(Path(e).parts[-len(parts) :] == parts for e in extra):
            continue
        if not path.exists():
            raise BibliographyError(
                f"\\{named.command}{{{named.written}}} names {named.name}, which does not exist (in "
                f"{shown_path(folder)}): check the name, or pass the bibliography with --bibliography FILE",
                source=str(document),
                line=line_of(text, named.start),
            )
        found.append(path)
    return found


def bibliography_files(text: str, document: Path | None, extra: Sequence[Path] = ()) -> list[Path]:
    """The bibliographies of a document: those it names, then `extra` (each file once)."""
    found: dict[str, Path] = {}
    for path in [*named_bibliographies(text, document, extra), *extra]:
        found.setdefault(os.path.realpath(path), path)
    return list(found.values())


NO_BIBLIOGRAPHY_NOTICE = (
    "This document cites pandoc keys ([@key]) but names no bibliography, so none of its citations "
    "could be checked: add `bibliography: refs.bib` to its front matter, or pass --bibliography FILE "
    "(in the window: File ▸ Bibliography…)."
)
EMPTY_BIBLIOGRAPHY_NOTICE = (
    "The bibliography has no entries, so none of the document's citations could be checked (is it "
    "the right file?)."
)


def cited_works(
    text: str,
    document: Path | None,
    extra: Sequence[Path] = (),
    *,
    zotero_dir: Path | None = None,
    use_zotero: bool = True,
    roots: Sequence[Path | None] = (),
    anywhere: bool = False,
) -> CitedWorks | None:
    """The works a document cites from, or None when it names no bibliography (a numbered document).

    `extra` are bibliographies the writer gave; those the front matter names are read only inside
    the document's folder, `roots` (the writer's other folders: `--sources`, `--allow-folder`) or
    the folders of `extra`, unless `anywhere` (`--allow-local-path`). Raises BibliographyError (an
    InputError) for a bibliography that cannot be read or may not be, and ZoteroError for a Zotero
    folder named explicitly (`zotero_dir`) that cannot be read.
    """
    named = named_bibliographies(text, document, extra)
    files = bibliography_files(text, document, extra)
    inline = None if is_format(document, "latex") else front_matter_references(text, document)
    if not files and inline is None:
        return None
    given = {os.path.realpath(path) for path in extra}
    allowed = allowed_roots(
        document.parent if document is not None else None, *roots, extra=[p.parent for p in extra]
    )
    for file in named:
        kind = not_a_file(file)
        if kind is not None:  # a device or a pipe: said as such, never "allow /dev"
            raise BibliographyError(f"it is {kind}, not a file", source=shown_path(file))
        if not anywhere and os.path.realpath(file) not in given and not is_within(file, allowed):
            raise OutsideFoldersError(
                _outside(file, document, len(allowed)),
                source=shown_path(file),
                folder=os.path.dirname(os.path.realpath(file)),
            )
    loaded = [_read_cached(path) for path in files]
    shown = {id(b.bibliography): str(path) for b, path in zip(loaded, files, strict=True)}
    notices: list[str] = []
    library = _zotero(zotero_dir, use_zotero, notices) if loaded or inline is not None else None
    works: dict[str, BibReference] = {}
    sources: list[tuple[Bibliography, LoadedBibliography | None]] = [(b.bibliography, b) for b in loaded]
    if inline is not None:
        sources.append((inline, None))
    for bibliography, owner in sources:
        name = shown.get(id(bibliography), bibliography.source or "the document's front matter")
        notices.extend(owner.notices if owner is not None else ())
        notices.extend(f"{name}: {w}" for w in bibliography.warnings)
        for entry in bibliography.entries:
            if entry.key in works:
                notices.append(
                    f"the key {entry.key!r} is in {works[entry.key].source} and in {name}; the first is used"
                )
                continue
            path = _local_copy(entry, owner, library)
            works[entry.key] = BibReference.from_entry(entry, path=path, source=name)
    folders = [Path(os.path.abspath(p)).parent for p in extra]
    if library is not None:
        folders.append(library.data_dir)
    return CitedWorks(tuple(works.values()), tuple(files), tuple(dict.fromkeys(folders)), tuple(notices))


def _outside(path: Path, document: Path | None, folders: int) -> str:
    if document is None:
        where = "the folders CiteDesk may read"
    elif folders > 1:
        where = f"the folders CiteDesk may read (the document's folder {shown_path(document.parent)} and {folders - 1} more)"
    else:
        where = f"the document's folder ({shown_path(document.parent)})"
    real = Path(os.path.realpath(path))
    leads = f" (it is a link to {real})" if shown_path(path) != str(real) and os.path.islink(path) else ""
    return (
        f"it is outside {where}{leads}, so it was not read: pass it with --bibliography "
        f"{shown_path(path)}, or allow its folder with --allow-folder {real.parent} (in the window: "
        "File ▸ Bibliography…, or Settings ▸ Folders CiteDesk may read)"
    )


def shown_path(path: Path) -> str:
    """A path as the writer would write it: absolute, `..` and `.` resolved by name (links kept)."""
    return os.path.normpath(os.path.abspath(path))


def works_to_check(
    document: Document, sources_dir: Path | None = None, attached: frozenset[str] = frozenset()
) -> list[CitedEntry]:
    """The works whose sources an audit looks at: every entry of a numbered document's reference
    list. Of a bibliography (often a reference manager's whole library): the cited keys, and — so
    that a wrong key can be swapped for the right one, and an uncited sentence offered a key — up
    to MAX_CANDIDATES uncited entries whose copy is on this machine (a `file` attachment, Zotero's
    copy, a file named by key in `sources_dir`, or one attached by hand), those whose titles share
    the most words with the document first. Candidates are read from this machine only, never
    fetched."""
    if document.bibliography is None:
        return list(document.entries)
    citing = document.markers_citing
    works = document.work_by_key
    cited = [works[key] for key in citing if key in works]
    local = [
        w
        for w in document.bibliography
        if w.key not in citing and (w.key in attached or _has_local_copy(w, sources_dir))
    ]
    if len(local) > MAX_CANDIDATES:
        words = _words(" ".join(claim.text for claim in document.claims))
        local.sort(key=lambda w: -len(_words(w.title or "") & words))  # stable: bibliography order next
    return [*cited, *(replace(w, url=None, doi=None, arxiv=None) for w in local[:MAX_CANDIDATES])]


def _has_local_copy(work: BibReference, sources_dir: Path | None) -> bool:
    if work.path and os.path.isfile(work.path):
        return True
    return sources_dir is not None and any(
        os.path.isfile(sources_dir / f"{work.key}{ext}") for ext in LOCAL_EXTENSIONS
    )


def _words(text: str) -> set[str]:
    """Content words (four letters or more), lower case: enough to rank titles by topic."""
    return {w.casefold() for w in re.findall(r"[^\W\d_]{4,}", text)}


def read_bibliographies(paths: Sequence[Path]) -> list[Bibliography]:
    """Read (or reuse) each bibliography: BibliographyError for the first that cannot be read."""
    return [_read_cached(path).bibliography for path in paths]


def _local_copy(
    entry: BibEntry, owner: LoadedBibliography | None, library: ZoteroLibrary | None
) -> str | None:
    """The entry's best local copy (see the module's docstring), or None."""
    written = owner.attachments.get(entry.key, ()) if owner is not None else ()
    existing = [p for p in written if p.is_file()]
    if existing:
        return str(_readable_first(existing)[0])
    if library is not None:
        copies = [
            a.path for a in library.attachments(key=entry.key, doi=entry.doi, title=entry.title) if a.exists
        ]
        if copies:
            return str(_readable_first(copies)[0])
    return str(written[0]) if written else None


def _readable_first(paths: list[Path]) -> list[Path]:
    return sorted(paths, key=lambda p: not p.name.lower().endswith(LOCAL_EXTENSIONS))


# reading, once per content --------------------------------------------------------------------
_lock = threading.Lock()
_bibliographies: dict[tuple[str, int, int], LoadedBibliography] = {}
_libraries: dict[tuple[str, int, int], ZoteroLibrary] = {}


def _read_cached(path: Path) -> LoadedBibliography:
    """`read_bibliography`, reused while the file keeps its size and modification time; read by
    its absolute path, so its attachments resolve to absolute paths."""
    path = Path(os.path.abspath(path))
    stamp = _stamp(path)
    if stamp is None:
        return read_bibliography(path)  # it says why it cannot be read
    with _lock:
        cached = _bibliographies.get(stamp)
    if cached is not None and cached.path == path:
        return cached
    loaded = read_bibliography(path)
    with _lock:
        _remember(_bibliographies, stamp, loaded)
    return loaded


def _zotero(folder: Path | None, use: bool, notices: list[str]) -> ZoteroLibrary | None:
    """The Zotero library named, or the usual one when it exists; a named folder that cannot be
    read is an error, the usual one only a notice."""
    if not use:
        return None
    chosen = folder or default_data_dir()
    if chosen is None:
        return None
    stamp = _stamp(chosen / "zotero.sqlite")
    with _lock:
        cached = _libraries.get(stamp) if stamp is not None else None
    if cached is not None:
        return cached
    try:
        library = ZoteroLibrary(chosen)
    except ZoteroError as exc:
        if folder is not None:
            raise
        notices.append(f"Zotero's attachments were not used: {exc}")
        return None
    if stamp is not None:
        with _lock:
            _remember(_libraries, stamp, library)
    return library


def _stamp(path: Path) -> tuple[str, int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return os.path.realpath(path), info.st_mtime_ns, info.st_size


def _remember(cache: dict[tuple[str, int, int], _T], stamp: tuple[str, int, int], value: _T) -> None:
    for old in [k for k in cache if k[0] == stamp[0]]:
        del cache[old]  # an older version of the same file
    while len(cache) >= _CACHE_SIZE:
        del cache[next(iter(cache))]
    cache[stamp] = value
