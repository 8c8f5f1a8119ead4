"""Exit codes a CI gate can trust (issue 28): `--fail-on unchecked` exits 1 when citations could
not be checked, and `fix` exits 1 when findings at or above `--fail-on` remain after the fixes it
could apply. In-process through `main`, on the bundled samples and small documents in tmp_path."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.core.reports.report import FailPolicy
from citedesk.errors import UsageError
from tests.conftest import SAMPLES

UNCHECKED = ["--offline", "--no-sources"]  # every citation "not checked: sources not checked"
CHECKED = ["--offline", "--judge", "heuristic", "--no-dense"]  # the clean sample's local sources


def test_fail_on_parses_unchecked_alone_or_added() -> None:
    assert FailPolicy.parse("unchecked") == FailPolicy(None, unchecked=True)
    assert FailPolicy.parse("warning,unchecked") == FailPolicy(unchecked=True)
    assert FailPolicy.parse("fabricated, unchecked").kinds == FailPolicy.parse("fabricated").kinds
    assert not FailPolicy.parse("warning").unchecked
    with pytest.raises(UsageError, match="unchecked"):
        FailPolicy.parse("uncheked")


def test_nothing_checked_is_exit_0_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(SAMPLES / "clean.md"), *UNCHECKED]) == 0


@pytest.mark.parametrize("spec", ["unchecked", "warning,unchecked", "error,unchecked"])
def test_fail_on_unchecked_exits_1_when_citations_were_not_checked(
    spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", str(SAMPLES / "clean.md"), *UNCHECKED, "--fail-on", spec]) == 1
    err = capsys.readouterr().err
    assert "0 of 5 citations checked" in err
    assert "--fail-on unchecked" in err


def test_fail_on_unchecked_exits_0_when_every_citation_was_checked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        main(["audit", str(SAMPLES / "clean.md"), *CHECKED, "--format", "json", "--fail-on", "unchecked"])
        == 0
    )
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert (summary["citations"], summary["checked"], summary["total"]) == (5, 5, 0)  # the report agrees


def test_fail_on_unchecked_alone_does_not_fail_on_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = tmp_path / "draft.md"  # a reference cited by nothing (a warning), and no citation
    draft.write_text(
        "# Essay\n\nTea is calmer.\n\n## References\n\n1. Smith J. Tea. 2020.\n", encoding="utf-8"
    )
    assert main(["audit", str(draft), "--no-sources"]) == 1  # the default: warning
    assert main(["audit", str(draft), "--no-sources", "--fail-on", "unchecked"]) == 0  # none unchecked
    assert main(["audit", str(draft), "--no-sources", "--fail-on", "warning,unchecked"]) == 1


def test_fail_on_unchecked_in_jsonl_and_for_several_files(capsys: pytest.CaptureFixture[str]) -> None:
    clean = str(SAMPLES / "clean.md")
    assert main(["audit", clean, *UNCHECKED, "--format", "jsonl", "--fail-on", "unchecked"]) == 1
    assert main(["audit", clean, clean, *UNCHECKED, "--fail-on", "unchecked"]) == 1
    assert main(["audit", clean, clean, *UNCHECKED]) == 0


def test_fail_on_unchecked_from_a_settings_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = tmp_path / "config.toml"
    settings.write_text('fail_on = "warning,unchecked"\n', encoding="utf-8")
    monkeypatch.setenv("CITEDESK_CONFIG", str(settings))
    assert main(["audit", str(SAMPLES / "clean.md"), *UNCHECKED]) == 1
    assert (
        main(["audit", str(SAMPLES / "clean.md"), *UNCHECKED, "--fail-on", "warning"]) == 0
    )  # the flag wins


# --- fix ---------------------------------------------------------------------------------------------
ORPHAN_ONLY = """# Essay

Coffee raises alertness in the morning [1].

## References

1. Smith J. Coffee and alertness. Journal of Sleep. 2020.
2. Jones K. An unrelated work nobody cites. 2019.
"""

ORPHAN_AND_MISSING = ORPHAN_ONLY.replace("[1].", "[1]. Tea is calmer [7].")


def _draft(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "draft.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_fix_exits_0_when_it_fixed_everything(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    draft = _draft(tmp_path, ORPHAN_ONLY)
    assert main(["fix", str(draft), "--kinds", "orphan_reference", "--no-sources"]) == 0
    assert "Jones" not in draft.read_text(encoding="utf-8")
    assert "remain" not in capsys.readouterr().err


def test_fix_exits_1_when_findings_at_or_above_fail_on_remain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = _draft(tmp_path, ORPHAN_AND_MISSING)
    assert main(["fix", str(draft), "--kinds", "orphan_reference", "--no-sources"]) == 1
    assert "Jones" not in draft.read_text(encoding="utf-8")  # what it could fix, it fixed
    err = capsys.readouterr().err
    assert "remain (fabricated 1" in err
    assert "--fail-on warning" in err


def test_fix_fail_on_is_audits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    draft = _draft(tmp_path, ORPHAN_AND_MISSING)
    assert (
        main(
            [
                "fix",
                str(draft),
                "--kinds",
                "orphan_reference",
                "--no-sources",
                "--dry-run",
                "--fail-on",
                "none",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "fix",
                str(draft),
                "--kinds",
                "orphan_reference",
                "--no-sources",
                "--dry-run",
                "--fail-on",
                "uncited",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "fix",
                str(draft),
                "--kinds",
                "orphan_reference",
                "--no-sources",
                "--dry-run",
                "--fail-on",
                "error",
            ]
        )
        == 1
    )
    # the dry run wrote nothing, and its exit code is for the result it printed
    assert draft.read_text(encoding="utf-8") == ORPHAN_AND_MISSING


def test_fix_with_nothing_to_fix_still_exits_1_on_what_remains(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = _draft(
        tmp_path, ORPHAN_AND_MISSING.replace("2. Jones K. An unrelated work nobody cites. 2019.\n", "")
    )
    assert main(["fix", str(draft), "--kinds", "orphan_reference", "--no-sources"]) == 1
    assert "nothing to fix" in capsys.readouterr().err


def test_fix_of_source_kinds_checks_the_result_with_a_whole_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "samples"
    shutil.copytree(SAMPLES, folder)
    clean = folder / "clean.md"
    before = clean.read_text(encoding="utf-8")
    assert main(["fix", str(clean), "--kinds", "all", *CHECKED, "--fail-on", "warning,unchecked"]) == 0
    assert clean.read_text(encoding="utf-8") == before  # nothing to fix, nothing unchecked
    assert main(["fix", str(clean), "--kinds", "all", *UNCHECKED, "--fail-on", "warning,unchecked"]) == 1
    assert "--fail-on unchecked" in capsys.readouterr().err


def test_structural_fixes_do_not_fail_on_unchecked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = _draft(tmp_path, ORPHAN_ONLY)
    assert (
        main(["fix", str(draft), "--kinds", "orphan_reference", "--fail-on", "unchecked", "--offline"]) == 0
    )
