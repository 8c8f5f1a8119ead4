"""The report's output formats: one module each, behind `base.ReportFormat`, in one table.

Importing the package registers every format of CiteDesk's own (text, JSON, Markdown, HTML, JSON
lines); a new format is one more module here, imported below. The report itself (`Report`, its
JSON form, the sentences every format says alike) is `core.reports.report`.
"""

from citedesk.core.reports import (  # noqa: F401 - each registers itself
    html_format,
    json_format,
    jsonl_format,
    markdown_format,
    text_format,
)
from citedesk.core.reports.base import (
    DEFAULT_EXPORT,
    ReportFormat,
    export_filters,
    export_path,
    format_names,
    format_of_path,
    register,
    report_format,
    report_formats,
    several_formats,
    unregister,
)

__all__ = [
    "DEFAULT_EXPORT",
    "ReportFormat",
    "export_filters",
    "export_path",
    "format_names",
    "format_of_path",
    "register",
    "report_format",
    "report_formats",
    "several_formats",
    "unregister",
]
