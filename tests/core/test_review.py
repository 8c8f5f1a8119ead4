"""Review decisions: keyed by what a finding is about, kept in the real store, honoured by audits."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.core.document.model import Document
from citedesk.core.findings import Finding, Kind
from citedesk.core.reading import parse_document
from citedesk.core.reports.json_format import render_json
from citedesk.core.reports.markdown_format import render_markdown
from citedesk.core.reports.report import FailPolicy, Report
from citedesk.core.review import Decision, document_key, review_key
from citedesk.errors import UsageError
from citedesk.pipeline import AuditOptions, audit_text
from citedesk.store import Store
from tests.conftest import SAMPLES

TEXT = (
    "Intro line that is fine.\n\n"
    "Coffee is one of the most widely consumed drinks in the world [9].\n\n"
    "Tea was first drunk in China around 2737 BC.\n\n"
    "## References\n\n[1] A title. https://example.org/a\n"
)


def _finding(text: str, kind: Kind) -> tuple[Document, Finding]:
    from citedesk.core.checks import structural_findings

    document = parse_document(text, "doc.md")
    return document, next(f for f in structural_findings(document) if f.kind is kind)


def test_key_survives_edits_elsewhere_but_not_to_its_sentence() -> None:
    doc, finding = _finding(TEXT, Kind.FABRICATED)
    key = review_key(doc, finding)
    moved_doc, moved = _finding("A new first paragraph was added here.\n\n" + TEXT, Kind.FABRICATED)
    assert moved.start != finding.start
    assert review_key(moved_doc, moved) == key
    edited_doc, edited = _finding(TEXT.replace("widely consumed", "widely drunk"), Kind.FABRICATED)
    assert review_key(edited_doc, edited) != key
    other_kind_doc, uncited = _finding(TEXT, Kind.UNCITED)
    assert review_key(other_kind_doc, uncited) != key


def test_key_changes_when_the_cited_source_changes() -> None:
    doc, finding = _finding(TEXT, Kind.FABRICATED)
    finding = replace(finding, reference="1")
    assert review_key(doc, finding, {"1": "aaaa"}) != review_key(doc, finding, {"1": "bbbb"})
    assert review_key(doc, finding, {"1": "aaaa"}) == review_key(doc, finding, {"1": "aaaa"})


def test_decision_names_parse_and_refuse_nonsense() -> None:
    assert Decision.parse("false-alarm") is Decision.FALSE_ALARM
    assert Decision.parse("ignore") is Decision.FALSE_ALARM
    assert Decision.parse("Needs source") is Decision.NEEDS_SOURCE
    with pytest.raises(UsageError, match="choose confirmed"):
        Decision.parse("maybe")


def _audit(path: Path, store: Path, *, reviews: bool = True) -> Report:
    options = AuditOptions(check_sources=False, store_path=store, reviews=reviews)
    return audit_text(path.read_text(), str(path), options)


def test_false_alarm_is_dismissed_until_its_sentence_changes(tmp_path: Path) -> None:
    doc_path, store_path = tmp_path / "doc.md", tmp_path / "store.sqlite3"
    doc_path.write_text(TEXT)
    report = _audit(doc_path, store_path)
    fabricated = next(f for f in report.findings if f.kind is Kind.FABRICATED)
    store = Store(store_path)
    store.put_review(document_key(str(doc_path)), report.key_of(fabricated), "false_alarm", note="typo")
    store.close()

    again = _audit(doc_path, store_path)
    assert [f.kind for f in again.dismissed] == [Kind.FABRICATED]
    assert Kind.FABRICATED not in {f.kind for f in again.findings}
    assert again.review_progress() == (1, len(report.findings))
    data = json.loads(render_json(again))
    assert data["dismissed"][0]["review"]["decision"] == "false_alarm"
    assert data["dismissed"][0]["review"]["note"] == "typo"
    assert data["review"] == {"reviewed": 1, "total": len(report.findings)}
    assert "Dismissed as false alarms (1)" in render_markdown(again)

    doc_path.write_text("Another paragraph at the top.\n\n" + TEXT)
    assert [f.kind for f in _audit(doc_path, store_path).dismissed] == [Kind.FABRICATED]
    doc_path.write_text(TEXT.replace("most widely", "most commonly"))
    changed = _audit(doc_path, store_path)
    assert changed.dismissed == []
    assert Kind.FABRICATED in {f.kind for f in changed.findings}
    assert _audit(doc_path, store_path, reviews=False).dismissed == []


def test_reviews_belong_to_their_document(tmp_path: Path) -> None:
    first, second, store_path = tmp_path / "a.md", tmp_path / "b.md", tmp_path / "store.sqlite3"
    first.write_text(TEXT)
    second.write_text(TEXT)
    report = _audit(first, store_path)
    store = Store(store_path)
    for finding in report.findings:
        store.put_review(document_key(str(first)), report.key_of(finding), "false_alarm")
    store.close()
    assert _audit(first, store_path).findings == []
    assert len(_audit(second, store_path).findings) == len(report.findings)
    store = Store(store_path)
    store.move_reviews(document_key(str(first)), document_key(str(second)))
    store.close()
    assert _audit(second, store_path).findings == []


def test_cli_review_makes_a_reviewed_document_pass_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "problems.md"
    shutil.copy(SAMPLES / "problems.md", doc)
    store = str(tmp_path / "store.sqlite3")
    common = ["--no-sources", "--store", store]
    assert main(["audit", str(doc), "--fail-on", "error", *common]) == 1
    capsys.readouterr()
    assert main(["review", str(doc), *common]) == 0
    listing = capsys.readouterr().out
    rows = [line for line in listing.splitlines() if line[:4].strip().rstrip(".").isdigit()]
    errors = [int(r.split(".")[0]) for r in rows if " fabricated " in r or " malformed_marker " in r]
    assert errors
    assert f"0 of {len(rows)} reviewed" in listing
    for number in errors:
        assert main(["review", str(doc), "--mark", str(number), "false_alarm", "--note", "ok", *common]) == 0
    assert main(["audit", str(doc), "--fail-on", "error", *common]) == 0
    assert main(["audit", str(doc), "--fail-on", "error", "--ignore-reviews", *common]) == 1
    capsys.readouterr()
    main(["review", str(doc), *common])
    listing = capsys.readouterr().out
    assert f"{len(errors)} of {len(rows)} reviewed" in listing
    assert "[False alarm: ok]" in listing
    assert main(["review", str(doc), "--clear", str(errors[0]), *common]) == 0
    assert main(["audit", str(doc), "--fail-on", "error", *common]) == 1
    assert main(["review", str(doc), "--mark", "999", "confirmed", *common]) == 2
    assert main(["review", str(doc), "--mark", "1", "perhaps", *common]) == 2


def test_fail_policy_ignores_dismissed_findings(tmp_path: Path) -> None:
    doc_path, store_path = tmp_path / "doc.md", tmp_path / "store.sqlite3"
    doc_path.write_text(TEXT)
    report = _audit(doc_path, store_path)
    confirmed = next(f for f in report.findings if f.kind is Kind.FABRICATED)
    store = Store(store_path)
    store.put_review(document_key(str(doc_path)), report.key_of(confirmed), "confirmed")
    store.close()
    again = _audit(doc_path, store_path)
    assert again.failing(FailPolicy.parse("error"))  # confirmed still fails
    review = again.review_of(next(f for f in again.findings if f.kind is Kind.FABRICATED))
    assert review is not None
    assert review.decision is Decision.CONFIRMED
