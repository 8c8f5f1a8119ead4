"""Uncited sentences a writer can see the evidence for (issue 38): a plain sentence that a listed
reference — cited nowhere — says word for word is flagged for review with the passage quoted; a
sentence that a citation right beside it covers is not flagged; a number inside a name is no figure.

Each document runs through the real CLI (`main`) with its sources as local files (`--offline`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citedesk.cli import main
from citedesk.core.document.claims import assess

LOCAL = ["--offline", "--judge", "heuristic", "--no-dense"]
ALLOTMENTS = (
    "A comparative survey of allotment gardeners and their neighbours.\n\n"
    "Allotment gardeners visited their plots on 80% of the days of the growing season. They shared seeds, "
    "tools and harvests with the neighbouring plot holders. Community gardens bring neighbours together around "
    "shared work on the soil and the harvest."
)
SPARROWS = (
    "House sparrows and city hedges.\n\n"
    "House sparrows nest in dense hedges close to the feeding places that city gardens provide through "
    "the winter months."
)


def audit(folder: Path, text: str, capsys: pytest.CaptureFixture[str]) -> list[Any]:
    (folder / "allotments.txt").write_text(ALLOTMENTS, encoding="utf-8")
    (folder / "sparrows.txt").write_text(SPARROWS, encoding="utf-8")
    document = folder / "draft.md"
    document.write_text(text, encoding="utf-8")
    main(["audit", str(document), "--format", "json", *LOCAL])
    findings: list[Any] = json.loads(capsys.readouterr().out)["findings"]
    return findings


REFERENCES = (
    "\n\n## References\n\n[1] Berg. Allotment gardening and community. allotments.txt\n"
    "[2] Hale. House sparrows in city hedges. sparrows.txt\n"
)


def test_a_plain_sentence_that_a_reference_cited_nowhere_says_is_flagged_with_its_passage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # no figure, date, comparison or name in its words: the claim test alone calls it plain
    sentence = "Community gardens bring neighbours together around shared work on the soil and the harvest."
    assert assess(sentence).reasons == ("no factual signal",)
    text = f"House sparrows nest in dense hedges close to city gardens [2].\n\n{sentence}" + REFERENCES
    [uncited] = [f for f in audit(tmp_path, text, capsys) if f["kind"] == "uncited"]
    assert uncited["severity"] == "info"  # nothing in its words makes it a claim: something to read
    assert "[1], cited nowhere in the text, supports it" in uncited["message"]
    assert '"Community gardens bring neighbours together' in uncited["message"]  # the passage, quoted
    [fix] = uncited["fixes"]
    assert fix["title"].startswith("Cite [1]")
    assert fix["applicability"] == "unsafe"  # the word-level judge only suggests


def test_a_plain_sentence_stays_quiet_when_that_reference_is_cited_beside_it_or_elsewhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = "Community gardens bring neighbours together around shared work on the soil and the harvest."
    beside = f"Allotment gardeners shared seeds, tools and harvests with their neighbours [1]. {plain}"
    elsewhere = f"{plain}\n\nGardeners shared seeds and tools with the plot holders next to them [1]."
    for text in (beside, elsewhere):
        findings = audit(tmp_path, f"House sparrows nest in dense hedges [2].\n\n{text}" + REFERENCES, capsys)
        assert [f for f in findings if f["kind"] == "uncited"] == [], text


def test_an_uncited_claim_that_the_next_sentences_citation_supports_is_covered_by_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # one citation at the end of a passage: the first sentence (a figure) is what [1] says
    text = (
        "Allotment gardeners visited their plots on 80% of the days of the growing season. They shared seeds, tools "
        "and harvests with the neighbouring plot holders [1].\n\nHouse sparrows nest in dense hedges [2]."
        + REFERENCES
    )
    assert audit(tmp_path, text, capsys) == []
    # the same claim in a paragraph of its own is uncited: no citation beside it covers it
    alone = text.replace("season. They", "season.\n\nThey")
    [uncited] = [f for f in audit(tmp_path, alone, capsys) if f["kind"] == "uncited"]
    assert uncited["severity"] == "warning"


@pytest.mark.parametrize(
    "sentence",
    [
        "Social distancing slows the spread of contagious illnesses such as COVID-19 in crowded places.",
        "Patients with SARS-CoV-2 pneumonia were treated in the intensive care unit at the hospital.",
        "The H1N1 strain spread through schools in the city during the autumn term.",
        "Vitamin B12 deficiency is common among the elderly residents of care homes.",
    ],
)
def test_a_number_inside_a_name_does_not_make_a_sentence_state_a_figure(sentence: str) -> None:
    assert "states a figure" not in assess(sentence).reasons


def test_a_real_figure_still_does() -> None:
    assert "states a figure" in assess("Over 40% of the households in the survey kept a garden.").reasons
    assert "states a figure" in assess("About 12 of the gardens in the town had a pond of some kind.").reasons
