"""Claude's citation suggestions for a pandoc document (`[@key]`), as for a numbered one (issue 28):
the same checks (prose unchanged, real keys only, the local judge confirms, the audit agrees), the
request written in the document's citation syntax, and the fix spelled by the pandoc dialect
wherever and however Claude wrote the citation."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from citedesk.assist.insert import (
    MAX_LISTED,
    SYSTEM,
    check_insertion,
    is_insertion_system,
    request_for,
    what_would_be_sent,
)
from citedesk.cli import main
from citedesk.core.document.works import BibReference
from citedesk.core.reading import parse_document
from tests.conftest import SAMPLES
from tests.helpers.messages_api import (
    FakeMessages,
    by_task,
    last_user_text,
    message,
    messages_api,
    sentence_of,
)

UNCITED = (
    "Young street trees need regular watering during their first three summers, and about 20% of "
    "newly planted trees die within five years, most often from drought."
)
DOCUMENT = f"""---
title: Street trees
bibliography: sample.bib
---

Cities are warmer than the countryside around them, an effect known as the urban heat island [@climateoffice].

{UNCITED}
"""


@pytest.fixture
def document(tmp_path: Path) -> Path:
    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    shutil.copy(SAMPLES / "sample.bib", tmp_path / "sample.bib")
    path = tmp_path / "trees.md"
    path.write_text(DOCUMENT, encoding="utf-8")
    return path


@pytest.fixture
def claude_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret")


def _cite(citation: str, change: tuple[str, str] | None = None) -> Any:
    """An insertion answer that adds `citation` before the sentence's full stop."""

    def answer(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        cited = re.sub(r"\.(\s*)$", f" {citation}.\\1", sentence_of(body), count=1)
        if change:
            cited = cited.replace(*change)
        return message(json.dumps({"sentence": cited}))

    return answer


def _run(document: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    flags = ["--offline", "--judge", "heuristic", "--no-dense", "--assist", "claude"]
    main([args[0], str(document), *flags, *args[1:]])
    return capsys.readouterr().out


def _uncited(report: dict[str, Any]) -> dict[str, Any]:
    return next(f for f in report["findings"] if f["kind"] == "uncited")


def _works() -> tuple[BibReference, ...]:
    from citedesk.sources.citeworks import cited_works

    cited = cited_works(DOCUMENT, SAMPLES / "trees.md", ())
    assert cited is not None
    return cited.works


# --- the deterministic parts ---------------------------------------------------------------------
def test_a_pandoc_answer_is_read_as_pandoc_citations_of_the_bibliography() -> None:
    pandoc = parse_document(DOCUMENT, None, _works())
    original = pandoc.text
    keys = {work.key for work in pandoc.works}
    cited = original.replace("drought.", "drought [@forestry2019].")
    assert check_insertion(original, cited, keys, like=pandoc).added == ("forestry2019",)
    # read as a numbered document (as before), `[@forestry2019]` would be prose the answer added
    assert not check_insertion(original, cited, keys).accepted
    changed = cited.replace("regular watering", "daily watering")
    assert "changed the prose" in check_insertion(original, changed, keys, like=pandoc).reason
    unknown = original.replace("drought.", "drought [@smith1999].")
    assert "do not exist: smith1999" in check_insertion(original, unknown, keys, like=pandoc).reason
    removed = original.replace(" [@climateoffice]", "")
    assert "removed" in check_insertion(original, removed, keys, like=pandoc).reason


def test_the_request_lists_the_bibliography_as_pandoc_citations() -> None:
    pandoc = parse_document(DOCUMENT, None, _works())
    request = request_for(UNCITED, pandoc)
    assert "[@forestry2019] Street Tree Survival after Planting" in request.prompt
    assert "[@moreau2021] Tree Canopy and Afternoon Heat in 112 Mid-Sized Cities" in request.prompt
    assert "such as [@smith2020] for references" in request.system
    assert "[^smith]" not in request.system
    assert is_insertion_system(request.system)
    # a numbered document's request is what it always was (stored answers stay valid)
    numbered = parse_document((SAMPLES / "evidence.md").read_text(encoding="utf-8"))
    assert request_for(UNCITED, numbered).system == SYSTEM
    assert "[3] Street tree survival after planting" in request_for(UNCITED, numbered).prompt


def test_a_large_bibliography_is_listed_by_relevance_not_whole() -> None:
    """A Zotero library of a thousand entries is not sent with every sentence: the request lists
    the works the document cites and those whose titles share the sentence's words, at most
    MAX_LISTED, in bibliography order."""
    filler = tuple(
        replace(_works()[0], key=f"filler{i:04d}", title=f"Unrelated study number {i} of parking policy")
        for i in range(1000)
    )
    works = (*filler[:500], *_works(), *filler[500:])
    pandoc = parse_document(DOCUMENT, None, works)
    prompt = request_for(UNCITED, pandoc).prompt
    listed = [line for line in prompt.split("\n") if line.startswith("[@")]
    assert len(listed) == MAX_LISTED
    assert "[@forestry2019] Street Tree Survival after Planting" in prompt  # shares "tree", "survival"
    cited = {key for marker in pandoc.markers for key in marker.keys}
    assert cited
    assert all(f"[@{key}]" in prompt for key in cited)
    order = [line.split("]")[0] for line in listed]
    assert order == sorted(order, key=[f"[@{w.key}" for w in works].index)
    # a short bibliography is listed whole, as before
    short = request_for(UNCITED, parse_document(DOCUMENT, None, _works())).prompt
    assert len([line for line in short.split("\n") if line.startswith("[@")]) == len(_works())


def test_the_preview_shows_what_a_pandoc_document_would_send() -> None:
    count, shown = what_would_be_sent(DOCUMENT, None, _works())
    assert f"SENTENCE: {UNCITED}" in shown
    assert "[@forestry2019] Street Tree Survival after Planting" in shown
    assert "Cities are warmer" not in shown.split("REFERENCES:", 1)[1]  # the cited sentence is not asked
    assert count == shown.count("--- system ---")


# --- against the local Messages API --------------------------------------------------------------
def test_claudes_pandoc_citation_is_confirmed_offered_and_applied_in_pandoc_syntax(
    document: Path, claude_env: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    before = document.read_bytes()
    # Claude writes the citation its own way (a prefix and a locator): what counts is the key it
    # cites; the fix is the pandoc dialect's `[@forestry2019]` where the writer puts citations
    with messages_api(by_task(insert=_cite("[see @forestry2019, p. 4]"))) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        report = json.loads(_run(document, capsys, "audit", "--format", "json"))
        fixed = _run(document, capsys, "fix", "--kinds", "uncited", "--dry-run")
    insertions = [r for r in FakeMessages.requests if "REFERENCES:" in last_user_text(r)]
    assert insertions
    assert "[@forestry2019] Street Tree Survival after Planting" in last_user_text(insertions[0])
    assert "Claude does not suggest" not in json.dumps(report["assist"])
    uncited = _uncited(report)
    assert report["assist"]["suggested"] == {uncited["claim"]: ["forestry2019"]}
    assert uncited["fixes"][0]["title"] == "Cite [@forestry2019] (suggested by Claude, confirmed locally)"
    assert "most often from drought [@forestry2019].\n" in fixed
    assert "[see @forestry2019, p. 4]" not in fixed
    assert document.read_bytes() == before


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (_cite("[@forestry2019]", ("regular watering", "daily watering")), "changed the prose"),
        (_cite("[@smith1999]"), "do not exist: smith1999"),
        (_cite("[@climateoffice]"), "[climateoffice] was not confirmed by the local judge"),
    ],
)
def test_bad_pandoc_answers_are_reported_not_offered(
    answer: Any,
    reason: str,
    document: Path,
    claude_env: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with messages_api(by_task(insert=answer)) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        report = json.loads(_run(document, capsys, "audit", "--format", "json"))
    assert any(reason in r for r in report["assist"]["rejected"]), report["assist"]["rejected"]
    assert report["assist"]["suggested"] == {}
    assert all("Claude" not in fix["title"] for fix in _uncited(report)["fixes"])


def test_the_cli_preview_of_a_pandoc_document_reads_its_bibliography(
    document: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("citedesk.assist.keys.api_key", lambda: None)
    assert main(["audit", str(document), "--assist", "claude", "--assist-preview"]) == 0
    shown = capsys.readouterr().out
    assert f"SENTENCE: {UNCITED}" in shown
    assert "[@forestry2019] Street Tree Survival after Planting" in shown
    assert shown.count("REFERENCES:") == 1  # one insertion request: the cited sentence is not one
