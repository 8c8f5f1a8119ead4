"""A malformed .bib is reported where pandoc would stop reading it (issue 28): the exact line and
column of the character pandoc's BibTeX grammar cannot take, never the entry's first line; an entry
bibtexparser reads leniently (a comma missing between fields) is still used, with a warning there."""

from __future__ import annotations

import pytest

from citedesk.core.bibliographies.model import BibFormat, BibliographyError
from citedesk.core.bibliographies.parse import parse_bibliography
from citedesk.core.bibliographies.syntax import position, syntax_problems

GOOD = "@book{good, title = {Fine}, year = 2020}\n"


@pytest.mark.parametrize(
    ("broken", "line", "column", "says"),
    [
        # `year 2020`: pandoc wants `=` where `2020` starts (bibtexparser stops past the comma)
        ("@article{a,\n  title = {A},\n  year 2020,\n}\n", 3, 8, "expected `=` after the field name `year`"),
        # a key missing: `title` is read as the key, then `=` is where a comma belongs
        ("@article{\n  title = {A},\n}\n", 2, 9, "expected `,` after the key `title`"),
        # a brace never closed swallows the next entry: pandoc stops at the end of the file
        (
            "@article{a,\n  title = {Open,\n  year = 2020,\n\n@book{b, title = {B}}\n",
            6,
            1,
            "(line 3, column 11) is never closed",
        ),
        # a brace closed too early: the entry is still open when the next starts
        ("@article{a,\n  title = {A,\n}\n\n@book{b, title = {B}}\n", 5, 1, "still open"),
        # a quote never closed: pandoc stops at the `}` it cannot take inside "…"
        ('@article{a,\n  title = "Open,\n}\n', 3, 1, 'is closed by a `}` before its `"`'),
        ('@article{a,\n  title = "Open {,\n}\n', 4, 1, 'is a `"` missing?'),
    ],
)
def test_an_error_names_the_line_and_column_pandoc_stops_at(
    broken: str, line: int, column: int, says: str
) -> None:
    with pytest.raises(BibliographyError) as caught:
        parse_bibliography(GOOD + broken, BibFormat.BIBTEX, source="refs.bib")
    error = caught.value
    assert (error.line, error.column) == (line + 1, column)  # GOOD is line 1
    assert says in error.reason
    assert str(error).startswith(f"refs.bib, line {line + 1}, column {column}: ")


def test_a_missing_comma_is_read_leniently_with_a_warning_at_its_position() -> None:
    text = "@article{a,\n  title = {Heat}\n  year = 2020,\n}\n" + GOOD
    bibliography = parse_bibliography(text, BibFormat.BIBTEX, source="refs.bib")
    by_key = bibliography.by_key()
    assert set(by_key) == {"a", "good"}  # both still used …
    assert (by_key["a"].title or "").startswith("Heat")  # as bibtexparser took it (`Heat year = 2020`)
    (warning,) = bibliography.warnings  # … and the writer told where pandoc would fail
    assert warning.startswith("line 3, column 3: expected `,` or `}` after the value of `title`")
    assert "found `year`" in warning
    assert "pandoc stops reading the file there" in warning


def test_valid_bibtex_has_no_problem() -> None:
    text = (
        "% written by me@example.org\n"
        '@string{jn = "Journal of Heat"}\n'
        "@comment{anything {nested}}\n"
        "@preamble{ {\\newcommand{\\x}{y}} }\n"
        "@misc{bare}\n"
        '@article{b, author = {A and {B C}}, title = "Q {\\"u}" # jn, journal = jn, year = 2020,}\n'
        "@book{c,title={\\{escaped}}\n"
    )
    assert syntax_problems(text) == []
    assert parse_bibliography(text, BibFormat.BIBTEX).warnings == ()


def test_reading_goes_on_after_an_error_so_each_broken_entry_is_named() -> None:
    text = "@a{x, t = {1} u = 2}\n@b{y, v 3}\n@c{z, w = 4}\n"
    problems = syntax_problems(text)
    assert [position(text, p.offset) for p in problems] == [(1, 15), (2, 9)]


def test_columns_count_characters_on_the_line() -> None:
    assert position("ab\ncdé\n", 0) == (1, 1)
    assert position("ab\ncdé\n", 5) == (2, 3)
