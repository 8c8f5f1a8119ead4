"""Quarto books and pandoc defaults files, read so that a project audits with no extra flags.

`citedesk audit book/` audits the chapters `book/_quarto.yml` lists, in order, with the book's
bibliography; `citedesk audit book/chapters/02.qmd` audits that chapter with it (the nearest
`_quarto.yml` at or above the document, found as `citedesk.toml` is: not past a repository's top
folder, the home folder or a folder anyone may write to); `citedesk audit --defaults thesis.yaml`
audits the defaults file's `input-files` with its bibliographies and those of its
`metadata-files`. What the files say is parsed by `core.projects.pandoc`.

A LaTeX project is its main file (`thesis.tex`, the one with `\\documentclass`): its documents are
the main file and every file reached by `\\input`/`\\include`/`\\subfile`, in reading order
(`latex_project`); its bibliographies those any of them names (`\\bibliography`,
`\\addbibresource`), relative to the main file's folder as LaTeX resolves them. A chapter opened or
audited alone finds its main file (`latex_root`: `% !TEX root = …` first, else a main file in its
folder or the one above that includes it), and so the thesis's bibliographies. What LaTeX's last
run left beside the main file (`.aux`, `.bbl`, `.log`, `.blg`) is cross-checked
(`latex_build_notices`): notices, never findings. What the `.tex` files say is read by
`core.projects.latex`.

A project file is input, like a document's front matter or `citedesk.toml`: it may come with
someone else's project. So every path it names must lie inside the project's folder (the folder
of `_quarto.yml` or of the defaults file; links followed): that folder is readable, as the
document's own folder is, and nothing outside it becomes readable because a project file says so
— a path outside it is refused (ProjectFileError, an InputError: exit 2) with how to allow it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from citedesk.config import find_upwards
from citedesk.core.bibliographies.model import BibliographyError
from citedesk.core.dialects.latex.bounds import naming
from citedesk.core.formats import MAX_LATEX_BYTES, is_format
from citedesk.core.projects.latex import (
    Named,
    bibliography_names,
    includes,
    is_root,
    line_of,
    nocites,
    read_aux,
    read_bbl,
    root_magic,
    undefined_citations,
)
from citedesk.core.projects.pandoc import (
    QUARTO_FILE,
    ProjectFile,
    ProjectFileError,
    read_defaults,
    read_metadata,
    read_quarto,
    resolve,
)
from citedesk.core.reading import parse_document
from citedesk.core.text import DocumentError
from citedesk.errors import InputError
from citedesk.files import (
    FileTooLargeError,
    latex_too_large,
    not_a_file,
    read_document,
    read_text_file,
)
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


# LaTeX projects ------------------------------------------------------------------------------------
# Every `.tex` file — the main file, each file it includes, a chapter — is held to one limit,
# `files.MAX_LATEX_BYTES`, checked before it is parsed; each is parsed within `core.dialects.latex.bounds`'
# depth and the deadline the caller set (`parse_deadline`), and a limit reached names the file.
MAX_TEX_FILES = 400
"""Files one project may include, at most: past this the rest are left out, said so."""
MAX_ROOT_CANDIDATES = 40
"""`.tex` files of one folder read while looking for a chapter's main file, at most."""
RELATIVE_TO_INCLUDER = ("subfile", "subimport", "subinputfrom", "subincludefrom")
"""Commands whose names are relative to the file they stand in; the others are relative to the
main file's folder, where LaTeX runs."""


def latex_project(main: Path, allowed: Sequence[Path] = ()) -> Project:
    """The project whose main file is `main`: its documents in reading order (each once; a cycle
    or a missing file is a notice, the rest is still read), the bibliographies they name (a missing
    one is a BibliographyError naming the file and line), every path checked to lie in `main`'s
    folder or one the writer `allowed` (ProjectFileError otherwise: a `.tex` is input)."""
    main = Path(os.path.normpath(os.path.abspath(main)))
    root = main.parent
    roots = allowed_roots(root, *allowed)
    documents: list[Path] = []
    bibliographies: list[Path] = []
    notices: list[str] = []
    reading: list[str] = []
    seen: set[str] = set()

    def visit(path: Path, text: str) -> None:
        reading.append(os.path.realpath(path))
        seen.add(reading[-1])
        documents.append(path)
        with naming(path):
            named_bibliographies, included = bibliography_names(text), includes(text)
        for named in named_bibliographies:
            bibliography = _latex_inside(root / named.name, named, path, text, roots, "bibliography")
            kind = not_a_file(bibliography)
            if kind is not None or not bibliography.exists():
                what = f"is {kind}, not a file" if kind is not None else "does not exist"
                raise BibliographyError(
                    f"{_spelled(named)} names {named.name}, which {what} (in {root}): "
                    "check the name, or pass the bibliography with --bibliography FILE",
                    source=str(path),
                    line=line_of(text, named.start),
                )
            bibliographies.append(bibliography)
        for named in included:
            target = _latex_inside(_included(named, path, root), named, path, text, roots, "file")
            where = f"{path}, line {line_of(text, named.start)}: {_spelled(named)}"
            real = os.path.realpath(target)
            if real in reading:
                notices.append(f"{where} includes a file that includes it (a cycle): it is read once")
                continue
            if real in seen:
                continue
            if len(seen) >= MAX_TEX_FILES:
                notices.append(f"{where}: more than {MAX_TEX_FILES} files included; the rest are not audited")
                return
            try:
                child = read_text_file(target, MAX_LATEX_BYTES).text
            except FileNotFoundError:
                notices.append(f"{where}: {_shown(target)} does not exist, so it is not audited")
                continue
            except FileTooLargeError as exc:
                too_large = latex_too_large(_shown(target), exc.size, at_least=exc.at_least)
                notices.append(f"{where}: {too_large}; it is not audited")
                continue
            except (OSError, DocumentError) as exc:
                notices.append(f"{where}: {_shown(target)} cannot be read ({exc}), so it is not audited")
                continue
            visit(target, child)
        reading.pop()

    visit(main, read_document(main, max_bytes=MAX_LATEX_BYTES).text)
    return Project(main, root, tuple(documents), tuple(dict.fromkeys(bibliographies)), tuple(notices))


def _spelled(named: Named) -> str:
    return f"\\{named.command}{{{named.written}}}"


def _included(named: Named, including: Path, root: Path) -> Path:
    """Where an included file is: relative to the main file's folder (or, for `\\subfile` and
    `\\subimport`, to the including file's), the other tried when the first has no such file."""
    first, second = (
        (including.parent, root) if named.command in RELATIVE_TO_INCLUDER else (root, including.parent)
    )
    for folder in (first, second):
        for name in dict.fromkeys((named.name, named.written)):
            candidate = Path(resolve(name, folder)).expanduser()
            if candidate.is_file():
                return candidate
    return Path(resolve(named.name, first)).expanduser()


def _latex_inside(path: Path, named: Named, by: Path, text: str, roots: Sequence[Path], what: str) -> Path:
    if not is_within(path, roots):
        real = Path(os.path.realpath(path))
        raise ProjectFileError(
            f"{by}, line {line_of(text, named.start)}: the {what} {_spelled(named)} is outside the "
            f"project's folder ({roots[0]}), so it was not read: a .tex file cannot widen the folders "
            f"CiteDesk may read (allow its folder with --allow-folder {real.parent})"
        )
    return Path(os.path.normpath(path))


def latex_root(document: Path, allowed: Sequence[Path] = ()) -> Path | None:
    """The main file of a `.tex` document: the one its `% !TEX root = …` comment names (when that
    folder holds the document), the document itself when it has `\\documentclass`, else a main
    file in its folder or the folder above that includes it. Folders are searched as project files
    are (`config.find_upwards`: not past a repository's top, the home folder or a folder anyone may
    write to), and None when there is none."""
    document = Path(os.path.normpath(os.path.abspath(document)))
    try:
        text = read_text_file(document, MAX_LATEX_BYTES).text
    except (OSError, DocumentError):
        return None
    folders = _folders_up(document.parent, 3)
    with naming(document):
        magic = root_magic(text)
    if magic is not None:
        named = Path(os.path.normpath(resolve(magic, document.parent)))
        if named.is_file() and any(named.parent == f for f in folders):
            return named
    with naming(document):
        if is_root(text):
            return document
    for folder in folders[:2]:
        for candidate in sorted(p for p in folder.glob("*") if is_format(p, "latex"))[:MAX_ROOT_CANDIDATES]:
            if candidate == document or not _is_root_file(candidate):
                continue
            try:
                project = latex_project(candidate, allowed)
            except InputError:
                continue
            if any(os.path.samefile(d, document) for d in project.documents if d.is_file()):
                return candidate
    return None


def _is_root_file(path: Path) -> bool:
    try:
        with naming(path):  # out of time: that stops the audit, naming this file
            return is_root(read_text_file(path, MAX_LATEX_BYTES).text)
    except (OSError, DocumentError):  # a sibling too large, or nested too deep: not the main file
        return False


def _folders_up(start: Path, levels: int) -> list[Path]:
    """`start` and up to `levels` folders above it, stopping as `config.find_upwards` stops."""
    home = Path(os.path.realpath(Path.home()))
    folders: list[Path] = []
    folder = start
    while len(folders) <= levels and Path(os.path.realpath(folder)) != home:
        try:
            if folder.stat().st_mode & stat.S_IWOTH:
                break
        except OSError:
            break
        folders.append(folder)
        if (folder / ".git").exists() or folder.parent == folder:
            break
        folder = folder.parent
    return folders


def document_project(where: Path, allowed: Sequence[Path] = ()) -> Project | None:
    """The project a document belongs to: a `.tex` file's LaTeX project (from its main file), or
    the Quarto book of any other; None when there is none."""
    if is_format(where, "latex") and where.is_file():
        main = latex_root(where, allowed)
        return latex_project(main, allowed) if main is not None else None
    return quarto_project(where, allowed)


MAX_BUILD_BYTES = 32 * 1024 * 1024
"""A `.aux`, `.bbl` or log read for the cross-check, at most (a long thesis's log is a few MB)."""


def latex_build_notices(project: Project) -> tuple[str, ...]:
    """What LaTeX's last run beside the main file says, checked against the text now: keys it left
    undefined (`.aux` without `\\bibcite`, the `.log`'s and `.blg`'s warnings), entries the `.bbl`
    typesets that no file cites any more (a stale build), and "compile again" when the `.aux` is
    older than a `.tex`. Notices, never findings: a build is the writer's, and may be old."""
    main = project.file
    aux, bbl = main.with_suffix(".aux"), main.with_suffix(".bbl")
    aux_text, bbl_text = _build_file(aux), _build_file(bbl)
    if aux_text is None and bbl_text is None:
        return ()
    notices: list[str] = []
    built = (aux if aux_text is not None else bbl).stat().st_mtime
    newer = [d for d in project.documents if d.is_file() and d.stat().st_mtime > built]
    if newer:
        notices.append(
            f"{_shown(aux if aux_text is not None else bbl)} is older than {_shown(newer[0])}: what LaTeX "
            "said below is of its last run; compile again for it to be current"
        )
    undefined: list[str] = []
    if aux_text is not None:
        record = read_aux(aux_text)
        if record.defined:  # BibTeX's runs define each key it found; biblatex's leave it to the log
            undefined.extend(k for k in record.cited if k != "*" and k not in record.defined)
    for log in (main.with_suffix(".log"), main.with_suffix(".blg")):
        undefined.extend(undefined_citations(_build_file(log) or ""))
    if undefined:
        keys = list(dict.fromkeys(undefined))
        notices.append(
            f"LaTeX left {len(keys)} citation(s) undefined in its last run of {main.name}: {', '.join(keys[:12])}"
            + (f" and {len(keys) - 12} more" if len(keys) > 12 else "")
        )
    if bbl_text is not None:
        cited = _cited_keys(project.documents)
        stale = [k for k in read_bbl(bbl_text) if k not in cited] if cited and "*" not in cited else []
        if stale:
            notices.append(
                f"{_shown(bbl)} lists {len(stale)} entr{'y' if len(stale) == 1 else 'ies'} the text no longer "
                f"cites ({', '.join(stale[:12])}): a stale build; compile again"
            )
    return tuple(notices)


def _build_file(path: Path) -> str | None:
    try:
        return read_text_file(path, MAX_BUILD_BYTES).text
    except (OSError, DocumentError):
        return None


def _cited_keys(documents: Sequence[Path]) -> set[str]:
    """Every key the project's files cite or `\\nocite` (as the LaTeX dialect reads them)."""
    keys: set[str] = set()
    for path in documents:
        try:
            text = read_text_file(path, MAX_LATEX_BYTES).text
        except (OSError, DocumentError):
            continue
        with naming(path):
            keys.update(parse_document(text, str(path), ()).markers_citing)
            keys.update(nocites(text))
    return keys


@dataclass(frozen=True)
class ProjectRun:
    """What one `citedesk audit` reads from the project files it was given: the documents to audit,
    in order, and the bibliographies they share."""

    documents: tuple[Path, ...]
    bibliographies: tuple[Path, ...] = ()
    notices: tuple[str, ...] = ()
    build_notices: tuple[tuple[Path, tuple[str, ...]], ...] = ()
    """(a LaTeX main file, as in `documents`; what its last build says, `latex_build_notices`):
    for that document's report."""


def project_run(
    names: Sequence[str], defaults: str | None = None, allowed: Sequence[Path] = ()
) -> ProjectRun:
    """The documents and bibliographies of `citedesk audit NAMES [--defaults FILE]`: the defaults
    file's input files and bibliographies first; a folder that holds `_quarto.yml` stands for its
    chapters (with the book's bibliography), and a LaTeX main file for itself and the files it
    includes (with the bibliographies they name); any other name is a document. The project of a
    document inside a book or a thesis is read here too, so that one that cannot be used stops the
    audit with why (the session adds its bibliography, `DocumentSession.options`)."""
    documents: list[Path] = []
    bibliographies: list[Path] = []
    notices: list[str] = []
    projects: list[Project] = []
    built: list[tuple[Path, tuple[str, ...]]] = []
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
        if (
            is_format(path, "latex")
            and path.is_file()
            and latex_root(path, allowed) == Path(os.path.normpath(os.path.abspath(path)))
        ):
            project = latex_project(path, allowed)  # a main file: it stands for its files
            projects.append(project)
            documents.extend(_shown(d) for d in project.documents)
            built.append((_shown(project.file), latex_build_notices(project)))
            continue
        documents.append(path)
        if path.is_file():
            document_project(path, allowed)  # raises when the book's or thesis's files cannot be used
    for project in projects:
        bibliographies.extend(project.bibliographies)
        notices.extend(project.notices)
    return ProjectRun(
        tuple(dict.fromkeys(documents)),
        tuple(dict.fromkeys(bibliographies)),
        tuple(notices),
        tuple((main, said) for main, said in built if said),
    )


def _shown(path: Path) -> Path:
    """A project's document as the writer would name it: relative to the working folder when
    below it (as reports name documents given on the command line), else absolute."""
    relative = os.path.relpath(path)
    return Path(relative) if not relative.startswith("..") else path
