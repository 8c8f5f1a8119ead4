"""A citation in a heading counts (issue 38): a chapter whose headings cite `[@garcia2018]` and
`[@nosuchkey2001]` reports them among its citations, each not checked with its reason, so "N of M
citations checked" adds up with the keys the checks read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citedesk.cli import main

BIB = (
    "@article{garcia2018, author={Garcia, Ana}, title={Bees in parks}, year={2018}}\n"
    "@article{lee2020, author={Lee, Kim}, title={Hives in small parks}, year={2020}}\n"
)
CHAPTER = """---
bibliography: refs.bib
---
# Bees in cities [@garcia2018]

Urban hives doubled between 2010 and 2020 in most large cities [@lee2020].

## Rules [@nosuchkey2001]

Managers in twelve cities now limit hives in small parks [@lee2020; @garcia2018].
"""


def test_heading_citations_are_counted_and_say_why_they_are_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    chapter = tmp_path / "chapter.md"
    chapter.write_text(CHAPTER, encoding="utf-8")
    main(["audit", str(chapter), "--offline", "--judge", "heuristic", "--no-dense", "--format", "json"])
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["citations"] == 5
    assert summary["checked"] + summary["unchecked"] == 5
    reasons = summary["unchecked_reasons"]
    assert reasons["in a heading: no sentence to judge"] == 1
    assert reasons["key not in the bibliography"] == 1
    main(["audit", str(chapter), "--offline", "--judge", "heuristic", "--no-dense"])
    shown = capsys.readouterr().out
    assert "Not checked (5 citations)" in shown
    assert "@garcia2018 in a heading: no sentence to judge — cited on line 4" in shown
    assert "@nosuchkey2001 key not in the bibliography — cited on line 8" in shown
