"""The NLI models the judge can use: what is installed, what is recommended, and managing them.

A thin door over `evidence.models` for the front ends (they never import the evidence package):
typed rows to show, and the jobs — import, download, verify, remove, choose the default.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class InstalledModel:
    name: str
    path: Path
    description: str
    default: bool


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
    from citedesk.evidence import models  # noqa: PLC0415

    return models.models_dir()


def installed() -> list[InstalledModel]:
    from citedesk.evidence import models  # noqa: PLC0415

    default = models.default_model()
    return [
        InstalledModel(path.name, path, models.describe(path), default is not None and path == default)
        for path in models.installed()
    ]


def recommended() -> list[str]:
    """One line per recommended model (name, hub id, size, licence, labels, speed)."""
    from citedesk.evidence import models  # noqa: PLC0415

    return [
        f"{e.name:24} {e.hub_id:48} {e.size_mb:5} MB  {e.licence:10} {e.labels}; {e.speed}"
        for e in models.REGISTRY
    ]


def import_model(folder: str | Path, name: str | None = None) -> InstalledModel:
    from citedesk.evidence import models  # noqa: PLC0415

    target = models.import_model(Path(folder), name)
    return InstalledModel(target.name, target, models.describe(target), False)


def pull_model(name: str) -> Path:
    from citedesk.evidence import models  # noqa: PLC0415

    return models.pull_model(name)


def remove_model(name: str) -> None:
    from citedesk.evidence import models  # noqa: PLC0415

    models.remove_model(name)


def set_default(name: str) -> str:
    from citedesk.evidence import models  # noqa: PLC0415

    chosen = models.find_model(name).name
    models.set_default(chosen)
    return chosen


def verify(name: str) -> VerifyOutcome:
    """Run the known pairs through the model (loads it: torch)."""
    from citedesk.evidence import models  # noqa: PLC0415
    from citedesk.evidence.judges.nli import NliJudge  # noqa: PLC0415

    path = models.find_model(name)
    result = models.verify(NliJudge(path))
    return VerifyOutcome(path.name, result.correct, result.total, result.rows)


def judge_choices() -> list[tuple[str, str]]:
    """(spec, label) for a judge chooser: auto, heuristic, and each installed NLI model."""
    choices = [
        ("auto", "Automatic (the default NLI model if installed, else heuristic)"),
        ("heuristic", "Heuristic judge (no model needed)"),
    ]
    return choices + [(f"nli:{m.name}", f"NLI model: {m.name}") for m in installed()]
