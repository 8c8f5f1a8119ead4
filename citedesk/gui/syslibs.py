"""Whether the host has the system libraries Qt's X11 platform plugin needs, checked before Qt is.

Qt loads its platform plugin when the QApplication is made; on a host without one of the plugin's
libraries (`libxcb-cursor0`, `libxcb-icccm4`, `libxcb-keysyms1` are missing from many fresh
installs) it prints a notice that names at most one of them and aborts the process (exit 134).
Here the dynamic loader is asked first, with no Qt import: each library the plugin of this Qt
(6.11) links to is opened by its soname, and then the plugin itself, whose failure names whatever
the table does not know. What is missing is said in one message with the packages that provide it
on Debian/Ubuntu and Fedora, and the other platforms that need none of it (`QT_QPA_PLATFORM`).

Only the X11 platform is checked: it is Qt's choice when `QT_QPA_PLATFORM` is unset outside a
Wayland session, or when it names `xcb`.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Provider:
    """The packages that install a library: Debian/Ubuntu's and Fedora's name."""

    debian: str
    fedora: str


XCB_LIBRARIES: Mapping[str, Provider] = {
    "libxcb-cursor.so.0": Provider("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": Provider("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-keysyms.so.1": Provider("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-image.so.0": Provider("libxcb-image0", "xcb-util-image"),
    "libxcb-render-util.so.0": Provider("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-util.so.1": Provider("libxcb-util1", "xcb-util"),
    "libxkbcommon-x11.so.0": Provider("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libxkbcommon.so.0": Provider("libxkbcommon0", "libxkbcommon"),
    "libxcb-xkb.so.1": Provider("libxcb-xkb1", "libxcb"),
    "libxcb-randr.so.0": Provider("libxcb-randr0", "libxcb"),
    "libxcb-render.so.0": Provider("libxcb-render0", "libxcb"),
    "libxcb-shape.so.0": Provider("libxcb-shape0", "libxcb"),
    "libxcb-shm.so.0": Provider("libxcb-shm0", "libxcb"),
    "libxcb-sync.so.1": Provider("libxcb-sync1", "libxcb"),
    "libxcb-xfixes.so.0": Provider("libxcb-xfixes0", "libxcb"),
    "libxcb.so.1": Provider("libxcb1", "libxcb"),
    "libX11-xcb.so.1": Provider("libx11-xcb1", "libX11-xcb"),
    "libX11.so.6": Provider("libx11-6", "libX11"),
    "libGL.so.1": Provider("libgl1", "libglvnd-glx"),
    "libEGL.so.1": Provider("libegl1", "libglvnd-egl"),
    "libfontconfig.so.1": Provider("libfontconfig1", "fontconfig"),
    "libglib-2.0.so.0": Provider("libglib2.0-0", "glib2"),
    "libgthread-2.0.so.0": Provider("libglib2.0-0", "glib2"),
}
"""The libraries Qt 6.11's xcb platform plugin (libqxcb.so, libQt6XcbQpa.so.6) and Qt's GUI library
need from the host, by soname, with the packages that provide them."""

_NOT_FOUND = re.compile(r"([^\s:/]+\.so[.\d]*): cannot open shared object file")
Loader = Callable[[str], object]


def _dlopen(name: str) -> object:
    return ctypes.CDLL(name, mode=os.RTLD_LAZY | os.RTLD_LOCAL)


def xcb_plugin() -> Path | None:
    """The xcb platform plugin of the PySide6 this process would import (found without importing it)."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        plugin = Path(folder) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
        if plugin.is_file():
            return plugin
    return None


def uses_xcb(environ: Mapping[str, str]) -> bool:
    """Whether Qt would start on its X11 platform plugin in this environment."""
    platform = environ.get("QT_QPA_PLATFORM", "").strip()
    if platform:
        return platform.split(":")[0].split(";")[0] == "xcb"
    return environ.get("XDG_SESSION_TYPE", "") != "wayland"


def missing_libraries(
    plugin: Path, libraries: Mapping[str, Provider] = XCB_LIBRARIES, load: Loader = _dlopen
) -> list[str]:
    """The sonames the dynamic loader cannot open: of `libraries`, then the one the plugin's own
    load fails on (when the table did not already name it)."""
    missing = []
    for name in libraries:
        try:
            load(name)
        except OSError:
            missing.append(name)
    try:
        load(str(plugin))
    except OSError as exc:
        found = _NOT_FOUND.search(str(exc))
        named = found.group(1) if found else f"{plugin.name} ({exc})"
        if named not in missing:
            missing.append(named)
    return missing


def advice(missing: list[str], libraries: Mapping[str, Provider] = XCB_LIBRARIES) -> str:
    """One message: what is missing, the commands that install it, and the platforms that need none of it."""
    known = [libraries[name] for name in missing if name in libraries]
    debian = " ".join(dict.fromkeys(p.debian for p in known))
    fedora = " ".join(dict.fromkeys(p.fedora for p in known))
    lines = [
        "citedesk: the window cannot start: Qt's X11 platform needs system libraries this machine "
        f"does not have: {', '.join(missing)}."
    ]
    if known:
        lines += [
            f"  Debian/Ubuntu: sudo apt install {debian}",
            f"  Fedora:        sudo dnf install {fedora}",
        ]
    unknown = [name for name in missing if name not in libraries]
    if unknown:
        lines.append(f"  (install the package that provides {', '.join(unknown)})")
    lines += [
        "  Or choose another platform: QT_QPA_PLATFORM=wayland (in a Wayland session), "
        "QT_QPA_PLATFORM=offscreen (no window on screen).",
        "  Every command works without the window: citedesk --help",
    ]
    return "\n".join(lines)


def platform_problem(
    environ: Mapping[str, str] | None = None,
    plugin: Path | None = None,
    libraries: Mapping[str, Provider] = XCB_LIBRARIES,
) -> str | None:
    """The message to stop with before Qt would abort for a missing library; None when Qt can start
    (or will not use X11, or no plugin is installed to check: then Qt says what it says)."""
    if not uses_xcb(os.environ if environ is None else environ):
        return None
    plugin = plugin or xcb_plugin()
    if plugin is None:
        return None
    missing = missing_libraries(plugin, libraries)
    return advice(missing, libraries) if missing else None
