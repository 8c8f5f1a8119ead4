"""Bibliography files on disk: reading one, finding the ones a document names, resolving attachments.

The parsing itself is pure (`core.bibliographies.model`); this module does the I/O around it: it reads the
file through the one bounded reader (`files.read_text_file`: a regular file only, size-capped,
encoding detected as for documents, with a notice when it was not UTF-8), picks the format by
extension (and, for `.json`/`.yaml`, by content), reads the `bibliography:` list of a document's
YAML front matter relative to the document, and resolves each entry's `file` attachments relative
to the .bib's folder, the way each reference manager means them (`~` is the home folder;
Mendeley's `home/me/x.pdf` is `/home/me/x.pdf`). Whether a file named here may be read at all is
decided by the writer's folders (`sources.local`), not here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PureWindowsPath

from citedesk.core.bibliographies.model import (
    BibEntry,
    BibFormat,
    Bibliography,
    BibliographyError,
    format_for,
)
from citedesk.core.bibliographies.parse import parse_bibliography
from citedesk.core.safeload import safe_yaml
from citedesk.core.text import DocumentError
from citedesk.files import FileTooLargeError, NotRegularFileError, encoding_notice, read_text_file

MAX_BIBLIOGRAPHY_BYTES = 32 * 1024 * 1024
"""A Zotero library exported whole with abstracts is a few MB; past this the file is refused."""

_FRONT_MATTER_END = ("---", "...")
_REFERENCES_KEY = re.compile(r"^references\s*:", re.MULTILINE)
"""The front matter holds entries of its own (not merely the word, as in `title: My references`)."""


@dataclass(frozen=True, slots=True)
class LoadedBibliography:
    """A bibliography read from `path`, with each entry's attachments resolved to local paths."""

    path: Path
    bibliography: Bibliography
    attachments: dict[str, tuple[Path, ...]]
    """Key → attachment paths, existing files first; keys without attachments are absent."""
    notices: tuple[str, ...] = ()
    """What the writer should know about the file itself (it was not UTF-8)."""

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
        decoded = read_text_file(path, max_bytes)
    except FileTooLargeError as exc:
        more = "more than " if exc.at_least else ""
        raise BibliographyError(
            f"the file is {more}{exc.size / 1e6:.1f} MB, over the {max_bytes / 1e6:.0f} MB limit",
            source=shown,
        ) from exc
    except NotRegularFileError as exc:
        raise BibliographyError(f"it is {exc.file_kind}, not a file", source=shown) from exc
    except IsADirectoryError as exc:
        raise BibliographyError("it is a folder, not a file", source=shown) from exc
    except FileNotFoundError as exc:
        raise BibliographyError("the file does not exist", source=shown) from exc
    except OSError as exc:
        raise BibliographyError(f"the file cannot be read ({exc.strerror or exc})", source=shown) from exc
    except DocumentError as exc:
        raise BibliographyError(str(exc), source=shown) from exc
    text = decoded.text
    notice = encoding_notice(path.name, decoded.encoding)
    fmt = format_for(path.name, text) or fmt_by_name
    bibliography = parse_bibliography(text, fmt, source=shown)
    folder = path.parent
    attachments = {
        entry.key: resolved
        for entry in bibliography.entries
        if (resolved := resolve_attachments(entry, folder))
    }
    return LoadedBibliography(path, bibliography, attachments, (notice,) if notice else ())


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
    shown = str(document) if document else None
    try:
        data = safe_yaml(block, source=shown, first_line=2)
    except BibliographyError as exc:
        raise BibliographyError(f"the YAML front matter: {exc.reason}", source=shown, line=exc.line) from exc
    if not isinstance(data, dict) or "bibliography" not in data:
        return []
    names = _bibliography_names(data["bibliography"], str(document) if document else None)
    base = document.parent if document is not None else Path()
    return [Path(name).expanduser() if name.startswith("~") else base / name for name in names]


def _bibliography_names(value: object, shown: str | None) -> list[str]:
    """The file names `bibliography:` holds: one, or a list of them; anything else is an error,
    never silently "no bibliography"."""
    items = value if isinstance(value, list) else [value]
    names: list[str] = []
    for item in items:
        if isinstance(item, str) and item.strip():
            names.append(item.strip())
            continue
        what = "nothing" if item is None or item == "" else f"{type(item).__name__} {str(item)[:40]!r}"
        raise BibliographyError(
            f"`bibliography:` in the front matter must name a file (or a list of files), not {what}",
            source=shown,
        )
    return names


def front_matter_references(text: str, document: Path | None = None) -> Bibliography | None:
    """The CSL entries a document carries in its own front matter (`references:`), if any."""
    block = _front_matter(text)
    if block is None or not _REFERENCES_KEY.search(block):
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
