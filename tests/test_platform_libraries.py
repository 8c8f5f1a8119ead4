"""Before Qt would abort for a missing system library (exit 134), the window says which packages to
install and exits 2 (issue 40).

The missing library is real, not pretended: a platform plugin is compiled here that links to a
library which is then deleted, so the dynamic loader fails on it exactly as on a host without
libxcb-icccm4. The last test runs `citedesk draft.md` in a process whose PySide6 carries that plugin.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from citedesk.gui.syslibs import Provider, advice, missing_libraries, platform_problem, uses_xcb

ROOT = Path(__file__).resolve().parents[1]
ABSENT = "libcitedesk-absent.so.1"
TABLE = {ABSENT: Provider("libcitedesk-absent1", "citedesk-absent")}

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler to build a plugin")


def _compile(args: list[str], cwd: Path) -> None:
    subprocess.run(["cc", "-shared", "-fPIC", *args], cwd=cwd, check=True, capture_output=True, timeout=120)


def fake_plugin(folder: Path, *, linked_to_absent: bool) -> Path:
    """A shared library named like Qt's xcb plugin; linked, when asked, to a library that is gone."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plugin.c").write_text("int citedesk_plugin(void) { return 1; }\n", encoding="utf-8")
    plugin = folder / "libqxcb.so"
    if not linked_to_absent:
        _compile(["-o", plugin.name, "plugin.c"], folder)
        return plugin
    (folder / "absent.c").write_text("int citedesk_absent(void) { return 2; }\n", encoding="utf-8")
    _compile([f"-Wl,-soname,{ABSENT}", "-o", ABSENT, "absent.c"], folder)
    _compile(["-o", plugin.name, "-Wl,--no-as-needed", "plugin.c", f"-L{folder}", f"-l:{ABSENT}"], folder)
    (folder / ABSENT).unlink()
    return plugin


@needs_cc
def test_a_library_the_plugin_needs_and_the_loader_cannot_find_is_named(tmp_path: Path) -> None:
    plugin = fake_plugin(tmp_path, linked_to_absent=True)
    assert missing_libraries(plugin, {}) == [ABSENT]
    # named once, with its packages, when the table knows it
    assert missing_libraries(plugin, TABLE) == [ABSENT]
    message = advice([ABSENT], TABLE)
    assert "sudo apt install libcitedesk-absent1" in message
    assert "sudo dnf install citedesk-absent" in message
    assert "QT_QPA_PLATFORM=wayland" in message
    assert "QT_QPA_PLATFORM=offscreen" in message


@needs_cc
def test_a_plugin_whose_libraries_are_all_there_is_no_problem(tmp_path: Path) -> None:
    plugin = fake_plugin(tmp_path, linked_to_absent=False)
    assert missing_libraries(plugin, {}) == []
    assert platform_problem({"QT_QPA_PLATFORM": "xcb"}, plugin, {}) is None


def test_only_the_x11_platform_is_checked() -> None:
    assert uses_xcb({})
    assert uses_xcb({"QT_QPA_PLATFORM": "xcb"})
    assert not uses_xcb({"QT_QPA_PLATFORM": "offscreen"})
    assert not uses_xcb({"QT_QPA_PLATFORM": "wayland;xcb"})
    assert not uses_xcb({"XDG_SESSION_TYPE": "wayland"})
    # offscreen needs none of the X11 libraries: no problem even with every one of them "missing"
    assert platform_problem({"QT_QPA_PLATFORM": "offscreen"}, Path("/nonexistent/libqxcb.so"), TABLE) is None


def test_a_library_the_table_does_not_know_is_still_named() -> None:
    message = advice(["libxcb-icccm.so.4", "libsomething.so.2"])
    assert "sudo apt install libxcb-icccm4" in message
    assert "sudo dnf install xcb-util-wm" in message
    assert "libsomething.so.2" in message.splitlines()[0]
    assert "provides libsomething.so.2" in message


@needs_cc
def test_the_window_exits_2_with_the_packages_instead_of_aborting(tmp_path: Path) -> None:
    """`citedesk draft.md` with a PySide6 whose xcb plugin cannot load: exit 2, one message, no
    traceback and no Qt abort (134)."""
    pyside = tmp_path / "site" / "PySide6"
    fake_plugin(pyside / "Qt" / "plugins" / "platforms", linked_to_absent=True)
    (pyside / "__init__.py").write_text("raise ImportError('not the real PySide6')\n", encoding="utf-8")
    draft = tmp_path / "draft.md"
    draft.write_text("A claim [1].\n\n## References\n\n1. Doe, J. (2020). A work.\n", encoding="utf-8")
    env = {
        key: value for key, value in os.environ.items() if key not in {"QT_QPA_PLATFORM", "XDG_SESSION_TYPE"}
    }
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "site"), str(ROOT)])
    done = subprocess.run(
        [sys.executable, "-m", "citedesk", str(draft)],
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert ABSENT in done.stderr
    assert "QT_QPA_PLATFORM=offscreen" in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.count("citedesk:") == 1
