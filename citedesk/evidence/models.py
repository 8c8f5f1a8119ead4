"""NLI models: the installed ones, installing and removing them, and the `nli` judge that runs them.

Models live in `<user data>/citedesk/models/<name>/` (a Hugging Face model folder). `import`
copies a folder the user already has (checked: it loads and its labels say which output means
entailment; a registry model is recognised by the hub id in its config and gets its input format);
`pull` downloads a registry model (`registry.py`, ranked by published accuracy) with
huggingface_hub where a network exists (`download.py`: progress, cancel, nothing half-installed);
`verify` runs known pairs through it. No weights are ever shipped in the repository.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from citedesk.errors import ModelError
from citedesk.evidence.judges.base import MODEL_POLICY, Judge, Pair
from citedesk.evidence.judges.nli import NliJudge, read_format, write_format
from citedesk.evidence.judges.spec import JudgeContext, JudgeKind, JudgeSpec, register
from citedesk.evidence.registry import REGISTRY, RegistryEntry, find_entry, recommended

__all__ = ["REGISTRY", "RegistryEntry", "find_entry", "recommended"]  # `models.REGISTRY` for the CLI


# known pairs for `citedesk models verify`: (evidence, claim, entailed?)
VERIFY_PAIRS = (
    (
        "The museum opened to the public in 1998 in the old harbour warehouse.",
        "The museum opened in 1998.",
        True,
    ),
    (
        "The museum opened to the public in 1998 in the old harbour warehouse.",
        "The museum opened in 2011.",
        False,
    ),
    (
        "Vaccinated patients had a 90% lower risk of severe disease.",
        "Vaccination reduced the risk of severe disease.",
        True,
    ),
    (
        "Vaccinated patients had a 90% lower risk of severe disease.",
        "Vaccination increased the risk of severe disease.",
        False,
    ),
    ("The bridge is 1.2 km long and carries four lanes of traffic.", "The bridge carries four lanes.", True),
    (
        "The bridge is 1.2 km long and carries four lanes of traffic.",
        "The bridge is a railway tunnel.",
        False,
    ),
)


def models_dir() -> Path:
    from platformdirs import user_data_dir  # noqa: PLC0415

    return Path(user_data_dir("citedesk", appauthor=False)) / "models"


def installed() -> list[Path]:
    root = models_dir()
    if not root.is_dir():
        return []
    # hidden folders are downloads and imports in progress
    return sorted(p for p in root.iterdir() if not p.name.startswith(".") and (p / "config.json").is_file())


def default_model() -> Path | None:
    """The model `auto` uses: the one named in models/default, else the only one installed."""
    marker = models_dir() / "default"
    if marker.is_file():
        chosen = models_dir() / marker.read_text(encoding="utf-8").strip()
        if (chosen / "config.json").is_file():
            return chosen
    models = installed()
    return models[0] if len(models) == 1 else None


def set_default(name: str) -> None:
    (models_dir() / "default").write_text(name + "\n", encoding="utf-8")


def find_model(spec: str) -> Path:
    """A model by installed name or by folder path."""
    path = Path(spec).expanduser()
    if (path / "config.json").is_file():
        return path
    named = models_dir() / spec
    if (named / "config.json").is_file():
        return named
    raise ModelError(
        f"no model {spec!r}: not a model folder and not installed "
        f"(`citedesk models list`; `citedesk models import FOLDER`)"
    )


def recognised(folder: Path) -> RegistryEntry | None:
    """The registry model a folder holds, told by the hub id its config.json names
    (`_name_or_path`, which the Hub's copies of the registry models carry), or None."""
    try:
        config = json.loads((Path(folder) / "config.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    origin = str(config.get("_name_or_path") or "")
    entry = find_entry(origin) if origin.count("/") == 1 else None
    return entry if entry is not None and entry.offered else None


def import_model(source: Path, name: str | None = None, registry_name: str | None = None) -> Path:
    """Copy a model folder into the models folder after checking that it works as a judge.

    A registry model (named by `registry_name`, or recognised from its config) is recorded with its
    input format, so the judge reads it as it was trained; any other folder is read as a sentence
    pair with labels from its `id2label`.
    """
    source = Path(source).expanduser().resolve()
    if not (source / "config.json").is_file():
        raise ModelError(f"{source} is not a model folder (no config.json)")
    entry = find_entry(registry_name) if registry_name else recognised(source)
    if registry_name and entry is None:
        raise ModelError(f"no registry model {registry_name!r} (`citedesk models list`)")
    input_format = entry.input_format if entry is not None else read_format(source)
    try:  # refuses unusable labels or weights before anything is copied
        NliJudge(source, input_format=input_format, shared=False).load()
    except ModelError as exc:
        hint = "" if entry else "; if it is a registry model, import it naming which (`--as NAME`)"
        raise ModelError(f"{exc}{hint}") from exc
    target = models_dir() / (name or source.name)
    if target.exists():
        raise ModelError(f"a model named {target.name} is already installed; remove it first or pick --name")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        shutil.copytree(source, partial)
        if entry is not None:
            write_format(partial, entry.input_format, registry=entry.name, hub_id=entry.hub_id)
        partial.rename(target)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return target


def remove_model(name: str) -> None:
    target = models_dir() / name
    if not (target / "config.json").is_file():
        raise ModelError(f"no installed model {name!r}")
    shutil.rmtree(target)


def registry_lines() -> list[str]:
    """What `citedesk models list` prints about the registry: the recommended models with their
    published figure and its source, how each reads its input, and the ones not offered and why."""
    lines = [
        "Recommended judges, most accurate first (`citedesk models pull NAME` where a network exists).",
        "Accuracy figures are published ones, not measured here; balanced accuracy: 50 is chance.",
    ]
    for entry in recommended():
        lines.append(f"  {entry.name:26} {entry.hub_id:46} ≈{entry.size_mb:,} MB  {entry.licence}")
        lines.append(f"      {entry.benchmark}")
        lines.append(f"        source: {entry.source}")
        lines.append(f"      {entry.note}")
        lines.append(f"      input: {entry.input_format.describe()}")
        lines.append(f"      speed: {entry.speed}")
    lines.append("Listed, not offered for download:")
    for entry in REGISTRY:
        if not entry.offered:
            lines.append(f"  {entry.name:26} {entry.hub_id:46} {entry.licence}")
            if entry.benchmark:
                lines.append(f"      {entry.benchmark}")
                lines.append(f"        source: {entry.source}")
            lines.append(f"      not offered: {entry.why_not_offered}")
    return lines


@dataclass(frozen=True)
class VerifyResult:
    correct: int
    total: int
    rows: list[tuple[str, bool, float]]


def verify(judge: Judge) -> VerifyResult:
    pairs = [Pair(claim, evidence, (evidence,)) for evidence, claim, _ in VERIFY_PAIRS]
    answers = judge.judge(pairs)
    rows = []
    correct = 0
    for (_, claim, entailed), answer in zip(VERIFY_PAIRS, answers, strict=True):
        ok = (answer.support >= 0.5) == entailed
        correct += ok
        rows.append((claim, ok, answer.support))
    return VerifyResult(correct, len(rows), rows)


def describe(path: Path) -> str:
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return "unreadable config.json"
    labels = config.get("id2label") or {}
    size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6
    return (
        f"{config.get('model_type', '?')}, labels {', '.join(str(v) for v in labels.values())}, {size:.0f} MB"
    )


def _load_nli(context: JudgeContext) -> NliJudge:
    path = find_model(context.argument) if context.argument else default_model()
    if path is None:
        raise ModelError(
            "no NLI model is installed: `citedesk models import FOLDER` (or `models pull NAME` with a network)"
        )
    return NliJudge(path, name=path.name)


def _default_nli() -> str | None:
    chosen = default_model()
    return None if chosen is None else str(chosen)


def _installed_nli() -> list[tuple[str, str]]:
    return [(f"nli:{m.name}", f"NLI model: {m.name}") for m in installed()]


NLI = register(
    JudgeSpec(
        "nli",
        JudgeKind.ENCODER,
        "NLI model",
        _load_nli,
        MODEL_POLICY,
        argument="MODEL",
        argument_help="an installed name or a folder",
        available=_default_nli,
        preference=10,
        when_auto="the default NLI model if installed",
        choices=_installed_nli,
        from_folder=lambda folder, input_format, name: NliJudge(
            folder, input_format=input_format, shared=False, name=name
        ),
    )
)
"""The `nli` judge, registered here rather than in `judges.nli`: its settings name installed models
(`nli` the default one, `nli:NAME`), which this module keeps, while the judge itself only reads a
folder it is given."""
