"""What a `.tex` says about its project (`core.projects.latex`): the files it includes and the
bibliographies it names, with offsets, never from a comment or verbatim text; which file is the main
one; and what LaTeX's last run left in `.aux`, `.bbl` and its logs."""

from __future__ import annotations

import pytest

from citedesk.core.projects.latex import (
    bibliography_names,
    includes,
    is_root,
    line_of,
    nocites,
    read_aux,
    read_bbl,
    root_magic,
    undefined_citations,
)

MAIN = r"""% !TEX root = ../thesis.tex
\documentclass[12pt]{report}
\usepackage[backend=biber]{biblatex}
\addbibresource[label=main]{refs.bib}
\begin{document}
% \input{commented-out}
\verb|\input{in-verb}| and
\begin{verbatim}
\include{in-verbatim}
\bibliography{in-verbatim}
\end{verbatim}
\input{front}
\include{chapters/ch1}\subfile{chapters/ch2.tex}
\input chapters/ch3
\import{appendix/}{tables}
\bibliography{more, extra.bib}
\end{document}
"""


def test_includes_in_reading_order_with_tex_added_and_offsets() -> None:
    found = includes(MAIN)
    assert [(n.command, n.written, n.name) for n in found] == [
        ("input", "front", "front.tex"),
        ("include", "chapters/ch1", "chapters/ch1.tex"),
        ("subfile", "chapters/ch2.tex", "chapters/ch2.tex"),
        ("input", "chapters/ch3", "chapters/ch3.tex"),
        ("import", "appendix/tables", "appendix/tables.tex"),
    ]
    assert [MAIN[n.start : n.end] for n in found] == [
        r"\input{front}",
        r"\include{chapters/ch1}",
        r"\subfile{chapters/ch2.tex}",
        r"\input chapters/ch3",
        r"\import{appendix/}{tables}",
    ]
    assert line_of(MAIN, found[1].start) == 13


def test_comments_and_verbatim_name_nothing() -> None:
    names = {n.written for n in [*includes(MAIN), *bibliography_names(MAIN)]}
    assert not {"commented-out", "in-verb", "in-verbatim"} & names


def test_bibliographies_of_bibtex_and_biblatex() -> None:
    found = bibliography_names(MAIN)
    assert [(n.command, n.name) for n in found] == [
        ("addbibresource", "refs.bib"),
        ("bibliography", "more.bib"),
        ("bibliography", "extra.bib"),
    ]
    assert MAIN[found[0].start : found[0].end] == r"\addbibresource[label=main]{refs.bib}"
    assert line_of(MAIN, found[1].start) == 16


def test_a_remote_bibliography_and_a_repeated_one() -> None:
    text = r"\addbibresource[location=remote]{https://example.org/x.bib}\bibliography{a}\bibliography{a.bib}"
    assert [n.name for n in bibliography_names(text)] == ["a.bib"]


@pytest.mark.parametrize(
    ("text", "root"),
    [
        ("% !TEX root = ../thesis.tex\n\\chapter{One}\n", "../thesis.tex"),
        ("%!TeX root=main.tex\n", "main.tex"),
        ("\\documentclass[../thesis]{subfiles}\n\\begin{document}x\\end{document}\n", "../thesis.tex"),
        ("\\chapter{One}\n% root = nowhere\n", None),
        ("\\documentclass{article}\n", None),
    ],
)
def test_the_main_file_a_chapter_names(text: str, root: str | None) -> None:
    assert root_magic(text) == root


@pytest.mark.parametrize(
    ("text", "root"),
    [
        ("\\documentclass{article}\n\\begin{document}\\end{document}", True),
        ("% \\documentclass{article}\n\\chapter{One}", False),
        ("\\chapter{One} uses \\verb|\\documentclass| in prose", False),
        ("\\documentclass[main.tex]{subfiles}", False),
    ],
)
def test_a_main_file_has_a_documentclass_outside_comments(text: str, root: bool) -> None:
    assert is_root(text) is root


def test_aux_records_cited_and_defined_keys_of_bibtex_and_biblatex() -> None:
    aux = read_aux(
        "\\relax\n\\citation{walker2017,stickgold2005}\n\\citation{walker2017}\n"
        "\\abx@aux@cite{0}{rasch2013}\n\\bibcite{walker2017}{1}\n\\bibcite{stickgold2005}{2}\n"
    )
    assert aux.cited == ("walker2017", "stickgold2005", "rasch2013")
    assert aux.defined == ("walker2017", "stickgold2005")


def test_bbl_entries_of_natbib_and_biblatex() -> None:
    bbl = (
        "\\begin{thebibliography}{2}\n\\bibitem[Walker(2017)]{walker2017}\nWalker, M.\n"
        "\\bibitem[{Diekelmann et~al.(2010)}]{diekelmann2010}\n\\bibitem{plain}\n"
        "\\end{thebibliography}\n  \\entry{rasch2013}{article}{}\n"
    )
    assert read_bbl(bbl) == ("walker2017", "diekelmann2010", "plain", "rasch2013")


def test_undefined_citations_from_latex_bibtex_and_biber_logs() -> None:
    log = (
        "LaTeX Warning: Citation `walkr2017' on page 3 undefined on input line 12.\n"
        "LaTeX Warning: Citation 'ghost' undefined on input line 14.\n"
        'Warning--I didn\'t find a database entry for "nobody2020"\n'
        "WARN - I didn't find a database entry for 'biberonly' (section 0)\n"
    )
    assert undefined_citations(log) == ("walkr2017", "ghost", "nobody2020", "biberonly")


def test_nocite_keys_and_star_but_not_in_a_comment() -> None:
    assert nocites("\\nocite{a, b}\n% \\nocite{c}\n\\nocite{*}") == ("a", "b", "*")
