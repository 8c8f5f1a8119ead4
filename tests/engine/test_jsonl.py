"""`citedesk audit FILE --format jsonl`: one JSON line per stage as it finishes, structure first,
then the summary; together they hold exactly the findings of the JSON report (issue 24)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from citedesk.cli import main
from tests.conftest import SAMPLES

STAGES = ["structure", "sources", "reference truth", "retrieval", "judging", "findings", "done"]


def _key(finding: dict[str, object]) -> str:
    """A finding as published, less what only the final report knows (its review key takes in the
    source's text once that is read)."""
    return json.dumps({k: v for k, v in finding.items() if k not in ("review_key", "review")}, sort_keys=True)


def test_jsonl_streams_each_stage_and_adds_up_to_the_json_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    doc = tmp_path / "evidence.md"
    shutil.copy(SAMPLES / "evidence.md", doc)
    args = [str(doc), "--offline", "--judge", "heuristic", "--no-dense", "--store", str(tmp_path / "s.db")]
    capsys.readouterr()
    streamed_code = main(["audit", *args, "--format", "jsonl"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["stage"] for line in lines] == STAGES
    assert lines[0]["findings"]  # the structural findings come first, before any source is read
    assert {f["kind"] for f in lines[0]["findings"]} <= {
        "fabricated",
        "orphan_reference",
        "duplicate_reference",
        "malformed_marker",
        "uncited",
    }
    published: Counter[str] = Counter()
    for line in lines[:-1]:
        published.update(_key(f) for f in line["findings"])
        published.subtract(_key(f) for f in line.get("withdrawn", []))
    whole_code = main(["audit", *args, "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert +published == Counter(_key(f) for f in report["findings"])
    assert lines[-1]["summary"] == report["summary"]
    assert streamed_code == whole_code


def test_jsonl_is_for_one_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("a.md", "b.md"):
        (tmp_path / name).write_text("Trees cool streets.\n", encoding="utf-8")
    assert main(["audit", str(tmp_path / "a.md"), str(tmp_path / "b.md"), "--format", "jsonl"]) == 2
    assert "--format jsonl holds one document" in capsys.readouterr().err
