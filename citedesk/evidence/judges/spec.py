"""What a judge is, to the registry: its `JudgeSpec` (name, kind, loader, calibrated policy) and the
table judges register into.

This module sits below every judge and below the registry's look-ups (`judges.registry`): a judge
module (`heuristic`, `assist.judge`) or the module that registers a judge for its models
(`evidence.local_models` for `nli`) imports only this, so no judge and the registry import each other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citedesk.core.judge_settings import JudgeSetting, declare, forget
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
    settings: Mapping[str, object] = field(default_factory=dict)
    """The values of the judges' own settings (`JudgeSpec.settings`, by key; those not set: their
    defaults), as the settings files and the command line gave them."""
    deadline: float | None = None
    """`time.monotonic()` by which the audit must be done: a server judge's requests end by then."""


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
    settings: tuple[JudgeSetting, ...] = ()
    """Its own settings (a server's address): the settings files, the command line and the
    window offer them, and its loader reads them in `JudgeContext.settings`."""

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


_registered: dict[str, JudgeSpec] = {}


def register(spec: JudgeSpec) -> JudgeSpec:
    """Add a judge (a judge module calls this once, at import); returns it. A name is taken once."""
    if spec.name in (AUTO, OFF) or ":" in spec.name or not spec.name:
        raise ValueError(f"{spec.name!r} cannot name a judge")
    known = _registered.get(spec.name)
    if known is not None and known is not spec:
        raise ValueError(f"a judge named {spec.name!r} is already registered")
    declare(*spec.settings)
    _registered[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    """Forget the judge called `name`, and the settings it declared."""
    spec = _registered.pop(name, None)
    forget(*(spec.settings if spec is not None else ()))


@contextmanager
def registered(spec: JudgeSpec) -> Iterator[JudgeSpec]:
    """`spec` registered for the block (tests, plug-ins tried for one audit)."""
    register(spec)
    try:
        yield spec
    finally:
        unregister(spec.name)


def registered_specs() -> list[JudgeSpec]:
    """The judges registered so far, in registration order (`judges.registry.specs()` is the full,
    ordered list: it imports the built-in judges first)."""
    return list(_registered.values())
