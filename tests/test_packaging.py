"""What ships: the bundled resources, and packaging metadata that agrees with the code."""

from __future__ import annotations

import configparser
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import citedesk
from citedesk.assets import icon_path, sample_paths
from citedesk.cli import main

ROOT = Path(__file__).resolve().parents[1]
APP_ID = "io.github.citedesk.CiteDesk"


def _desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(ROOT / "packaging" / f"{APP_ID}.desktop", encoding="utf-8")
    return parser["Desktop Entry"]


def test_bundled_samples_are_found_and_audit(capsys: object) -> None:
    samples = sample_paths()
    assert {"problems", "evidence", "clean"} <= set(samples)
    assert all(path.is_file() for path in samples.values())
    assert main(["samples"]) == 0
    printed = capsys.readouterr().out  # type: ignore[attr-defined]
    assert f"problems\t{samples['problems']}" in printed
    # the sample that shows problems fails the gate; the clean one passes
    assert main(["audit", str(samples["problems"]), "--no-sources"]) == 1
    assert main(["audit", str(samples["clean"]), "--no-sources"]) == 0


def test_icon_is_a_square_png() -> None:
    data = icon_path().read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width == height == 256


def test_desktop_entry_launches_the_installed_command() -> None:
    entry = _desktop_entry()
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    command, subcommand, argument = entry["Exec"].split()
    assert command in scripts
    assert subcommand == "open"
    assert argument == "%f"
    assert entry["Icon"] == APP_ID
    assert entry["Type"] == "Application"
    assert entry["Categories"].endswith(";")
    assert "text/markdown" in entry["MimeType"].split(";")


def test_metainfo_matches_the_desktop_entry_and_the_version() -> None:
    root = ET.parse(ROOT / "packaging" / f"{APP_ID}.metainfo.xml").getroot()
    assert root.findtext("id") == APP_ID
    assert root.findtext("launchable") == f"{APP_ID}.desktop"
    assert root.findtext("provides/binary") == _desktop_entry()["Exec"].split()[0]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert root.findtext("project_license") == project["license"]
    newest = root.find("releases/release")
    assert newest is not None
    assert newest.get("version") == citedesk.__version__ == project["version"]


def test_every_package_of_the_code_is_installed() -> None:
    """setuptools installs only the packages pyproject lists: a new one left out works in an
    editable checkout and is missing from a wheel or the PyInstaller build."""
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "citedesk").rglob("__init__.py")
    }
    assert found - listed == set()


def test_every_data_pattern_ships_something_and_no_script_ships() -> None:
    """Each `package-data` pattern matches a file (a stale one, like `*.qss`, says the package holds
    what it does not), and what ships to writers is data: no developer script (issue 43)."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    folders = tool["package-dir"]
    shipped: list[Path] = []
    for package, patterns in tool["package-data"].items():
        folder = ROOT / folders[package]
        for pattern in patterns:
            matched = [path for path in folder.glob(pattern) if path.is_file()]
            assert matched, f"{package}: {pattern} matches no file"
            shipped += matched
    assert [path for path in shipped if path.suffix == ".py"] == []
    scripts = [path for path in (ROOT / "resources").rglob("*.py") if path.name != "__init__.py"]
    assert scripts == []
