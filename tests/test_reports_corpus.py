"""Multi-file audits (issue 28, P2): what is true of every file is said once, each error once, and
the JSON summary's rows count what the single-file summary counts.

Real audits through the CLI on chapters written to a temporary folder. `.invalid` hosts never
resolve (RFC 2606), so "no host could be reached" is what this machine really finds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citedesk.cli import main

JUDGE = ["--judge", "heuristic", "--no-dense"]
NO_HOST = "No host could be reached: this machine seems to be offline."
RETRACTIONS = "retractions: offline, and no Retraction Watch snapshot has been imported"


def chapter(folder: Path, name: str, claim: str, host: str) -> Path:
    path = folder / name
    path.write_text(
        f"# {name}\n\n{claim} [1].\n\n## References\n\n[1] Moreau. Canopy. https://{host}.invalid/report\n",
        encoding="utf-8",
    )
    return path


def with_doi(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text(
        f"# {name}\n\nCoffee lowers the risk of diabetes [1].\n\n## References\n\n"
        "[1] Ding, M. (2014). Coffee and diabetes. Diabetes Care, 37, 569–586. https://doi.org/10.2337/DC13-1203\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def chapters(tmp_path: Path) -> list[Path]:
    return [
        chapter(tmp_path, "01-trees.md", "Trees cool streets in summer", "canopy"),
        chapter(tmp_path, "02-parks.md", "Parks cut heat deaths by half", "parks"),
    ]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["audit", *args, *JUDGE])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_corpus_wide_notice_is_said_once_before_the_files(
    chapters: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, alone, _ = run(capsys, str(chapters[0]))
    assert alone.count(NO_HOST) == 1  # one file: said in its report, as before
    _, text, _ = run(capsys, *map(str, chapters))
    assert text.count(NO_HOST) == 1
    assert text.startswith("For every file\n  note: " + NO_HOST)
    assert text.index(NO_HOST) < text.index(f"{chapters[0]}: ")
    _, markdown, _ = run(capsys, *map(str, chapters), "--format", "markdown")
    assert markdown.count(NO_HOST) == 1
    assert markdown.startswith("## For every file\n\n- note: " + NO_HOST)


def test_the_json_keeps_each_report_whole_and_says_the_notice_once(
    chapters: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(capsys, *map(str, chapters), "--format", "json")
    combined = json.loads(out)
    assert all(NO_HOST in " ".join(report["notices"]) for report in combined["files"])
    assert [n for n in combined["summary"]["notices"] if n.startswith(NO_HOST)] != []


def test_the_retraction_note_is_said_once_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(with_doi(tmp_path, "01.md")), str(with_doi(tmp_path, "02.md"))]
    _, text, _ = run(capsys, *files, "--offline")
    assert text.count(RETRACTIONS) == 1
    assert text.startswith("For every file\n")


def test_the_json_summary_rows_count_as_the_single_file_summary(
    chapters: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "03-missing.md"
    _, out, _ = run(capsys, *map(str, chapters), str(missing), "--format", "json", "--offline")
    combined = json.loads(out)
    rows = combined["summary"]["files"]
    for row, report in zip(rows, combined["files"][:2], strict=False):
        single = report["summary"]
        for name in (
            "citations",
            "checked",
            "unchecked",
            "unchecked_reasons",
            "by_severity",
            "nothing_checked",
        ):
            assert row[name] == single[name], name
        assert row["findings"] == single["total"]
    assert rows[0]["unchecked_reasons"] == {"offline": 1}
    assert rows[0]["nothing_checked"] is True
    assert "does not exist" in rows[2]["error"]
    assert rows[2]["by_severity"] == {"error": 0, "warning": 0, "info": 0}
    total = combined["summary"]["total"]
    assert (total["citations"], total["checked"], total["unchecked"]) == (2, 0, 2)
    assert total["unchecked_reasons"] == {"offline": 2}
    assert total["nothing_checked"] is True
    assert total["by_severity"] == {
        severity: sum(r["by_severity"][severity] for r in rows) for severity in ("error", "warning", "info")
    }


def test_each_error_is_printed_once(
    chapters: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "03-missing.md"
    code, text, _ = run(capsys, str(chapters[0]), str(missing), "--offline")
    assert code == 2
    assert text.count("does not exist") == 1  # in its row of the summary table
    row = next(line for line in text.splitlines() if line.startswith(str(missing)))
    assert "error:" in row
    assert "does not exist" in row
