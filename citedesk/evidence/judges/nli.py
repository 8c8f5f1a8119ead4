"""The transformers NLI judge: any local sequence-classification NLI / grounding model folder.

Labels are read from the model's `id2label` (3-way entailment/neutral/contradiction, or 2-way
supported/unsupported, in any order and spelling); a model whose labels say nothing
(`LABEL_0`, `LABEL_1`) is refused with a message, never guessed. Pairs are batched in length order;
the evidence is truncated, never the claim; evidence longer than the model's window is split into
sentence chunks that each fit, and the chunk that supports most decides (max aggregation).
torch and transformers load on first use, in whatever thread judges first.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citedesk.errors import ModelError
from citedesk.evidence.judges.base import MODEL_POLICY, Judgement, Pair

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


class NliJudge:
    def __init__(
        self,
        model_dir: Path,
        *,
        batch_size: int = 16,
        max_length: int = 256,
        quantize: bool = False,
        threads: int | None = None,
        name: str | None = None,
    ) -> None:
        self.model_dir = Path(model_dir)
        self.batch_size = batch_size
        self.max_length = max_length
        self.quantize = quantize
        self.threads = threads
        self.name = f"nli:{name or self.model_dir.name}" + (":int8" if quantize else "")
        self.policy = MODEL_POLICY
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
            import torch  # noqa: PLC0415 - heavy; first use only
            from transformers import (  # noqa: PLC0415
                AutoConfig,
                AutoModelForSequenceClassification,
                AutoTokenizer,
            )
            from transformers.utils import logging as hf_logging  # noqa: PLC0415

            from citedesk.evidence.runtime import configure_threads, shared_model  # noqa: PLC0415

            hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
            configure_threads(torch, self.threads)

            def read() -> tuple[Any, Any, LabelScheme, int]:
                config = AutoConfig.from_pretrained(str(self.model_dir))
                scheme = label_scheme({int(k): v for k, v in (config.id2label or {}).items()})
                try:
                    tokenizer = AutoTokenizer.from_pretrained(str(self.model_dir))
                    model = AutoModelForSequenceClassification.from_pretrained(str(self.model_dir)).eval()
                except (OSError, ValueError) as exc:
                    raise ModelError(f"the model at {self.model_dir} could not be loaded: {exc}") from exc
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

            tokenizer, model, scheme, positions = shared_model("nli", self.model_dir, self.quantize, read)
            self.max_length = min(self.max_length, positions)  # never more tokens than positions
            self._tokenizer, self._model, self.scheme = tokenizer, model, scheme

    def chunks(self, pair: Pair) -> list[str]:
        """The evidence cut into pieces that fit beside the whole claim (sentences kept whole)."""
        budget = self.max_length - len(self._tokenizer.tokenize(pair.claim)) - 4
        sentences = list(pair.sentences) or [pair.evidence]
        pieces: list[str] = []
        current: list[str] = []
        used = 0
        for sentence in sentences:
            size = len(self._tokenizer.tokenize(sentence))
            if current and used + size > budget:
                pieces.append(" ".join(current))
                current, used = [], 0
            current.append(sentence)
            used += size
        if current:
            pieces.append(" ".join(current))
        return pieces

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
                encoded = self._tokenizer(
                    [evidence for _, evidence, _ in batch],
                    [claim for _, _, claim in batch],
                    padding=True,
                    truncation="only_first",
                    max_length=self.max_length,
                    return_tensors="pt",
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
