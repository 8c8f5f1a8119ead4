"""The NLI models the judge can use: what is installed, what is recommended, and managing them.

A thin door over `evidence.models` and `evidence.local_models` for the front ends (they never import the evidence package):
typed rows to show, and the jobs — import, download, verify, remove, choose the default.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from citedesk.errors import UsageError
from citedesk.evidence import local_models, models
from citedesk.evidence.catalogue import recommended as offered
from citedesk.evidence.judges import registry as judges


@dataclass(frozen=True)
class InstalledModel:
    name: str
    path: Path
    description: str
    default: bool
    speed: str = ""
    """Its speed here (`measured here: …`), or how to measure it (`models bench NAME`)."""


@dataclass(frozen=True)
class VerifyOutcome:
    name: str
    correct: int
    total: int
    rows: list[tuple[str, bool, float]]

    @property
    def passed(self) -> bool:
        return self.correct == self.total


def models_dir() -> Path:
    return local_models.models_dir()


def installed() -> list[InstalledModel]:
    default = local_models.default_model()
    return [
        InstalledModel(
            path.name,
            path,
            models.describe(path),
            default is not None and path == default,
            models.speed_line(path),
        )
        for path in local_models.installed()
    ]


def recommended() -> list[str]:
    """What `citedesk models list` says about the registry: the recommended models with their
    published accuracy and its source, how each reads its input, and those not offered and why."""
    return models.registry_lines()


@dataclass(frozen=True)
class Offer:
    """A model the window can offer to download on first use."""

    name: str
    hub_id: str
    size_mb: int
    figure: str


def _download() -> ModuleType:
    """The Hub's door (`evidence.download`: huggingface_hub, the ONNX export), imported only when a
    download is asked for, so that listing and choosing models does not load it."""
    from citedesk.evidence import download  # noqa: PLC0415 - the Hub's door: only when a download is asked for

    return download


def download_offers() -> list[Offer]:
    """The recommended models that can be downloaded, most accurate first."""
    return [Offer(e.name, e.hub_id, e.size_mb, e.benchmark) for e in offered()]


def hub_reachable(timeout: float = 3.0) -> bool:
    """Whether the model hub answers (blocks up to `timeout`: call it off the GUI thread)."""
    return bool(_download().hub_reachable(timeout=timeout))


def progress_text(done: int, total: int) -> str:
    return str(_download().progress_text(done, total))


def import_model(
    folder: str | Path, name: str | None = None, registry_name: str | None = None
) -> InstalledModel:
    target = models.import_model(Path(folder), name, registry_name)
    return InstalledModel(target.name, target, models.describe(target), False)


@dataclass(frozen=True)
class Pulled:
    name: str
    hub_id: str
    commit: str
    megabytes: float
    right: int
    pairs: int
    engine: str = ""
    """What it judges with now, in one line (`evidence.download.judged_with`: the download exports it)."""


def pull_model(
    name: str,
    *,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Pulled:
    """Download, check and install a registry model (`NoNetwork`, `ModelNotFound`, `DiskFull`:
    `ModelError`s with a message; `DownloadCancelled` when `cancelled` says so)."""
    download = _download()
    result = download.pull(name, progress=progress, cancelled=cancelled)
    return Pulled(
        result.entry.name,
        result.entry.hub_id,
        result.commit,
        result.downloaded / 1e6,
        result.right,
        result.pairs,
        download.judged_with(local_models.find_model(result.entry.name)),
    )


def remove_model(name: str) -> None:
    models.remove_model(name)


def set_default(name: str) -> str:
    chosen = local_models.find_model(name).name
    local_models.set_default(chosen)
    return chosen


def verify(name: str) -> VerifyOutcome:
    """Run the known pairs through the model (loads it: torch)."""
    path = local_models.find_model(name)
    result = models.verify(models.judge_for(path))
    return VerifyOutcome(path.name, result.correct, result.total, result.rows)


def bench(name: str) -> str:
    """Time an installed model on this machine and record the figure `models list` shows (loads it:
    torch; takes seconds to minutes for a large model)."""
    _, measured = models.bench(name)
    return measured.in_words()


def judge_choices() -> list[tuple[str, str]]:
    """(setting, label) for a judge chooser, from the judge registry: auto, then each local judge
    (each installed NLI model)."""
    return judges.chooser()


def judge_sends_text(setting: str) -> bool:
    """Whether this judge setting sends the document's text off the machine (the Claude judge):
    such a judge needs the writer's key and consent. An unknown setting sends nothing (the audit
    says it is unknown, where it needs a judge)."""
    try:
        return judges.resolve(setting).sends_text
    except UsageError:
        return False


def auto_judge() -> str:
    """The setting that lets the registry pick the judge (`auto`)."""
    return judges.AUTO


def sending_judge() -> str:
    """The setting of the judge that Claude assistance's consent turns on (the one that sends text)."""
    return next(s.name for s in judges.specs() if s.sends_text)


def judge_help() -> str:
    """What `--judge` accepts, in words, from the judge registry."""
    return judges.help_text()
