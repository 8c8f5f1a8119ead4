"""The installed models: where they live, which is the default, which judge reads each, and the
`nli` and `seq2seq` judges that run them.

Models live in `<user data>/citedesk/models/<name>/` (a Hugging Face model folder). A folder holds an
encoder model (read by the `nli` judge) or a text-to-text model (`is_encoder_decoder` in its config:
read by the `seq2seq` judge, `judges.text2text`); each judge lists and loads only its own kind, and
`auto` takes the default model with whichever judge reads it. The judge registry imports this module
on its first look-up (`judges.registry`), so it knows nothing of the catalogue (`evidence.catalogue`)
or of installing (`evidence.models`), which build on the registry.
"""

from __future__ import annotations

import json
from pathlib import Path

from citedesk.errors import ModelError
from citedesk.evidence.judges.base import MODEL_POLICY
from citedesk.evidence.judges.nli import NliJudge
from citedesk.evidence.judges.spec import JudgeContext, JudgeKind, JudgeSpec, register
from citedesk.evidence.judges.text2text import TextToTextFormat, TextToTextJudge


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
