"""Quarto books and pandoc defaults files (issue 28): what they name is read, relative to the file
that names it, and nothing outside the project's folder becomes readable because one says so."""

from __future__ import annotations

import os
from pathlib import Path, PurePath

import pytest

from citedesk.core.projects.pandoc import ProjectFileError, read_defaults, read_quarto, resolve
from citedesk.desk.projects import find_quarto, project_run, quarto_project

QUARTO = """\
project:
  type: book
book:
  title: "Heat"
  chapters:
    - index.qmd
    - part: "Part I: Cities"
      chapters:
        - chapters/01-heat.qmd
        - href: chapters/02-roofs.qmd
          text: Roofs
    - notebook.ipynb
  appendices:
    - appendix.qmd
bibliography: [references.bib, extra/more.bib]
"""


def test_a_quarto_book_names_its_chapters_in_order_and_its_bibliographies() -> None:
    book = read_quarto(QUARTO, "_quarto.yml")
    assert book.documents == (
        "index.qmd",
        "chapters/01-heat.qmd",
        "chapters/02-roofs.qmd",
        "appendix.qmd",
    )
    assert book.bibliographies == ("references.bib", "extra/more.bib")
    assert book.left_out == ("notebook.ipynb",)  # a notebook is not audited, and said so


def test_a_defaults_file_names_input_files_bibliographies_and_metadata_files() -> None:
    defaults = read_defaults(
        "input-files: [ch1.md, ch2.md]\nbibliography: refs.bib\n"
        "metadata:\n  bibliography: more.bib\nmetadata-files: [meta.yaml]\n",
        "thesis.yaml",
    )
    assert defaults.documents == ("ch1.md", "ch2.md")
    assert defaults.bibliographies == ("refs.bib", "more.bib")
    assert defaults.metadata_files == ("meta.yaml",)
    assert read_defaults("input-file: one.md\n", "d.yaml").documents == ("one.md",)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("bibliography: [refs.bib\n", "line"),  # not YAML: where
        ("bibliography: 3\n", "`bibliography:` must name a file"),
        ("- a\n- b\n", "holds fields"),
        ("book:\n  chapters: intro.qmd\n", "must be a list of chapters"),
    ],
)
def test_a_project_file_that_cannot_be_used_is_an_error_that_says_why(text: str, says: str) -> None:
    with pytest.raises(ProjectFileError, match=says):
        read_quarto(text, "_quarto.yml")


def test_paths_are_relative_to_the_file_that_names_them() -> None:
    folder = PurePath("/work/book")
    assert resolve("refs.bib", folder) == PurePath("/work/book/refs.bib")
    assert resolve("${.}/refs.bib", folder) == PurePath("/work/book/refs.bib")  # pandoc's own syntax
    assert resolve("/etc/refs.bib", folder) == PurePath("/etc/refs.bib")


def book(root: Path) -> Path:
    (root / "chapters").mkdir(parents=True)
    (root / "_quarto.yml").write_text(QUARTO, encoding="utf-8")
    for name in ("index.qmd", "chapters/01-heat.qmd", "chapters/02-roofs.qmd", "appendix.qmd"):
        (root / name).write_text("# A chapter\n", encoding="utf-8")
    return root


def test_a_chapter_finds_its_book_and_the_book_its_files(tmp_path: Path) -> None:
    root = book(tmp_path / "book")
    assert find_quarto(root / "chapters" / "01-heat.qmd") == root / "_quarto.yml"
    project = quarto_project(root / "chapters" / "01-heat.qmd")
    assert project is not None
    assert project.root == root
    assert project.bibliographies == (root / "references.bib", root / "extra" / "more.bib")
    assert project.documents[1] == root / "chapters" / "01-heat.qmd"
    assert quarto_project(tmp_path) is None  # above the book: no project


def test_a_book_folder_stands_for_its_chapters(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = book(tmp_path / "book")
    monkeypatch.chdir(tmp_path)
    run = project_run(["book"])
    assert [str(p) for p in run.documents] == [
        os.path.join("book", "index.qmd"),
        os.path.join("book", "chapters", "01-heat.qmd"),
        os.path.join("book", "chapters", "02-roofs.qmd"),
        os.path.join("book", "appendix.qmd"),
    ]
    assert run.bibliographies[0] == root / "references.bib"
    assert any("notebook.ipynb is not a Markdown document" in n for n in run.notices)


@pytest.mark.parametrize(
    "outside",
    ["../secrets.bib", "/etc/hosts.bib", "~/refs.bib", "linked/refs.bib"],
)
def test_a_project_file_cannot_make_a_file_outside_its_folder_readable(tmp_path: Path, outside: str) -> None:
    root = tmp_path / "thesis"
    root.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (root / "linked").symlink_to(tmp_path / "elsewhere")  # a link inside that leads outside
    (root / "ch1.md").write_text("# One\n", encoding="utf-8")
    defaults = root / "thesis.yaml"
    defaults.write_text(f"input-files: [ch1.md]\nbibliography: {outside}\n", encoding="utf-8")
    with pytest.raises(ProjectFileError, match="outside the project's folder"):
        project_run([], str(defaults))
    allowed = Path(os.path.realpath(root / outside)).parent.expanduser()
    if not outside.startswith("~"):  # the writer may allow it, as for any file a document names
        assert project_run([], str(defaults), [allowed]).bibliographies == (
            Path(os.path.normpath(root / outside)),
        )


def test_metadata_files_are_read_relative_to_themselves(tmp_path: Path) -> None:
    root = tmp_path / "thesis"
    (root / "meta").mkdir(parents=True)
    (root / "ch1.md").write_text("# One\n", encoding="utf-8")
    (root / "meta" / "meta.yaml").write_text("bibliography: refs.bib\n", encoding="utf-8")
    (root / "thesis.yaml").write_text(
        "input-files: [ch1.md]\nmetadata-files: [meta/meta.yaml]\n", encoding="utf-8"
    )
    run = project_run([], str(root / "thesis.yaml"))
    assert run.bibliographies == (root / "meta" / "refs.bib",)
    (root / "meta" / "meta.yaml").write_text("bibliography: ../../outside.bib\n", encoding="utf-8")
    with pytest.raises(ProjectFileError, match="outside"):
        project_run([], str(root / "thesis.yaml"))
