"""A Quarto book and a pandoc defaults file audited with no extra flags (issue 28), end to end
through the command: the book's folder stands for its chapters, a chapter alone finds the book's
bibliography, `--defaults` reads input files and metadata files, and a duplicate work cited in two
chapters is reported once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citedesk.cli import main
from citedesk.desk import AuditOptions, Desk

FLAGS = ["--offline", "--no-sources", "--format", "json"]
QUARTO = """\
project:
  type: book
book:
  title: "Heat"
  chapters:
    - index.qmd
    - part: "Cities"
      chapters:
        - chapters/01-heat.qmd
        - chapters/02-roofs.qmd
bibliography: references.bib
"""
BIB = """\
@book{oke2017,
  title = {Urban Climates},
  author = {Oke, Tim},
  year = {2017},
  doi = {10.1017/9781139016476},
}
@book{oke2017b,
  title = {Urban climates},
  author = {Oke, T.},
  year = {2017},
  doi = {10.1017/9781139016476},
}
@article{hale2019,
  title = {Roof gardens},
  author = {Hale, Ruth},
  year = {2019},
}
"""
CHAPTERS = {
    "index.qmd": "# Preface\n\nThis book is about heat in cities.\n",
    "chapters/01-heat.qmd": "# Heat\n\nCities are warmer than the countryside around them [@oke2017].\n",
    "chapters/02-roofs.qmd": "# Roofs\n\nGreen roofs cool the streets below [@oke2017b; @hale2019; @ghost2020].\n"
    "See @fig-roof for a roof garden.\n",
}


@pytest.fixture
def book(tmp_path: Path) -> Path:
    root = tmp_path / "book"
    (root / "chapters").mkdir(parents=True)
    (root / "_quarto.yml").write_text(QUARTO, encoding="utf-8")
    (root / "references.bib").write_text(BIB, encoding="utf-8")
    for name, text in CHAPTERS.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def audit(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["audit", *args, *FLAGS])
    return code, json.loads(capsys.readouterr().out)


def kinds(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["kind"], f.get("reference") or "") for f in report["findings"]]


def test_a_book_folder_is_audited_chapter_by_chapter_with_its_bibliography(
    book: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(book.parent)
    code, out = audit(capsys, "book")
    assert code == 1
    reports = {Path(r["document"]).as_posix(): r for r in out["files"]}
    assert list(reports) == ["book/index.qmd", "book/chapters/01-heat.qmd", "book/chapters/02-roofs.qmd"]
    assert kinds(reports["book/chapters/01-heat.qmd"]) == []
    roofs = kinds(reports["book/chapters/02-roofs.qmd"])
    # the duplicate work cited across chapters: once, where the later entry is cited; the key in
    # no bibliography is fabricated (so the book's bibliography was read); @fig-roof is no citation
    assert sorted(roofs) == [("duplicate_reference", "oke2017b"), ("unknown_key", "ghost2020")]
    (duplicate,) = [
        f for f in reports["book/chapters/02-roofs.qmd"]["findings"] if f["kind"] == "duplicate_reference"
    ]
    assert "01-heat.qmd cites @oke2017" in duplicate["message"]


def test_a_duplicate_cited_together_in_two_chapters_is_reported_once(
    book: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    both = "# Again\n\nUrban climates differ [@oke2017; @oke2017b].\n"
    (book / "chapters" / "01-heat.qmd").write_text(both, encoding="utf-8")
    (book / "chapters" / "02-roofs.qmd").write_text(both, encoding="utf-8")
    _, out = audit(capsys, str(book))
    found = [pair for report in out["files"] for pair in kinds(report) if pair[0] == "duplicate_reference"]
    assert found == [("duplicate_reference", "oke2017b")]


def test_a_chapter_alone_uses_its_books_bibliography(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = audit(capsys, str(book / "chapters" / "02-roofs.qmd"))
    assert code == 1
    assert kinds(out) == [("unknown_key", "ghost2020")]  # one chapter: no duplicate across chapters
    assert "references.bib (3 entries)" in out["findings"][0]["message"]


def test_a_defaults_file_names_the_documents_and_bibliographies(
    book: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    thesis = tmp_path / "thesis"
    (thesis / "text").mkdir(parents=True)
    (thesis / "text" / "ch1.md").write_text(CHAPTERS["chapters/02-roofs.qmd"], encoding="utf-8")
    (thesis / "refs.bib").write_text(BIB, encoding="utf-8")
    (thesis / "meta.yaml").write_text("bibliography: refs.bib\n", encoding="utf-8")
    (thesis / "thesis.yaml").write_text(
        "from: markdown\nto: pdf\ninput-files:\n  - text/ch1.md\nmetadata-files: [meta.yaml]\n",
        encoding="utf-8",
    )
    code, out = audit(capsys, "--defaults", str(thesis / "thesis.yaml"))
    assert code == 1
    assert kinds(out) == [("unknown_key", "ghost2020")]


def test_a_project_file_naming_a_file_outside_its_folder_stops_the_audit(
    book: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "secret.bib").write_text(BIB, encoding="utf-8")
    (book / "_quarto.yml").write_text(QUARTO.replace("references.bib", "../secret.bib"), encoding="utf-8")
    assert main(["audit", str(book), *FLAGS]) == 2
    assert "outside the project's folder" in capsys.readouterr().err
    assert main(["audit", str(book / "chapters" / "01-heat.qmd"), *FLAGS]) == 2  # a chapter alone too
    assert main(["audit", *FLAGS]) == 2  # nothing to audit: said, not a traceback


def test_the_window_completes_a_chapters_keys_from_its_book_and_survives_a_broken_book(
    book: Path, tmp_path: Path
) -> None:
    """What the window uses (`DocumentSession`): a chapter opened alone reads the book's
    bibliography; a `_quarto.yml` that cannot be used adds nothing and raises nothing there."""
    desk = Desk(AuditOptions(offline=True, judge="none", store_path=tmp_path / "store.sqlite3"))
    session = desk.open(book / "chapters" / "02-roofs.qmd")
    assert session.options().local_roots[-1].resolve() == book.resolve()  # the book's folder is readable
    assert [key for key, _ in session.citation_keys()] == ["hale2019", "oke2017", "oke2017b"]
    (book / "_quarto.yml").write_text("bibliography: [unclosed\n", encoding="utf-8")
    assert session.citation_keys() == []
