"""The JSON report (`--format json`, an export to `.json`): `core.reports.report.to_json`, a stable contract."""

from __future__ import annotations

import json

from citedesk.core.reports.base import register
from citedesk.core.reports.report import Report, to_json


def render_json(report: Report) -> str:
    return json.dumps(to_json(report), indent=2, ensure_ascii=False) + "\n"


class JsonFormat:
    name = "json"
    suffix = ".json"
    label = "JSON"
    several = True
    finished = True

    def render(self, report: Report, *, colour: bool = False) -> str:
        return render_json(report)


register(JsonFormat())
