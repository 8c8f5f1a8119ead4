"""The transformers NLI judge: any local sequence-classification NLI / grounding model folder.

Each model is read the way it was trained (its `InputFormat`): the evidence is always the premise
(the document) and the claim the hypothesis, but a generic MNLI cross-encoder takes them as the
tokenizer's sentence pair (`[CLS] evidence [SEP] claim [SEP]`), while MiniCheck's RoBERTa and
DeBERTa checkpoints take one sequence, `evidence + eos_token + claim`. A model installed from the
registry carries its format in `citedesk-model.json`; any other folder is read as a sentence pair.

Labels come from the format when the model's own `id2label` says nothing (MiniCheck ships
`{0: "0", 1: "1"}`, 1 = supported), else from `id2label` (3-way entailment/neutral/contradiction,
or 2-way supported/unsupported, in any order and spelling); a model whose labels say nothing and
that no format describes is refused with a message, never guessed. Pairs are batched in length
order; the evidence is cut, never the claim: evidence longer than the model's window is split into
sentence chunks that each fit (a single over-long sentence is cut at a token boundary), and the
chunk that supports most decides (max aggregation). torch and transformers load on first use, in
whatever thread judges first.

`evidence.models` registers it as the `nli` judge (an encoder model: `nli` the default model,
`nli:MODEL` an installed name or a folder), the one `auto` prefers when a default model is
installed: which models are installed is that module's business, so this one never imports it.
"""

from __future__ import annotations

import json
import threading
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from citedesk.errors import ModelError
from citedesk.evidence.judges.base import MODEL_POLICY, Judgement, Pair
from citedesk.evidence.runtime import configure_threads, shared_model

__all__ = ["ModelError", "NliJudge"]

ENTAIL = ("entail", "support", "consistent", "faithful", "grounded", "true", "yes")
CONTRADICT = ("contradict", "refute", "inconsistent", "false")
NEUTRAL = (
    "neutral",
    "not_entail",
    "not entail",
    "unsupported",
    "not support",
    "non-entail",
    "no",
    "unrelated",
)


@dataclass(frozen=True)
class LabelScheme:
    entail: int
    contradict: int | None
    """None for 2-way models (supported / unsupported)."""


FORMAT_FILE = "citedesk-model.json"
"""Written into a model folder by `models pull` / `models import`: the registry entry it came from
and the input format the judge must use."""

DEFAULT_MAX_LENGTH = 256
"""Tokens per input for a model whose format does not say (speed over context on a CPU)."""


@dataclass(frozen=True)
class InputFormat:
    """How a model reads an (evidence, claim) pair. The premise is always the evidence (the source's
    text), the hypothesis the claim (the writer's sentence)."""

    kind: Literal["pair", "joined"] = "pair"
    """`pair`: the tokenizer's sentence-pair encoding, evidence first, as MNLI-style cross-encoders
    were trained (`tokenizer(premise, hypothesis)`); `joined`: one sequence
    `evidence + tokenizer.eos_token + claim`, as MiniCheck's RoBERTa / DeBERTa checkpoints were
    (MiniCheck `Inferencer.batch_tokenize`)."""
    entail: int | None = None
    """The output index meaning "supported", when the model's `id2label` does not say; None reads
    it from `id2label`."""
    contradict: int | None = None
    """The output index meaning "contradicted" (None: a 2-way model, or read from `id2label`)."""
    max_length: int | None = None
    """Tokens per input the model was evaluated with (None: `DEFAULT_MAX_LENGTH`)."""
    chunk_tokens: int | None = None
    """At most this many evidence tokens per chunk (MiniCheck: 400), else whatever fits."""

    def describe(self) -> str:
        """One line for `models list`: what goes where, and which output means what."""
        if self.kind == "joined":
            layout = "evidence + end-of-sequence token + claim, one sequence"
        else:
            layout = "sentence pair: premise = evidence, hypothesis = claim"
        limits = f"{self.max_length or DEFAULT_MAX_LENGTH} tokens"
        if self.chunk_tokens:
            limits += f", evidence in chunks of ≤{self.chunk_tokens} tokens (best chunk decides)"
        if self.entail is None:
            labels = "labels from the model's id2label"
        else:
            labels = f"output {self.entail} = supported"
            labels += f", {self.contradict} = contradicted" if self.contradict is not None else " (2-way)"
        return f"{layout}; {limits}; {labels}"


def write_format(folder: Path, input_format: InputFormat, **about: str) -> None:
    """Record in the model folder how it must be read (and where it came from)."""
    record = {"format": asdict(input_format), **about}
    (Path(folder) / FORMAT_FILE).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


def read_format(folder: Path) -> InputFormat | None:
    """The input format recorded in a model folder, or None (an unknown folder: a sentence pair,
    labels from id2label)."""
    try:
        record = json.loads((Path(folder) / FORMAT_FILE).read_text(encoding="utf-8"))
        return InputFormat(**record["format"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise ModelError(
            f"{Path(folder) / FORMAT_FILE} is unreadable ({exc}); remove it or re-import the model"
        ) from exc


def label_scheme(id2label: dict[int, str]) -> LabelScheme:
    """Which output index means entailment (and contradiction), from the model's own label names."""
    entail: int | None = None
    contradict: int | None = None
    for index, raw in id2label.items():
        name = str(raw).lower().replace("-", "_")
        if any(name.startswith(n) or name == n for n in NEUTRAL) or name.startswith(("not_", "non_", "un")):
            continue
        if any(key in name for key in CONTRADICT):
            contradict = int(index)
        elif any(key in name for key in ENTAIL):
            entail = int(index)
    if entail is None:
        labels = ", ".join(f"{k}: {v}" for k, v in sorted(id2label.items()))
        raise ModelError(
            f"cannot tell which output means entailment from the model's labels ({labels}); "
            "set id2label in its config.json (e.g. entailment / neutral / contradiction)"
        )
    return LabelScheme(entail, contradict)


def scheme_for(input_format: InputFormat, id2label: dict[int, str], num_labels: int) -> LabelScheme:
    """The label scheme: the format's indices where it gives them, else the model's own labels."""
    if input_format.entail is None:
        return label_scheme(id2label)
    indices = [input_format.entail, input_format.contradict]
    if any(i is not None and not 0 <= i < num_labels for i in indices):
        raise ModelError(f"the model has {num_labels} outputs; its format names output {indices}")
    return LabelScheme(input_format.entail, input_format.contradict)


class NliJudge:
    def __init__(
        self,
        model_dir: Path,
        *,
        batch_size: int = 16,
        max_length: int | None = None,
        quantize: bool = False,
        threads: int | None = None,
        name: str | None = None,
        input_format: InputFormat | None = None,
        shared: bool = True,
    ) -> None:
        """`input_format` None reads the folder's `citedesk-model.json` (a sentence pair without
        one); `max_length` None takes the format's; `shared` False loads a private copy (checking a
        download) instead of the process-wide one every audit reuses."""
        self.model_dir = Path(model_dir)
        self.batch_size = batch_size
        self.requested_length = max_length
        self.max_length = max_length or DEFAULT_MAX_LENGTH
        self.quantize = quantize
        self.threads = threads
        self.shared = shared
        self.name = f"nli:{name or self.model_dir.name}" + (":int8" if quantize else "")
        self.policy = MODEL_POLICY
        self.input_format = input_format
        self._lock = threading.Lock()
        self._model: Any = None
        self._tokenizer: Any = None
        self.scheme: LabelScheme | None = None

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            if not (self.model_dir / "config.json").is_file():
                raise ModelError(f"no model at {self.model_dir} (a folder with config.json and weights)")
            input_format = self.input_format or read_format(self.model_dir) or InputFormat()
            import torch  # noqa: PLC0415 - heavy; first use only
            from transformers import (  # noqa: PLC0415
                AutoConfig,
                AutoModelForSequenceClassification,
                AutoTokenizer,
            )
            from transformers.utils import logging as hf_logging  # noqa: PLC0415

            hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
            configure_threads(torch, self.threads)

            def read() -> tuple[Any, Any, LabelScheme, int]:
                try:  # never trust_remote_code: a model that needs its own code is refused here
                    config = AutoConfig.from_pretrained(str(self.model_dir))
                except (OSError, ValueError) as exc:
                    raise ModelError(f"the model at {self.model_dir} could not be read: {exc}") from exc
                labels = {int(k): v for k, v in (config.id2label or {}).items()}
                scheme = scheme_for(input_format, labels, int(config.num_labels))
                try:
                    tokenizer = AutoTokenizer.from_pretrained(str(self.model_dir))
                    model = AutoModelForSequenceClassification.from_pretrained(str(self.model_dir)).eval()
                except (OSError, ValueError) as exc:
                    raise ModelError(f"the model at {self.model_dir} could not be loaded: {exc}") from exc
                if input_format.kind == "joined" and not tokenizer.eos_token:
                    raise ModelError(
                        f"the model at {self.model_dir} is read as evidence + end-of-sequence token + "
                        "claim, but its tokenizer has no end-of-sequence token"
                    )
                limits = [getattr(config, "max_position_embeddings", 100_000)]
                if 0 < getattr(tokenizer, "model_max_length", 0) < 100_000:
                    limits.append(int(tokenizer.model_max_length))
                if self.quantize:
                    with warnings.catch_warnings():  # torch marks eager quantization deprecated; it works
                        warnings.simplefilter("ignore", DeprecationWarning)
                        warnings.filterwarnings("ignore", message=".*quantiz", category=UserWarning)
                        model = torch.ao.quantization.quantize_dynamic(  # type: ignore[no-untyped-call]
                            model, {torch.nn.Linear}, dtype=torch.qint8
                        )
                return tokenizer, model, scheme, min(limits)

            if self.shared:
                tokenizer, model, scheme, positions = shared_model(
                    "nli", self.model_dir, (self.quantize, input_format), read
                )
            else:
                tokenizer, model, scheme, positions = read()
            wanted = self.requested_length or input_format.max_length or DEFAULT_MAX_LENGTH
            self.max_length = min(wanted, positions)  # never more tokens than positions
            self.input_format = input_format
            self._tokenizer, self._model, self.scheme = tokenizer, model, scheme

    def encode(self, evidence: Sequence[str], claims: Sequence[str]) -> Any:
        """The model's input for (evidence, claim) pairs, in the model's own format (torch tensors)."""
        assert self.input_format is not None, "load() first"
        if self.input_format.kind == "joined":
            joiner = self._tokenizer.eos_token
            return self._tokenizer(
                [f"{e}{joiner}{c}" for e, c in zip(evidence, claims, strict=True)],
                padding=True,
                truncation=True,  # chunks() already made the evidence fit, so the claim stays whole
                max_length=self.max_length,
                return_tensors="pt",
            )
        return self._tokenizer(
            list(evidence),
            list(claims),
            padding=True,
            truncation="only_first",
            max_length=self.max_length,
            return_tensors="pt",
        )

    def chunks(self, pair: Pair) -> list[str]:
        """The evidence cut into pieces that fit beside the whole claim (sentences kept whole, but
        for one longer than a whole piece, which is cut at a token boundary)."""
        assert self.input_format is not None, "load() first"
        budget = max(16, self.max_length - len(self._tokenizer.tokenize(pair.claim)) - 4)
        if self.input_format.chunk_tokens:
            budget = min(budget, self.input_format.chunk_tokens)
        sentences = list(pair.sentences) or [pair.evidence]
        pieces: list[str] = []
        current: list[str] = []
        used = 0
        for sentence in sentences:
            size = len(self._tokenizer.tokenize(sentence))
            if size > budget:
                sentence, size = self._cut(sentence, budget), budget
            if current and used + size > budget:
                pieces.append(" ".join(current))
                current, used = [], 0
            current.append(sentence)
            used += size
        if current:
            pieces.append(" ".join(current))
        return pieces

    def _cut(self, text: str, tokens: int) -> str:
        """The longest prefix of `text` that is at most `tokens` tokens, cut at a token boundary."""
        if self._tokenizer.is_fast:
            offsets = self._tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
            return text[: offsets["offset_mapping"][tokens - 1][1]]
        kept = self._tokenizer.tokenize(text)[:tokens]
        return str(self._tokenizer.convert_tokens_to_string(kept))

    def judge(
        self, pairs: Sequence[Pair], progress: Callable[[int, int], None] | None = None
    ) -> list[Judgement]:
        self.load()
        import torch  # noqa: PLC0415

        assert self.scheme is not None
        jobs: list[tuple[int, str, str]] = []
        for i, pair in enumerate(pairs):
            jobs.extend((i, chunk, pair.claim) for chunk in self.chunks(pair))
        jobs.sort(key=lambda job: len(job[1]) + len(job[2]))
        support = [0.0] * len(pairs)
        contradiction = [0.0] * len(pairs)
        done = 0
        with torch.inference_mode():
            for begin in range(0, len(jobs), self.batch_size):
                batch = jobs[begin : begin + self.batch_size]
                encoded = self.encode(
                    [evidence for _, evidence, _ in batch], [claim for _, _, claim in batch]
                )
                probabilities = torch.softmax(self._model(**encoded).logits, dim=-1).numpy()
                for (index, _, _), row in zip(batch, probabilities, strict=True):
                    entail = float(row[self.scheme.entail])
                    support[index] = max(entail, support[index])
                    if self.scheme.contradict is not None:
                        contradiction[index] = max(contradiction[index], float(row[self.scheme.contradict]))
                done += len(batch)
                if progress is not None:
                    progress(done, len(jobs))
        return [Judgement(s, c) for s, c in zip(support, contradiction, strict=True)]
