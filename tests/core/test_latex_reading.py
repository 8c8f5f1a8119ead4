"""Reading a `.tex` file (issue 29): every citation command form with its keys' exact offsets,
and what is never read (comments, `\\verb`, verbatim, listings, math, preamble, figures)."""

from __future__ import annotations

import pytest

from citedesk.core.document.model import Document
from citedesk.core.reading import parse_document

PATH = "thesis.tex"


def keys_at_offsets(document: Document) -> list[list[str]]:
    """Every marker's keys, read back from the text at their items' offsets."""
    return [[document.text[item.start : item.end] for item in m.items] for m in document.markers]


def read(body: str) -> Document:
    return parse_document(body, PATH)


@pytest.mark.parametrize(
    ("written", "keys"),
    [
        ("\\cite{doe99}", ["doe99"]),
        ("\\citep{doe99,roe01}", ["doe99", "roe01"]),
        ("\\citet{doe99}", ["doe99"]),
        ("\\citealp{doe99}", ["doe99"]),
        ("\\citeauthor{doe99}", ["doe99"]),
        ("\\citeyear{doe99}", ["doe99"]),
        ("\\parencite{doe99}", ["doe99"]),
        ("\\textcite{doe99}", ["doe99"]),
        ("\\autocite{doe99}", ["doe99"]),
        ("\\footcite{doe99}", ["doe99"]),
        ("\\smartcite{doe99}", ["doe99"]),
        ("\\Citet{doe99}", ["doe99"]),
        ("\\Textcite{doe99}", ["doe99"]),
        ("\\Parencite{doe99}", ["doe99"]),
        ("\\Autocite{doe99}", ["doe99"]),
        ("\\citep*{doe99}", ["doe99"]),
        ("\\citep[see][p.~4]{a,b}", ["a", "b"]),
        ("\\citep[see {A}][]{a}", ["a"]),
        ("\\cite{ a , b }", ["a", "b"]),
        ("\\cites[pre][post]{a}[p.~3]{b}", ["a", "b"]),
        ("\\parencites{a}{b,c}", ["a", "b", "c"]),
        ("\\textcites[see][]{a}[p.~2]{b}", ["a", "b"]),
    ],
)
def test_each_command_form_gives_its_keys_at_their_offsets(written: str, keys: list[str]) -> None:
    document = read(f"Shade cools streets {written}. Next sentence.\n")
    assert keys_at_offsets(document) == [keys]
    marker = document.markers[0]
    assert document.text[marker.start : marker.end] == written
    assert document.claims[0].sentence.markers == (0,)


def test_a_tie_goes_with_the_citation() -> None:
    document = read("Streets cool~\\citep{doe99}.\n")
    assert document.text[document.markers[0].start : document.markers[0].end] == "~\\citep{doe99}"
    assert document.claims[0].text == "Streets cool."


TEXT = r"""\documentclass{article}
\usepackage{natbib}
\newcommand{\x}{\cite{preamble}}
\begin{document}
\section{Heat \cite{title}}
Shade trees cool streets by 2~\textdegree C~\citep[p.~4]{lee2020}. % not \cite{comment}
Parks cut deaths by 30\% \emph{in cities} \cite{ghost}.\footnote{See also \citet{note2020}.} Code
like \verb|\cite{verb}| is not read, nor $x = \cite{math}$ math.

\begin{verbatim}
\cite{verbatim}
\end{verbatim}
\begin{lstlisting}
{ \cite{listing}
\end{lstlisting}
\begin{equation}
E = mc^2 \cite{equation}
\end{equation}
\begin{figure}
\includegraphics{map.png}
\caption{A map of heat \cite{caption2020}.}
\label{fig:map}
\end{figure}
See Figure~\ref{fig:map} and ``quoted'' words.\nocite{listed}
\end{document}
"""


@pytest.fixture
def thesis() -> Document:
    return read(TEXT)


def test_only_the_citations_a_reader_sees_are_read(thesis: Document) -> None:
    assert [list(m.keys) for m in thesis.markers] == [
        ["title"],
        ["lee2020"],
        ["ghost"],
        ["note2020"],
        ["caption2020"],
    ]
    assert all(
        key == want
        for keys, m in zip(keys_at_offsets(thesis), thesis.markers, strict=True)
        for key, want in zip(keys, m.keys, strict=True)
    )


def test_headings_are_titles_not_body_text(thesis: Document) -> None:
    assert [(h.level, h.title) for h in thesis.layout.headings] == [(2, "Heat")]
    title = thesis.markers[0]
    assert title.start not in thesis.claim_by_marker  # a title's citation counts, but no sentence
    assert 0 not in thesis.claim_by_marker
    assert not any("Heat" in c.text for c in thesis.claims)


def test_sentences_read_as_the_words_a_reader_sees(thesis: Document) -> None:
    texts = [c.text for c in thesis.claims]
    assert texts[0] == "Shade trees cool streets by 2 °C."  # `~` a space, `\\textdegree C` read as °C
    assert "Parks cut deaths by 30% in cities." in texts
    assert any(t.startswith("See also note2020") for t in texts)  # the footnote, its own note
    assert "A map of heat." in texts  # the caption
    assert "Code like is not read, nor $x = \\cite{math}$ math." in texts  # inline math as written
    assert not any("\\" in t or "{" in t for t in texts if "$" not in t)
    assert "See Figure and quoted words." in texts


def test_blocks_are_paragraphs_notes_and_captions(thesis: Document) -> None:
    kinds = [b.kind for b in thesis.layout.blocks]
    assert "note" in kinds
    assert "caption" in kinds


def test_a_file_without_document_environment_is_all_body() -> None:
    chapter = read("\\chapter{One}\nStreets cool \\cite{a}.\n\n% \\cite{b}\nParks help \\cite{c}.\n")
    assert [m.keys for m in chapter.markers] == [("a",), ("c",)]
    assert [c.text for c in chapter.claims] == ["Streets cool.", "Parks help."]
    assert len(chapter.layout.blocks) == 2


def test_an_escaped_percent_is_no_comment() -> None:
    document = read("Rates rose 5\\% \\cite{a}. Then fell \\cite{b}.\n")
    assert [m.keys for m in document.markers] == [("a",), ("b",)]


def test_malformed_commands_are_not_citations() -> None:
    document = read("Empty \\cite{} here. Open \\cite{a, b\n\nNext paragraph \\cite{c}.\n")
    reasons = [m.reason for m in document.malformed]
    assert len(reasons) == 2
    assert [m.keys for m in document.markers] == [("c",)]
    assert any(c.text == "Next paragraph." for c in document.claims)


def test_escapes_breaks_and_accents_read_as_a_reader_sees_them() -> None:
    text = "Heat rose 5\\% \\\\ in town and \\&\\, more\\\\* here~\\cite{a}.\r\n\r\nNext \\cite{b}.\r\n"
    document = read(text)
    assert [c.text for c in document.claims] == ["Heat rose 5% in town and & more here.", "Next."]
    assert keys_at_offsets(document) == [["a"], ["b"]]  # CRLF: offsets into the text as it is


def test_math_listings_and_commands_that_are_not_words_hold_no_citation() -> None:
    text = (
        "Inline \\(a \\cite{m1}\\) and display \\[b \\cite{m2}\\] math.\n"
        "\\begin{align}c \\cite{m3}\\end{align}\n"
        "\\begin{minted}{python}\nx = {  # \\cite{m4}\n\\end{minted}\n"
        "\\begin{comment}\n\\cite{m5} }\n\\end{comment}\n"
        "See \\label{s:a}\\ref{s:a}, \\eqref{e}, \\autoref{f}; \\input{chap} \\bibliography{refs}"
        "\\addbibresource{refs.bib}\\bibliographystyle{plain} and \\cite{real}.\n"
    )
    document = read(text)
    assert [m.keys for m in document.markers] == [("real",)]
    assert keys_at_offsets(document) == [["real"]]


def test_an_environment_left_open_still_reads_its_text() -> None:
    text = "\\begin{document}\nA \\cite{a}.\n\\begin{itemize}\\item B \\cite{b}.\\end{itemize}\nC after \\cite{c}.\n"
    document = read(text)
    assert [c.text for c in document.claims] == ["A.", "B.", "C after."]
    assert [m.keys for m in document.markers] == [("a",), ("b",), ("c",)]


def test_markup_inside_a_word_is_read_as_nothing_and_a_tie_as_a_space() -> None:
    """A claim's text is what a reader sees: `25\\%` is "25%", `\\emph{wo}rd` is "word", an accent
    command leaves its letter in the word, and `~` still separates words."""
    document = parse_document(
        r"Students recalled 25\% more \emph{wo}rd pairs at the caf\'e than Smith~et~al. found \citep{a}.",
        "x.tex",
        (),
    )
    assert (
        document.sentences[0].text
        == "Students recalled 25% more word pairs at the cafe than Smith et al. found."
    )
