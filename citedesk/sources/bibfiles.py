"""Bibliography files on disk: reading one, finding the ones a document names, resolving attachments.

The parsing itself is pure (`core.bibliography`); this module does the I/O around it: it reads the
file (size-capped, encoding detected as for documents), picks the format by extension (and, for
`.json`/`.yaml`, by content), reads the `bibliography:` list of a document's YAML front matter
relative to the document, and resolves each entry's `file` attachments relative to the .bib's
folder, the way each reference manager means them (`~` is the home folder; Mendeley's
`home/me/x.pdf` is `/home/me/x.pdf`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PureWindowsPath

import yaml

from citedesk.core.bibliography import (
    BibEntry,
    BibFormat,
    Bibliography,
    BibliographyError,
    format_for,
    parse_bibliography,
)
from citedesk.core.text import DocumentError, decode_document

MAX_BIBLIOGRAPHY_BYTES = 32 * 1024 * 1024
"""A Zotero library exported whole with abstracts is a few MB; past this the file is refused."""

_FRONT_MATTER_END = ("---", "...")


@dataclass(frozen=True, slots=True)
class LoadedBibliography:
    """A bibliography read from `path`, with each entry's attachments resolved to local paths."""

    path: Path
    bibliography: Bibliography
    attachments: dict[str, tuple[Path, ...]]
    """Key → attachment paths, existing files first; keys without attachments are absent."""

    def existing_attachments(self, key: str) -> list[Path]:
        return [p for p in self.attachments.get(key, ()) if p.is_file()]


def read_bibliography(path: Path, *, max_bytes: int = MAX_BIBLIOGRAPHY_BYTES) -> LoadedBibliography:
    """Read and parse one bibliography file. Raises BibliographyError (never OSError) with the path."""
    shown = str(path)
    fmt_by_name = format_for(path.name)
    if fmt_by_name is None:
        raise BibliographyError(
            "CiteDesk reads bibliographies in .bib, .json (CSL-JSON), .yaml (CSL-YAML) or .ris files",
            source=shown,
        )
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise BibliographyError(
                f"the file is {size / 1e6:.1f} MB, over the {max_bytes / 1e6:.0f} MB limit", source=shown
            )
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise BibliographyError("the file does not exist", source=shown) from exc
    except OSError as exc:
        raise BibliographyError(f"the file cannot be read ({exc.strerror or exc})", source=shown) from exc
    try:
        text = decode_document(data, max_bytes=max_bytes).text
    except DocumentError as exc:
        raise BibliographyError(str(exc), source=shown) from exc
    fmt = format_for(path.name, text) or fmt_by_name
    bibliography = parse_bibliography(text, fmt, source=shown)
    folder = path.parent
    attachments = {
        entry.key: resolved
        for entry in bibliography.entries
        if (resolved := resolve_attachments(entry, folder))
    }
    return LoadedBibliography(path, bibliography, attachments)


def resolve_attachments(entry: BibEntry, folder: Path) -> tuple[Path, ...]:
    """The entry's attachments as paths: `~` expanded, relative ones against the bibliography's
    folder, and for Mendeley's slash-less `home/me/x.pdf` the absolute `/home/me/x.pdf` when that
    exists (or when nothing else does). Existing files come first."""
    resolved: list[Path] = []
    for written in entry.files:
        for candidate in _candidates(written, folder):
            if candidate not in resolved:
                resolved.append(candidate)
    return tuple(sorted(resolved, key=lambda p: not p.is_file()))


def _candidates(written: str, folder: Path) -> list[Path]:
    if written.startswith(("~/", "~\\")) or written == "~":
        return [Path.home() / written[2:].replace("\\", "/")]
    windows = PureWindowsPath(written)
    if windows.drive and windows.is_absolute():
        return [Path(written)]  # C:\…: readable only on Windows, kept as written elsewhere
    path = Path(written.replace("\\", "/")) if "\\" in written and "/" not in written else Path(written)
    if path.is_absolute():
        return [path]
    relative = folder / path
    rooted = Path("/") / path  # Mendeley drops the leading slash
    if relative.is_file() or not rooted.is_file():
        return [relative, rooted] if rooted.is_file() else [relative]
    return [rooted]


def front_matter_bibliographies(text: str, document: Path | None = None) -> list[Path]:
    """The files a Markdown document's YAML front matter names in `bibliography:` (one or a list),
    relative to the document's folder. Raises BibliographyError when the front matter that holds
    `bibliography:` is not valid YAML."""
    block = _front_matter(text)
    if block is None or "bibliography" not in block:
        return []
    try:
        data = yaml.safe_load(block)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise BibliographyError(
            "the YAML front matter cannot be read",
            source=str(document) if document else None,
            line=mark.line + 2 if mark is not None else None,
        ) from exc
    value = data.get("bibliography") if isinstance(data, dict) else None
    names = [value] if isinstance(value, str) else [str(v) for v in value or [] if isinstance(v, (str, int))]
    base = document.parent if document is not None else Path()
    return [Path(name).expanduser() if name.startswith("~") else base / name for name in names]


def front_matter_references(text: str, document: Path | None = None) -> Bibliography | None:
    """The CSL entries a document carries in its own front matter (`references:`), if any."""
    block = _front_matter(text)
    if block is None or "references" not in block:
        return None
    shown = str(document) if document is not None else None
    return parse_bibliography(block, BibFormat.CSL_YAML, source=shown)


def _front_matter(text: str) -> str | None:
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].rstrip() != "---":
        return None
    for index, line in enumerate(lines[1:], start=1):
        if line.rstrip() in _FRONT_MATTER_END:
            return "\n".join(lines[1:index])
    return None
