"""Starting CiteDesk: `citedesk draft.md` (a bare path) opens the window on it, as `citedesk open
draft.md` does; several paths open several documents; a missing file is a clear usage error.

The window itself is tested in tests/gui (tests/gui/test_start_from_cli.py opens a real one through
`main`); here the entry point's window opener is replaced by one that records what it was asked to
open, so that the dispatch is tested without starting Qt."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

import citedesk.main as entry
from citedesk.cli import main as cli_main
from citedesk.cli import start_arguments
from citedesk.cli.parser import build_parser


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """What the entry point asked the window to open, call by call (the window is not started)."""
    calls: list[list[str]] = []

    def record(paths: Sequence[str] = ()) -> int:
        calls.append(list(paths))
        return 0

    monkeypatch.setattr(entry, "open_window", record)
    return calls


@pytest.fixture
def draft(tmp_path: Path) -> Path:
    path = tmp_path / "draft.md"
    path.write_text("A claim [1].\n\n## References\n\n1. Smith J. A paper. 2020.\n", encoding="utf-8")
    return path


def test_a_bare_path_opens_the_window_on_it(opened: list[list[str]], draft: Path) -> None:
    assert entry.main([str(draft)]) == 0
    assert opened == [[str(draft)]]


def test_a_bare_path_is_what_open_does(opened: list[list[str]], draft: Path) -> None:
    entry.main(["open", str(draft)])
    entry.main([str(draft)])
    assert opened[0] == opened[1] == [str(draft)]


def test_several_paths_open_several_documents(opened: list[list[str]], tmp_path: Path) -> None:
    names = []
    for stem in ("one", "two", "three"):
        (tmp_path / f"{stem}.md").write_text(f"{stem}\n", encoding="utf-8")
        names.append(str(tmp_path / f"{stem}.md"))
    assert entry.main(names) == 0
    assert opened == [names]


def test_no_argument_opens_an_empty_window(opened: list[list[str]]) -> None:
    assert entry.main([]) == 0
    assert opened == [[]]


def test_an_existing_file_with_any_suffix_opens(opened: list[list[str]], tmp_path: Path) -> None:
    notes = tmp_path / "chapter.notes"
    notes.write_text("text\n", encoding="utf-8")
    entry.main([str(notes)])
    assert opened == [[str(notes)]]


def test_debug_before_the_path_still_opens_it(opened: list[list[str]], draft: Path) -> None:
    entry.main(["--debug", str(draft)])
    assert opened == [[str(draft)]]


def test_a_missing_document_is_a_clear_usage_error(
    opened: list[list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "drfat.md"
    assert entry.main([str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"no such file: {missing}" in err
    assert "invalid choice" not in err
    assert opened == []  # the window never started


def test_one_missing_among_several_opens_none(
    opened: list[list[str]], draft: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert entry.main([str(draft), str(draft.with_name("gone.qmd"))]) == 2
    assert "no such file" in capsys.readouterr().err
    assert opened == []


def test_open_with_a_missing_file_says_so_too(opened: list[list[str]], tmp_path: Path) -> None:
    assert entry.main(["open", str(tmp_path / "missing.md")]) == 2
    assert opened == []


def test_a_folder_is_refused_with_what_to_give(
    opened: list[list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "thesis.md").mkdir()
    assert entry.main([str(tmp_path / "thesis.md")]) == 2
    assert "is a folder" in capsys.readouterr().err
    assert opened == []


def test_a_command_name_stays_a_command_even_when_a_file_has_its_name(
    opened: list[list[str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "samples").write_text("not a document\n", encoding="utf-8")
    assert cli_main(["samples"]) == 0
    assert "clean" in capsys.readouterr().out
    assert opened == []


def test_a_mistyped_command_is_still_an_invalid_choice(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        entry.main(["audti", "draft.md"])
    assert exited.value.code == 2
    assert "invalid choice: 'audti'" in capsys.readouterr().err


def test_start_arguments_only_rewrites_a_document_in_first_place(draft: Path) -> None:
    commands = ["audit", "open", "samples"]
    assert start_arguments([str(draft)], commands) == ["open", str(draft)]
    assert start_arguments(["new.markdown"], commands) == ["open", "new.markdown"]
    assert start_arguments(["audit", str(draft)], commands) == ["audit", str(draft)]
    assert start_arguments(["--version"], commands) == ["--version"]
    assert start_arguments(["nothing-here"], commands) == ["nothing-here"]
    assert start_arguments([], commands) == []


def test_the_help_tells_how_to_open_files() -> None:
    assert "citedesk FILE" in build_parser().format_help()
