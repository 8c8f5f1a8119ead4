"""The window with LaTeX (issue 29): a `.tex` opens (by Open, drag-and-drop, recent files), is
coloured as LaTeX and audited with its `\\cite` keys marked where they are; Save as keeps `.tex`;
its recovery copy keeps `.tex` and is offered back; a thesis's main file lists its chapters in the
Project tab, which open from there, and the whole project's findings are listed by file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtWidgets import QTreeWidgetItem
from pytestqt.qtbot import QtBot

from citedesk.core.findings import Kind
from citedesk.gui.editor.offsets import Utf16Map
from citedesk.gui.main_window import MainWindow
from citedesk.gui.panels.project_panel import LINE_ROLE, ProjectPanel
from tests.gui.helpers import audited, settled

pytestmark = pytest.mark.gui

BIB = """@article{moreau2021,
  title = {Tree Canopy and Afternoon Heat in 112 Mid-Sized Cities},
  author = {Moreau, Léa and Okafor, Tunde},
  year = {2021},
  journal = {Urban Climate}
}
"""
MAIN = r"""\documentclass{report}
\begin{document}
\include{chapters/intro}
\include{chapters/method}
\bibliography{refs}
\end{document}
"""
INTRO = r"""\chapter{Introduction}
Streets under trees are cooler in the afternoon \cite{moreau2021}. % \cite{commented}
Parks cool whole districts by several degrees \citep[p.~4]{lindqvist2018}.
"""
METHOD = r"""\chapter{Method}
We measured surface heat in $n = 112$ cities \cite{moreau2021}.
Night air stays warm for hours \cite{halloran2003}.
"""
PAPER = r"""\documentclass{article}
\begin{document}
\section{Heat}
Streets under trees are cooler in the afternoon \cite{moreau2021}. % \cite{commented}
Parks cool whole districts by several degrees \citep[p.~4]{lindqvist2018}.
\bibliography{refs}
\end{document}
"""


@pytest.fixture
def thesis(tmp_path: Path) -> Path:
    folder = tmp_path / "thesis"
    (folder / "chapters").mkdir(parents=True)
    (folder / "refs.bib").write_text(BIB, encoding="utf-8")
    (folder / "thesis.tex").write_text(MAIN, encoding="utf-8")
    (folder / "chapters" / "intro.tex").write_text(INTRO, encoding="utf-8")
    (folder / "chapters" / "method.tex").write_text(METHOD, encoding="utf-8")
    return folder


@pytest.fixture
def paper(tmp_path: Path) -> Path:
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    path = tmp_path / "paper.tex"
    path.write_text(PAPER, encoding="utf-8")
    return path


def test_a_tex_file_opens_coloured_and_its_cite_keys_are_marked(
    qtbot: QtBot, window: MainWindow, paper: Path
) -> None:
    audited(qtbot, window, lambda: window.load_file(paper))
    assert window.editor.toPlainText() == PAPER
    assert window.windowTitle() == "paper.tex (LaTeX) — CiteDesk"
    assert window.editor.highlighter.latex
    report = window.report
    assert report is not None
    assert report.document.dialect.name == "latex"
    text = report.document.text
    keys = {text[item.start : item.end] for m in report.document.markers for item in m.items}
    assert keys == {"moreau2021", "lindqvist2018"}  # the commented \cite is never read
    [fabricated] = [f for f in report.findings if f.kind is Kind.UNKNOWN_KEY]  # not in refs.bib
    command = r"\citep[p.~4]{lindqvist2018}"
    start = PAPER.index(command)
    assert (fabricated.start, fabricated.end) == (start, start + len(command))  # the whole citation
    mapping = Utf16Map(text)
    painted = [(s, e) for s, e, f in window.editor.highlighter.spans() if f is fabricated]
    assert painted == [(mapping.to_qt(start), mapping.to_qt(start + len(command)))]
    assert window.editor.findings_at(mapping.to_qt(PAPER.index("lindqvist2018"))) == [fabricated]
    assert window.project.project is None  # one file: no Project tab
    assert window.tabs.indexOf(window.project.panel) < 0


def _row(panel: ProjectPanel, row: int) -> QTreeWidgetItem:
    item = panel.tree.topLevelItem(row)
    assert item is not None
    return item


def test_a_thesis_lists_its_chapters_opens_them_and_lists_findings_by_file(
    qtbot: QtBot, window: MainWindow, thesis: Path
) -> None:
    with qtbot.waitSignal(window.project.shown, timeout=20_000):
        assert window.load_file(thesis / "thesis.tex")
    panel = window.project.panel
    assert window.tabs.indexOf(panel) >= 0
    assert panel.files() == ["thesis.tex (main file)", "chapters/intro.tex", "chapters/method.tex"]

    intro = thesis / "chapters" / "intro.tex"
    with qtbot.waitSignal(window.project.shown, timeout=20_000):
        panel.tree.itemActivated.emit(_row(panel, 1), 0)  # what a double click does
    assert window.document.path == intro.resolve()
    assert window.editor.toPlainText() == INTRO
    assert panel.files()[1] == "chapters/intro.tex"  # a chapter finds its main file: still listed
    assert _row(panel, 1).font(0).bold()

    with qtbot.waitSignal(window.project.audited, timeout=60_000):
        panel.audit_button.click()
    method = _row(panel, 2)
    assert method.text(0) == "chapters/method.tex — 1 finding"
    child = method.child(0)
    assert child is not None
    assert child.text(0).startswith("line 3: ")
    assert "halloran2003" in child.text(0)
    assert _row(panel, 1).text(0) == "chapters/intro.tex — 1 finding"
    assert child.data(0, LINE_ROLE) == 3
    with qtbot.waitSignal(window.project.shown, timeout=20_000):
        panel.tree.itemActivated.emit(child, 0)
    assert window.document.path == (thesis / "chapters" / "method.tex").resolve()
    assert window.editor.textCursor().blockNumber() == 2  # line 3
    assert window.editor.textCursor().selectedText() == METHOD.splitlines()[2]
    assert _row(panel, 2).font(0).bold()
    assert _row(panel, 2).child(0) is not None  # the project's findings are kept
    settled(qtbot, window)


def test_markdown_is_not_coloured_and_has_no_project(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    document = tmp_path / "essay.md"
    document.write_text("Heat \\cite{x} % not a comment here.\n", encoding="utf-8")
    with qtbot.waitSignal(window.project.shown, timeout=20_000):
        assert window.load_file(document)
    assert not window.editor.highlighter.latex
    assert window.windowTitle() == "essay.md — CiteDesk"
    assert window.tabs.indexOf(window.project.panel) < 0
    settled(qtbot, window)


def test_the_project_tab_says_what_latexs_last_build_left_undefined(
    qtbot: QtBot, window: MainWindow, thesis: Path
) -> None:
    """A `.aux` beside the main file that cites a key BibTeX never defined: the Project tab says so,
    as `citedesk audit thesis.tex` does (a notice, not a finding)."""
    aux = thesis / "thesis.aux"
    aux.write_text("\\relax\n\\citation{moreau2021}\n\\citation{ghost2020}\n\\bibcite{moreau2021}{1}\n")
    later = (thesis / "thesis.tex").stat().st_mtime + 60
    os.utime(aux, (later, later))
    with qtbot.waitSignal(window.project.shown, timeout=20_000):
        assert window.load_file(thesis / "thesis.tex")
    heading = window.project.panel.heading.text()
    assert "undefined" in heading
    assert "ghost2020" in heading
    settled(qtbot, window)


def test_the_thesis_sample_opens_as_a_copy_of_its_folder_with_its_project(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    """File ▸ Open a sample ▸ thesis: the whole sample folder is copied (the installed one is never
    edited) and its main file opened there, read as LaTeX with its chapters and bibliography."""
    window.document.samples_folder = tmp_path / "samples"
    sample = window.desk.folder_samples()["thesis"]
    before = sample.read_bytes()
    with qtbot.waitSignal(window.project.shown, timeout=20_000):
        audited(qtbot, window, lambda: window.open_sample(sample), timeout=60_000)
    opened = window.document.path
    assert opened == (tmp_path / "samples" / "thesis" / "thesis.tex").resolve()
    assert (opened.parent / "refs.bib").is_file()
    assert window.report is not None
    assert window.report.document.dialect.name == "latex"
    assert window.report.document.works  # the bibliography, found through \bibliography{refs}
    assert window.project.panel.files()[0] == "thesis.tex (main file)"
    assert len(window.project.panel.files()) == 4
    assert sample.read_bytes() == before
    window.document.confirm_discard = lambda: True
    with qtbot.waitSignal(window.project.shown, timeout=20_000):
        audited(qtbot, window, lambda: window.open_sample(sample), timeout=60_000)
    assert (
        window.document.path == (tmp_path / "samples" / "thesis-2" / "thesis.tex").resolve()
    )  # a fresh copy
    settled(qtbot, window)


def test_a_one_file_papers_build_notices_are_said_without_a_project_tab(
    qtbot: QtBot, window: MainWindow, paper: Path
) -> None:
    aux = paper.with_suffix(".aux")
    aux.write_text("\\relax\n\\citation{moreau2021}\n\\citation{ghost2020}\n\\bibcite{moreau2021}{1}\n")
    later = paper.stat().st_mtime + 60
    os.utime(aux, (later, later))
    with qtbot.waitSignal(window.project.message, timeout=20_000) as said:
        assert window.load_file(paper)
    assert said.args is not None
    assert "ghost2020" in said.args[0]
    assert window.tabs.indexOf(window.project.panel) < 0
    settled(qtbot, window)
