"""What the editor sets: `initializationOptions` and `workspace/didChangeConfiguration`.

The client's settings are the top layer of the same layers the CLI and the window read (defaults <
the user's `config.toml` < the project's `citedesk.toml` < here), so a project's file applies in an
editor exactly as on the command line, with the same refusals (`citedesk.config.load`). Only these
settings are taken from a client; each is accepted under its settings-file name or in camelCase,
at the top or under a `citedesk` section (how VS Code, Neovim and Helix nest a server's settings):

| key | type | meaning |
| --- | --- | --- |
| `offline` | bool | no network: sources from the cache and local files only |
| `judge` | str | the judge (`auto`, `heuristic`, a model's name, `none` …) |
| `strong_judge` | str | a cascade's strong judge |
| `sources` | path | a folder of sources named by reference key |
| `allow_folders` | list of paths | folders the audit may read besides the document's own |

A value of the wrong type is left out with a message (`problems`), never a crash; `null` or an
empty string is a setting not given (the settings files decide). The settings of
`workspace/didChangeConfiguration` lie over the `initializationOptions` (a key given again wins; a
key not given again keeps its first value), so a client that sends only what changed, or only its
settings section, loses nothing it gave at start.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citedesk.config import Configuration, load

NAMES = {
    "offline": "offline",
    "judge": "judge",
    "strong_judge": "strong_judge",
    "strongJudge": "strong_judge",
    "sources": "sources",
    "sourcesFolder": "sources",
    "allow_folders": "allow_folders",
    "allowFolders": "allow_folders",
}
"""A client's name for a setting → the setting (`citedesk.config.Settings`)."""


@dataclass(frozen=True)
class ClientSettings:
    """The settings a client gave, typed as `config.load` takes them, and what was left out."""

    given: Mapping[str, Any] = field(default_factory=dict)
    problems: tuple[str, ...] = ()

    @classmethod
    def parse(cls, raw: object) -> ClientSettings:
        """Read a client's settings object (anything JSON can be; None: nothing set)."""
        if raw is None:
            return cls()
        if not isinstance(raw, Mapping):
            return cls(problems=(f"settings must be an object, not {type(raw).__name__}",))
        section = raw.get("citedesk")
        if isinstance(section, Mapping):
            raw = section
        given: dict[str, Any] = {}
        problems: list[str] = []
        for name, value in raw.items():
            setting = NAMES.get(str(name))
            if setting is None:
                continue  # another tool's, or a later version's: not ours to refuse
            if value is None or value == "":
                continue  # not set (VS Code sends every setting of its section, unset ones so)
            typed, problem = _typed(setting, value)
            if problem:
                problems.append(f"setting `{name}`: {problem}; left out")
            else:
                given[setting] = typed
        return cls(given, tuple(problems))

    def over(self, below: ClientSettings) -> ClientSettings:
        """These settings laid over `below` (what this one gives wins)."""
        return ClientSettings({**below.given, **self.given}, self.problems)

    def configuration(self, where: Path | None) -> Configuration:
        """The layers for a document at `where` (its project file found from there), these on top
        (a `CiteDeskError` says what is wrong with a settings file or a folder)."""
        return load(where, self.given)


def _typed(setting: str, value: object) -> tuple[Any, str]:
    """(the value as the setting takes it, "") or (None, what is wrong with it)."""
    if setting == "offline":
        return (value, "") if isinstance(value, bool) else (None, "expected true or false")
    if setting in ("judge", "strong_judge"):
        return (value.strip(), "") if isinstance(value, str) else (None, "expected a string")
    if setting == "sources":
        if value is None or value == "":
            return None, ""
        return (
            (Path(value).expanduser(), "") if isinstance(value, str) else (None, "expected a folder's path")
        )
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None, "expected a list of folders"
    return tuple(Path(v).expanduser() for v in value), ""
