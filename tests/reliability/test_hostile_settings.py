"""Hostile settings files (issue 37): a project's `citedesk.toml` comes with the documents, from
whoever made them, so it can never destroy a document, exhaust memory, end in a traceback or make
CiteDesk echo what it likes; the user's own `config.toml` goes through the same reader and bounds.

Each case runs the real command in a child process, the memory ones under an address-space limit
(`limited_child`), with real files in tmp_path (conftest points HOME and the XDG folders there too).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from citedesk import config
from tests.conftest import REPO

MEMORY_LIMIT_MIB = 1024
"""The child's whole address space: a settings file is refused in far less."""
BIB = "@article{smith2020,\n  title = {Street trees},\n  author = {Smith, Ann},\n  year = {2020},\n}\n"
DOCUMENT = "---\nbibliography: refs.bib\n---\n\n# Paper\n\nTrees cool streets [@smith2020].\n"


def _project(tmp_path: Path) -> Path:
    """A writer's repository: a document, its bibliography, and git's own files."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n\tbare = false\n", encoding="utf-8")
    (root / "paper.md").write_text(DOCUMENT, encoding="utf-8")
    (root / "refs.bib").write_text(BIB, encoding="utf-8")
    return root


def _files(root: Path) -> dict[str, bytes]:
    """Every file under `root` but the project's own `.citedesk/` folder, by path, with its bytes."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".citedesk" not in path.relative_to(root).parts
    }


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "citedesk", *args],
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard: the audit takes seconds
        cwd=REPO,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
        check=False,
    )


def _limited(args: list[str], env: dict[str, str]) -> tuple[dict[str, int], str]:
    child = subprocess.run(
        [sys.executable, "-m", "tests.reliability.limited_child", str(MEMORY_LIMIT_MIB), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard: refusing a settings file takes well under a second
        env={**os.environ, "NO_COLOR": "1", "MALLOC_ARENA_MAX": "2", **env},
        check=False,
    )
    assert "Traceback" not in child.stderr, child.stderr[-3000:]
    *said, last = child.stderr.strip().splitlines()
    return json.loads(last), "\n".join(said)


# --- every settings key that names a path, pointed at a writer's file -------------------------------------
PATH_KEYS = sorted(name for name, key in config.KEYS.items() if key.is_path)
TARGETS = ["paper.md", "refs.bib", ".git/config", ".git"]


def test_the_path_keys_are_the_ones_expected() -> None:
    # derived from config.KEYS, so a new path key is tried below without editing this file
    assert {"store", "bibliography", "sources", "zotero_dir", "allow_folders"} <= set(PATH_KEYS)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", PATH_KEYS)
def test_no_path_setting_in_a_project_file_touches_a_writers_file(
    tmp_path: Path, name: str, target: str
) -> None:
    root = _project(tmp_path)
    (root / "citedesk.toml").write_text(f'{name} = "{target}"\n', encoding="utf-8")
    before = _files(root)
    result = _run("audit", str(root / "paper.md"), "--offline")
    assert result.returncode in (0, 1, 2), result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert "internal error" not in result.stderr
    # byte-identical, nothing renamed, nothing new beside them (only the project's own .citedesk/ may be)
    assert _files(root) == before


def test_a_project_store_is_placed_only_in_the_projects_own_folder(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "citedesk.toml").write_text('store = ".citedesk/store.sqlite3"\n', encoding="utf-8")
    before = _files(root)
    result = _run("audit", str(root / "paper.md"), "--offline", "--format", "json")
    assert result.returncode in (0, 1), result.stderr[-3000:]
    assert (root / ".citedesk" / "store.sqlite3").is_file()
    assert _files(root) == before


def test_a_store_the_users_own_file_names_on_a_document_is_refused_and_left_alone(tmp_path: Path) -> None:
    root = _project(tmp_path)
    user = tmp_path / "user.toml"
    user.write_text(f'store = "{root / "paper.md"}"\n', encoding="utf-8")
    before = _files(root)
    result = _run("audit", str(root / "paper.md"), "--offline", env={config.CONFIG_VARIABLE: str(user)})
    assert result.returncode == 2
    assert f"the store {root / 'paper.md'} is not a database, not a store CiteDesk made" in result.stderr
    assert "Traceback" not in result.stderr
    assert _files(root) == before


# --- files built to exhaust the reader -----------------------------------------------------------------------
HOSTILE = {
    # 120 KB: tomllib held 3.8 GB and ran out of memory (its work grows with the square of the parts)
    "dotted key": ("a" + ".a" * 60_000 + " = 1\n", "a key of more than 16 dotted parts"),
    "dotted table": ("[" + "a." * 60_000 + "a]\n", "a key of more than 16 dotted parts"),
    # a RecursionError, exit 3
    "nested arrays": (
        "fail_on = " + "[" * 50_000 + "]" * 50_000 + "\n",
        "arrays or tables nested more than 16 deep",
    ),
    "nested tables": (
        "a = " + "{b = " * 20_000 + "1" + "}" * 20_000 + "\n",
        "arrays or tables nested more than 16 deep",
    ),
    "many keys": ("".join(f"k{n} = {n}\n" for n in range(5000)), "more than 1000 keys"),
    "a long number": ("timeout = " + "9" * 5000 + "\n", "a number in it is thousands of digits long"),
}


@pytest.mark.parametrize("layer", ["project", "user"])
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_settings_file_is_refused_in_bounded_memory_naming_it(
    tmp_path: Path, case: str, layer: str
) -> None:
    text, why = HOSTILE[case]
    root = _project(tmp_path)
    settings = root / "citedesk.toml" if layer == "project" else tmp_path / "config.toml"
    settings.write_text(text, encoding="utf-8")
    env = {config.CONFIG_VARIABLE: str(settings)} if layer == "user" else {}
    before = _files(root)
    outcome, said = _limited(["audit", str(root / "paper.md"), "--offline"], env)
    assert outcome["code"] == 2, said[-3000:]
    assert f"{settings}: not a settings file ({why})" in said
    assert outcome["max_rss_mib"] < 400
    assert _files(root) == before


# --- what a settings file can make CiteDesk read or say --------------------------------------------------------
def test_a_project_file_linked_to_a_file_outside_the_project_is_not_read(tmp_path: Path) -> None:
    root = _project(tmp_path)
    elsewhere = tmp_path / "elsewhere.toml"
    elsewhere.write_text("private_words_of_someone_else = 1\n", encoding="utf-8")
    (root / "citedesk.toml").symlink_to(elsewhere)
    result = _run("audit", str(root / "paper.md"), "--offline")
    assert result.returncode == 2
    assert f"{root / 'citedesk.toml'}: is a link to {elsewhere}, outside the project" in result.stderr
    assert "private_words_of_someone_else" not in result.stderr + result.stdout
    assert "Traceback" not in result.stderr


def test_a_link_to_a_file_inside_the_project_is_read(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "settings").mkdir()
    (root / "settings" / "citedesk.toml").write_text("timeout = 42\n", encoding="utf-8")
    (root / "citedesk.toml").symlink_to(root / "settings" / "citedesk.toml")
    assert config.load(root / "paper.md").settings.timeout == 42


@pytest.mark.parametrize("layer", ["project", "user"])
def test_an_unknown_key_is_named_cut_short_and_printable(tmp_path: Path, layer: str) -> None:
    root = _project(tmp_path)
    hostile = "\\u001b]0;owned\\u0007\\u001b[2J" + "x" * 100_000  # a terminal escape, then 100 KB
    settings = root / "citedesk.toml" if layer == "project" else tmp_path / "config.toml"
    settings.write_text(f'"{hostile}" = 1\n', encoding="utf-8")
    env = {config.CONFIG_VARIABLE: str(settings)} if layer == "user" else {}
    result = _run("audit", str(root / "paper.md"), "--offline", env=env)
    assert result.returncode == 2
    assert f"{settings}: unknown setting `?]0;owned??[2J" in result.stderr
    assert "\x1b" not in result.stderr
    assert "\x07" not in result.stderr
    assert "x" * 61 not in result.stderr
    assert len(result.stderr) < 2000
