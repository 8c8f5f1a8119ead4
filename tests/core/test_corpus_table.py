"""The corpus table and overview of `citedesk batch` (core.reports.corpus_table, core.reports.corpus_html), from a
real JSON report: the rows a spreadsheet gets, the exit code's rule, and a page that stays safe
whatever a document's name or text holds."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from citedesk.core.reports.corpus_html import overview, render_overview
from citedesk.core.reports.corpus_table import NOT_CHECKED, failed_outcome, outcome_of, to_csv
from citedesk.core.reports.json_format import render_json
from citedesk.core.reports.report import FailPolicy
from citedesk.pipeline import AuditOptions, audit_text


def _problems(samples: Path) -> tuple[dict[str, object], str]:
    text = (samples / "problems.md").read_text(encoding="utf-8")
    report = audit_text(text, "problems.md", AuditOptions(offline=True, judge="none", check_references=False))
    return json.loads(render_json(report)), text


def test_rows_are_the_findings_and_the_citations_not_checked(samples: Path) -> None:
    report, text = _problems(samples)
    outcome = outcome_of("a/problems.md", report, text)
    findings = report["findings"]
    assert isinstance(findings, list)
    kinds = [row.kind for row in outcome.rows]
    assert kinds[: len(findings)] == [f["kind"] for f in findings]
    assert kinds.count(NOT_CHECKED) == report["summary"]["unchecked"]  # type: ignore[index]
    fabricated = next(row for row in outcome.rows if row.kind == "fabricated")
    assert fabricated.citation == "7"  # the text the finding is on: the label in its marker [7]
    assert fabricated.line == text.count("\n", 0, text.index("[2, 7]")) + 1
    offline = next(row for row in outcome.rows if row.kind == NOT_CHECKED and row.reference == "1")
    assert offline.source_status == "offline"
    assert offline.work == "https://coffee-council.example.org/consumption"


def test_the_exit_rule_is_audits() -> None:
    outcome = outcome_of(
        "d.md",
        {"findings": [{"kind": "uncited", "severity": "warning", "span": [0, 1]}], "summary": {}},
        "x",
    )
    assert outcome.fails(FailPolicy.parse("warning"))
    assert not outcome.fails(FailPolicy.parse("error"))
    assert outcome.fails(FailPolicy.parse("uncited"))
    assert not outcome.fails(FailPolicy.parse("none"))
    unchecked = outcome_of("e.md", {"findings": [], "summary": {"citations": 3, "checked": 1}}, "")
    assert unchecked.fails(FailPolicy.parse("none,unchecked"))
    assert not unchecked.fails(FailPolicy.parse("warning"))


def test_csv_quotes_what_documents_hold_and_a_failed_document_is_one_row() -> None:
    text = 'He said "no", then left,\nquickly [1].'
    report = {
        "findings": [{"kind": "fabricated", "severity": "error", "span": [0, len(text)], "reference": "1"}],
        "summary": {"citations": 1, "checked": 0},
    }
    rows = [*outcome_of("odd, name.md", report, text).rows, *failed_outcome("x.md", "binary").rows]
    read = list(csv.DictReader(io.StringIO(to_csv(rows))))
    assert read[0]["document"] == "odd, name.md"
    assert read[0]["citation"] == 'He said "no", then left, quickly [1].'  # one line, quotes kept
    assert (read[1]["document"], read[1]["error"], read[1]["kind"]) == ("x.md", "binary", "")


def test_the_overview_counts_and_escapes() -> None:
    bad = {
        "references": [{"key": "1", "doi": "10.1/RETRACTED"}],
        "findings": [
            {"kind": "retracted", "severity": "error", "span": [0, 3], "reference": "1"},
            {"kind": "uncited", "severity": "warning", "span": [0, 3]},
        ],
        "summary": {"citations": 1, "checked": 1},
    }
    outcomes = [
        outcome_of("<script>alert(1)</script>.md", bad, "[1] x"),
        outcome_of("b.md", bad, "[1] x"),
        outcome_of("c.md", {"findings": [], "summary": {}}, ""),
        failed_outcome("d.md", "<b>binary</b>"),
    ]
    seen = overview(outcomes)
    assert seen.by_kind == {"uncited": 2, "retracted": 2}
    assert seen.bad_works == [("doi:10.1/retracted", "retracted", 2)]  # one work, whatever its case
    assert [d for d, _, _ in seen.worst] == ["<script>alert(1)</script>.md", "b.md"]
    page = render_overview(outcomes, {"b.md": "reports/b.md.json"})
    assert "<script>" not in page
    assert "<b>binary</b>" not in page
    assert "&lt;b&gt;binary&lt;/b&gt;" in page
    assert '<a href="reports/b.md.json">b.md</a>' in page
    assert page.count("<rect") == 2
    assert "b.md</a> — 2 findings</li>" in page
    assert "c.md — 0 findings</li>" in page


def test_the_list_of_documents_says_one_finding_in_the_singular() -> None:
    one = {"findings": [{"kind": "uncited", "severity": "warning", "span": [0, 3]}], "summary": {}}
    page = render_overview([outcome_of("a.md", one, "abc")], {})
    assert "a.md — 1 finding</li>" in page


def test_a_key_that_names_no_work_is_never_merged_across_documents() -> None:
    """`[7]` cites nothing in a.md and nothing in b.md: two different faults, not one work cited twice."""
    fabricated = {
        "references": [],
        "findings": [{"kind": "fabricated", "severity": "error", "span": [0, 3], "reference": "7"}],
        "summary": {"citations": 1, "checked": 0},
    }
    seen = overview([outcome_of("a.md", fabricated, "[7] x"), outcome_of("b.md", fabricated, "[7] x")])
    assert sorted(seen.bad_works) == [("[7] in a.md", "fabricated", 1), ("[7] in b.md", "fabricated", 1)]
