"""The judge registry: every judge registers itself here, and every choice of judge goes through it.

A judge is a `JudgeSpec`: the name `--judge` takes, its kind (a word-level heuristic, an encoder
model, a text-to-text model, a server), a loader, and its `Policy` — the calibrated thresholds its
verdicts are read with, whether it reads the retrieved windows together, the note shown beside its
name, and whether its verdicts may act (raise errors, carry fixes) or only suggest. A judge module
calls `register(...)` once, at import; nothing else names it. Like a linter's rule registry, the
audit never compares judge names: it asks `resolve(text)` which judge a setting means and loads it.

The judge modules of the evidence layer are imported on the first look-up (`heuristic`, `nli`:
neither imports torch until a model is loaded); a judge of a higher layer (Claude, in `assist`)
registers when its module is imported, which the pipeline does. A setting is one of:

- a judge's name, with an argument after a colon where it takes one (`nli:MODEL`);
- `auto`: the preferred judge that is available without asking anything (the highest
  `preference` among the judges whose `available()` answers), never one that sends text;
- `none`: no judge, no verdicts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citedesk.errors import UsageError
from citedesk.evidence.policy import Policy

if TYPE_CHECKING:
    from citedesk.evidence.embed import Embedder
    from citedesk.evidence.judges.base import Judge
    from citedesk.store import Store

AUTO = "auto"
"""The setting that picks the preferred available judge."""
OFF = "none"
"""The setting that turns judging off."""


class JudgeKind(Enum):
    """What a judge is, which says what it needs to run and which downloadable models it can use."""

    WORD_LEVEL = "word-level"
    """Reads words, names and figures (and sentence embeddings when installed): no model to install."""
    ENCODER = "encoder model"
    """A sequence-classification model folder (NLI and grounding cross-encoders), run locally."""
    TEXT_TO_TEXT = "text-to-text model"
    """A sequence-to-sequence model whose answer is read from its output tokens (Flan-T5 MiniCheck)."""
    SERVER = "server"
    """A judge answered by a service (a remote API, a local LLM server)."""


@dataclass(frozen=True)
class JudgeContext:
    """What a loader is given."""

    argument: str = ""
    """What followed the colon in the setting (`nli:MODEL` → `MODEL`), or what `available()` chose."""
    embedder: Embedder | None = None
    """The embedding model for retrieval (None without it); a word-level judge may read it too."""
    store: Store | None = None
    client: Any = None
    """The audit's client for a judge that sends text (Claude's), None otherwise."""
    local: Judge | None = None
    """For a judge that sends text: the local judge that stands in for pairs it cannot answer."""


@dataclass(frozen=True)
class JudgeSpec:
    name: str
    """What `--judge` takes (before any colon), and the first part of the name in reports."""
    kind: JudgeKind
    label: str
    """What a judge chooser shows for it."""
    load: Callable[[JudgeContext], Judge]
    """Builds the judge (lazily: a model library is imported here, never at registration)."""
    policy: Policy
    """Its calibrated thresholds, how it reads windows, its note and whether it may act: the
    policy every judge it loads carries (a loaded judge may add its weights' fingerprint)."""
    argument: str = ""
    """What it takes after a colon (`MODEL`); empty: it takes none."""
    argument_help: str = ""
    """That argument, in words for `--judge`'s help (`an installed name or a folder`)."""
    sends_text: bool = False
    """It sends the document's sentences and passages off the machine: chosen only with the
    writer's consent and key, never by `auto`, and it gets a local judge as its stand-in."""
    available: Callable[[], str | None] | None = None
    """For `auto`: the argument it would load with now, or None when it cannot run (no model
    installed); None: never chosen automatically."""
    preference: int = 0
    """`auto` takes the available judge with the highest preference."""
    when_auto: str = ""
    """What `auto` means by it, in words (`the default NLI model if installed`)."""
    choices: Callable[[], list[tuple[str, str]]] | None = None
    """(setting, label) for each variant a chooser lists (each installed model); None: the judge
    itself, when `listed`."""
    listed: bool = True
    """Offered in the window's judge chooser (a judge that sends text is chosen by consent)."""
    from_folder: Callable[[Path, Any, str], Judge] | None = None
    """For a judge that runs downloadable models: (model folder, the catalogue's input format for
    it, a name) → a private judge for that folder, which checks a download before it is installed.
    The catalogue offers a model only where a registered judge of its kind has this."""

    @property
    def threshold(self) -> float:
        """The support at or above which its verdict reads as supported."""
        return self.policy.supported

    @property
    def may_act(self) -> bool:
        """Whether its verdicts may raise errors and carry fixes (else it may only suggest)."""
        return self.policy.acts

    def usage(self, *, detail: bool = False) -> str:
        """How `--judge` names it: `heuristic`, `nli, nli:MODEL` (with `detail`, what MODEL is)."""
        if not self.argument:
            return self.name
        more = f" ({self.argument_help})" if detail and self.argument_help else ""
        return f"{self.name}, {self.name}:{self.argument}{more}"


@dataclass(frozen=True)
class Choice:
    """A judge setting, resolved: which judge, with what argument (`spec` None: judging is off)."""

    setting: str
    spec: JudgeSpec | None
    argument: str = ""

    @property
    def off(self) -> bool:
        return self.spec is None

    @property
    def sends_text(self) -> bool:
        return self.spec is not None and self.spec.sends_text

    def load(self, context: JudgeContext | None = None) -> Judge:
        """The judge this setting means (loading its model); never called for `none`."""
        if self.spec is None:
            raise UsageError("no judge: judging is off (--judge none)")
        return self.spec.load(_with_argument(context or JudgeContext(), self.argument))


_registered: dict[str, JudgeSpec] = {}
_state = {"built_in": False}


def register(spec: JudgeSpec) -> JudgeSpec:
    """Add a judge (a judge module calls this once, at import); returns it. A name is taken once."""
    if spec.name in (AUTO, OFF) or ":" in spec.name or not spec.name:
        raise ValueError(f"{spec.name!r} cannot name a judge")
    known = _registered.get(spec.name)
    if known is not None and known is not spec:
        raise ValueError(f"a judge named {spec.name!r} is already registered")
    _registered[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    _registered.pop(name, None)


@contextmanager
def registered(spec: JudgeSpec) -> Iterator[JudgeSpec]:
    """`spec` registered for the block (tests, plug-ins tried for one audit)."""
    register(spec)
    try:
        yield spec
    finally:
        unregister(spec.name)


def specs() -> list[JudgeSpec]:
    """Every registered judge, least preferred by `auto` first (then by name): a fixed order for
    help texts and choosers, whatever order the modules were imported in."""
    _load_built_in()
    return sorted(_registered.values(), key=lambda s: (s.preference, s.name))


def find(name: str) -> JudgeSpec | None:
    _load_built_in()
    return _registered.get(name)


def resolve(setting: str) -> Choice:
    """What a judge setting (`--judge`, the window's chooser, `AuditOptions.judge`) means: the one
    place a judge is chosen. `auto` looks for an installed model; an unknown name is a UsageError
    that lists the settings there are."""
    setting = setting.strip()
    if setting == OFF:
        return Choice(setting, None)
    if setting == AUTO:
        picked, argument = automatic()
        return Choice(setting, picked, argument)
    name, _, argument = setting.partition(":")
    spec = find(name)
    if spec is None:
        raise UsageError(f"unknown judge {setting!r}: use {settings_in_words()}")
    return Choice(setting, spec, argument)


def automatic() -> tuple[JudgeSpec, str]:
    """The judge `auto` picks now, and its argument."""
    for spec in reversed(specs()):
        if spec.available is None or spec.sends_text:
            continue
        argument = spec.available()
        if argument is not None:
            return spec, argument
    raise UsageError("no judge is available (none registered can run here)")


def settings_in_words() -> str:
    """`heuristic, nli, nli:MODEL or auto`: the settings that choose a local judge."""
    forms = [s.usage() for s in specs() if not s.sends_text]
    return ", ".join(forms) + f" or {AUTO}"


def model_judge(kind: JudgeKind) -> JudgeSpec | None:
    """The registered judge that runs downloadable models of this kind, if any: the catalogue
    offers only the models it can run, and checks each download with it."""
    return next((s for s in specs() if s.kind is kind and s.from_folder is not None), None)


def chooser() -> list[tuple[str, str]]:
    """(setting, label) for a judge chooser: `auto`, then each listed judge (each of its variants)."""
    judges = [s for s in specs() if s.listed and not s.sends_text]
    entries = [(AUTO, f"Automatic ({auto_in_words()})")]
    for spec in judges:
        entries.extend(spec.choices() if spec.choices is not None else [(spec.name, spec.label)])
    return entries


def auto_in_words() -> str:
    """What `auto` picks, in words: `the default NLI model if installed, else heuristic`."""
    ranked = [s for s in reversed(specs()) if s.available is not None and not s.sends_text]
    return ", else ".join(s.when_auto or s.name for s in ranked)


def help_text() -> str:
    """`--judge`'s help, from the registry."""
    forms = [s.usage(detail=True) for s in specs() if not s.sends_text]
    return f"{', '.join(forms)}, {AUTO} (default: {auto_in_words()}) or {OFF} (no verdicts)"


def _with_argument(context: JudgeContext, argument: str) -> JudgeContext:
    return replace(context, argument=argument)


def _load_built_in() -> None:
    """Import the evidence layer's judge modules, which register themselves (once per process)."""
    if not _state["built_in"]:
        # (the flag is set after the import: another thread never finds the registry half full)
        from citedesk.evidence.judges import heuristic, nli  # noqa: F401, PLC0415

        _state["built_in"] = True
