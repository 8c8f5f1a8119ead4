"""The transformers NLI judge: any local sequence-classification NLI / grounding model folder.

Each model is read the way it was trained (its `InputFormat`): the evidence is always the premise
(the document) and the claim the hypothesis, but a generic MNLI cross-encoder takes them as the
tokenizer's sentence pair (`[CLS] evidence [SEP] claim [SEP]`), while MiniCheck's RoBERTa and
DeBERTa checkpoints take one sequence, `evidence + eos_token + claim`, and FactCG's DeBERTa takes
one instruction prompt that wraps both (a `template` format: the evidence, then "Choose your answer:
based on the paragraph above can we conclude that "CLAIM"?", as FactCG's `utils.INSTRUCTION_TEMPLATE`
spells it). A model installed from the registry carries its format in `citedesk-model.json` (with
its published threshold, which becomes its judge's policy); any other folder is read as a sentence
pair.

Labels come from the format when the model's own `id2label` says nothing (MiniCheck ships
`{0: "0", 1: "1"}`, 1 = supported), else from `id2label` (3-way entailment/neutral/contradiction,
or 2-way supported/unsupported, in any order and spelling); a model whose labels say nothing and
that no format describes is refused with a message, never guessed. Pairs are batched in length
order; the evidence is cut, never the claim: evidence longer than the model's window is split into
sentence chunks that each fit (a single over-long sentence is cut at a token boundary), and the
chunk that supports most decides (max aggregation). torch and transformers load on first use, in
whatever thread judges first.

Where the model's ONNX file exists (`evidence.onnx_judge`: exported once, checked against torch,
int8 where it agrees with fp32) the judge runs it with onnxruntime and the `tokenizers` library
and never imports torch; where it does not, the first use starts its export in the background and
judges with torch meanwhile; a model that cannot be exported stays on torch (`notice` says why).

`evidence.local_models` registers it as the `nli` judge (an encoder model: `nli` the default model,
`nli:MODEL` an installed name or a folder), the one `auto` prefers when a default model is
installed: which models are installed is that module's business, so this one never imports it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import threading
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

from citedesk.errors import ModelError
from citedesk.evidence.judges.base import MODEL_POLICY, Judgement, Pair, Policy
from citedesk.evidence.onnx_embed import onnx_enabled, runtime_installed
from citedesk.evidence.runtime import configure_threads, needs_torch, shared_model, torch_installed

__all__ = ["ModelError", "NliJudge"]

_log = logging.getLogger(__name__)
_said: set[str] = set()
"""Notices already logged: each once per process, not once per audit."""

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

    kind: Literal["pair", "joined", "template"] = "pair"
    """`pair`: the tokenizer's sentence-pair encoding, evidence first, as MNLI-style cross-encoders
    were trained (`tokenizer(premise, hypothesis)`); `joined`: one sequence
    `evidence + tokenizer.eos_token + claim`, as MiniCheck's RoBERTa / DeBERTa checkpoints were
    (MiniCheck `Inferencer.batch_tokenize`); `template`: one sequence, `template` filled in with
    the evidence and the claim, as FactCG was (FactCG `Inferencer.tokenize`)."""
    entail: int | None = None
    """The output index meaning "supported", when the model's `id2label` does not say; None reads
    it from `id2label`."""
    contradict: int | None = None
    """The output index meaning "contradicted" (None: a 2-way model, or read from `id2label`)."""
    max_length: int | None = None
    """Tokens per input the model was evaluated with (None: `DEFAULT_MAX_LENGTH`)."""
    chunk_tokens: int | None = None
    """At most this many evidence tokens per chunk (MiniCheck: 400), else whatever fits."""
    chunk_words: int | None = None
    """At most this many words of evidence per chunk, a word counted as FactCG counts it (NLTK's
    `word_tokenize`: words and punctuation marks, `WORD`); FactCG: 550. The token window still
    bounds a chunk too."""
    template: str = ""
    """For `template`: the prompt, with `{evidence}` and `{claim}` where they go."""
    threshold: float | None = None
    """The published P(supported) at or above which the verdict is supported (None: the default
    model policy's 0.5): the judge's `policy.supported`, so it decides every verdict."""

    def describe(self) -> str:
        """One line for `models list`: what goes where, and which output means what."""
        if self.kind == "joined":
            layout = "evidence + end-of-sequence token + claim, one sequence"
        elif self.kind == "template":
            layout = f"one sequence, the instruction prompt {self.template!r}"
        else:
            layout = "sentence pair: premise = evidence, hypothesis = claim"
        limits = f"{self.max_length or DEFAULT_MAX_LENGTH} tokens"
        if self.chunk_tokens:
            limits += f", evidence in chunks of ≤{self.chunk_tokens} tokens (best chunk decides)"
        if self.chunk_words:
            limits += f", evidence in chunks of ≤{self.chunk_words} words (best chunk decides)"
        if self.entail is None:
            labels = "labels from the model's id2label"
        else:
            labels = f"output {self.entail} = supported"
            labels += f", {self.contradict} = contradicted" if self.contradict is not None else " (2-way)"
        if self.threshold is not None:
            labels += f" at P ≥ {self.threshold:g}"
        return f"{layout}; {limits}; {labels}"

    def text(self, evidence: str, claim: str) -> str:
        """A `template` format's one input for (evidence, claim): the prompt, filled in."""
        return self.template.format(evidence=evidence, claim=claim)

    @property
    def policy(self) -> Policy:
        """How a judge reading this format turns support into verdicts: at its published threshold."""
        return MODEL_POLICY if self.threshold is None else replace(MODEL_POLICY, supported=self.threshold)


WORD = re.compile(r"\w+(?:'\w+)?|[^\w\s]")
"""A word as FactCG's chunking counts it (NLTK `word_tokenize`): a run of letters and digits (with
its contraction) or one punctuation mark. NLTK is not a dependency; this counts within a few per
cent of it on prose, which only moves where a 550-word chunk ends."""


def words(text: str) -> int:
    return len(WORD.findall(text))


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


def position_limit(config: dict[str, Any]) -> int:
    """The most tokens a model's positions allow: its `max_position_embeddings`, unless it has no
    absolute positions (DeBERTa-v3: relative attention only, `position_biased_input` false), which
    reads any length: FactCG runs its DeBERTa-v3-large on 2048 tokens though the config says 512."""
    if config.get("relative_attention") and config.get("position_biased_input") is False:
        return 100_000
    return int(config.get("max_position_embeddings") or 100_000)


def onnx_layout(input_format: InputFormat) -> Literal["pair", "joined"]:
    """What the ONNX export checks its tokenizer with: a `template` format is one sequence the
    judge builds itself (`encode_single`), so the export checks it as a sentence pair, which
    exercises the same tokenizer and the same graph."""
    return "joined" if input_format.kind == "joined" else "pair"


def encode_single(fast: Any, texts: Sequence[str]) -> dict[str, Any]:
    """One sequence per input with the ONNX path's tokenizer (`onnx_judge.PairTokenizer`), padded
    on the right as transformers pads: what a `template` format feeds the graph."""
    import numpy as np  # noqa: PLC0415 - the ONNX path only

    fast.tokenizer.enable_truncation(max_length=fast.max_length)
    encoded = fast.tokenizer.encode_batch(list(texts))
    width = max(len(e.ids) for e in encoded)

    def padded(rows: list[list[int]], value: int) -> Any:
        return np.array([row + [value] * (width - len(row)) for row in rows], dtype=np.int64)

    return {
        "input_ids": padded([e.ids for e in encoded], fast.pad_id),
        "attention_mask": padded([e.attention_mask for e in encoded], 0),
        "token_type_ids": padded([e.type_ids for e in encoded], 0),
    }


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
        backend: Literal["either", "onnx", "torch"] = "either",
    ) -> None:
        """`input_format` None reads the folder's `citedesk-model.json` (a sentence pair without
        one); `max_length` None takes the format's; `shared` False loads a private copy (checking a
        download) instead of the process-wide one every audit reuses. `backend` "either" runs the
        ONNX file when it exists (unless `CITEDESK_ONNX` is off or `quantize` asks for torch's
        int8), "onnx" exports it now if missing and insists on it, "torch" never touches ONNX."""
        self.model_dir = Path(model_dir)
        self.batch_size = batch_size
        self.requested_length = max_length
        self.max_length = max_length or DEFAULT_MAX_LENGTH
        self.quantize = quantize
        self.threads = threads
        self.shared = shared
        self.name = f"nli:{name or self.model_dir.name}" + (":int8" if quantize else "")
        with contextlib.suppress(ModelError):  # an unreadable record is said by load()
            input_format = input_format or read_format(self.model_dir)
        self.input_format = input_format
        self.policy = input_format.policy if input_format is not None else MODEL_POLICY
        """The format's published threshold where it has one (FactCG), else the model policy."""
        self._lock = threading.Lock()
        self._model: Any = None
        self._tokenizer: Any = None
        self.scheme: LabelScheme | None = None
        self.backend = backend
        self._onnx: Any = None
        self._onnx_path = Path()
        self._fast: Any = None
        self.notice = ""
        """Why torch judges when ONNX was possible (one line), or ""."""

    @property
    def engine(self) -> str:
        """Which engine judges: "onnx", "onnx-int8" or "torch" ("" before the model is loaded)."""
        if self._onnx is not None:
            return "onnx-int8" if "-int8" in self._onnx_path.name else "onnx"
        return "torch" if self._model is not None else ""

    def load(self) -> None:
        with self._lock:
            if self._model is not None or self._onnx is not None:
                return
            if not (self.model_dir / "config.json").is_file():
                raise ModelError(f"no model at {self.model_dir} (a folder with config.json and weights)")
            input_format = self.input_format or read_format(self.model_dir) or InputFormat()
            wants_onnx = self.backend == "onnx" or (
                self.backend == "either" and not self.quantize and onnx_enabled() and runtime_installed()
            )
            if wants_onnx and self._load_onnx(input_format):
                return
            if not torch_installed():  # the app bundle, the wheel without the models extra
                raise ModelError(needs_torch(f"the judge {self.name} without an ONNX file"))
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
                limits = [position_limit(config.to_dict())]
                if 0 < getattr(tokenizer, "model_max_length", 0) < 100_000 and not input_format.max_length:
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
            self.input_format, self.policy = input_format, input_format.policy
            self._tokenizer, self._model, self.scheme = tokenizer, model, scheme

    def _load_onnx(self, input_format: InputFormat) -> bool:
        """Judge with the model's ONNX file if there is one (exporting it now when `backend` is
        "onnx", starting its export in the background otherwise); whether it is used."""
        from citedesk.evidence import onnx_judge  # noqa: PLC0415 - numpy and onnxruntime only

        try:
            config = json.loads((self.model_dir / "config.json").read_text(encoding="utf-8"))
            positions = [position_limit(config)]
            with contextlib.suppress(OSError, ValueError, TypeError):
                saved = (self.model_dir / "tokenizer_config.json").read_text(encoding="utf-8")
                limit = int(json.loads(saved).get("model_max_length") or 0)
                positions += [limit] if 0 < limit < 100_000 and not input_format.max_length else []
            wanted = self.requested_length or input_format.max_length or DEFAULT_MAX_LENGTH
            layout = onnx_layout(input_format)
            if self.backend == "onnx":
                path: Path | None = onnx_judge.prepare_judge(self.model_dir, layout, wanted)
            else:
                path = onnx_judge.best_file(self.model_dir)
            if path is None:
                if torch_installed():  # the export runs on torch
                    self._export_later(layout, wanted)
                return False
            labels = {int(k): v for k, v in (config.get("id2label") or {}).items()}
            scheme = scheme_for(input_format, labels, int(config.get("num_labels") or len(labels)))
            self.max_length = min([wanted, *positions])
            fast = onnx_judge.PairTokenizer.load(self.model_dir, layout, self.max_length)
            session = onnx_judge.OnnxClassifier.open(path, self.threads, shared=self.shared)
        except ModelError:
            if self.backend == "onnx":
                raise
            return self._torch_because("the model cannot run on ONNX Runtime")
        except (OSError, ValueError) as exc:  # no tokenizer.json, an unreadable file
            if self.backend == "onnx":
                raise ModelError(f"the ONNX judge did not load ({type(exc).__name__}: {exc})") from exc
            return self._torch_because(f"the ONNX judge did not load ({type(exc).__name__})")
        self._onnx_path, self._onnx, self._fast = path, session, fast
        self.input_format, self.scheme, self.policy = input_format, scheme, input_format.policy
        return True

    def _torch_because(self, why: str) -> bool:
        """Judge with torch, and say why in one line (logged once per process): False."""
        self.notice = f"{why}; {self.name} judges with torch (slower)"
        if self.notice not in _said:
            _said.add(self.notice)
            _log.warning("citedesk: %s", self.notice)
        return False

    def _export_later(self, kind: str, max_length: int) -> None:
        from citedesk.evidence import onnx_judge  # noqa: PLC0415
        from citedesk.evidence.onnx_export import export_in_background  # noqa: PLC0415

        failed = onnx_judge.judge_failure_file(self.model_dir)
        if failed.is_file():
            self._torch_because("the model could not be put on ONNX Runtime")
            return
        export_in_background(
            self.model_dir,
            target=onnx_judge.judge_onnx_file(self.model_dir),
            failed=failed,
            job=["citedesk.evidence.onnx_judge", kind, str(max_length)],
        )

    def _count(self, text: str) -> int:
        if self._fast is not None:
            return int(self._fast.count(text))
        return len(self._tokenizer.tokenize(text))

    def encode(self, evidence: Sequence[str], claims: Sequence[str]) -> Any:
        """The model's input for (evidence, claim) pairs, in the model's own format (torch tensors)."""
        assert self.input_format is not None, "load() first"
        if self.input_format.kind == "template":
            return self._tokenizer(
                [self.input_format.text(e, c) for e, c in zip(evidence, claims, strict=True)],
                padding=True,
                truncation=True,  # chunks() already made the evidence fit, as for `joined`
                max_length=self.max_length,
                return_tensors="pt",
            )
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
        fmt = self.input_format
        wrapper = fmt.text("", pair.claim) if fmt.kind == "template" else pair.claim
        budget = max(16, self.max_length - self._count(wrapper) - 4)
        if fmt.chunk_tokens:
            budget = min(budget, fmt.chunk_tokens)
        glue = "\n" if fmt.kind == "template" else " "  # FactCG joins a chunk's sentences by lines
        sentences = list(pair.sentences) or [pair.evidence]
        pieces: list[str] = []
        current: list[str] = []
        used = spoken = 0
        for sentence in sentences:
            size = self._count(sentence)
            if size > budget:
                sentence, size = self._cut(sentence, budget), budget
            said = words(sentence) if fmt.chunk_words else 0
            over_words = fmt.chunk_words is not None and spoken + said > fmt.chunk_words
            if current and (used + size > budget or over_words):
                pieces.append(glue.join(current))
                current, used, spoken = [], 0, 0
            current.append(sentence)
            used += size
            spoken += said
        if current:
            pieces.append(glue.join(current))
        return pieces

    def _cut(self, text: str, tokens: int) -> str:
        """The longest prefix of `text` that is at most `tokens` tokens, cut at a token boundary."""
        if self._fast is not None:
            return str(self._fast.cut(text, tokens))
        if self._tokenizer.is_fast:
            offsets = self._tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
            return text[: offsets["offset_mapping"][tokens - 1][1]]
        kept = self._tokenizer.tokenize(text)[:tokens]
        return str(self._tokenizer.convert_tokens_to_string(kept))

    def judge(
        self, pairs: Sequence[Pair], progress: Callable[[int, int], None] | None = None
    ) -> list[Judgement]:
        self.load()
        assert self.scheme is not None
        jobs: list[tuple[int, str, str]] = []
        for i, pair in enumerate(pairs):
            jobs.extend((i, chunk, pair.claim) for chunk in self.chunks(pair))
        jobs.sort(key=lambda job: len(job[1]) + len(job[2]))
        support = [0.0] * len(pairs)
        contradiction = [0.0] * len(pairs)
        done = 0
        for begin in range(0, len(jobs), self.batch_size):
            batch = jobs[begin : begin + self.batch_size]
            probabilities = self._probabilities([e for _, e, _ in batch], [c for _, _, c in batch])
            for (index, _, _), row in zip(batch, probabilities, strict=True):
                entail = float(row[self.scheme.entail])
                support[index] = max(entail, support[index])
                if self.scheme.contradict is not None:
                    contradiction[index] = max(contradiction[index], float(row[self.scheme.contradict]))
            done += len(batch)
            if progress is not None:
                progress(done, len(jobs))
        return [Judgement(s, c) for s, c in zip(support, contradiction, strict=True)]

    def _probabilities(self, evidence: list[str], claims: list[str]) -> Any:
        """Each input's probabilities over the model's outputs (one row per pair)."""
        if self._onnx is not None:
            if self.input_format is not None and self.input_format.kind == "template":
                texts = [self.input_format.text(e, c) for e, c in zip(evidence, claims, strict=True)]
                return self._onnx.probabilities(encode_single(self._fast, texts))
            return self._onnx.probabilities(self._fast.encode(evidence, claims))
        import torch  # noqa: PLC0415

        with torch.inference_mode():
            return torch.softmax(self._model(**self.encode(evidence, claims)).logits, dim=-1).numpy()
