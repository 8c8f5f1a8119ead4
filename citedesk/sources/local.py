"""Which local files a document may name as its sources.

A reference may name a file (`1. My notes. notes/interview.txt`). Read blindly, that would let any
document pull in any file the writer can read — `../secret/private.txt`, `/home/me/.ssh/id_rsa` —
show it as evidence and, with Claude assistance on, send it away. So a file named by a document —
a source, a bibliography in its front matter, an attachment in that bibliography's `file` field —
is read only when, with its symbolic links resolved, it lies inside a folder the *writer* chose:
the document's own folder (and below), the `--sources` folder, folders named with `--allow-folder`
(in the window: Settings ▸ Folders CiteDesk may read), the folders of bibliographies the writer
gave (`--bibliography`, File ▸ Bibliography…) and Zotero's data folder. The input never widens
this: a bibliography a document names is one more file to check, not a new folder. Anything else
is refused, without reading it, unless the writer allows every local path (`--allow-local-path`).
Files the writer attached to a reference by hand are theirs, and always read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from citedesk.core.formats import SOURCE_SUFFIXES

LOCAL_EXTENSIONS = SOURCE_SUFFIXES
"""What a local source may be, in the order a `--sources` folder is searched for a key."""


def allowed_roots(*folders: Path | None, extra: Iterable[Path] = ()) -> tuple[Path, ...]:
    """The folders sources may come from, resolved (symbolic links followed), each once."""
    roots: dict[Path, None] = {}
    for folder in (*folders, *extra):
        if folder is not None:
            roots.setdefault(Path(os.path.realpath(folder)), None)
    return tuple(roots)


def is_within(path: Path, roots: Iterable[Path]) -> bool:
    """True when `path`, resolved, is one of `roots` or below one of them.

    `..` and symbolic links are resolved first (the file a link points to is what would be read),
    and the comparison is by path components, so `/docs-private` is not inside `/docs`.
    """
    resolved = Path(os.path.realpath(path))
    return any(resolved == root or resolved.is_relative_to(root) for root in roots)


def outside_message(shown: str, path: Path | None = None) -> str:
    """Why a named file was not read, and how the writer can allow it (a link says where it leads)."""
    where = "the folders CiteDesk may read"
    if path is None:
        return f"the file {shown} is outside {where}: allow its folder with --allow-folder DIR (or every path with --allow-local-path)"
    real = Path(os.path.realpath(path))
    leads = f" (it is a link to {real})" if os.path.islink(path) else ""
    return (
        f"the file {os.path.normpath(shown)} is outside {where}{leads}: allow its folder with "
        f"--allow-folder {real.parent} (or every path with --allow-local-path)"
    )


def refused_file(
    shown: str | None, document_dir: Path | None, roots: Iterable[Path], link: str
) -> str | None:
    """Why the file an entry names (`shown`, relative to the document's folder) was not read, when
    it lies outside `roots` (`link`: what became of the entry's link, if it has one); None when the
    entry names no file, or one that may be read."""
    if not shown:
        return None
    named = Path(shown)
    if not named.is_absolute() and document_dir is not None:
        named = document_dir / named
    if is_within(named, roots):
        return None
    return outside_message(shown, named) + (f"; its link was not read either ({link})" if link else "")
