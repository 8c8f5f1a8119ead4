"""Installing, removing, checking and timing models, and what `models list` says of the catalogue.

The installed models and the judges that run them are `evidence.local_models`'s. `import`
copies a folder the user already has (checked: it loads and its labels say which output means
entailment; a catalogue model is recognised by the hub id in its config and gets its input format);
`pull` downloads a catalogue model (`catalogue.py`, ranked by published accuracy) with
huggingface_hub where a network exists (`download.py`: progress, cancel, nothing half-installed);
`verify` runs known pairs through it; `bench` times it on this machine (`speed.py`). No weights are
ever shipped in the repository.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from citedesk.errors import ModelError
from citedesk.evidence import speed
from citedesk.evidence.catalogue import CATALOGUE, CatalogueEntry, find_entry, recommended
from citedesk.evidence.judges.base import Judge, Pair
from citedesk.evidence.judges.nli import FORMAT_FILE, NliJudge, read_format, write_format
from citedesk.evidence.judges.spec import JudgeKind
from citedesk.evidence.judges.text2text import TextToTextFormat, TextToTextJudge, read_text_format
from citedesk.evidence.local_models import find_model, installed, model_kind, models_dir

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


def judge_for(folder: Path, name: str | None = None) -> NliJudge | TextToTextJudge:
    """The judge that reads this installed model folder, as an audit would load it."""
    if model_kind(folder) is JudgeKind.TEXT_TO_TEXT:
        return TextToTextJudge(folder, name=name or folder.name)
    return NliJudge(folder, name=name or folder.name)


def bench(spec: str) -> tuple[Path, speed.Speed]:
    """Time an installed model on this machine (pairs/s at 128 and 512 tokens) and record it."""
    path = find_model(spec)
    judge = judge_for(path)
    judge.load()
    from transformers import AutoTokenizer  # noqa: PLC0415 - loaded already by the judge

    tokenizer = AutoTokenizer.from_pretrained(str(path))
    measured = speed.measure(judge, lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"]))
    speed.save(path, measured)
    return path, measured


def speed_line(folder: Path) -> str:
    """What `models list` says about a model's speed here: the figure measured, or how to get one."""
    measured = speed.load(folder)
    if measured is None:
        return f"not measured here — run citedesk models bench {folder.name}"
    return measured.in_words()


def recognised(folder: Path) -> CatalogueEntry | None:
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
    kind = model_kind(source)
    if entry is not None and entry.kind is not kind:
        raise ModelError(f"{source} is not a {entry.kind.value} like {entry.name}")
    try:  # refuses unusable labels or weights before anything is copied
        if kind is JudgeKind.TEXT_TO_TEXT:
            text_format = entry.input_format if entry is not None else read_text_format(source)
            TextToTextJudge(
                source,
                input_format=text_format if isinstance(text_format, TextToTextFormat) else None,
                shared=False,
            ).load()
        else:
            input_format = entry.input_format if entry is not None else read_format(source)
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


def _registry_name(folder: Path) -> str:
    try:
        record = json.loads((folder / FORMAT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    return str(record.get("registry", "")) if isinstance(record, dict) else ""


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
        lines.append(f"      threshold: {entry.threshold}")
        lines.append(f"      speed: {entry.speed}")
        copies = [m for m in installed() if _registry_name(m) == entry.name]
        if copies:
            lines.append(f"      speed here ({copies[0].name}): {speed_line(copies[0])}")
    lines.append("Listed, not offered for download:")
    for entry in CATALOGUE:
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
