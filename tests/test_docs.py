"""The README is a newcomer's page and the manual lives in docs/ (issue 43 #12): the README stays
short, starts with the two commands, and every link in it and in docs/ leads somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_readme_is_a_newcomers_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 400
    commands = re.findall(r"```bash\n(.*?)\n```", readme, re.DOTALL)[:2]
    assert commands[0].startswith("python3.11 -m venv .venv && .venv/bin/pip install -c constraints.txt")
    assert commands[0].endswith(".venv/bin/citedesk audit resources/samples/problems.md")
    assert commands[1] == ".venv/bin/python -m pytest"
    linked = {target for target in LINK.findall(readme) if target.startswith("docs/")}
    manual = {f"docs/{page.name}" for page in PAGES[1:]}
    assert manual - {"docs/editors.md"} <= linked  # every page of the manual is reachable from it


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_leads_somewhere(page: Path) -> None:
    text = re.sub(r"```.*?```|`[^`\n]*`", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)  # code
    for target in LINK.findall(text):
        if re.match(r"^(https?:|mailto:|#)", target):
            continue
        path = (page.parent / target.split("#", 1)[0]).resolve()
        assert path.exists(), f"{page.name} links to {target}, which does not exist"


def test_every_top_level_folder_is_described() -> None:
    """A folder at the top of the repository says what it holds (How it is built): no folder kept for
    something that lives elsewhere (the old `models/`, whose models live in the user's data folder)."""
    tree = (ROOT / "docs" / "building.md").read_text(encoding="utf-8").split("```", 2)[1]
    described = {line.split()[0] for line in tree.splitlines() if line and not line[0].isspace()}
    folders = {f"{p.name}/" for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".")}
    present = {name for name in folders if any((ROOT / name).rglob("*.*"))} - {
        "build/",
        "dist/",
        "citedesk.egg-info/",
    }  # build outputs, git-ignored
    assert present <= described
