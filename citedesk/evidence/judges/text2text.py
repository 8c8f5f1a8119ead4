"""The text-to-text judge: a sequence-to-sequence grounding model whose verdict is read from the
first token it would write (MiniCheck-Flan-T5-Large).

Such a model was trained to answer an (evidence, claim) input with a label token, so the judge never
generates text: it runs the encoder on the input and the decoder for one step from its start token,
and reads the softmax over the logits of the label tokens only, as MiniCheck does
(`minicheck/inference.py`, `Inferencer.inference`: decoder input all zeros, logits of tokens 3 and
209, "no support" and "support", softmax, column 1 is P(supported)). The input is MiniCheck's:
`"predict: " + evidence + eos_token + claim` (`Inferencer.batch_tokenize`), at most 2048 tokens;
evidence longer than its window is read in chunks of whole sentences of at most 500
whitespace-separated words (`MiniCheck._score_inferencer`: `chunk_size` 500 for flan-t5, counted by
`.split()`), cut further so the whole claim always fits, and the chunk that supports most decides.
Its threshold is MiniCheck's: supported at P ≥ 0.5 (`pred_label = prob > 0.5`).

The format is recorded in the model folder (`citedesk-model.json`, as for encoder models) by
`models import --as NAME` or `models pull`, so a folder is read the way its catalogue entry says;
`evidence.local_models` registers the judge for the installed models (`seq2seq`, `seq2seq:MODEL`).
torch and transformers load on first use.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citedesk.errors import ModelError
from citedesk.evidence.judges.base import MODEL_POLICY, Judgement, Pair
from citedesk.evidence.judges.nli import FORMAT_FILE, InputFormat
from citedesk.evidence.runtime import configure_threads, needs_torch, shared_model, torch_installed

__all__ = ["MINICHECK_T5_FORMAT", "TextToTextFormat", "TextToTextJudge", "read_text_format"]

KIND = "text-to-text"
"""What `citedesk-model.json` says a text-to-text model's format is (encoder formats say nothing)."""


@dataclass(frozen=True)
class TextToTextFormat(InputFormat):
    """How a text-to-text model reads an (evidence, claim) pair and which output tokens mean what.

    A kind of `InputFormat` (evidence, end-of-sequence token, claim: `joined`), so the catalogue and
    the download record it like any other; `entail` is the index in `label_tokens` that means
    supported."""

    prefix: str = ""
    """Text before the evidence (MiniCheck-Flan-T5: `predict: `)."""
    label_tokens: tuple[int, ...] = ()
    """Vocabulary ids whose first-step logits are compared (MiniCheck-Flan-T5: 3 no, 209 yes)."""
    chunk_words: int | None = None
    """At most this many whitespace-separated words of evidence per chunk (MiniCheck-Flan-T5: 500)."""
    text_to_text: str = KIND

    def describe(self) -> str:
        layout = f"{self.prefix!r} + evidence + end-of-sequence token + claim, one sequence"
        chunks = (
            f", evidence in chunks of ≤{self.chunk_words} words (best chunk decides)"
            if self.chunk_words
            else ""
        )
        tokens = ", ".join(str(t) for t in self.label_tokens)
        return (
            f"{layout}; {self.max_length} tokens{chunks}; softmax over the first decoder step's "
            f"logits of tokens {tokens}, token {self.label_tokens[self.entail or 0]} = supported"
        )


MINICHECK_T5_FORMAT = TextToTextFormat(
    kind="joined",
    entail=1,
    max_length=2048,
    prefix="predict: ",
    label_tokens=(3, 209),
    chunk_words=500,
)
"""MiniCheck-Flan-T5-Large as published (`minicheck/inference.py` and `minicheck/minicheck.py`)."""


def read_text_format(folder: Path) -> TextToTextFormat | None:
    """The text-to-text format recorded in a model folder, or None where none is."""
    try:
        record = json.loads((Path(folder) / FORMAT_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ModelError(f"{Path(folder) / FORMAT_FILE} is unreadable ({exc})") from exc
    fields = record.get("format") if isinstance(record, dict) else None
    if not isinstance(fields, dict) or fields.get("text_to_text") != KIND:
        return None
    try:
        return TextToTextFormat(**{**fields, "label_tokens": tuple(fields.get("label_tokens") or ())})
    except TypeError as exc:
        raise ModelError(f"{Path(folder) / FORMAT_FILE} is unreadable ({exc})") from exc


class TextToTextJudge:
    def __init__(
        self,
        model_dir: Path,
        *,
        input_format: TextToTextFormat | None = None,
        batch_size: int = 8,
        max_length: int | None = None,
        threads: int | None = None,
        name: str | None = None,
        shared: bool = True,
    ) -> None:
        """`input_format` None reads the folder's record (a folder without one is refused: which
        tokens mean what is known only for catalogue models); `shared` False loads a private copy."""
        self.model_dir = Path(model_dir)
        self.input_format = input_format
        self.batch_size = batch_size
        self.requested_length = max_length
        self.max_length = max_length or 512
        self.threads = threads
        self.shared = shared
        self.name = f"seq2seq:{name or self.model_dir.name}"
        self.policy = MODEL_POLICY
        self._lock = threading.Lock()
        self._model: Any = None
        self._tokenizer: Any = None
        self._start = 0

    @property
    def format(self) -> TextToTextFormat:
        assert self.input_format is not None, "load() first"
        return self.input_format

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            if not (self.model_dir / "config.json").is_file():
                raise ModelError(f"no model at {self.model_dir} (a folder with config.json and weights)")
            input_format = self.input_format or read_text_format(self.model_dir)
            if input_format is None or not input_format.label_tokens:
                raise ModelError(
                    f"the model at {self.model_dir} has no recorded text-to-text format; import it "
                    "naming its catalogue entry (`citedesk models import FOLDER --as NAME`)"
                )
            if not torch_installed():  # the app bundle, the wheel without the models extra
                raise ModelError(needs_torch(f"the judge {self.name}"))
            import torch  # noqa: PLC0415 - heavy; first use only

            configure_threads(torch, self.threads)

            def read() -> tuple[Any, Any, int]:
                from transformers import AutoConfig, AutoModelForSeq2SeqLM, AutoTokenizer  # noqa: PLC0415
                from transformers.utils import logging as hf_logging  # noqa: PLC0415

                hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]

                try:  # never trust_remote_code
                    config = AutoConfig.from_pretrained(str(self.model_dir))
                    if not getattr(config, "is_encoder_decoder", False):
                        raise ModelError(f"the model at {self.model_dir} is not a text-to-text model")
                    tokenizer = AutoTokenizer.from_pretrained(str(self.model_dir))
                    model = AutoModelForSeq2SeqLM.from_pretrained(str(self.model_dir)).eval()
                except (OSError, ValueError) as exc:
                    raise ModelError(f"the model at {self.model_dir} could not be loaded: {exc}") from exc
                vocabulary = int(model.get_output_embeddings().weight.shape[0])
                if any(not 0 <= t < vocabulary for t in input_format.label_tokens) or not tokenizer.eos_token:
                    raise ModelError(
                        f"the model at {self.model_dir} does not fit its format: label tokens "
                        f"{input_format.label_tokens} in a vocabulary of {vocabulary}, or no end-of-sequence token"
                    )
                start = config.decoder_start_token_id
                return tokenizer, model, int(start if start is not None else config.pad_token_id or 0)

            if self.shared:
                tokenizer, model, start = shared_model("seq2seq", self.model_dir, input_format, read)
            else:
                tokenizer, model, start = read()
            self.max_length = self.requested_length or input_format.max_length or 512
            self.input_format = input_format
            self._tokenizer, self._model, self._start = tokenizer, model, start

    def tokens(self, text: str) -> int:
        return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    def text(self, evidence: str, claim: str) -> str:
        """The model's input for one pair, as it was trained."""
        return f"{self.format.prefix}{evidence}{self._tokenizer.eos_token}{claim}"

    def chunks(self, pair: Pair) -> list[str]:
        """The evidence in pieces of whole sentences (at most `chunk_words` words, and few enough
        tokens that the prefix and the whole claim fit beside them); a sentence longer than a piece
        is cut at a word."""
        budget = max(16, self.max_length - self.tokens(self.text("", pair.claim)) - 2)
        words_budget = self.format.chunk_words or 1_000_000
        pieces: list[str] = []
        current: list[str] = []
        words = tokens = 0
        for sentence in list(pair.sentences) or [pair.evidence]:
            sentence = self._fit(sentence, words_budget, budget)
            size_words, size_tokens = len(sentence.split()), self.tokens(sentence)
            if current and (words + size_words > words_budget or tokens + size_tokens > budget):
                pieces.append(" ".join(current))
                current, words, tokens = [], 0, 0
            current.append(sentence)
            words += size_words
            tokens += size_tokens
        if current:
            pieces.append(" ".join(current))
        return [p for p in pieces if p.strip()] or [""]

    def _fit(self, sentence: str, words: int, tokens: int) -> str:
        kept = sentence.split()[:words]
        while len(kept) > 1 and self.tokens(" ".join(kept)) > tokens:
            kept = kept[: max(1, len(kept) * 3 // 4)]
        return " ".join(kept) if len(kept) < len(sentence.split()) else sentence

    def support(self, texts: Sequence[str]) -> list[float]:
        """P(supported) for each input: the softmax over the label tokens' logits at the first
        decoder step (from the decoder's start token), the published way to read the model."""
        import torch  # noqa: PLC0415

        encoded = self._tokenizer(
            list(texts), padding=True, truncation=True, max_length=self.max_length, return_tensors="pt"
        )
        start = torch.full((len(texts), 1), self._start, dtype=torch.long)
        with torch.inference_mode():
            logits = self._model(
                input_ids=encoded["input_ids"],
                attention_mask=encoded["attention_mask"],
                decoder_input_ids=start,
            ).logits[:, 0, :]
            labels = logits[:, list(self.format.label_tokens)]
            probabilities = torch.softmax(labels.float(), dim=-1)[:, self.format.entail or 0]
        return [float(p) for p in probabilities]

    def judge(
        self, pairs: Sequence[Pair], progress: Callable[[int, int], None] | None = None
    ) -> list[Judgement]:
        self.load()
        jobs = [
            (i, self.text(chunk, pair.claim)) for i, pair in enumerate(pairs) for chunk in self.chunks(pair)
        ]
        jobs.sort(key=lambda job: len(job[1]))
        support = [0.0] * len(pairs)
        for begin in range(0, len(jobs), self.batch_size):
            batch = jobs[begin : begin + self.batch_size]
            for (index, _), value in zip(batch, self.support([t for _, t in batch]), strict=True):
                support[index] = max(support[index], value)
            if progress is not None:
                progress(min(begin + self.batch_size, len(jobs)), len(jobs))
        return [Judgement(s, 0.0) for s in support]
