"""Through the command line: `audit` names a typo'd pandoc key as an unknown key with the key it
probably meant, and `fix --kinds unknown_key` re-keys it, the prose byte-identical."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.core.dialects.pandoc.repair import citation_prose
from citedesk.core.document.citekeys import find_citations

BIB = """@article{smith2020,
  author = {Smith, Jo},
  title = {Night temperatures in paved courtyards},
  year = {2020}
}
@book{okafor2022,
  author = {Okafor, Chidi},
  title = {Rain on roofs},
  year = {2022}
}
"""

DOCUMENT = """---
title: Courtyards
bibliography: refs.bib
---

# Courtyards at night [@smith2020]

Paved courtyards stayed 2 °C warmer than planted ones after sunset [see @smiht2020, p. 41].
Green roofs held back most of a summer storm's rain [@okafor2022].
"""


def test_a_typo_key_is_reported_with_did_you_mean_and_fix_rekeys_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    chapter = tmp_path / "chapter.md"
    chapter.write_bytes(DOCUMENT.encode("utf-8"))
    main(["audit", str(chapter), "--format", "json", "--offline", "--judge", "heuristic", "--no-dense"])
    report = json.loads(capsys.readouterr().out)
    (unknown,) = [f for f in report["findings"] if f["kind"] == "unknown_key"]
    assert "did you mean @smith2020?" in unknown["message"]
    assert [f["title"] for f in unknown["fixes"]] == ["Cite @smith2020"]
    assert not [f for f in report["findings"] if f["kind"] == "fabricated"]

    assert main(["fix", str(chapter), "--kinds", "unknown_key", "--offline"]) == 0
    fixed = chapter.read_text(encoding="utf-8")
    assert fixed == DOCUMENT.replace("@smiht2020", "@smith2020")
    assert citation_prose(fixed, find_citations(fixed)) == citation_prose(DOCUMENT, find_citations(DOCUMENT))
    capsys.readouterr()
    main(["audit", str(chapter), "--format", "json", "--offline", "--judge", "heuristic", "--no-dense"])
    after = json.loads(capsys.readouterr().out)
    assert not [f for f in after["findings"] if f["kind"] in ("unknown_key", "fabricated")]


def test_fix_leaves_a_guess_between_two_keys_to_the_writer(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text(
        BIB
        + "@article{smith2020b,\n  author = {Smith, Jo},\n  title = {Courtyards by day},\n  year = {2020}\n}\n",
        encoding="utf-8",
    )
    chapter = tmp_path / "chapter.md"
    text = DOCUMENT.replace("@smiht2020", "@smith2020c")  # as near smith2020 as smith2020b
    chapter.write_bytes(text.encode("utf-8"))
    main(["fix", str(chapter), "--kinds", "unknown_key", "--offline"])
    assert chapter.read_bytes() == text.encode("utf-8")
