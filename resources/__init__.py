"""Files that ship with CiteDesk (installed as `citedesk.resources`): the samples and the icon."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def _folder() -> Path:
    return Path(str(files(__name__)))


def sample_paths() -> dict[str, Path]:
    """The bundled sample documents by name (`problems`, `evidence`, `clean`)."""
    return {path.stem: path for path in sorted((_folder() / "samples").glob("*.md"))}


def icon_path() -> Path:
    """The application icon (a 256 px PNG; the SVG lies beside it)."""
    return _folder() / "icons" / "citedesk.png"
