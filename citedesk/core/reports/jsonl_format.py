"""JSON lines (`--format jsonl`): each stage's findings as one line the moment the stage is done
(`engine.state.StageResult.to_json`), then `{"stage": "done", "summary": …}`. Written while the
audit runs, so there is no finished report to render."""

from __future__ import annotations

import json
from typing import Any

from citedesk.core.reports.base import register
from citedesk.core.reports.report import Report, summary_json
from citedesk.errors import UsageError


def line(value: dict[str, Any]) -> str:
    """One line: a stage's result as JSON, or the closing line."""
    return json.dumps(value, ensure_ascii=False) + "\n"


def closing_line(report: Report) -> str:
    return line({"stage": "done", "summary": summary_json(report)})


class JsonLinesFormat:
    name = "jsonl"
    suffix = ".jsonl"
    label = "JSON lines"
    several = False
    finished = False

    def render(self, report: Report, *, colour: bool = False) -> str:
        raise UsageError("--format jsonl is written while the audit runs: choose another format to export")


register(JsonLinesFormat())
