"""A LaTeX thesis as a project (`desk.projects`): its files in reading order from the main file,
its bibliographies relative to the main file's folder, cycles and missing files said and the rest
still read, a path outside the project refused, a chapter finding its main file, and what the
last build left beside it cross-checked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from citedesk.core.bibliographies.model import BibliographyError
from citedesk.core.projects.pandoc import ProjectFileError
from citedesk.desk import AuditOptions, Desk
from citedesk.desk.projects import (
    document_project,
    latex_build_notices,
    latex_project,
    latex_root,
    project_run,
)
from citedesk.sources.citeworks import cited_works

MAIN = r"""\documentclass{report}
\usepackage{natbib}
\begin{document}
\include{chapters/intro}
% \include{chapters/old}
\include{chapters/methods}
\include{chapters/results}
\bibliographystyle{plainnat}
\bibliography{refs}
\end{document}
"""
BIB = "@article{walker2017,\n  title = {Why We Sleep},\n  author = {Walker, Matthew},\n  year = {2017},\n}\n"


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


@pytest.fixture
def thesis(tmp_path: Path) -> Path:
    root = tmp_path / "thesis"
    write(
        root,
        {
            "thesis.tex": MAIN,
            "refs.bib": BIB,
            "chapters/intro.tex": "\\chapter{Introduction}\nSleep matters \\citep{walker2017}.\n",
            "chapters/methods.tex": "\\chapter{Methods}\n\\input{chapters/tables}\n",
            "chapters/tables.tex": "A table.\n",
            "chapters/results.tex": "% !TEX root = ../thesis.tex\n\\chapter{Results}\n",
        },
    )
    return root


def test_the_main_file_stands_for_its_files_in_reading_order(thesis: Path) -> None:
    project = latex_project(thesis / "thesis.tex")
    assert [p.relative_to(thesis).as_posix() for p in project.documents] == [
        "thesis.tex",
        "chapters/intro.tex",
        "chapters/methods.tex",
        "chapters/tables.tex",
        "chapters/results.tex",
    ]
    assert project.bibliographies == (thesis / "refs.bib",)
    assert project.notices == ()


def test_a_cycle_and_a_missing_file_are_said_and_the_rest_is_read(thesis: Path) -> None:
    write(
        thesis,
        {
            "chapters/tables.tex": "\\input{chapters/methods}\nA table.\n",
            "chapters/results.tex": "\\input{chapters/figures}\n",
        },
    )
    project = latex_project(thesis / "thesis.tex")
    assert len(project.documents) == 5
    cycle, missing = project.notices
    assert "tables.tex, line 1: \\input{chapters/methods} includes a file that includes it" in cycle
    assert "results.tex, line 1: \\input{chapters/figures}: " in missing
    assert missing.endswith("chapters/figures.tex does not exist, so it is not audited")


@pytest.mark.parametrize("outside", ["../elsewhere/notes", "/etc/hostname"])
def test_a_path_outside_the_project_is_refused_with_how_to_allow_it(thesis: Path, outside: str) -> None:
    write(thesis.parent, {"elsewhere/notes.tex": "secret\n"})
    write(thesis, {"chapters/results.tex": f"\\input{{{outside}}}\n"})
    with pytest.raises(ProjectFileError) as raised:
        latex_project(thesis / "thesis.tex")
    message = str(raised.value)
    assert "results.tex, line 1" in message
    assert "outside the project's folder" in message
    assert "--allow-folder" in message
    allowed = Path(os.path.realpath(thesis.parent / "elsewhere"))
    if outside.startswith(".."):
        assert len(latex_project(thesis / "thesis.tex", [allowed]).documents) == 6


def test_a_missing_bibliography_names_the_file_and_the_line(thesis: Path) -> None:
    (thesis / "refs.bib").unlink()
    with pytest.raises(BibliographyError) as raised:
        latex_project(thesis / "thesis.tex")
    assert str(raised.value).startswith(
        f"{thesis / 'thesis.tex'}, line 9: \\bibliography{{refs}} names refs.bib"
    )


def test_a_chapter_finds_its_main_file_by_magic_comment_or_by_who_includes_it(thesis: Path) -> None:
    main = thesis / "thesis.tex"
    assert latex_root(thesis / "chapters" / "results.tex") == main  # % !TEX root
    assert latex_root(thesis / "chapters" / "tables.tex") == main  # included by an included file
    assert latex_root(main) == main
    write(thesis, {"chapters/stray.tex": "Not included anywhere.\n"})
    assert latex_root(thesis / "chapters" / "stray.tex") is None
    project = document_project(thesis / "chapters" / "intro.tex")
    assert project is not None
    assert project.bibliographies == (thesis / "refs.bib",)


def test_a_magic_comment_cannot_point_outside_the_folders_above(thesis: Path, tmp_path: Path) -> None:
    write(tmp_path, {"other/main.tex": "\\documentclass{article}\\bibliography{x}\n"})
    write(thesis, {"chapters/results.tex": "% !TEX root = ../../other/main.tex\n"})
    assert latex_root(thesis / "chapters" / "results.tex") == thesis / "thesis.tex"


def test_the_run_expands_a_main_file_and_keeps_a_chapter_alone(
    thesis: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(thesis)
    run = project_run(["thesis.tex"])
    assert [p.as_posix() for p in run.documents][:2] == ["thesis.tex", "chapters/intro.tex"]
    assert run.bibliographies == (thesis / "refs.bib",)
    alone = project_run(["chapters/intro.tex"])
    assert alone.documents == (Path("chapters/intro.tex"),)
    assert alone.bibliographies == ()


def test_a_single_file_paper_names_its_bibliography(tmp_path: Path) -> None:
    paper = tmp_path / "paper.tex"
    text = "\\documentclass{article}\n\\begin{document}\nSleep \\cite{walker2017}.\n\\bibliography{refs}\n\\end{document}\n"
    paper.write_text(text, encoding="utf-8")
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    cited = cited_works(text, paper, use_zotero=False)
    assert cited is not None
    assert [w.key for w in cited.works] == ["walker2017"]
    (tmp_path / "refs.bib").unlink()
    with pytest.raises(BibliographyError) as raised:
        cited_works(text, paper, use_zotero=False)
    assert str(raised.value).startswith(
        f"{paper}, line 4: \\bibliography{{refs}} names refs.bib, which does not exist"
    )


def test_the_last_build_is_cross_checked(thesis: Path) -> None:
    main = thesis / "thesis.tex"
    project = latex_project(main)
    assert latex_build_notices(project) == ()  # never compiled: nothing to say
    write(
        thesis,
        {
            "thesis.aux": "\\relax\n\\citation{walker2017}\n\\citation{walkr2017}\n\\bibcite{walker2017}{1}\n",
            "thesis.bbl": "\\bibitem[Walker(2017)]{walker2017}\n\\bibitem[Old(2001)]{old2001}\n",
        },
    )
    later = main.stat().st_mtime + 10
    for name in ("thesis.aux", "thesis.bbl"):
        os.utime(thesis / name, (later, later))
    said = latex_build_notices(project)
    assert any("undefined in its last run of thesis.tex: walkr2017" in s for s in said)
    assert not any("compile again for it to be current" in s for s in said)
    os.utime(thesis / "thesis.aux", (later - 20, later - 20))
    assert any("is older than" in s and "compile again" in s for s in latex_build_notices(project))


def test_a_chapter_opened_alone_audits_with_the_thesis_bibliography(thesis: Path, tmp_path: Path) -> None:
    desk = Desk(AuditOptions(offline=True, check_sources=False, store_path=tmp_path / "store.sqlite"))
    session = desk.open(thesis / "chapters" / "results.tex")  # found by its % !TEX root
    assert session.options().bibliographies == (thesis / "refs.bib",)
    write(thesis, {"chapters/results.tex": "% !TEX root = ../thesis.tex\nSleep \\cite{walkr2017}.\n"})
    report = desk.open(thesis / "chapters" / "results.tex").audit()
    assert [(f.kind.value, f.reference) for f in report.findings] == [("unknown_key", "walkr2017")]
    (thesis / "refs.bib").unlink()  # the window keeps working: the chapter is read, its keys not checked
    assert desk.open(thesis / "chapters" / "results.tex").options().bibliographies == ()
