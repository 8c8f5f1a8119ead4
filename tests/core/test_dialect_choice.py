"""Which dialect reads a document that names no bibliography: one that cites pandoc keys in
brackets is pandoc even with `[^1]` footnotes (notes, never a numbered reference list), and says
once that its keys could not be checked; footnote-cited and numbered documents stay numbered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.core.checks import structural_findings
from citedesk.core.dialects import dialect_for, notes_only
from citedesk.core.document.model import document_of
from citedesk.core.findings import Kind
from citedesk.core.reading import parse_structure, structure_without_bibliography

CHAPTER = (
    "# Two winters\n"
    "\n"
    "Ice cover on the lake shrank by a third between 1990 and 2020 [@arvid2021].[^1] Spring\n"
    "arrived eleven days earlier on average [see @lund2019, p. 7]. Fish spawned earlier as well\n"
    "[@arvid2021; @lund2019].\n"
    "\n"
    "[^1]: With thanks to the wardens of the north shore station.\n"
)


def test_a_chapter_with_a_footnote_and_pandoc_keys_is_pandoc_and_its_note_is_a_note() -> None:
    structure = structure_without_bibliography(CHAPTER)
    assert structure.dialect.name == "pandoc"
    assert notes_only(parse_structure(CHAPTER))  # what the numbered reading would have seen
    document = document_of(structure)
    assert [g.keys for g in document.citations] == [("arvid2021",), ("lund2019",), ("arvid2021", "lund2019")]
    findings = structural_findings(document)
    assert [f for f in findings if f.kind is Kind.UNCITED] == []
    assert [f for f in findings if f.kind is Kind.FABRICATED] == []  # no bibliography: not checked
    note = next(claim for claim in document.claims if "north shore" in claim.sentence.text)
    assert note.sentence.markers == ()  # the note's text is prose, not a reference entry


def test_the_same_chapter_with_a_bibliography_is_pandoc_too() -> None:
    assert dialect_for(()).name == "pandoc"
    assert dialect_for(None).name == "numbered"


@pytest.mark.parametrize(
    "text",
    [
        # footnotes that are the citations, and a handle that is no key in brackets
        "Lakes warm fastest in spring.[^1] Ask @limnolab for the data.\n\n[^1]: Arvid, K. Ice. 2021.\n",
        # a numbered reference list beside a footnote
        "Lakes warm [1].[^n] See also [@arvid2021].\n\n[^n]: A note.\n\n## References\n\n1. Arvid, K. Ice. 2021.\n",
    ],
)
def test_documents_with_citations_of_their_own_stay_numbered(text: str) -> None:
    assert structure_without_bibliography(text).dialect.name == "numbered"


def test_the_audit_says_once_that_no_bibliography_was_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chapter = tmp_path / "chapter.md"
    chapter.write_text(CHAPTER, encoding="utf-8")
    main(["audit", str(chapter), "--format", "json", "--offline", "--judge", "heuristic", "--no-dense"])
    report = json.loads(capsys.readouterr().out)
    assert [f["kind"] for f in report["findings"] if f["kind"] == "uncited"] == []
    assert report["summary"]["unchecked_reasons"] == {"no bibliography to look the key up in": 4}
    assert sum("names no bibliography" in notice for notice in report["notices"]) == 1
