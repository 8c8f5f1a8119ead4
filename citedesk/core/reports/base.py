"""Report formats behind one protocol, in one table (Ruff's emitters: one module per format).

A format is one module of `core.reports` that makes a `ReportFormat` (its name, the suffix that
names it on export, its label in the window's export dialog, whether it holds several documents,
whether it renders a finished report) and calls `register` once at import. The command line's
`--format` choices, the settings' `format` key, `--out`'s and the window's export (a file's
suffix chooses its format) and the export dialog's filters are all read from this table; nothing
else names a format's suffix.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

from citedesk.core.origins import Registry
from citedesk.core.reports.report import Report
from citedesk.errors import UsageError

DEFAULT_EXPORT = "html"
"""What an export is written as when its file's suffix names no format."""


class ReportFormat(Protocol):
    name: str
    """`--format NAME`, the settings' `format`."""
    suffix: str
    """The file suffix that names it (`--out report.md`, the window's export)."""
    label: str
    """How the window's export dialog names it (`Markdown`)."""
    several: bool
    """Whether one output holds several documents (`citedesk audit A B`: each report, then a table)."""
    finished: bool
    """Whether it renders a finished report (False: it is written while the audit runs, `jsonl`)."""

    def render(self, report: Report, *, colour: bool = False) -> str:
        """The report in this format (`colour`: a terminal's colours, where the format has any)."""
        ...


REGISTRY: Registry[ReportFormat] = Registry()
"""The table: its entries, and which module registered each (`core.origins`)."""


def register(form: ReportFormat) -> ReportFormat:
    """Add `form` to the table (a format's module, once, at import)."""
    return REGISTRY.add(form)


def unregister(name: str) -> None:
    """Take a format out of the table (a test's own, when it is done)."""
    REGISTRY.remove(name)


def report_formats() -> tuple[ReportFormat, ...]:
    """Every format: those rendered from a finished report by name, then those written live."""
    return tuple(sorted(REGISTRY.entries(), key=lambda f: (not f.finished, f.name)))


def format_names() -> tuple[str, ...]:
    return tuple(f.name for f in report_formats())


def report_format(name: str) -> ReportFormat:
    """The format called `name` (UsageError, with the choices, for an unknown one)."""
    try:
        return REGISTRY[name]
    except KeyError:
        choices = ", ".join(f.name for f in report_formats() if f.finished)
        raise UsageError(f"unknown report format {name!r}; choose {choices}") from None


def format_of_path(path: str | os.PathLike[str]) -> ReportFormat:
    """The format a file's suffix names (`report.md`: Markdown), or `DEFAULT_EXPORT`."""
    suffix = Path(path).suffix.lower()
    named = [f for f in report_formats() if f.finished and f.suffix == suffix]
    return named[0] if named else REGISTRY[DEFAULT_EXPORT]


def several_formats() -> tuple[str, ...]:
    """The formats one output of several documents can be written in."""
    return tuple(f.name for f in report_formats() if f.several)


def export_filters() -> str:
    """The export dialog's filters (`HTML (*.html);;JSON (*.json);;…`), the default first."""
    chosen = sorted((f for f in report_formats() if f.finished), key=lambda f: f.name != DEFAULT_EXPORT)
    return ";;".join(_filter(f) for f in chosen)


def _filter(form: ReportFormat) -> str:
    return f"{form.label} (*{form.suffix})"


def export_path(name: str | os.PathLike[str], chosen_filter: str) -> Path:
    """The file an export dialog's answer names: as typed when its suffix names a format, else
    with the suffix of the filter chosen (`report` under "Markdown (*.md)": `report.md`)."""
    path = Path(name)
    finished = [f for f in report_formats() if f.finished]
    if any(path.suffix.lower() == f.suffix for f in finished):
        return path
    chosen = next((f for f in finished if _filter(f) == chosen_filter), None)
    return path.with_name(path.name + chosen.suffix) if chosen is not None else path
