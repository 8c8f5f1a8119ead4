"""The `citedesk` command, run in-process through main() and as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.cli.parser import build_parser
from tests.conftest import REPO, SAMPLES

GOLDEN = Path(__file__).parent / "golden"


def run_cli(*args: str) -> tuple[int, str, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "citedesk", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
    )
    return proc.returncode, proc.stdout, proc.stderr


def stable(report: dict[str, object]) -> dict[str, object]:
    """A report with what differs between machines taken out: the checkout's folder, today's date."""
    if "files" in report:  # a project: one report per file
        return {**report, "files": [stable(part) for part in report["files"]]}  # type: ignore[attr-defined]
    report = json.loads(json.dumps(report).replace(str(REPO) + "/", ""))
    report["document"] = Path(str(report["document"])).name
    # quality's recency depends on today's date; its components are tested on their own
    report["sources"] = [{k: v for k, v in s.items() if k != "quality"} for s in report["sources"]]  # type: ignore[attr-defined]
    return report


GOLDEN_SAMPLES = {  # name: (sample, exit code)
    "clean": ("clean.md", 0),
    "problems": ("problems.md", 1),
    "evidence": ("evidence.md", 1),
    "pandoc": ("pandoc.md", 1),
    "thesis": ("thesis/thesis.tex", 1),
    "word": ("word/paper.docx", 0),
}


@pytest.mark.parametrize("name", list(GOLDEN_SAMPLES))
def test_json_report_matches_golden(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Every format's sample keeps its report byte for byte (a refactor of the readers must not move a finding)."""
    # words-only heuristic judge: pure-Python arithmetic, identical on every machine
    args = [
        "audit",
        str(SAMPLES / GOLDEN_SAMPLES[name][0]),
        "--format",
        "json",
        "--offline",
        "--judge",
        "heuristic",
    ]
    code = main([*args, "--no-dense"])
    report = stable(json.loads(capsys.readouterr().out))
    golden_path = GOLDEN / f"{name}.json"
    if os.environ.get("CITEDESK_UPDATE_GOLDEN"):
        golden_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert report == json.loads(golden_path.read_text(encoding="utf-8"))
    assert code == GOLDEN_SAMPLES[name][1]


def test_json_contract_fields(capsys: pytest.CaptureFixture[str]) -> None:
    main(["audit", str(SAMPLES / "problems.md"), "--format", "json", "--offline"])
    report = json.loads(capsys.readouterr().out)
    text = (SAMPLES / "problems.md").read_text(encoding="utf-8")
    assert report["version"] == 1
    assert {"document", "references", "claims", "findings"} <= set(report)
    for finding in report["findings"]:
        start, end = finding["span"]
        assert 0 <= start <= end <= len(text)
        assert {"kind", "severity", "line", "column", "reference", "message", "fixes"} <= set(finding)
        for fix in finding["fixes"]:
            for edit in fix["edits"]:
                assert {"start", "end", "replacement"} == set(edit)
    claim = next(c for c in report["claims"] if c["markers"] == ["2", "7"])
    assert [v["label"] for v in claim["verdicts"]] == ["unchecked", "unchecked"]
    fabricated = next(f for f in report["findings"] if f["kind"] == "fabricated")
    assert text[fabricated["span"][0] : fabricated["span"][1]] == "7"
    assert (fabricated["line"], fabricated["reference"]) == (5, "7")


def test_text_report_is_grouped_with_line_and_sentence() -> None:
    code, out, _ = run_cli("audit", "resources/samples/problems.md", "--offline")
    assert code == 1
    assert "Fabricated citation (1)" in out
    assert "5:" in out
    assert "each additional daily cup" in out
    assert "fix: Remove [7]" in out


@pytest.mark.parametrize(("fmt", "needle"), [("markdown", "| where |"), ("html", "<mark class=")])
def test_other_formats_to_file(fmt: str, needle: str, tmp_path: Path) -> None:
    out = tmp_path / f"report.{fmt}"
    assert main(["audit", str(SAMPLES / "problems.md"), "--format", fmt, "--out", str(out)]) == 1
    assert needle in out.read_text(encoding="utf-8")


def test_fail_on_policies() -> None:
    problems = str(SAMPLES / "problems.md")
    assert main(["audit", problems, "--fail-on", "none", "--format", "json", "--out", os.devnull]) == 0
    assert main(["audit", problems, "--fail-on", "error", "--format", "json", "--out", os.devnull]) == 1
    assert (
        main(["audit", problems, "--fail-on", "doi_mismatch", "--format", "json", "--out", os.devnull]) == 0
    )
    assert main(["audit", problems, "--fail-on", "fabricated", "--format", "json", "--out", os.devnull]) == 1


def test_fail_on_a_severity_mixed_with_kinds_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    problems = str(SAMPLES / "problems.md")
    assert main(["audit", problems, "--fail-on", "error,fabricated", "--out", os.devnull]) == 2
    assert "one severity ('error' alone) or a list of finding kinds, not both" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x00\x01binary\x00" * 50, "binary"),
        (None, "does not exist"),
    ],
)
def test_unreadable_input_exits_2_without_traceback(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    path = tmp_path / "doc.md"
    if content is not None:
        path.write_bytes(content)
    code, _out, err = run_cli("audit", str(path))
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_bad_usage_exits_2() -> None:
    code, _, err = run_cli("audit", "resources/samples/clean.md", "--fail-on", "bogus")
    assert code == 2
    assert "unknown finding kind" in err
    code, _, err = run_cli("audit")
    assert code == 2
    assert "Traceback" not in err


def test_empty_and_referenceless_documents(tmp_path: Path) -> None:
    empty = tmp_path / "empty.md"
    empty.write_text("", encoding="utf-8")
    assert main(["audit", str(empty)]) == 0
    bare = tmp_path / "bare.md"
    bare.write_text("Water boils at 100 °C at sea level [1].\n", encoding="utf-8")
    assert main(["audit", str(bare), "--fail-on", "fabricated", "--format", "json", "--out", os.devnull]) == 1


def test_fix_writes_atomically_and_keeps_a_backup(tmp_path: Path) -> None:
    doc = tmp_path / "problems.md"
    original = (SAMPLES / "problems.md").read_bytes()
    doc.write_bytes(original)
    code, _, err = run_cli(
        "fix", str(doc), "--kinds", "fabricated,orphan_reference,malformed_marker", "--renumber"
    )
    assert code == 1, err  # fixed what it was asked to; two uncited sentences (warnings) remain
    assert "2 finding(s) at or above --fail-on warning remain (uncited 2" in err
    fixed = doc.read_text(encoding="utf-8")
    assert (tmp_path / "problems.md.citedesk-backup").read_bytes() == original
    assert "[2, 7]" not in fixed
    assert "about 7% [2]." in fixed
    assert "[1, 2]." in fixed
    assert "[1,,2]" not in fixed
    assert "Poole" not in fixed
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    code, out, _ = run_cli("audit", str(doc), "--fail-on", "fabricated,orphan_reference,malformed_marker")
    assert code == 0, out


def test_fix_dry_run_changes_nothing(tmp_path: Path) -> None:
    doc = tmp_path / "p.md"
    doc.write_bytes((SAMPLES / "problems.md").read_bytes())
    code, out, _ = run_cli("fix", str(doc), "--kinds", "fabricated", "--dry-run", "--fail-on", "none")
    assert code == 0
    assert "about 7% [2]." in out
    assert doc.read_bytes() == (SAMPLES / "problems.md").read_bytes()


def test_fix_keeps_encoding_and_line_endings(tmp_path: Path) -> None:
    doc = tmp_path / "legacy.md"
    text = (
        "Caf\u00e9 prices rose 12% in 2020 [1][4].\r\n\r\n## References\r\n\r\n[1] A. https://a.example\r\n"
    )
    doc.write_bytes(("---\r\nencoding: latin-1\r\n---\r\n" + text).encode("latin-1"))
    assert main(["fix", str(doc), "--kinds", "fabricated"]) == 0
    assert doc.read_bytes().decode("latin-1").endswith(text.replace("[1][4]", "[1]"))


def test_version_and_module_entry_point() -> None:
    code, out, _ = run_cli("--version")
    assert code == 0
    assert out.startswith("citedesk ")


def test_a_setting_not_given_on_the_command_line_is_none_so_the_files_show_through() -> None:
    """Layering (citedesk.config) needs "not given" apart from "given as the default"."""
    args = build_parser().parse_args(["audit", "draft.md"])
    unset = ("judge", "timeout", "offline", "dense", "zotero", "format", "fail_on", "assist", "allow_folder")
    assert {name: getattr(args, name) for name in unset} == dict.fromkeys(unset)
    args = build_parser().parse_args(
        ["audit", "d.md", "--offline", "--no-dense", "--no-zotero", "--no-offline"]
    )
    assert (args.offline, args.dense, args.zotero) == (False, False, False)  # the last flag wins
    assert build_parser().parse_args(["fix", "d.md"]).kinds is None


def test_config_commands_in_a_real_process(tmp_path: Path) -> None:
    """`config show` and a settings file that is wrong, through the real entry point: exit 2 and one
    line naming the file and the key, never a traceback."""
    settings = tmp_path / "config.toml"
    settings.write_text('judge = "heuristic"\n', encoding="utf-8")
    env = {**os.environ, "CITEDESK_CONFIG": str(settings)}
    proc = subprocess.run(
        [sys.executable, "-m", "citedesk", "config", "show", "--offline"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert proc.returncode == 0
    lines = {line.split()[0]: line.split()[-2:] for line in proc.stdout.splitlines()}
    assert lines["judge"] == ["file", str(settings)]
    assert lines["offline"] == ["command", "line"]
    settings.write_text("judge = heuristic\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "citedesk", "audit", str(SAMPLES / "clean.md"), "--offline"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"citedesk: {settings}: not valid TOML: ")
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
