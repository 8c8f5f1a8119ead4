"""Settings, in layers: defaults < the user's settings file < the project's `citedesk.toml` < the
command line. Each later layer replaces a value of an earlier one (a list too: `allow_folders` on
the command line is the whole list, not an addition), and each value remembers where it came from,
so `citedesk config show` can say why a setting is what it is.

The user's file (`config.toml` in the user's config folder, or the file `$CITEDESK_CONFIG` names)
is the writer's own: it may set anything a flag sets. A project file is found next to a document,
in its folder or a parent — and a document's folder may come from anyone (a cloned repository, an
unpacked archive). So a project file is read as untrusted input, as a document is
(`sources.local`): it may not widen the folders CiteDesk may read (`allow_folders`,
`allow_local_paths`), open the private network, name a path (sources, bibliography, Zotero)
outside its own project folder, place the store anywhere but its own `.citedesk/` folder, or turn
on sending text to Claude. Such a key is ignored with a notice that says why; the rest of the file
still applies. A project file that is a link to a file outside its folder is not read at all.

Both files are bounded before TOML reads them (`MAX_CONFIG_BYTES`; keys, dotted parts and nesting:
`core.safeload.toml_excess`), so a hostile file costs milliseconds and kilobytes, never a parser's
quadratic memory or its recursion; a key's name is repeated in a message only cut short and
printable (`_shown`), and a path is at most MAX_PATH_CHARS printable characters.

No settings file holds a secret: an API key in one is refused (the key belongs in the system
keyring, `citedesk assist set-key`), and its value is never repeated in a message.

A file that is not valid TOML, a key CiteDesk does not know and a value of the wrong type are
`ConfigError`s (exit 2) naming the file, the key and what is accepted.

`Configuration.audit_options` is the one way the command line (and later the window) turns
settings into the engine's per-audit `AuditOptions`.
"""

from __future__ import annotations

import difflib
import os
import stat
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal

import platformdirs

from citedesk.core.findings import Kind
from citedesk.core.judge_settings import is_loopback
from citedesk.core.reports import format_names
from citedesk.core.reports.report import FailPolicy
from citedesk.core.safeload import toml_excess
from citedesk.errors import CiteDeskError, InputError, UsageError
from citedesk.evidence.judges.registry import JudgeSetting, declared_settings
from citedesk.evidence.judges.registry import find as find_judge
from citedesk.files import read_regular_file
from citedesk.pipeline import AuditOptions

PROJECT_FILE = "citedesk.toml"
CONFIG_VARIABLE = "CITEDESK_CONFIG"
MAX_CONFIG_BYTES = 256 * 1024
"""A settings file is a few lines; anything bigger is not one (and is not read whole)."""
MAX_SHOWN = 60
"""Characters of a key's name repeated in a message."""
MAX_PATH_CHARS = 4096
"""Characters of one path in a settings file (PATH_MAX on Linux)."""
MAX_TEXT_CHARS = 1024
"""Characters of any other string setting (a judge, a model, a URL, an e-mail address)."""
STORE_FOLDER = ".citedesk"
"""The only folder where a project file may place the store: the project's own, for CiteDesk."""


class ConfigError(CiteDeskError):
    """A settings file that cannot be used: not TOML, an unknown key, a value of the wrong type."""

    kind = "config"


Layer = Literal["default", "user", "project", "command line"]


@dataclass(frozen=True)
class Origin:
    """Where a value came from: a default, the user's file, a project file, the command line."""

    layer: Layer
    path: Path | None = None

    def __str__(self) -> str:
        return self.layer if self.path is None else f"{self.layer} file {self.path}"


DEFAULT = Origin("default")
COMMAND_LINE = Origin("command line")


@dataclass(frozen=True)
class Settings:
    """What a writer may set once and for all (per user or per project); what belongs to one run
    (`--refresh`, `--out`, `--dry-run`, `--ignore-reviews`…) stays a flag. The names are the keys
    of the settings files."""

    judge: str = "auto"
    offline: bool = False
    timeout: float = 300.0
    """Seconds for a whole audit (one source gets at most 60 of them)."""
    dense: bool = True
    sources: Path | None = None
    bibliography: tuple[Path, ...] = ()
    allow_folders: tuple[Path, ...] = ()
    allow_local_paths: bool = False
    allow_private_network: bool = False
    zotero: bool = True
    zotero_dir: Path | None = None
    store: Path | None = None
    fail_on: str = "warning"
    fix_kinds: str | None = None
    """What `citedesk fix` fixes when `--kinds` is not given (None: `--kinds` is required)."""
    format: str = "text"
    assist: str = "none"
    assist_model: str | None = None
    contact_email: str | None = None
    recheck_days: float | None = None
    strong_judge: str = ""
    """A cascade's strong judge: re-reads what the judge flagged or is unsure about (empty: none)."""
    strong_budget: float = 30.0
    """Seconds the strong judge may spend re-reading in one audit."""
    judges: Mapping[str, Any] = field(default_factory=dict)
    """The judges' own settings set (`JudgeSpec.settings`; one not set: its default, `value`)."""

    def value(self, name: str) -> Any:
        """The value of the setting `name`: a field, or a judge's own setting."""
        judge = KEYS[name].judge
        return getattr(self, name) if judge is None else self.judges.get(name, judge.default)


# --- reading one value ------------------------------------------------------------------------------
class _Refused(ConfigError):
    """A value of the wrong type or out of range; its message says what is accepted. Caught where
    the file and the key are known, and said again with them."""


def _described(value: object) -> str:
    """What a refused value is: a number is shown (out of range, it is the point); anything else
    only by its type, so a pasted secret in the wrong key is never repeated."""
    names = {bool: "a boolean", str: "a string", int: "a number", float: "a number", list: "a list"}
    kind = names.get(type(value), "a table" if isinstance(value, dict) else f"a {type(value).__name__}")
    return f"{value} ({kind})" if isinstance(value, int | float) and not isinstance(value, bool) else kind


def _boolean(value: object, _: Path) -> bool:
    if not isinstance(value, bool):
        raise _Refused("true or false")
    return value


def _text(value: object, _: Path) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT_CHARS or _controls(value):
        raise _Refused(
            f"a non-empty string of at most {MAX_TEXT_CHARS} characters, without control characters"
        )
    return value.strip()


def _number(low: float, high: float, unit: str, *, low_too: bool = False) -> Callable[[object, Path], float]:
    def read(value: object, _: Path) -> float:
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        if number is None or not (low <= number if low_too else low < number) or number > high:
            above = f"at least {low:g}" if low_too else f"above {low:g}"
            raise _Refused(f"a number of {unit} {above} and at most {high:g}")
        return float(number)

    return read


def _path(value: object, folder: Path) -> Path:
    """A path in a file: `~` is the home folder; a relative one is relative to the file's folder."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_PATH_CHARS or _controls(value):
        raise _Refused(
            f"a path (a string of at most {MAX_PATH_CHARS} characters, without control characters)"
        )
    path = Path(value.strip()).expanduser()
    return path if path.is_absolute() else folder / path


def _controls(text: str) -> bool:
    return any(not char.isprintable() for char in text)


def _paths(value: object, folder: Path) -> tuple[Path, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(item, str) and item.strip() for item in items):
        raise _Refused("a path or a list of paths (strings)")
    return tuple(_path(item, folder) for item in items)


def _one_of(*given: str | Callable[[], tuple[str, ...]]) -> Callable[[object, Path], str]:
    """A value among `given` (or among what a function of it answers when read: a table's names)."""

    def read(value: object, _: Path) -> str:
        choices = [c for g in given for c in ((g,) if isinstance(g, str) else g())]
        if value not in choices:
            raise _Refused("one of " + ", ".join(f'"{c}"' for c in choices))
        return str(value)

    return read


def _fail_on(value: object, _: Path) -> str:
    spec = ",".join(value) if isinstance(value, list) and all(isinstance(v, str) for v in value) else value
    if not isinstance(spec, str) or len(spec) > MAX_TEXT_CHARS:
        raise _Refused("a severity (error, warning, info, none) or a list of finding kinds")
    try:
        FailPolicy.parse(spec)
    except UsageError as exc:
        raise _Refused(
            f"a severity (error, warning, info, none) or a list of finding kinds ({exc.message})"
        ) from None
    return spec


def _kinds(value: object, _: Path) -> str:
    names = value if isinstance(value, list) else [value]
    if not names or not all(isinstance(name, str) for name in names):
        raise _Refused('"all" or a list of finding kinds')
    wanted = [part.strip().replace("-", "_") for name in names for part in str(name).split(",")]
    unknown = [name for name in wanted if name not in ("all", "*") and name not in {k.value for k in Kind}]
    if unknown:
        raise _Refused(
            f'"all" or finding kinds ({", ".join(k.value for k in Kind)}), not {_shown(unknown[0])!r}'
        )
    return ",".join(wanted)


@dataclass(frozen=True)
class _Key:
    read: Callable[[object, Path], Any]
    widens: bool = False
    """Reaches further than the project: a project file may not set it at all."""
    is_path: bool = False
    """Names files or folders: in a project file, only inside the project."""
    gives: tuple[str, ...] = ()
    """The `AuditOptions` fields its value sets (`Configuration.audit_options`; the window's
    settings, `gui.dialogs.settings_dialog`, read the same); none: it is the command's own (what a
    report is written as, what fails the run)."""
    reach: str = "the folders CiteDesk may read"  # what a widening key widens, in its refusal
    judge: JudgeSetting | None = None
    """The judge's setting it is (its value goes to `AuditOptions.judge_settings`); None: CiteDesk's own."""


NETWORK = "the network CiteDesk may reach"
JUDGE_SETTINGS = "judge_settings"  # the `AuditOptions` field a judge's own setting gives

_OWN_KEYS: dict[str, _Key] = {
    "judge": _Key(_text, gives=("judge",)),
    "offline": _Key(_boolean, gives=("offline",)),
    "timeout": _Key(_number(0, 3600, "seconds"), gives=("fetch_timeout", "time_budget")),
    "dense": _Key(_boolean, gives=("dense",)),
    "sources": _Key(_path, is_path=True, gives=("sources_dir",)),
    "bibliography": _Key(_paths, is_path=True, gives=("bibliographies",)),
    "allow_folders": _Key(_paths, widens=True, is_path=True, gives=("local_roots",)),
    "allow_local_paths": _Key(_boolean, widens=True, gives=("allow_local_paths",)),
    "allow_private_network": _Key(_boolean, widens=True, gives=("allow_private_network",), reach=NETWORK),
    "zotero": _Key(_boolean, gives=("zotero",)),
    "zotero_dir": _Key(_path, is_path=True, gives=("zotero_dir",)),
    "store": _Key(_path, is_path=True, gives=("store_path",)),
    "fail_on": _Key(_fail_on),
    "fix_kinds": _Key(_kinds),
    "format": _Key(_one_of(format_names)),
    "assist": _Key(_one_of("none", "claude"), gives=("assist",)),
    "assist_model": _Key(_text, gives=("assist_model",)),
    "contact_email": _Key(_text, gives=("contact_email",)),
    "recheck_days": _Key(_number(0, 3650, "days", low_too=True), gives=("recheck_days",)),
    "strong_judge": _Key(_text, gives=("strong_judge",)),
    "strong_budget": _Key(_number(0, 3600, "seconds"), gives=("strong_budget",)),
}
assert set(_OWN_KEYS) | {"judges"} == {f.name for f in fields(Settings)}, "every setting has a key"
assert all(k.is_path for k in _OWN_KEYS.values() if k.read in (_path, _paths)), "a key naming paths says so"
assert {f for k in _OWN_KEYS.values() for f in k.gives} <= {f.name for f in fields(AuditOptions)}


def _judge_key(s: JudgeSetting) -> _Key:
    read = _boolean if isinstance(s.default, bool) else _text
    return _Key(read, s.widens, gives=(JUDGE_SETTINGS,), reach=NETWORK, judge=s)


class _Keys(Mapping[str, _Key]):
    """CiteDesk's keys, then the judges' own (`JudgeSpec.settings`, read when asked: any registered)."""

    def _all(self) -> dict[str, _Key]:
        judges = {s.key: _judge_key(s) for s in declared_settings() if s.key not in _OWN_KEYS}
        return {**_OWN_KEYS, **judges}

    def __getitem__(self, name: str) -> _Key:
        own = _OWN_KEYS.get(name)  # most asked: not the judges' keys made again for each
        return own if own is not None else self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


KEYS: Mapping[str, _Key] = _Keys()
"""Every setting's key: how its value is read, whether a project file may set it, what it gives."""
MAX_FETCH_S = 60.0
"""One source gets at most this many seconds of the audit's `timeout`."""
OPTION_VALUES: dict[str, Callable[[Any], Any]] = {"fetch_timeout": lambda seconds: min(MAX_FETCH_S, seconds)}
"""How an `AuditOptions` field is made from its setting's value, where it is not the value itself."""


def option_fields() -> dict[str, tuple[str, ...]]:
    """Each setting that reaches an audit, with the `AuditOptions` fields it sets."""
    return {name: key.gives for name, key in KEYS.items() if key.gives}


FLAGS = {"sources": "--sources", "allow_folders": "--allow-folder", "zotero_dir": "--zotero-dir"}
"""The flag that sets a folder setting, for messages about a folder given on the command line."""

SECRET_WORDS = ("api_key", "apikey", "secret", "token", "password", "passwd", "credential")
KEY_HINT = (
    "CiteDesk never reads keys from settings files: remove it and store the key in your system "
    "keyring with `citedesk assist set-key` (or set ANTHROPIC_API_KEY)"
)


def _is_secret(name: str, value: object) -> bool:
    lowered = name.lower().replace("-", "_")
    looks_like_key = isinstance(value, str) and value.strip().startswith("sk-ant-")
    return (
        looks_like_key
        or lowered == "key"
        or lowered.endswith("_key")
        or any(w in lowered for w in SECRET_WORDS)
    )


# --- one file ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FileLayer:
    """What one settings file sets (typed, paths made absolute), and what it was refused."""

    origin: Origin
    values: Mapping[str, Any]
    notices: tuple[str, ...] = ()


def read_file(path: Path, layer: Layer, *, user_file: Path | None = None) -> FileLayer:
    """Read and check one settings file. A project file's keys that would reach beyond its project
    are dropped with a notice; everything else wrong is a ConfigError."""
    origin = Origin(layer, path)
    if layer == "project":
        _check_link(path)
    table = _parse(path)
    values: dict[str, Any] = {}
    notices: list[str] = []
    for name, raw in table.items():
        if _is_secret(name, raw):
            raise ConfigError(f"{path}: `{_shown(name)}` looks like an API key or other secret; {KEY_HINT}")
        key = KEYS.get(name)
        if key is None:
            close = difflib.get_close_matches(name, KEYS, n=1) if len(name) <= MAX_SHOWN else []
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            raise ConfigError(
                f"{path}: unknown setting `{_shown(name)}`{hint}; the settings are {', '.join(KEYS)}"
            )
        try:
            value = key.read(raw, path.parent)
        except _Refused as exc:
            raise ConfigError(f"{path}: `{name}` must be {exc.message}, not {_described(raw)}") from None
        refusal = _project_refusal(name, key, value, path.parent, user_file) if layer == "project" else None
        if refusal is not None:
            notices.append(f"{path}: `{name}` ignored: {refusal}")
            continue
        values[name] = value
    return FileLayer(origin, values, tuple(notices))


def _shown(name: str) -> str:
    """A key's name as a message may repeat it: printable, and cut short."""
    printable = "".join(char if char.isprintable() else "?" for char in name[: MAX_SHOWN + 1])
    return printable if len(name) <= MAX_SHOWN else printable[:MAX_SHOWN] + "…"


def _check_link(path: Path) -> None:
    """A project file that is a link to a file outside its own folder is not read: the folder may
    come from anyone, and the link would make CiteDesk read (and quote) a file of theirs choosing."""
    target = Path(os.path.realpath(path))
    if target != path and not target.is_relative_to(Path(os.path.realpath(path.parent))):
        raise ConfigError(
            f"{path}: is a link to {target}, outside the project; a project file is read only from "
            f"inside its project ({UNTRUSTED}): replace the link with a copy of the file"
        )


def _parse(path: Path) -> dict[str, Any]:
    try:
        data = read_regular_file(path, MAX_CONFIG_BYTES)
    except InputError as exc:
        raise ConfigError(f"settings file {exc.message}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not valid TOML (a settings file is UTF-8 text)") from None
    excess = toml_excess(text)
    if excess is not None:
        raise ConfigError(f"{path}: not a settings file ({excess})")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except ValueError:  # a number of more than 4300 digits (Python's limit on converting one)
        raise ConfigError(
            f"{path}: not a settings file (a number in it is thousands of digits long)"
        ) from None
    except RecursionError:  # not reached within MAX_TOML_DEPTH; kept so no file can end in a traceback
        raise ConfigError(f"{path}: not a settings file (nested too deeply)") from None


UNTRUSTED = "it comes with the documents, from whoever made them, so CiteDesk reads it as untrusted input"


def _project_refusal(name: str, key: _Key, value: Any, project: Path, user_file: Path | None) -> str | None:
    """Why a project file may not set this value, or None when it may."""
    where = f"your settings file ({user_file})" if user_file else "your settings file"
    if key.widens:
        return (
            f"a project file cannot widen {key.reach} ({UNTRUSTED}); set it in {where} or on the command line"
        )
    if key.is_path:
        root = Path(os.path.realpath(project))
        paths = value if isinstance(value, tuple) else (value,)
        outside = [p for p in paths if not Path(os.path.realpath(p)).is_relative_to(root)]
        if outside:
            return (
                f"{outside[0]} is outside the project ({root}), and a project file may only name paths inside "
                f"it ({UNTRUSTED}); set it in {where} or on the command line"
            )
        own = root / STORE_FOLDER
        if name == "store" and not Path(os.path.realpath(value)).is_relative_to(own):
            return (
                f"a project file may place the store only in the project's own {STORE_FOLDER} folder "
                f"({own}), never on a file of the project ({UNTRUSTED}); set it in {where} or on the command line"
            )
    why = key.judge.refuse_in_project(value) if key.judge and key.judge.refuse_in_project else None
    if why is not None:
        return f"{why} ({UNTRUSTED}); set it in {where} or on the command line"
    sends = (name == "assist" and value != "none") or (name == "judge" and _judge_sends_text(value))
    if sends:
        return f"a project file cannot turn on sending text to Claude ({UNTRUSTED}); choose it in {where} or on the command line"
    return None


loopback_url = is_loopback  # the window asks it: Settings ▸ Local LLM server needs "remote" otherwise


def _judge_sends_text(setting: str) -> bool:
    spec = find_judge(setting.partition(":")[0].strip())
    return spec is not None and spec.sends_text


# --- finding the files ------------------------------------------------------------------------------
def user_file() -> Path:
    """The user's settings file: `$CITEDESK_CONFIG`, else `config.toml` in the user config folder."""
    named = os.environ.get(CONFIG_VARIABLE, "").strip()
    if named:
        return Path(named).expanduser()
    return Path(platformdirs.user_config_dir("citedesk", appauthor=False)) / "config.toml"


def find_project_file(start: Path) -> Path | None:
    """The `citedesk.toml` that applies to a document (or folder) `start` (`find_upwards`)."""
    return find_upwards(start, PROJECT_FILE)


def find_upwards(start: Path, name: str) -> Path | None:
    """The project file `name` that applies to a document (or folder) `start`: in its folder or the
    nearest parent that has one. The search stops at a repository's top folder (one with `.git`),
    before the home folder (the user's file is for that) and before a folder anyone may write to
    (`/tmp`: another user could leave a project file there)."""
    folder = Path(os.path.realpath(start))
    if not folder.is_dir():
        folder = folder.parent
    home = Path(os.path.realpath(Path.home()))
    while folder != home:
        try:
            if folder.stat().st_mode & stat.S_IWOTH:
                return None
        except OSError:
            return None
        candidate = folder / name
        if candidate.is_file():
            return candidate
        if (folder / ".git").exists() or folder.parent == folder:
            return None
        folder = folder.parent
    return None


# --- all the layers ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Configuration:
    """The settings in force, where each came from, what the files were refused, and which files
    were looked for."""

    settings: Settings
    origins: Mapping[str, Origin]
    notices: tuple[str, ...]
    user_file: Path
    project_file: Path | None

    def origin(self, name: str) -> Origin:
        return self.origins.get(name, DEFAULT)

    def rows(self) -> list[tuple[str, str, Origin]]:
        """(setting, its value as a settings file spells it, where it came from), in file order."""
        return [(name, show(self.settings.value(name)), self.origin(name)) for name in KEYS]

    def audit_options(
        self, *, refresh: bool = False, check_sources: bool = True, reviews: bool = True
    ) -> AuditOptions:
        """The engine's options for one audit: these settings and what belongs to this run."""
        given: dict[str, Any] = {
            field: OPTION_VALUES.get(field, _itself)(getattr(self.settings, name))
            for name, gives in option_fields().items()
            for field in gives
            if name in _OWN_KEYS
        }
        given[JUDGE_SETTINGS] = dict(self.settings.judges)
        return AuditOptions(**given, check_sources=check_sources, refresh=refresh, reviews=reviews)

    def store_options(self) -> AuditOptions:
        """Options for the jobs that only reach the store and the network (`sources`, `retractions`)."""
        return AuditOptions(
            allow_private_network=self.settings.allow_private_network, store_path=self.settings.store
        )


def _itself(value: object) -> object:
    return value


def show(value: object) -> str:
    """A value as a settings file would spell it."""
    if value is None:
        return "(not set)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, tuple):
        return "[" + ", ".join(f'"{v}"' for v in value) + "]"
    return f'"{value}"' if isinstance(value, str | Path) else str(value)


def load(where: Path | None, command_line: Mapping[str, Any] | None = None) -> Configuration:
    """The configuration for a document (or folder) `where` (None: no project file): defaults,
    then the user's file, the project file, and `command_line` (the values given as flags, already
    typed; a key left out, or None, was not given)."""
    user = user_file()
    layers: list[FileLayer] = []
    if user.exists() or os.environ.get(CONFIG_VARIABLE, "").strip():
        layers.append(read_file(user, "user"))
    project = find_project_file(where) if where is not None else None
    if project is not None:
        layers.append(read_file(project, "project", user_file=user))
    given = {k: v for k, v in (command_line or {}).items() if v is not None}
    unknown = set(given) - set(KEYS)
    if unknown:
        raise ValueError(f"not settings: {sorted(unknown)}")  # a bug in the caller, not the writer's
    layers.append(FileLayer(COMMAND_LINE, given))
    values: dict[str, Any] = {}
    origins: dict[str, Origin] = {}
    for layer in layers:
        for name, value in layer.values.items():
            values[name], origins[name] = value, layer.origin
    settings = settings_of(values)
    _check_folders(settings, origins)
    notices = tuple(n for layer in layers for n in layer.notices)
    return Configuration(settings, origins, notices, user, project)


def settings_of(values: Mapping[str, Any]) -> Settings:
    """The settings with `values` (by key; a judge's own setting among them) over the defaults."""
    own = {name: value for name, value in values.items() if name in _OWN_KEYS}
    judges = {name: value for name, value in values.items() if name not in _OWN_KEYS}
    return replace(Settings(), **own, judges=judges)


def _check_folders(settings: Settings, origins: Mapping[str, Origin]) -> None:
    """A folder setting must name a folder: said as the flag was given, or with the file and key."""
    for name in ("sources", "allow_folders", "zotero_dir"):
        value = getattr(settings, name)
        folders: Sequence[Path] = value if isinstance(value, tuple) else ([value] if value else [])
        for folder in folders:
            if folder.is_dir():
                continue
            origin = origins.get(name, DEFAULT)
            if origin.path is None:
                raise InputError(f"{FLAGS[name]} {folder}: no such folder")
            raise ConfigError(f"{origin.path}: `{name}`: {folder}: no such folder")
