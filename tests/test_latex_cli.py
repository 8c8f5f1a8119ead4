"""A LaTeX thesis through the command, end to end (issue 29), on a copy of the bundled sample:
`citedesk audit thesis.tex` audits the main file and its three chapters with refs.bib and finds
every structural kind on its file and line; a chapter alone finds the thesis's bibliography; a
missing .bib is said with the line that names it and exits as Markdown's does; `fix thesis.tex`
fixes each file on its own and leaves the others byte for byte; the last build is cross-checked."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from citedesk.assets import sample_projects
from citedesk.cli import main

FLAGS = ["--offline", "--no-sources", "--format", "json"]
FILES = ["thesis.tex", "chapters/introduction.tex", "chapters/background.tex", "chapters/discussion.tex"]


@pytest.fixture
def thesis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "thesis"
    shutil.copytree(sample_projects()["thesis"].parent, root)
    monkeypatch.chdir(root)
    return root


def audit(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any, str]:
    code = main(["audit", *args, *FLAGS])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out else None, captured.err


def found(report: dict[str, Any]) -> set[tuple[str, int, str]]:
    return {(f["kind"], f["line"], f.get("reference") or "") for f in report["findings"]}


def test_the_sample_is_listed_and_packaged() -> None:
    main_file = sample_projects()["thesis"]
    assert main_file.name == "thesis.tex"
    for name in [*FILES, "refs.bib", "sources/lindgren2016.txt"]:
        assert (main_file.parent / name).is_file()


def test_the_main_file_audits_its_chapters_with_every_structural_kind(
    thesis: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, batch, _ = audit(capsys, "thesis.tex")
    assert code == 1
    reports = {r["document"]: r for r in batch["files"]}
    assert list(reports) == FILES
    intro, background = found(reports["chapters/introduction.tex"]), found(reports["chapters/background.tex"])
    assert {("malformed_marker", 10, "haddad2021"), ("malformed_marker", 11, "")} <= intro
    assert ("unknown_key", 9, "lindgren2061") in background
    assert ("unknown_key", 19, "fenwick2015") in background
    assert any(kind == "duplicate_reference" for kind, _, _ in background)
    unknown = next(f for f in reports["chapters/background.tex"]["findings"] if f["kind"] == "unknown_key")
    assert unknown["details"]["did_you_mean"] == ["lindgren2016"]
    every = {f["reference"] for r in reports.values() for f in r["findings"] if f.get("reference")}
    assert not {"students2020", "not-a-citation", "removed2014"} & every  # \nocite, verbatim, comment
    assert found(reports["chapters/discussion.tex"]) == set()


def test_a_chapter_alone_finds_the_thesis_bibliography(
    thesis: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report, _ = audit(capsys, "chapters/background.tex")
    assert code == 1
    assert report["document"] == "chapters/background.tex"
    assert ("unknown_key", 9, "lindgren2061") in found(report)


def test_a_missing_bib_names_the_file_and_the_line_and_exits_as_markdown_does(
    thesis: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (thesis / "paper.md").write_text("---\nbibliography: gone.bib\n---\nSleep [@a].\n", encoding="utf-8")
    markdown_code, _, _ = audit(capsys, "paper.md")
    (thesis / "refs.bib").unlink()
    lines = (thesis / "thesis.tex").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.startswith("\\bibliography{"))
    code, report, err = audit(capsys, "thesis.tex")
    assert report is None
    assert code == markdown_code == 2
    assert (
        f"{thesis / 'thesis.tex'}, line {line}: \\bibliography{{refs}} names refs.bib, which does not exist"
        in err
    )
    code, _, err = audit(capsys, "chapters/background.tex")
    assert code == 2
    assert "\\bibliography{refs} names refs.bib" in err


def test_fix_fixes_each_file_on_its_own_and_leaves_the_rest(
    thesis: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {name: (thesis / name).read_bytes() for name in FILES}
    code = main(
        ["fix", "thesis.tex", "--kinds", "malformed_marker", "--offline", "--no-sources", "--fail-on", "none"]
    )
    err = capsys.readouterr().err
    assert code == 0
    assert "chapters/introduction.tex: written" in err
    intro = (thesis / "chapters/introduction.tex").read_text(encoding="utf-8")
    assert "\\citep{haddad2021}." in intro
    assert "\\cite{}" not in intro
    assert intro.count("{") == intro.count("}")
    for name in ("thesis.tex", "chapters/background.tex", "chapters/discussion.tex"):
        assert (thesis / name).read_bytes() == before[name]
    assert (thesis / "chapters/introduction.tex.citedesk-backup").read_bytes() == before[
        "chapters/introduction.tex"
    ]


def test_the_last_build_is_cross_checked_in_the_main_files_report(
    thesis: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (thesis / "thesis.aux").write_text("\\relax\n\\citation{lindgren2061}\n\\bibcite{lindgren2016}{1}\n")
    (thesis / "thesis.bbl").write_text("\\bibitem[Old(2001)]{old2001}\n\\bibitem[Haddad(2021)]{haddad2021}\n")
    later = max((thesis / name).stat().st_mtime for name in FILES) + 10
    for name in ("thesis.aux", "thesis.bbl"):
        os.utime(thesis / name, (later, later))
    _, batch, _ = audit(capsys, "thesis.tex")
    notices = batch["files"][0]["notices"]
    assert any("undefined in its last run of thesis.tex: lindgren2061" in n for n in notices)
    assert any("thesis.bbl lists 1 entry the text no longer cites (old2001)" in n for n in notices)
    assert not any("lindgren2061" in n for n in batch["files"][2]["notices"])


def test_fix_of_a_chapter_alone_uses_the_thesis_bibliography(
    thesis: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chapter = thesis / "chapters" / "background.tex"
    before = chapter.read_text(encoding="utf-8")
    code = main(
        [
            "fix",
            "chapters/background.tex",
            "--kinds",
            "unknown_key",
            "--unsafe-fixes",
            "--offline",
            "--no-sources",
            "--fail-on",
            "none",
        ]
    )
    assert code == 0
    assert "chapters/background.tex: written" in capsys.readouterr().err
    after = chapter.read_text(encoding="utf-8")
    assert "\\citep{lindgren2016}" in after  # the did-you-mean, from the thesis bibliography
    assert "lindgren2061" not in after
    # a key in no bibliography is removed only as a suggestion to verify (the work may exist)
    assert "\\citep{fenwick2015}" in before
    assert "fenwick2015" not in after


def test_a_tex_file_with_no_bibliography_is_told_what_latex_needs_not_front_matter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "alone.tex").write_text("A nap helps \\citep{walker2017}.\n", encoding="utf-8")
    code, report, _ = audit(capsys, "alone.tex")
    assert code == 0
    assert report["summary"]["nothing_checked"]
    notices = " ".join(report["notices"])
    assert "\\bibliography{refs}" in notices
    assert "% !TEX root" in notices
    assert "front matter" not in notices
