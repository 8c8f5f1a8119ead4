"""Quarto books and pandoc defaults files, read so that a project audits with no extra flags.

`citedesk audit book/` audits the chapters `book/_quarto.yml` lists, in order, with the book's
bibliography; `citedesk audit book/chapters/02.qmd` audits that chapter with it (the nearest
`_quarto.yml` at or above the document, found as `citedesk.toml` is: not past a repository's top
folder, the home folder or a folder anyone may write to); `citedesk audit --defaults thesis.yaml`
audits the defaults file's `input-files` with its bibliographies and those of its
`metadata-files`. What the files say is parsed by `core.projects`.

A project file is input, like a document's front matter or `citedesk.toml`: it may come with
someone else's project. So every path it names must lie inside the project's folder (the folder
of `_quarto.yml` or of the defaults file; links followed): that folder is readable, as the
document's own folder is, and nothing outside it becomes readable because a project file says so
— a path outside it is refused (ProjectFileError, an InputError: exit 2) with how to allow it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from citedesk.config import find_upwards
from citedesk.core.projects import (
    QUARTO_FILE,
    ProjectFile,
    ProjectFileError,
    read_defaults,
    read_metadata,
    read_quarto,
    resolve,
)
from citedesk.core.text import DocumentError
from citedesk.files import read_text_file
from citedesk.sources.local import allowed_roots, is_within

MAX_PROJECT_BYTES = 1024 * 1024
"""A project file is a page of YAML; past this it is refused."""


@dataclass(frozen=True)
class Project:
    """A project's documents and bibliographies, resolved and checked to lie in `root`."""

    file: Path
    root: Path
    """The project's folder (the project file's): readable, like a document's own folder."""
    documents: tuple[Path, ...] = ()
    bibliographies: tuple[Path, ...] = ()
    notices: tuple[str, ...] = ()


def find_quarto(start: Path) -> Path | None:
    """The `_quarto.yml` that applies to a document (or folder) `start`, searched as
    `config.find_project_file` searches (`config.find_upwards`)."""
    return find_upwards(start, QUARTO_FILE)


def quarto_project(start: Path, allowed: Sequence[Path] = ()) -> Project | None:
    """The Quarto project `start` belongs to, or None when there is none."""
    found = find_quarto(start)
    return load_project(found, quarto=True, allowed=allowed) if found is not None else None


def defaults_project(path: Path, allowed: Sequence[Path] = ()) -> Project:
    """A pandoc defaults file (`--defaults FILE`), read."""
    return load_project(path, quarto=False, allowed=allowed)


def load_project(path: Path, *, quarto: bool, allowed: Sequence[Path] = ()) -> Project:
    """Read a project file and the metadata files it names; every path checked to lie in its
    folder or in one the writer `allowed` (`--allow-folder`)."""
    path = Path(os.path.abspath(path))
    root = path.parent
    roots = allowed_roots(root, *allowed)
    parsed = (read_quarto if quarto else read_defaults)(_read(path), str(path))
    documents = [_inside(name, path, roots, "document") for name in parsed.documents]
    bibliographies = [_inside(name, path, roots, "bibliography") for name in parsed.bibliographies]
    for name in parsed.metadata_files:
        metadata = _inside(name, path, roots, "metadata file")
        more: ProjectFile = read_metadata(_read(metadata), str(metadata))
        bibliographies.extend(_inside(b, metadata, roots, "bibliography") for b in more.bibliographies)
    notices = [f"{path}: {name} is not a Markdown document, so it is not audited" for name in parsed.left_out]
    return Project(path, root, tuple(documents), tuple(dict.fromkeys(bibliographies)), tuple(notices))


def _read(path: Path) -> str:
    try:
        return read_text_file(path, MAX_PROJECT_BYTES).text
    except FileNotFoundError as exc:
        raise ProjectFileError(f"{path}: the file does not exist") from exc
    except IsADirectoryError as exc:
        raise ProjectFileError(f"{path}: it is a folder, not a file") from exc
    except (OSError, DocumentError) as exc:
        raise ProjectFileError(f"{path}: the file cannot be read ({exc})") from exc


def _inside(written: str, named_by: Path, roots: Sequence[Path], what: str) -> Path:
    """`written` (relative to the file that names it) as a path, when it lies inside `roots` (the
    project's folder first)."""
    path = Path(resolve(written, named_by.parent)).expanduser()
    if not is_within(path, roots):
        real = Path(os.path.realpath(path))
        raise ProjectFileError(
            f"{named_by}: the {what} {written} is outside the project's folder ({roots[0]}), so it was "
            "not read: a project file cannot widen the folders CiteDesk may read (allow its folder with "
            f"--allow-folder {real.parent})"
        )
    return Path(os.path.normpath(path))


@dataclass(frozen=True)
class ProjectRun:
    """What one `citedesk audit` reads from the project files it was given: the documents to audit,
    in order, and the bibliographies they share."""

    documents: tuple[Path, ...]
    bibliographies: tuple[Path, ...] = ()
    notices: tuple[str, ...] = ()


def project_run(
    names: Sequence[str], defaults: str | None = None, allowed: Sequence[Path] = ()
) -> ProjectRun:
    """The documents and bibliographies of `citedesk audit NAMES [--defaults FILE]`: the defaults
    file's input files and bibliographies first; a folder that holds `_quarto.yml` stands for its
    chapters (with the book's bibliography); any other name is a document. The `_quarto.yml` of a
    document inside a book is read here too, so that one that cannot be used stops the audit
    with why (the session adds its bibliography, `DocumentSession.options`)."""
    documents: list[Path] = []
    bibliographies: list[Path] = []
    notices: list[str] = []
    projects: list[Project] = []
    if defaults is not None:
        project = defaults_project(Path(defaults), allowed)
        if not project.documents and not names:
            raise ProjectFileError(
                f"{defaults}: it names no `input-files`: give the documents to audit as well"
            )
        projects.append(project)
        documents.extend(_shown(d) for d in project.documents)
    for name in names:
        path = Path(name)
        if path.is_dir() and (path / QUARTO_FILE).is_file():
            project = load_project(path / QUARTO_FILE, quarto=True, allowed=allowed)
            if not project.documents:
                raise ProjectFileError(f"{project.file}: it lists no chapters (`book: chapters:`) to audit")
            projects.append(project)
            documents.extend(_shown(d) for d in project.documents)
            continue
        documents.append(path)
        if path.is_file():
            quarto_project(path, allowed)  # raises when the book's `_quarto.yml` cannot be used
    for project in projects:
        bibliographies.extend(project.bibliographies)
        notices.extend(project.notices)
    return ProjectRun(tuple(dict.fromkeys(documents)), tuple(dict.fromkeys(bibliographies)), tuple(notices))


def _shown(path: Path) -> Path:
    """A project's document as the writer would name it: relative to the working folder when
    below it (as reports name documents given on the command line), else absolute."""
    relative = os.path.relpath(path)
    return Path(relative) if not relative.startswith("..") else path
