"""NLI models: the installed ones, installing and removing them, and the `nli` judge that runs them.

Models live in `<user data>/citedesk/models/<name>/` (a Hugging Face model folder). `import`
copies a folder the user already has (checked: it loads and its labels say which output means
entailment; a registry model is recognised by the hub id in its config and gets its input format);
`pull` downloads a registry model (`registry.py`, ranked by published accuracy) with
huggingface_hub where a network exists (`download.py`: progress, cancel, nothing half-installed);
`verify` runs known pairs through it; `bench` times it on this machine (`speed.py`). No weights are
ever shipped in the repository.

A folder holds an encoder model (read by the `nli` judge) or a text-to-text model (`is_encoder_decoder`
in its config: read by the `seq2seq` judge, `judges.text2text`); each judge lists and loads only its
own kind, and `auto` takes the default model with whichever judge reads it.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from citedesk.errors import ModelError
from citedesk.evidence import speed
from citedesk.evidence.judges.base import MODEL_POLICY, Judge, Pair
from citedesk.evidence.judges.nli import FORMAT_FILE, NliJudge, read_format, write_format
from citedesk.evidence.judges.spec import JudgeContext, JudgeKind, JudgeSpec, register
from citedesk.evidence.judges.text2text import TextToTextFormat, TextToTextJudge, read_text_format
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


def model_kind(folder: Path) -> JudgeKind:
    """Which judge reads a model folder: a text-to-text model says `is_encoder_decoder` in its config."""
    try:
        config = json.loads((Path(folder) / "config.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return JudgeKind.ENCODER
    return JudgeKind.TEXT_TO_TEXT if config.get("is_encoder_decoder") else JudgeKind.ENCODER


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
    path = find_model(context.argument) if context.argument else _default_of(JudgeKind.ENCODER)
    if path is None:
        raise ModelError(
            "no NLI model is installed: `citedesk models import FOLDER` (or `models pull NAME` with a network)"
        )
    return NliJudge(path, name=path.name)


def _default_of(kind: JudgeKind) -> Path | None:
    chosen = default_model()
    return chosen if chosen is not None and model_kind(chosen) is kind else None


def _default_nli() -> str | None:
    chosen = _default_of(JudgeKind.ENCODER)
    return None if chosen is None else str(chosen)


def _installed_nli() -> list[tuple[str, str]]:
    return [
        (f"nli:{m.name}", f"NLI model: {m.name}") for m in installed() if model_kind(m) is JudgeKind.ENCODER
    ]


def _load_seq2seq(context: JudgeContext) -> TextToTextJudge:
    path = find_model(context.argument) if context.argument else _default_of(JudgeKind.TEXT_TO_TEXT)
    if path is None:
        raise ModelError("no text-to-text model is the default: `citedesk models default NAME`")
    return TextToTextJudge(path, name=path.name)


def _default_seq2seq() -> str | None:
    chosen = _default_of(JudgeKind.TEXT_TO_TEXT)
    return None if chosen is None else str(chosen)


def _installed_seq2seq() -> list[tuple[str, str]]:
    kind = JudgeKind.TEXT_TO_TEXT
    return [
        (f"seq2seq:{m.name}", f"Text-to-text model: {m.name}") for m in installed() if model_kind(m) is kind
    ]


def _seq2seq_from_folder(folder: Path, input_format: object, name: str) -> TextToTextJudge:
    chosen = input_format if isinstance(input_format, TextToTextFormat) else None
    return TextToTextJudge(folder, input_format=chosen, shared=False, name=name)


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


SEQ2SEQ = register(
    JudgeSpec(
        "seq2seq",
        JudgeKind.TEXT_TO_TEXT,
        "Text-to-text model",
        _load_seq2seq,
        MODEL_POLICY,
        argument="MODEL",
        argument_help="an installed text-to-text model",
        available=_default_seq2seq,
        preference=11,
        when_auto="the default model if it is text-to-text",
        choices=_installed_seq2seq,
        from_folder=_seq2seq_from_folder,
    )
)
"""The `seq2seq` judge: MiniCheck-Flan-T5-style models, read from their first output token
(`judges.text2text`). `auto` takes it when the default model is one (only one model is the default,
so its preference above `nli` never passes over a default encoder model)."""
