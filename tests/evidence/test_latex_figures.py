"""A figure written with siunitx or `\\textdegree` in a LaTeX chapter is checked against its source
like any other (issue 38): `\\SI{2.5}{\\celsius}` against a source's "1.5 degrees" is a number
mismatch naming both; the right figure in either form is quiet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citedesk.cli import main

SOURCE = (
    "Street heat survey.\n\nStreets shaded by mature trees were on average 1.5 degrees cooler in the "
    "afternoon than streets with little shade.\n\nThe cooling was strongest on narrow streets.\n"
)
BIB = "@article{moreau2021,\n  author = {Moreau, Anne},\n  title = {Street heat survey},\n  year = {2021},\n  file = {moreau.txt}\n}\n"
SENTENCE = "Streets shaded by mature trees were on average {} cooler in the afternoon than streets with little shade \\citep{{moreau2021}}.\n\n"


def audit(
    folder: Path, figure: str, capsys: pytest.CaptureFixture[str]
) -> tuple[str, list[dict[str, object]]]:
    (folder / "moreau.txt").write_text(SOURCE, encoding="utf-8")
    (folder / "refs.bib").write_text(BIB, encoding="utf-8")
    text = (
        "\\documentclass{article}\n\\begin{document}\n"
        + SENTENCE.format(figure)
        + "\\bibliography{refs}\n\\end{document}\n"
    )
    chapter = folder / "chapter.tex"
    chapter.write_text(text, encoding="utf-8")
    main(["audit", str(chapter), "--offline", "--judge", "heuristic", "--no-dense", "--format", "json"])
    return text, json.loads(capsys.readouterr().out)["findings"]


def test_a_wrong_figure_in_siunitx_is_a_number_mismatch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, findings = audit(tmp_path, "\\SI{2.5}{\\celsius}", capsys)
    assert [(f["kind"], f["severity"], f["message"]) for f in findings] == [
        (
            "number_mismatch",
            "error",
            "The cited source \\citep{moreau2021} says 1.5 degrees, not 2.5 degrees.",
        )
    ]
    span = findings[0]["span"]
    assert isinstance(span, list)
    assert text[span[0] : span[1]] == "2.5"


@pytest.mark.parametrize(
    "figure", ["\\SI{1.5}{\\celsius}", "\\qty{1.5}{\\degreeCelsius}", "1.5~\\textdegree C", "1.5\\,°C"]
)
def test_the_right_figure_in_any_latex_form_is_quiet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], figure: str
) -> None:
    _, findings = audit(tmp_path, figure, capsys)
    assert findings == []
