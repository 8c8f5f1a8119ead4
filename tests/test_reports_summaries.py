"""Honest summaries (issue 28, P2): a report whose citations could none be checked says so first,
with why, in every format; the HTML and Markdown reports list the sources as the text report does.

Real audits through the CLI (`citedesk audit … --offline`) on documents written to a temporary
folder: what is asserted is what a writer reads.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.core.coverage import Coverage, NotChecked, UncheckedCitation

# two citations whose sources are links: offline, neither can be read
OFFLINE_ONLY = """# Draft

Street trees cool a block by two degrees [1]. Parks cool the streets around them [2].

## References

1. Moreau, L. (2021). "Tree canopy and afternoon heat". https://canopy.example.org/report
2. Okafor, T. (2020). "Parks and heat". https://parks.example.org/study
"""

# one citation read from a local file beside the document, one whose link is not fetched offline
HALF_LOCAL = """# Draft

Street trees cool a block by two degrees [1]. Parks cool the streets around them [2].

## References

1. Moreau, L. (2021). "Tree canopy and afternoon heat". sources/canopy.txt
2. Okafor, T. (2020). "Parks and heat". https://parks.example.org/study
"""


def audit(document: Path, capsys: pytest.CaptureFixture[str], form: str, *extra: str) -> str:
    main(
        ["audit", str(document), "--format", form, "--offline", "--judge", "heuristic", "--no-dense", *extra]
    )
    return capsys.readouterr().out


@pytest.fixture
def nothing_checked(tmp_path: Path) -> Path:
    (tmp_path / "offline").mkdir()
    document = tmp_path / "offline" / "draft.md"
    document.write_text(OFFLINE_ONLY, encoding="utf-8")
    return document


@pytest.fixture
def half_checked(tmp_path: Path) -> Path:
    (tmp_path / "half" / "sources").mkdir(parents=True)
    (tmp_path / "half" / "sources" / "canopy.txt").write_text(
        "Street trees cool a block by two degrees in the afternoon, the survey found. " * 3, encoding="utf-8"
    )
    document = tmp_path / "half" / "draft.md"
    document.write_text(HALF_LOCAL, encoding="utf-8")
    return document


def test_the_text_report_leads_with_nothing_checked_and_why(
    nothing_checked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, *rest = audit(nothing_checked, capsys, "text").splitlines()
    assert first == f"{nothing_checked}: nothing could be checked: 0 of 2 citations checked (offline 2)"
    assert "no findings" not in first
    assert not any(line.startswith("0 of 2") for line in rest)  # said once, in the headline


def test_markdown_and_html_lead_with_nothing_checked(
    nothing_checked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    markdown = audit(nothing_checked, capsys, "markdown")
    assert markdown.splitlines()[2] == "**nothing could be checked: 0 of 2 citations checked (offline 2)**"
    page = audit(nothing_checked, capsys, "html")
    lead = re.search(r"<p><strong>(.*?)</strong></p>", page)
    assert lead is not None
    assert lead.group(1) == "nothing could be checked: 0 of 2 citations checked (offline 2)"
    assert "no findings" not in page


def test_the_json_summary_says_nothing_was_checked(
    nothing_checked: Path, half_checked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = json.loads(audit(nothing_checked, capsys, "json"))["summary"]
    assert summary["nothing_checked"] is True
    assert (summary["citations"], summary["checked"], summary["unchecked_reasons"]) == (2, 0, {"offline": 2})
    summary = json.loads(audit(half_checked, capsys, "json"))["summary"]
    assert summary["nothing_checked"] is False
    assert (summary["citations"], summary["checked"]) == (2, 1)


def test_a_partly_checked_report_keeps_its_findings_headline(
    half_checked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = audit(half_checked, capsys, "text").splitlines()
    assert "nothing could be checked" not in "\n".join(lines)
    assert lines[1] == "1 of 2 citations checked; 1 not checked (offline 1)"


def test_the_coverage_sentence_the_window_shows_is_the_same() -> None:
    # the status bar's detail is Coverage.headline(): the same words as the reports
    none = Coverage(
        3, 0, tuple(UncheckedCitation(f"c{i}", str(i), NotChecked.OFFLINE, 0, 3) for i in range(3))
    )
    assert none.nothing_checked
    assert none.headline() == "nothing could be checked: 0 of 3 citations checked (offline 3)"
    some = Coverage(3, 2, none.unchecked[:1])
    assert not some.nothing_checked
    assert some.headline() == "2 of 3 citations checked; 1 not checked (offline 1)"
    assert not Coverage(0, 0).nothing_checked  # a text that cites nothing is not "nothing checked"


def test_every_format_lists_the_sources(half_checked: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = audit(half_checked, capsys, "text")
    assert (
        "Sources\n  [1] local  sources/canopy.txt\n  [2] offline  https://parks.example.org/study\n" in text
    )
    page = audit(half_checked, capsys, "html")
    section = page.split("<h2>Sources</h2>", 1)[1].split("</ul>", 1)[0]
    assert "<li>[1] local sources/canopy.txt</li>" in section
    assert "<li>[2] offline https://parks.example.org/study</li>" in section
    markdown = audit(half_checked, capsys, "markdown")
    assert "## Sources" in markdown
    assert "| [2] | offline | https://parks.example.org/study | — |" in markdown


# a file outside the allowed folders is said to be that, never "offline" ---------------------------
LINK_AND_FILE = """# Draft

Street trees cool a block by two degrees [1].

## References

1. Moreau, L. (2021). "Tree canopy and afternoon heat". https://canopy.example.org/report ../notes/canopy.txt
"""


@pytest.mark.parametrize("offline", [True, False])
def test_a_file_outside_the_allowed_folders_is_not_called_offline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], offline: bool
) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "canopy.txt").write_text(
        "Street trees cool a block by two degrees.", encoding="utf-8"
    )
    (tmp_path / "essay").mkdir()
    document = tmp_path / "essay" / "draft.md"
    document.write_text(LINK_AND_FILE.replace("example.org", "invalid"), encoding="utf-8")
    args = ["audit", str(document), "--format", "json", "--judge", "heuristic", "--no-dense"]
    main([*args, *(["--offline"] if offline else [])])
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["unchecked_reasons"] == {"file outside the allowed folders": 1}
    (source,) = report["sources"]
    assert source["status"] == "outside"
    assert f"--allow-folder {(tmp_path / 'notes').resolve()}" in source["message"]
    assert "its link was not read either" in source["message"]
    # allowed, the file is read and the citation checked
    main([*args, "--offline", "--allow-folder", str(tmp_path / "notes")])
    assert json.loads(capsys.readouterr().out)["summary"]["checked"] == 1


def test_indexes_out_of_reach_are_not_called_offline() -> None:
    from citedesk.core.reports.summaries import ReferenceTruth

    tried = ReferenceTruth("not_checked", "crossref: host not found", unreachable=True)
    assert tried.words == "no index reachable: not looked up"
    offline = ReferenceTruth("not_checked", "not checked: working offline", unreachable=True, offline=True)
    assert offline.words == "offline: not looked up"
