"""What ships: the bundled resources, and packaging metadata that agrees with the code."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
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


BUILD_OUTPUTS = {("citedesk", "prepared/*"), ("citedesk", "prepared/model/*")}
"""Package data that packaging/build.sh makes (the prepared embedder, git-ignored): not in a checkout."""


def test_every_data_pattern_ships_something_and_no_script_ships() -> None:
    """Each `package-data` pattern matches a file (a stale one, like `*.qss`, says the package holds
    what it does not), and what ships to writers is data: no developer script (issue 43)."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    folders = tool["package-dir"]
    shipped: list[Path] = []
    for package, patterns in tool["package-data"].items():
        folder = ROOT / folders.get(package, package.replace(".", "/"))
        for pattern in patterns:
            if (package, pattern) in BUILD_OUTPUTS:
                continue
            matched = [path for path in folder.glob(pattern) if path.is_file()]
            assert matched, f"{package}: {pattern} matches no file"
            shipped += matched
    assert [path for path in shipped if path.suffix == ".py"] == []
    scripts = [path for path in (ROOT / "resources").rglob("*.py") if path.name != "__init__.py"]
    assert scripts == []


def test_open_with_citedesk_covers_markdown_latex_and_word() -> None:
    types = _desktop_entry()["MimeType"].split(";")
    assert {
        "text/markdown",
        "text/x-tex",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    } <= set(types)


def test_the_bundle_installs_for_the_user_and_uninstalls(tmp_path: Path) -> None:
    """packaging/build.sh's folder, as install.sh and uninstall.sh see it (an executable that only
    says its version stands in for the PyInstaller build)."""
    bundle = tmp_path / "citedesk-0-linux-x86_64"
    for folder in ("share/applications", "share/metainfo", "share/icons/hicolor/256x256/apps",
                   "share/icons/hicolor/scalable/apps"):  # fmt: skip
        (bundle / folder).mkdir(parents=True)
    shutil.copy(ROOT / "packaging" / f"{APP_ID}.desktop", bundle / "share/applications")
    shutil.copy(ROOT / "packaging" / f"{APP_ID}.metainfo.xml", bundle / "share/metainfo")
    shutil.copy(
        ROOT / "resources/icons/citedesk.png", bundle / f"share/icons/hicolor/256x256/apps/{APP_ID}.png"
    )
    shutil.copy(
        ROOT / "resources/icons/citedesk.svg", bundle / f"share/icons/hicolor/scalable/apps/{APP_ID}.svg"
    )
    (bundle / "citedesk").write_text("#!/bin/sh\necho citedesk 0\n", encoding="utf-8")
    (bundle / "citedesk").chmod(0o755)
    for script in ("install", "uninstall"):
        shutil.copy(ROOT / "packaging" / f"bundle-{script}.sh", bundle / f"{script}.sh")
    prefix = tmp_path / "local"
    env = {**os.environ, "PREFIX": str(prefix)}

    subprocess.run(["bash", str(bundle / "install.sh")], env=env, check=True, capture_output=True, timeout=60)
    shutil.rmtree(bundle)  # the installed copy runs without the unpacked folder
    command = prefix / "bin" / "citedesk"
    done = subprocess.run([str(command)], check=True, capture_output=True, text=True, timeout=60)
    assert done.stdout == "citedesk 0\n"
    entry = (prefix / "share/applications" / f"{APP_ID}.desktop").read_text(encoding="utf-8")
    assert f"Exec={prefix}/opt/citedesk/citedesk open %f" in entry.splitlines()
    assert (prefix / "share/icons/hicolor/256x256/apps" / f"{APP_ID}.png").is_file()

    subprocess.run(
        ["bash", str(prefix / "opt/citedesk/uninstall.sh")],
        env=env,
        check=True,
        capture_output=True,
        timeout=60,
    )
    assert [p for p in prefix.rglob("*") if p.is_file() or p.is_symlink()] == []


def test_the_bundles_entry_point_says_the_version_as_the_cli_does() -> None:
    """packaging/citedesk_main.py answers `--version` before importing the CLI (start-up time):
    the same line, and the same exit status, as the CLI's own --version."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    entry = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "citedesk_main.py"), "--version"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    cli = subprocess.run(
        [sys.executable, "-m", "citedesk", "--version"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert (
        (entry.returncode, entry.stdout)
        == (cli.returncode, cli.stdout)
        == (0, f"citedesk {citedesk.__version__}\n")
    )
    assert entry.stderr == ""
