"""The settings a judge declares on its spec (issue 39): a key of the settings files, a flag of the
command line, a row of the window's settings dialog, and a value its loader reads — declared once,
with the judge (`evidence.judges.spec.JudgeSpec.settings`), instead of a field threaded through
the settings, the options and the judge's context by hand.

The table is here, in the core, so that the command line's parser (which loads no judge module:
`--help` is instant) and the settings read it; a judge's `register` declares its spec's settings,
and the built-in server judge's (`SERVER_SETTINGS`) are declared at import, as its flags exist
before any judge is loaded. Pure: a URL's host is read, never resolved.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class JudgeSetting:
    """A setting a judge declares on its spec (`JudgeSpec.settings`): a key of the settings files,
    a flag of the command line where it has one, a row of the window's settings dialog, and its
    value in the loader's `JudgeContext.settings` — with nothing else naming it (issue 39)."""

    key: str
    """The settings files' key (`judge_url`), also `JudgeContext.settings`' key."""
    default: str | bool
    """Its value when nothing sets it; its type says what a file may set (a string, true/false)."""
    label: str
    """The settings dialog's row."""
    help: str
    """What it does, in words: the flag's help, the row's tooltip."""
    flag: str = ""
    """Its command-line flag (`--judge-url`; a boolean also gets `--no-…`); empty: none."""
    metavar: str = "VALUE"
    widens: bool = False
    """It widens what CiteDesk may reach or send (a server elsewhere): a project file may not set it."""
    refuse_in_project: Callable[[object], str | None] | None = None
    """Why a project file may not set this value (`a project file cannot send text to …`), or None
    when it may; a project file comes from whoever made the documents."""


_SETTINGS: dict[str, JudgeSetting] = {}


def declare(*settings: JudgeSetting) -> tuple[JudgeSetting, ...]:
    """Make judges' settings known before their judge is (a light module the judge's imports:
    the settings files and the command line read them without importing the judge). A key is
    declared once; declaring the same setting again is no change."""
    for setting in settings:
        known = _SETTINGS.get(setting.key)
        if known is not None and known != setting:
            raise ValueError(f"a judge setting named {setting.key!r} is already declared")
    _SETTINGS.update((s.key, s) for s in settings)
    return settings


def declared_settings() -> tuple[JudgeSetting, ...]:
    """Every judge's own setting declared so far, in declaration order."""
    return tuple(_SETTINGS.values())


def judge_values(given: Mapping[str, object]) -> dict[str, object]:
    """Every declared setting's value: `given`'s where it has one, else the default."""
    return {key: given.get(key, setting.default) for key, setting in _SETTINGS.items()}


def forget(*settings: JudgeSetting) -> None:
    """Take `settings` back (their judge is unregistered)."""
    for setting in settings:
        _SETTINGS.pop(setting.key, None)


def is_loopback(url: str) -> bool:
    """Whether `url`'s host is this machine by its address (`127.x`, `::1`) or `localhost`: no
    name is resolved, so a DNS answer cannot turn a name into a loopback address or away from it."""
    host = (urlsplit(url).hostname or "").strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _elsewhere(url: object) -> str | None:
    if isinstance(url, str) and is_loopback(url):
        return None
    return "a project file cannot send text to a judge server on another machine"


SERVER_URL = "judge_url"
SERVER_REMOTE = "judge_remote"
SERVER_SETTINGS = declare(
    JudgeSetting(
        SERVER_URL,
        "",
        "Server URL",
        "the OpenAI-compatible endpoint of --judge server:MODEL (default: Ollama's, "
        "http://127.0.0.1:11434/v1); only this machine unless --judge-remote",
        flag="--judge-url",
        metavar="URL",
        refuse_in_project=_elsewhere,
    ),
    JudgeSetting(
        SERVER_REMOTE,
        False,
        "Allow a server on another machine",
        "allow --judge-url on another machine: the cited sentences and their sources' passages are sent there",
        flag="--judge-remote",
        widens=True,
    ),
)
"""The server judge's own settings (`evidence.judges.server`)."""
