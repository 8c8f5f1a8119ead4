"""Report formats: one module each behind `core.reports.ReportFormat`, in one table, which the
command line's `--format`, the settings' `format`, `--out`'s suffix and a corpus's reports read."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.cli.parser import build_parser
from citedesk.core.reports import export_filters, export_path, format_names, format_of_path, report_formats
from citedesk.errors import UsageError
from tests import toy_report_format
from tests.conftest import SAMPLES

FLAGS = ["--offline", "--judge", "heuristic", "--no-dense"]


def _format_choices() -> list[str]:
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    [given] = [a for a in commands.choices["audit"]._actions if "--format" in a.option_strings]
    return list(given.choices or ())


def test_each_format_has_its_own_name_and_suffix() -> None:
    formats = report_formats()
    assert {f.name for f in formats} >= {"text", "json", "markdown", "html", "jsonl"}
    assert len({f.name for f in formats}) == len({f.suffix for f in formats}) == len(formats)
    assert _format_choices() == list(format_names())
    assert export_filters().split(";;")[0] == "HTML (*.html)"  # the default export first
    assert format_of_path("r.MD").name == "markdown"
    assert format_of_path("report").name == "html"


def test_a_format_registered_in_one_module_is_a_choice_an_export_and_a_filter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = str(SAMPLES / "problems.md")
    assert "toy" not in _format_choices()
    with toy_report_format.registered():
        assert "toy" in _format_choices()
        assert "Toy lines (*.toy)" in export_filters().split(";;")
        assert main(["audit", sample, "--format", "toy", *FLAGS]) == 1
        printed = capsys.readouterr().out
        assert "TOY fabricated 320\n" in printed
        out = tmp_path / "report.toy"
        assert main(["audit", sample, "--format", "toy", "--out", str(out), *FLAGS]) == 1
        assert out.read_text(encoding="utf-8") == printed
        project = tmp_path / "citedesk.toml"  # a project file may choose it too
        project.write_text('format = "toy"\n', encoding="utf-8")
        document = tmp_path / "doc.md"
        document.write_text((SAMPLES / "problems.md").read_text(encoding="utf-8"), encoding="utf-8")
        assert main(["audit", str(document), *FLAGS]) == 1
        assert capsys.readouterr().out == printed
        # one document per output: not for several
        other = tmp_path / "other.md"
        other.write_text("Trees cool streets [1].\n", encoding="utf-8")
        assert main(["audit", str(document), str(other), "--format", "toy", *FLAGS]) == 2
        assert (
            "--format toy holds one document: use --format json, markdown or text" in capsys.readouterr().err
        )
    assert "toy" not in _format_choices()
    with pytest.raises(SystemExit) as refused:
        main(["audit", sample, "--format", "toy", *FLAGS])
    assert refused.value.code == 2
    assert "invalid choice: 'toy'" in capsys.readouterr().err


def test_a_format_for_several_documents_renders_each_of_them_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`citedesk audit A B --format NAME` with a format that holds several: each document in that
    format (before, any format but Markdown and JSON was written as text)."""
    first, second = tmp_path / "a.md", tmp_path / "b.md"
    first.write_text(
        "Trees cool streets [1].\n\n## References\n\n1. Oke T. (2017). Urban climates.\n", encoding="utf-8"
    )
    second.write_text("Trees cool streets [2].\n", encoding="utf-8")
    with toy_report_format.registered(several=True):
        assert main(["audit", str(first), str(second), "--format", "toy", *FLAGS]) == 1
    printed = capsys.readouterr().out
    assert printed.startswith("TOY nothing\n\nTOY fabricated 19\n\nSummary\n")  # a.md, then b.md


def test_jsonl_is_written_while_the_audit_runs_not_exported() -> None:
    [jsonl] = [f for f in report_formats() if f.name == "jsonl"]
    assert not jsonl.finished
    assert "(*.jsonl)" not in export_filters()
    with pytest.raises(UsageError, match="written while the audit runs"):
        jsonl.render(None)  # type: ignore[arg-type]


def test_a_corpus_writes_each_report_in_the_json_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text((SAMPLES / "problems.md").read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "out"
    main(
        ["batch", str(corpus), "--out", str(out), "--workers", "1", "--store", str(tmp_path / "s.db"), *FLAGS]
    )
    capsys.readouterr()
    report = json.loads((out / "reports" / "a.md.json").read_text(encoding="utf-8"))
    assert report["version"] == 1
    assert 'href="reports/a.md.json"' in (out / "index.html").read_text(encoding="utf-8")


def test_an_export_named_without_a_suffix_takes_the_chosen_filters() -> None:
    assert export_path("/x/report", "Markdown (*.md)") == Path("/x/report.md")
    assert export_path("/x/report.json", "Markdown (*.md)") == Path("/x/report.json")  # as typed
    assert export_path("/x/notes.v2", "HTML (*.html)") == Path("/x/notes.v2.html")
    assert export_path("/x/report", "") == Path("/x/report")  # no filter: the default, by suffix
