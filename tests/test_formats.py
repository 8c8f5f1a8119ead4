"""One table of document formats (issue 39): no module of CiteDesk but `core.formats` writes a
document suffix, and what used to disagree now reads the one table (`batch` discovers `.ltx`, as
`audit` reads it; the window's Open filter has `.qmd`/`.rmd`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from citedesk.core.dialects import dialect_for, dialect_named
from citedesk.core.formats import (
    SOURCE_SUFFIXES,
    batch_suffixes,
    document_suffixes,
    format_for,
    format_named,
    formats,
    matches,
    open_filter,
    save_filters,
)
from citedesk.desk.corpus_files import discover

PACKAGE = Path(__file__).resolve().parents[1] / "citedesk"
TABLE = PACKAGE / "core" / "formats.py"

ALLOWED = {
    ("assets.py", "*.md"): "the shipped samples: `assets` may import nothing of CiteDesk (the import graph)",
    ("assets.py", "*/*.tex"): "the shipped LaTeX sample, as above",
    ("assets.py", "*/*.docx"): "the shipped Word sample, as above",
    ("core/reports/markdown_format.py", ".md"): "a report's output format (Markdown), not a document",
    ("core/reports/text_format.py", ".txt"): "a report's output format (text), not a document",
}
"""(module, literal) → why it is not a document format's suffix."""


def _suffixes() -> tuple[str, ...]:
    return tuple(s for f in formats() for s in (*f.suffixes, *f.refused))


def _names_a_suffix(value: str, suffixes: tuple[str, ...]) -> bool:
    lowered = value.lower()
    return lowered in suffixes or any(
        re.search(r"\*" + re.escape(s) + r"(?![\w.])", lowered) for s in suffixes
    )


def _literals(tree: ast.AST) -> list[ast.Constant]:
    """Every string constant but docstrings and other bare strings (which may name a suffix in words)."""
    bare = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in bare
    ]


def test_no_module_but_the_table_writes_a_document_suffix() -> None:
    suffixes = _suffixes()
    found = []
    for module in sorted(PACKAGE.rglob("*.py")):
        if module == TABLE:
            continue
        name = module.relative_to(PACKAGE).as_posix()
        for node in _literals(ast.parse(module.read_text(encoding="utf-8"))):
            value = str(node.value)
            if _names_a_suffix(value, suffixes) and (name, value) not in ALLOWED:
                found.append(f"{name}:{node.lineno}: {value!r}")
    assert not found, "document suffixes outside core/formats.py:\n" + "\n".join(found)


def test_the_scan_sees_a_suffix_where_one_is_written() -> None:
    suffixes = _suffixes()
    tree = ast.parse('KINDS = (".tex", ".docx")\nOPEN = "LaTeX (*.TEX *.ltx)"\n"""A `.tex` file."""\n')
    named = sorted(str(n.value) for n in _literals(tree) if _names_a_suffix(str(n.value), suffixes))
    assert named == [".docx", ".tex", "LaTeX (*.TEX *.ltx)"]


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("a.md", "markdown"),
        ("A.MARKDOWN", "markdown"),
        ("notes.txt", "markdown"),
        ("book/ch1.qmd", "quarto"),
        ("x.Rmd", "quarto"),
        ("thesis.tex", "latex"),
        ("old.LTX", "latex"),
        ("paper.docx", "word"),
        ("macros.docm", "word"),
    ],
)
def test_one_function_decides_a_paths_format(path: str, name: str) -> None:
    fmt = format_for(path)
    assert fmt is not None
    assert fmt.name == name


def test_what_is_no_document_has_no_format() -> None:
    assert format_for("refs.bib") is None
    assert format_for("tex") is None
    assert format_for(None) is None
    assert not matches("macros.docm")  # read only to be refused with why: never offered or discovered


def test_the_dialect_follows_the_formats_rule() -> None:
    assert dialect_for(None, "a.tex") is dialect_named(format_named("latex").dialect.without)
    assert dialect_for((), "a.qmd") is dialect_named("pandoc")
    assert dialect_for(None, "a.qmd") is dialect_named("numbered")


def test_the_window_opens_quarto_and_batch_discovers_ltx(tmp_path: Path) -> None:
    first = open_filter().split(";;")[0]
    for pattern in ("*.qmd", "*.rmd", "*.tex", "*.ltx", "*.docx", "*.md"):
        assert pattern in first
    assert ".ltx" in batch_suffixes()
    (tmp_path / "old.ltx").write_text("Warming \\cite{doe99}.\n", encoding="utf-8")
    (tmp_path / "refs.bib").write_text("", encoding="utf-8")
    found, _left_out = discover([tmp_path], tmp_path / "out")
    assert [d.name for d in found] == ["old.ltx"]


def test_save_as_offers_the_documents_own_kind_first() -> None:
    assert save_filters(format_named("latex")).startswith("LaTeX (*.tex *.ltx);;")
    assert save_filters(format_named("word")) == format_named("markdown").filter  # its text, as Markdown
    assert ".docx" not in document_suffixes(editable=True)


def test_sources_are_not_documents() -> None:
    assert ".pdf" in SOURCE_SUFFIXES
    assert format_for("paper.pdf") is None


def _tree(module: str) -> ast.AST:
    return ast.parse((PACKAGE / module).read_text(encoding="utf-8"))


def test_the_session_holds_a_container_and_never_a_word_special_case() -> None:
    tree = _tree("desk/session.py")
    assert not [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "word"]
    assert not [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Name) and "word" in n.id.lower()]


def test_neither_the_dialect_choice_nor_the_audit_names_a_dialect() -> None:
    names = {"latex", "pandoc", "numbered"}
    base = next(
        node
        for node in ast.walk(_tree("core/dialects/base.py"))
        if isinstance(node, ast.FunctionDef) and node.name == "dialect_for"
    )
    for where, tree in (("dialect_for", base), ("pipeline", _tree("pipeline.py"))):
        named = [n.value for n in _literals(tree) if n.value in names]
        assert not named, f"{where} names {named}"
