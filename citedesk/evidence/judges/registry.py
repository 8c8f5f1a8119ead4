"""The judge registry: every judge registers itself here, and every choice of judge goes through it.

A judge is a `JudgeSpec`: the name `--judge` takes, its kind (a word-level heuristic, an encoder
model, a text-to-text model, a server), a loader, and its `Policy` — the calibrated thresholds its
verdicts are read with, whether it reads the retrieved windows together, the note shown beside its
name, and whether its verdicts may act (raise errors, carry fixes) or only suggest (`judges.spec`
holds these types and the table). A judge module calls `register(...)` once, at import; nothing
else names it. Like a linter's rule registry, the audit never compares judge names: it asks
`resolve(text)` which judge a setting means and loads it.

The evidence layer's judges are imported on the first look-up (`heuristic`, and `evidence.local_models`,
which registers `nli` for the installed models: neither imports torch until a model is loaded); a
judge of a higher layer (Claude, in `assist`) registers when its module is imported, which the
pipeline does. A setting is one of:

- a judge's name, with an argument after a colon where it takes one (`nli:MODEL`);
- `auto`: the preferred judge that is available without asking anything (the highest
  `preference` among the judges whose `available()` answers), never one that sends text;
- `none`: no judge, no verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from citedesk.core.judge_settings import JudgeSetting, declared_settings, judge_values
from citedesk.errors import UsageError
from citedesk.evidence.judges.base import Judge
from citedesk.evidence.judges.spec import (
    AUTO,
    OFF,
    JudgeContext,
    JudgeKind,
    JudgeSpec,
    register,
    registered,
    registered_specs,
    unregister,
)

__all__ = [
    "AUTO",
    "OFF",
    "Choice",
    "JudgeContext",
    "JudgeKind",
    "JudgeSetting",
    "JudgeSpec",
    "auto_in_words",
    "automatic",
    "chooser",
    "declared_settings",
    "find",
    "help_text",
    "judge_values",
    "model_judge",
    "register",
    "registered",
    "resolve",
    "settings_in_words",
    "specs",
    "unregister",
]


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


def specs() -> list[JudgeSpec]:
    """Every registered judge, least preferred by `auto` first (then by name): a fixed order for
    help texts and choosers, whatever order the modules were imported in."""
    _load_built_in()
    return sorted(registered_specs(), key=lambda s: (s.preference, s.name))


def find(name: str) -> JudgeSpec | None:
    _load_built_in()
    return next((s for s in registered_specs() if s.name == name), None)


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


_built_in_loaded: list[bool] = []


def _load_built_in() -> None:
    """Import the evidence layer's judges, which register themselves (once per process): the
    heuristic judge (it reads with numpy), and the NLI judge, which `evidence.local_models` registers for
    the installed models. Deferred because the heuristic's numpy is not needed to open the window
    or build the CLI's parser; neither module imports this one (they register through
    `judges.spec`), so no cycle makes it so."""
    if not _built_in_loaded:
        # (the flag is set after the import: another thread never finds the registry half full)
        from citedesk.evidence import local_models  # noqa: F401, PLC0415
        from citedesk.evidence.judges import heuristic, server  # noqa: F401, PLC0415

        _built_in_loaded.append(True)
