"""The model catalogue: the models CiteDesk recommends as judges, ranked by published accuracy, each with how it must be read.

A grounding judge answers "does this source passage support this sentence?", which is what the
LLM-AggreFact benchmark measures: 11 human-labelled sets of (document, claim) pairs taken from
summaries, RAG answers and post-hoc grounding (Tang, Laban & Durrett, "MiniCheck: Efficient
Fact-Checking of LLMs on Grounding Documents", EMNLP 2024; leaderboard at llm-aggrefact.github.io).
Its score is balanced accuracy (the mean of the recalls of "supported" and "unsupported"), so 50 is
chance. The figures below are the leaderboard's per-set scores (as listed in September 2024, when
the RAGTruth set had been added) averaged over its 11 sets; they are published figures, not
measured here. Generic NLI models are not on that leaderboard; their entries quote their own model
cards' NLI benchmarks, which measure sentence-level entailment, an easier task than grounding a
claim in a document.

Each entry says what kind of model it is (a `JudgeKind` of the judge registry) and how it reads its
input (`InputFormat`), so the judge feeds it the way it was trained and reads the right output. A
model is offered for download only where a registered judge runs its kind (`offered`), and a
download is checked by that judge; `one_click` is False for models no judge may run (custom code, a
training checkpoint), which are listed with the reason instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from citedesk.evidence.judges.nli import InputFormat
from citedesk.evidence.judges.registry import JudgeKind, model_judge
from citedesk.evidence.judges.text2text import MINICHECK_T5_FORMAT

LEADERBOARD = "LLM-AggreFact leaderboard (llm-aggrefact.github.io, Sept 2024; mean of 11 sets)"

MINICHECK_FORMAT = InputFormat(kind="joined", entail=1, contradict=None, max_length=512, chunk_tokens=400)
"""MiniCheck's RoBERTa / DeBERTa checkpoints: `document_chunk + eos_token + claim` as one sequence,
400-token document chunks, the best chunk decides; output 1 = supported (their config's id2label is
`{0: "0", 1: "1"}`). From MiniCheck's `minicheck/inference.py` (`Inferencer`, `chunk_size` 400)."""


FACTCG_TEMPLATE = (
    "{evidence}\n\nChoose your answer: based on the paragraph above can we conclude that "
    '"{claim}"?\n\nOPTIONS:\n- Yes\n- No\nI think the answer is '
)
"""FactCG's prompt (`factcg/utils.py`, `INSTRUCTION_TEMPLATE`, `{text_a}` the document and `{text_b}`
the claim): the classifier was trained on exactly this text, so nothing in it may change."""

FACTCG_FORMAT = InputFormat(
    kind="template",
    template=FACTCG_TEMPLATE,
    entail=1,
    contradict=None,
    max_length=2048,
    chunk_words=550,
    threshold=0.5,
)
"""FactCG-DeBERTa-v3-Large as its `factcg/inference.py` reads it: the prompt as one sequence of at
most 2048 tokens (`Inferencer.tokenize`), the document in chunks of whole sentences of at most 550
NLTK words joined by newlines (`chunking_src`), the best chunk decides (`batch_inference`: max over
chunks), P(supported) the softmax's column 1, supported at 0.5 (`benchmark.py --threshold-setting
fixed`)."""


@dataclass(frozen=True)
class CatalogueEntry:
    name: str
    """What `citedesk models pull NAME` takes and the folder it installs as."""
    hub_id: str
    size_mb: int
    """Download size (weights in the format fetched, plus tokenizer files)."""
    licence: str
    labels: str
    """What the model outputs, in words."""
    speed: str
    """Throughput on a 2-core CPU: the model's cost relative to the MiniLM-size model, timed on its
    architecture (`python -m tests.bench.model_speed`), applied to that model's 57 pairs/s measured
    on a quiet 2-core machine (`tests.bench.audit_speed`); hence "estimated"."""
    note: str
    benchmark: str = ""
    """The published figure, with what it measures."""
    source: str = ""
    """Where the figure is published, and when."""
    input_format: InputFormat = field(default_factory=InputFormat)
    one_click: bool = True
    """False: listed for information, never downloaded (see `not_offered`)."""
    not_offered: str = ""
    """Why a model is not offered for one-click install."""
    revision: str = "main"
    kind: JudgeKind = JudgeKind.ENCODER
    """What kind of model it is: offered only where a registered judge runs that kind."""
    threshold: str = "supported at P ≥ 0.5, as published (MiniCheck: `pred_label = prob > 0.5`)"
    """The calibrated threshold its verdicts are read with, and where it comes from."""

    @property
    def offered(self) -> bool:
        """Offered for download: nothing rules it out, and a registered judge runs its kind."""
        return self.one_click and model_judge(self.kind) is not None

    @property
    def why_not_offered(self) -> str:
        if self.not_offered or self.offered:
            return self.not_offered
        return f"a {self.kind.value}; no judge CiteDesk has runs one"


CATALOGUE = (
    CatalogueEntry(
        "minicheck-roberta-large",
        "lytang/MiniCheck-RoBERTa-Large",
        1430,
        "MIT",
        "2-way: supported / unsupported",
        "≈3 pairs/s at 128 tokens on 2 CPU cores, ≥4x slower at 512 (estimated)",
        "grounding judge: RoBERTa-large (AlignScore's) fine-tuned on MiniCheck's synthetic grounding data",
        benchmark="LLM-AggreFact balanced accuracy 73.5",
        source=LEADERBOARD + "; MiniCheck paper (Tang et al., EMNLP 2024)",
        input_format=MINICHECK_FORMAT,
    ),
    CatalogueEntry(
        "minicheck-deberta-large",
        "lytang/MiniCheck-DeBERTa-v3-Large",
        1750,
        "MIT",
        "2-way: supported / unsupported",
        "≈2 pairs/s at 128 tokens on 2 CPU cores, ≥4x slower at 512 (estimated)",
        "grounding judge: DeBERTa-v3-large fine-tuned on ANLI and MiniCheck's synthetic grounding data",
        benchmark="LLM-AggreFact balanced accuracy 73.1",
        source=LEADERBOARD + "; MiniCheck paper (Tang et al., EMNLP 2024)",
        input_format=MINICHECK_FORMAT,
    ),
    CatalogueEntry(
        "deberta-v3-base-nli",
        "MoritzLaurer/DeBERTa-v3-base-mnli-fever-anli",
        740,
        "MIT",
        "3-way: entailment / neutral / contradiction",
        "≈12 pairs/s at 128 tokens on 2 CPU cores (estimated)",
        "generic NLI (MNLI, FEVER-NLI, ANLI); sentence-level, not trained for grounding in documents",
        benchmark="ANLI test accuracy R1 0.712, R3 0.495 (NLI, not grounding; not on LLM-AggreFact)",
        source="model card, Hugging Face automatic evaluation (model-index, verified)",
        input_format=InputFormat(kind="pair", max_length=256),
    ),
    CatalogueEntry(
        "minilm-nli",
        "cross-encoder/nli-MiniLM2-L6-H768",
        330,
        "Apache-2.0",
        "3-way: contradiction / entailment / neutral",
        "≈30 pairs/s at 128 tokens on 2 CPU cores (estimated)",
        "small and fast generic NLI (SNLI, MNLI); sentence-level, not trained for grounding in documents",
        benchmark="AllNLI dev accuracy 0.890 (NLI, not grounding; not on LLM-AggreFact)",
        source="CESoftmaxAccuracyEvaluator_AllNLI-dev_results.csv in the model repository (June 2021)",
        input_format=InputFormat(kind="pair", entail=1, contradict=0, max_length=256),
    ),
    CatalogueEntry(
        "minicheck-flan-t5-large",
        "lytang/MiniCheck-Flan-T5-Large",
        3130,
        "MIT",
        "2-way, read from two token logits of a text-to-text model",
        "not estimated: run `citedesk models bench minicheck-flan-t5-large` after installing it",
        "MiniCheck's most accurate small model (0.8B parameters, Flan-T5-large)",
        benchmark="LLM-AggreFact balanced accuracy 75.0",
        source=LEADERBOARD + "; MiniCheck paper (Tang et al., EMNLP 2024)",
        input_format=MINICHECK_T5_FORMAT,
        kind=JudgeKind.TEXT_TO_TEXT,
    ),
    CatalogueEntry(
        "factcg-deberta-large",
        "yaxili96/FactCG-DeBERTa-v3-Large",
        1750,
        "MIT (model card and FactCG repository)",
        "2-way: output 1 = supported (config.num_labels 2, generic labels)",
        "as MiniCheck-DeBERTa-v3-Large (same architecture): ≈2 pairs/s at 128 tokens on 2 CPU cores, "
        "≥4x slower at 512 (estimated); `citedesk models bench factcg-deberta-large` measures it here",
        "grounding judge: DeBERTa-v3-large (0.4B parameters) trained on FactCG's graph-based multi-hop "
        "synthetic data (CG2C), read through FactCG's instruction prompt",
        benchmark=(
            "LLM-AggreFact balanced accuracy 75.6 at the fixed threshold 0.5 (77.2 with per-set thresholds "
            "tuned on each set's dev split, which one threshold cannot reproduce)"
        ),
        source="FactCG paper (Lei et al., NAACL 2025) and repository derenlei/FactCG (README leaderboard figures)",
        input_format=FACTCG_FORMAT,
        threshold="supported at P ≥ 0.5 (FactCG's `fixed` setting, as its 75.6 was measured)",
    ),
    CatalogueEntry(
        "alignscore-large",
        "yzha/AlignScore",
        4900,
        "MIT",
        "3-way alignment head",
        "not measured",
        "AlignScore (Zha et al., ACL 2023)",
        benchmark="LLM-AggreFact balanced accuracy 70.5",
        source=LEADERBOARD,
        one_click=False,
        not_offered="a training checkpoint for the alignscore package, not a transformers model folder",
    ),
    CatalogueEntry(
        "hhem-2.1-open",
        "vectara/hallucination_evaluation_model",
        440,
        "Apache-2.0",
        "2-way: consistent / hallucinated",
        "not measured",
        "Vectara's HHEM-2.1-Open (T5-base with its own HHEMv2 model class)",
        one_click=False,
        not_offered="needs trust_remote_code (runs Python code shipped with the download); CiteDesk never does",
    ),
)


def find_entry(name: str) -> CatalogueEntry | None:
    """A catalogue entry by its short name or its hub id (case-insensitive)."""
    wanted = name.strip().lower()
    return next((e for e in CATALOGUE if wanted in (e.name.lower(), e.hub_id.lower())), None)


def recommended() -> list[CatalogueEntry]:
    """The entries `models pull` installs, in the order they are recommended."""
    return [entry for entry in CATALOGUE if entry.offered]
