"""Where the files that ship with CiteDesk are: the samples and the icon.

They live in the repository's top-level `resources/` folder, which installs as the data package
`citedesk.resources` (pyproject's package-dir); `importlib.resources` finds it from a checkout (the
editable install maps it), an installed wheel, or the PyInstaller build.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

PACKAGE = "citedesk.resources"


def resources_dir() -> Path:
    return Path(str(files(PACKAGE)))


def sample_paths() -> dict[str, Path]:
    """The bundled sample documents by name (`problems`, `evidence`, `clean`)."""
    return {path.stem: path for path in sorted((resources_dir() / "samples").glob("*.md"))}


def sample_projects() -> dict[str, Path]:
    """The bundled sample projects by name, each its main file (`thesis`: `thesis/thesis.tex`, a
    LaTeX thesis of three chapters with its bibliography and local sources). Kept apart from
    `sample_paths`, whose documents the window opens as an untitled copy: a project is audited
    where it lies, from its main file (`citedesk audit PATH`)."""
    found = sorted((resources_dir() / "samples").glob("*/*.tex"))
    return {path.stem: path for path in found if path.stem == path.parent.name}


def sample_word_documents() -> dict[str, Path]:
    """The bundled Word samples by their folder's name (`word`: `word/paper.docx`, Zotero fields
    with their CSL items, its local sources in `word/sources/`). Audited and fixed where they lie,
    like a project; the window opens them read-only, as every .docx."""
    found = sorted((resources_dir() / "samples").glob("*/*.docx"))
    return {path.parent.name: path for path in found}


def icon_path() -> Path:
    """The application icon (a 256 px PNG; the SVG lies beside it)."""
    return resources_dir() / "icons" / "citedesk.png"
