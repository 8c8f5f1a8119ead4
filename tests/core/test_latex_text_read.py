"""What of a LaTeX text is read (issue 38): what `\\iffalse … \\fi` and `\\if0 … \\fi` switch off is
never read, a footnote inside a sentence does not cut the sentence in two, and figures and units
written as commands (`\\SI{2.5}{\\celsius}`, `2.5~\\textdegree C`) are read as a reader sees them."""

from __future__ import annotations

from citedesk.core.reading import parse_document

HEAD = "\\documentclass{article}\n\\usepackage{siunitx}\n\\begin{document}\n"
TAIL = "\n\\end{document}\n"


def sentences(body: str) -> list[tuple[str, list[str]]]:
    """Each sentence's text, with the keys its citations cite."""
    document = parse_document(HEAD + body + TAIL, "chapter.tex")
    return [
        (s.text, [k for m in s.markers for item in document.markers[m].items for k in item.keys])
        for s in document.sentences
    ]


def test_text_switched_off_is_never_read() -> None:
    body = (
        "Parks cool streets \\citep{doe99}.\n\n"
        "\\iffalse\nAn old draft said 99 things \\citep{old01}.\n\\ifx\\a\\b nested \\fi still off.\n\\fi\n\n"
        "Trees help \\citep{roe02}. \\if0 A hidden aside \\citep{old02}. \\fi Rivers too.\n\n"
        "% \\iffalse in a comment switches nothing off\n"
        "\\iffalse Draft wording \\else Final wording counts here \\citep{roe03}. \\fi\n"
    )
    read = sentences(body)
    assert read == [
        ("Parks cool streets.", ["doe99"]),
        ("Trees help.", ["roe02"]),
        ("Rivers too.", []),
        ("Final wording counts here.", ["roe03"]),
    ]
    document = parse_document(HEAD + body + TAIL, "chapter.tex")
    assert {k for m in document.markers for item in m.items for k in item.keys} == {"doe99", "roe02", "roe03"}


def test_a_footnote_inside_a_sentence_does_not_cut_it_in_two() -> None:
    body = (
        "Street trees lower afternoon temperatures\\footnote{Measured in July \\citep{roe02}.} "
        "on narrow streets \\citep{doe99}. Next sentence.\n"
    )
    assert sentences(body) == [
        ("Street trees lower afternoon temperatures on narrow streets.", ["doe99"]),
        ("Measured in July.", ["roe02"]),
        ("Next sentence.", []),
    ]


def test_figures_and_units_written_as_commands_are_read_with_their_units() -> None:
    body = (
        "Streets were 2.5~\\textdegree C cooler \\citep{a}. Parks were \\SI{2.5}{\\celsius} cooler \\citep{a}. "
        "Roofs were \\qty{1.5}{\\degreeCelsius} cooler \\citep{a}. Noon reached 30\\,°C \\citep{a}. "
        "About 25\\% of trees died \\citep{a}. It was \\SI{40}{\\percent} of all \\citep{a}. "
        "Roads ran \\qty{3}{\\kilo\\metre} \\citep{a}. Between \\qtyrange{10}{20}{\\percent} left \\citep{a}."
    )
    assert [text for text, _ in sentences(body)] == [
        "Streets were 2.5 °C cooler.",
        "Parks were 2.5 °C cooler.",
        "Roofs were 1.5 °C cooler.",
        "Noon reached 30 °C.",
        "About 25% of trees died.",
        "It was 40% of all.",
        "Roads ran 3 km.",
        "Between 10-20% left.",
    ]
