"""What a pandoc or Quarto project file says: its documents, bibliographies and metadata files.

A Quarto book is a folder with `_quarto.yml`: `bibliography:` (one file or a list) is the book's,
`book: chapters:` (and `appendices:`) lists its chapters in order — a name, `{href: …}`, or a part
`{part: …, chapters: […]}` — and `metadata-files:` may name more metadata. A pandoc defaults file
(`pandoc --defaults thesis.yaml`) names `input-files:` (or `input-file:`), `bibliography:` (at its
top or under `metadata:`) and `metadata-files:` (or `metadata-file:`), whose own `bibliography:`
counts too. Other projects (`project: render: [...]`) list their documents under `render`.

This module only reads the text (with the guarded YAML loader, `core.safeload`): the paths are
returned as written, each with the file that names it, and `resolve` makes one a path relative to
that file's folder (`${.}`, pandoc's name for it, too). Reading the files, and refusing a path
outside the project's folder — a project file is input, and may come with someone else's
project — is the desk's (`desk.projects`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import Literal

from citedesk.core.bibliographies.model import BibliographyError
from citedesk.core.formats import formats
from citedesk.core.safeload import safe_yaml
from citedesk.errors import InputError

QUARTO_FILE = "_quarto.yml"
DOCUMENT_SUFFIXES = tuple(s for f in formats() if f.syntax == "markdown" and f.editable for s in f.suffixes)
"""What CiteDesk audits of a project's documents: its Markdown formats' (`core.formats`; a notebook,
`.ipynb`, is left out, said so)."""


class ProjectFileError(InputError):
    """A project file that cannot be used: not YAML, a field of the wrong kind, a path outside the
    project's folder. Said with the file (and the line, where YAML says it)."""


@dataclass(frozen=True, slots=True)
class ProjectFile:
    """One project file's fields, paths as written (resolved against its folder by `resolve`)."""

    kind: Literal["quarto", "defaults", "metadata"]
    documents: tuple[str, ...] = ()
    """In reading order: the book's chapters and appendices, or the defaults' input files."""
    bibliographies: tuple[str, ...] = ()
    metadata_files: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()
    """Documents named but not audited (a notebook), for a notice."""


def read_quarto(text: str, source: str) -> ProjectFile:
    """The fields of a `_quarto.yml`."""
    data = _mapping(text, source)
    book = data.get("book")
    project = data.get("project")
    names: list[str] = []
    if isinstance(book, dict):
        for field in ("chapters", "appendices"):
            names.extend(_chapters(book.get(field), f"book: {field}:", source))
    elif isinstance(project, dict) and project.get("render") is not None:
        names.extend(n for n in _names(project["render"], "project: render:", source) if not _is_glob(n))
    documents, left_out = _documents(names)
    return ProjectFile(
        "quarto",
        documents,
        _names(data.get("bibliography"), "bibliography:", source),
        _names(data.get("metadata-files"), "metadata-files:", source),
        left_out,
    )


def read_defaults(text: str, source: str) -> ProjectFile:
    """The fields of a pandoc defaults file."""
    data = _mapping(text, source)
    inputs = [
        *_names(data.get("input-file"), "input-file:", source),
        *_names(data.get("input-files"), "input-files:", source),
    ]
    metadata = data.get("metadata")
    bibliographies = [*_names(data.get("bibliography"), "bibliography:", source)]
    if isinstance(metadata, dict):
        bibliographies.extend(_names(metadata.get("bibliography"), "metadata: bibliography:", source))
    metadata_files = [
        *_names(data.get("metadata-file"), "metadata-file:", source),
        *_names(data.get("metadata-files"), "metadata-files:", source),
    ]
    documents, left_out = _documents(inputs)
    return ProjectFile(
        "defaults", documents, tuple(dict.fromkeys(bibliographies)), tuple(metadata_files), left_out
    )


def read_metadata(text: str, source: str) -> ProjectFile:
    """The bibliographies a metadata file (`--metadata-file`, `metadata-files:`) names."""
    data = _mapping(text, source)
    return ProjectFile("metadata", bibliographies=_names(data.get("bibliography"), "bibliography:", source))


def resolve(written: str, folder: PurePath) -> PurePath:
    """A path a project file names, as pandoc reads it there: `${.}` is the file's folder, `~` is
    left for the caller to expand, and a relative path is relative to the file's folder."""
    written = written.replace("${.}", str(folder)).replace("$(.)", str(folder))
    path = PurePath(written)
    return path if path.is_absolute() or written.startswith("~") else folder / path


def _mapping(text: str, source: str) -> dict[str, object]:
    try:
        data = safe_yaml(text, source=source)
    except BibliographyError as exc:
        raise ProjectFileError(_where(source, exc.line) + exc.reason) from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ProjectFileError(
            f"{source}: a project file holds fields (`bibliography: refs.bib`), not a list or a text"
        )
    return {str(key): value for key, value in data.items()}


def _names(value: object, field: str, source: str) -> tuple[str, ...]:
    """A file name or a list of them; anything else is an error, never silently nothing."""
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    names: list[str] = []
    for item in items:
        if not isinstance(item, str) or not item.strip():
            what = "nothing" if item is None or item == "" else f"{type(item).__name__} {str(item)[:40]!r}"
            raise ProjectFileError(f"{source}: `{field}` must name a file (or a list of files), not {what}")
        names.append(item.strip())
    return tuple(names)


def _chapters(value: object, field: str, source: str) -> list[str]:
    """Quarto's chapter list: names, `{href: name}`, and parts `{part: name-or-title, chapters: […]}`."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ProjectFileError(f"{source}: `{field}` must be a list of chapters")
    names: list[str] = []
    for item in value:
        if isinstance(item, str):
            names.append(item.strip())
        elif isinstance(item, dict):
            for key in ("href", "file", "part"):
                named = item.get(key)
                if isinstance(named, str) and (key != "part" or named.lower().endswith(DOCUMENT_SUFFIXES)):
                    names.append(named.strip())
            names.extend(_chapters(item.get("chapters"), field, source))
        else:
            raise ProjectFileError(
                f"{source}: `{field}` holds {type(item).__name__} {str(item)[:40]!r}, not a chapter"
            )
    return names


def _documents(names: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    kept = [n for n in dict.fromkeys(names) if n.lower().endswith(DOCUMENT_SUFFIXES)]
    return tuple(kept), tuple(n for n in dict.fromkeys(names) if n not in kept)


def _is_glob(name: str) -> bool:
    return any(c in name for c in "*?[") or name.startswith("!")


def _where(source: str, line: int | None) -> str:
    return f"{source}, line {line}: " if line else f"{source}: "
