"""How a `.tex` file is chosen to be read as LaTeX (issue 29): by its path, whatever its
bibliography; other files as before (the seam the project and CLI side build on)."""

from __future__ import annotations

from citedesk.core.dialects import dialect_for, dialect_named
from citedesk.core.formats import is_format
from citedesk.core.reading import parse_document, parse_structure, structure_without_bibliography


def test_a_tex_path_is_latex_whatever_the_bibliography() -> None:
    latex = dialect_named("latex")
    assert dialect_for(None, "thesis.tex") is latex
    assert dialect_for((), "chapters/One.TEX") is latex
    assert dialect_for(None, "old.ltx") is latex
    assert dialect_for(None, "notes.md") is dialect_named("numbered")
    assert dialect_for((), "notes.md") is dialect_named("pandoc")
    assert dialect_for(None) is dialect_named("numbered")
    assert not is_format("tex", "latex")
    assert not is_format(None, "latex")


def test_the_path_reaches_parsing() -> None:
    text = "Warming \\cite{doe99} is fast.\n"
    assert parse_structure(text, None, path="a.tex").dialect.name == "latex"
    assert parse_document(text, "a.tex").dialect.name == "latex"
    assert parse_document(text, "a.md").dialect.name == "numbered"
    assert structure_without_bibliography(text, "a.tex").dialect.name == "latex"
    assert structure_without_bibliography("See [@doe99].\n", "a.md").dialect.name == "pandoc"
