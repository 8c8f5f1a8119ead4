"""Running `citedesk audit --format json` on a document beside its sources, as the truth tests do."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citedesk.cli import main


def flags(folder: Path, *extra: str) -> list[str]:
    """The store and sources in `folder`, no judge (the truth checks need none), the local servers allowed."""
    return [
        "--store",
        str(folder / "store.sqlite3"),
        "--sources",
        str(folder / "sources"),
        "--judge",
        "none",
        "--allow-private-network",
        *extra,
    ]


def audit(doc: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    """The JSON report of auditing `doc` with `flags(doc.parent, *extra)`."""
    main(["audit", str(doc), "--format", "json", *flags(doc.parent, *extra)])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def by_reference(report: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The report's findings, by the reference they are about."""
    found: dict[str, list[dict[str, Any]]] = {}
    for finding in report["findings"]:
        found.setdefault(finding["reference"], []).append(finding)
    return found
