"""The heuristic judge: a calibrated evidence judge that needs no NLI model (the out-of-the-box judge).

It reads the claim against the evidence the way a careful checker skims: are the claim's content
words there (and its names, and its figures)? does the evidence say the opposite (a negation the
claim lacks, an antonym — "decreased" for "increased" — or the other direction: "raises the risk"
against "reduces the risk")? does the claim hedge ("may", "could"), asking less of its evidence?
how close is it in meaning (MiniLM cosine with the closest sentence and with the window as a whole,
when the embedding model is installed)? A logistic model turns those features into a support
score; its weights were fitted on labelled train/dev splits in `../shared/eval/`
(`tests/bench/eval_judges.py --fit` refits and prints them), with each claim also read against
another claim's evidence as a negative, so that the score rises only with what the evidence says,
not with how the claim reads. The harness reports the judge on each data set as fitted *without*
that set (leave one data set out): those are its honest figures. Contradiction is scored from the
clash features alone. It is a heuristic and says so: its name is "heuristic" in every report.

It registers itself as the `heuristic` judge (word-level, no model to install), the one `auto` picks
when no model is.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from citedesk.evidence.embed import Embedder
from citedesk.evidence.judges.base import Judgement, Pair, Policy
from citedesk.evidence.judges.spec import JudgeContext, JudgeKind, JudgeSpec, register
from citedesk.evidence.lexical import (
    antonym_clashes,
    capitalised,
    claim_negations,
    content_stems,
    hedged,
    negations_about,
    opposite_directions,
    with_without_clash,
)
from citedesk.evidence.numbers import Quantity, figure_conflicts, missing_figures, quantities
from citedesk.evidence.policy import HEURISTIC_NOTE

FEATURES = (
    "coverage",
    "bigram_coverage",
    "missing_words",
    "missing_names",
    "missing_figures",
    "negation_mismatch",
    "antonym_clash",
    "dense",
    "clash_about_claim",
    "opposite_direction",
    "claim_words",
    "hedged",
    "dense_centroid",
    "sentence_coverage",
)
_DENSE = FEATURES.index("dense")
DENSE_FEATURES = (_DENSE, FEATURES.index("dense_centroid"))
"""The columns that need the embedding model (NaN without it)."""

DIRECTIONS = (1, 1, -1, -1, -1, -1, -1, 1, -1, -1, 0, 0, 1, 1)
"""The way each feature may move support, which the fit keeps to (a weight that would go the other
way is left at 0): more of the claim found in the evidence, or closer in meaning, never lowers
support; a missing word, name or figure, or a clash, never raises it. Claim length and hedging (0)
are free. Without this, the fit learnt the data sets' artefacts (more of the claim's words found
*lowering* support, names missing *raising* it)."""

# fitted by `tests/bench/eval_judges.py --fit` on COVID-Fact train, SciFact train, WiCE dev and
# HealthVer dev (L2 logistic regression; each data set weighted equally, its classes balanced; its
# claims paired with other claims' evidence added as negatives; signs kept to DIRECTIONS), then
# rescaled so that the thresholds chosen on the same data fall on SUPPORTED and PARTIAL.
# WORDS_* for when no embedding model is installed (dense similarity absent).
# fmt: off
WEIGHTS = (
    0.130, 0.000, -0.276, 0.000, -0.158, 0.000, -0.624,
    1.434, -0.143, -0.250, 0.040, 0.257, 1.615, 0.000,
)
BIAS = -1.716
WORDS_WEIGHTS = (
    1.204, 0.000, -0.221, 0.000, -0.279, 0.000, -0.626,
    0.000, -0.124, -0.219, 0.142, 0.408, 0.000, 1.256,
)
WORDS_BIAS = -1.376
# fmt: on
SUPPORTED = 0.5
"""A score at or above this is `supported`. The fit places here the threshold that balances
accuracy best on its data while at most 1% of its claims paired with another claim's evidence
reach it."""
PARTIAL = 0.3
"""A score at or above this (and below SUPPORTED) is `partially_supported`, below it
`not_supported`. The fit places here the threshold that best separates its supported claims from
claims paired with another claim's evidence (a misattributed citation)."""
POLICY = Policy(SUPPORTED, PARTIAL, reads_together=True, note=HEURISTIC_NOTE, acts=False, kind="word-level")
"""Calibrated at claim level: the top windows are read together; its accuracy is limited (said
beside its name). Its verdicts act like any judge's: errors and fixes."""


FEATURES_VERSION = 4
"""Raised when a feature is computed differently (2: "without" no longer negates a clause; 3: "with X"
against "without X" does; 4: a negation counts only in the clause about the claim's words, and the
claim's "X, not Y" is a claim about X), so that judgements cached from the old features are not
reused."""


@dataclass(frozen=True)
class Model:
    """The judge's fitted weights, with and without the embedding model. `SHIPPED` is what the app
    runs; the evaluation harness fits others (leave one data set out) to measure the judge on data
    it was not fitted on. Every model's scores share the SUPPORTED and PARTIAL thresholds."""

    weights: tuple[float, ...]
    bias: float
    words_weights: tuple[float, ...]
    words_bias: float

    @property
    def fingerprint(self) -> str:
        """A short digest of the weights: judgements cached by other weights are not reused."""
        import hashlib  # noqa: PLC0415

        numbers = (FEATURES_VERSION, *self.weights, self.bias, *self.words_weights, self.words_bias)
        return hashlib.blake2b(repr(numbers).encode(), digest_size=4).hexdigest()

    def source(self, dense: bool) -> str:
        """The constants as lines of this module (what `eval_judges.py --fit` prints)."""
        name, weights, bias = (
            ("", self.weights, self.bias) if dense else ("WORDS_", self.words_weights, self.words_bias)
        )
        values = [f"{w:.3f}" for w in weights]
        rows = [", ".join(values[i : i + 7]) + "," for i in range(0, len(values), 7)]
        return (
            f"{name}WEIGHTS = (\n" + "".join(f"    {row}\n" for row in rows) + f")\n{name}BIAS = {bias:.3f}"
        )


SHIPPED = Model(WEIGHTS, BIAS, WORDS_WEIGHTS, WORDS_BIAS)


def _bigrams(stems: Sequence[str]) -> set[tuple[str, str]]:
    return set(itertools.pairwise(stems))


def about_the_claim(wanted: set[str], sentences: Sequence[str]) -> tuple[str, set[str]]:
    """The evidence sentence sharing most of the claim's content words (and its stems): the one
    whose negations, antonyms and figures speak to the claim."""
    best, best_stems = "", set[str]()
    for sentence in sentences:
        stems = set(content_stems(sentence))
        if not best or len(wanted & stems) > len(wanted & best_stems):
            best, best_stems = sentence, stems
    return best, best_stems


Similarity = tuple[float, float]
"""MiniLM cosine of the claim with its closest evidence sentence, and with the evidence as a whole
(the normalised mean of its sentence vectors)."""


def features(claim: str, sentences: Sequence[str], dense: Similarity | None) -> list[float]:
    """The judge's inputs for one claim against one evidence window (its sentences)."""
    return read_pair(claim, sentences, dense)[0]


def read_pair(claim: str, sentences: Sequence[str], dense: Similarity | None) -> tuple[list[float], float]:
    """The features and the contradiction score of one claim against one evidence window, from a
    single reading of their words."""
    claim_stems = content_stems(claim)
    wanted = set(claim_stems)
    evidence_text = " ".join(sentences)
    evidence_stems = content_stems(evidence_text)
    have = set(evidence_stems)
    covered = len(wanted & have) / len(wanted) if wanted else 0.0
    claim_bigrams = _bigrams(claim_stems)
    bigram_coverage = (
        len(claim_bigrams & _bigrams(evidence_stems)) / len(claim_bigrams) if claim_bigrams else 0.0
    )
    missing_words = math.log1p(len(wanted - have))
    names = capitalised(claim)
    missing_names = len(names - have) / len(names) if names else 0.0
    figures = [q for q in quantities(claim) if not (q.kind == "count" and q.value < 10 and q.decimals == 0)]
    missing = missing_figures(claim, evidence_text) if figures else []
    missing_figure_share = len(missing) / len(figures) if figures else 0.0
    # the sentence that shares most with the claim decides negation: a negation there counts when
    # its clause speaks of the claim's words ("not expensive, and it is safe" does not negate "safe"),
    # and the claim's negated alternative ("X, not Y, is …") is not the claim's negation
    best, best_stems = about_the_claim(wanted, sentences)
    negated = (claim_negations(claim) % 2) != (negations_about(best, wanted) % 2) or with_without_clash(
        claim, best
    )
    clash = float(antonym_clashes(wanted, have) > 0)
    opposite = opposite_directions(claim, best)
    antonym_in_best = antonym_clashes(wanted, best_stems) > 0
    # whatever its share of the claim's words, the sentence about the claim saying otherwise
    clash_about_claim = negated or opposite or antonym_in_best
    values = [
        covered,
        bigram_coverage,
        missing_words,
        missing_names,
        missing_figure_share,
        float(negated),
        clash,
        dense[0] if dense is not None else float("nan"),
        float(clash_about_claim),
        float(opposite),
        math.log1p(len(wanted)),
        float(hedged(claim)),
        dense[1] if dense is not None else float("nan"),
        len(wanted & best_stems) / len(wanted) if wanted else 0.0,
    ]
    says_otherwise = negated or antonym_in_best
    return values, contradiction_probability(claim, wanted, best, best_stems, covered, says_otherwise)


def support_probability(values: Sequence[float], model: Model | None = None) -> float:
    """The support score from the features (`SHIPPED` weights unless given): the words-only weights
    when the dense columns are absent."""
    model = model or SHIPPED
    words_only = math.isnan(values[_DENSE])
    weights, bias = (model.words_weights, model.words_bias) if words_only else (model.weights, model.bias)
    z = bias + sum(w * x for w, x in zip(weights, values, strict=True) if not math.isnan(x))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


CLASH_COVERAGE = 0.6
"""A clash counts only in an evidence sentence about the claim: one holding this share of its words."""


def contradiction_probability(
    claim: str, wanted: set[str], best: str, best_stems: set[str], coverage: float, says_otherwise: bool
) -> float:
    """High only when the evidence is clearly about the claim and its sentence about the claim
    (`best`) says otherwise: it negates what the claim asserts or uses an antonym of one of its
    words (`says_otherwise`, already read by `read_pair`), or gives a different figure of the same kind for the same
    thing ("7 °C warmer" against "12 °C warmer"). A negation elsewhere in the passage, or a figure the
    evidence simply lacks, is not a contradiction: that is the absence of support, which the support
    score already measures."""
    if not wanted or len(wanted & best_stems) / len(wanted) < CLASH_COVERAGE:
        return 0.0
    clash = says_otherwise or bool(conflicting_figures(claim, best))
    return float(min(1.0, coverage * 0.9)) if clash else 0.0


def conflicting_figures(claim: str, evidence: str) -> list[Quantity]:
    """The claim's figures that the evidence gives differently (`numbers.figure_conflicts`)."""
    return [figure for figure, _ in figure_conflicts(claim, evidence)]


@dataclass
class HeuristicJudge:
    """Word, name, figure, negation and antonym agreement, plus MiniLM similarity when available."""

    embedder: object | None = None
    """An `Embedder`, or None for words only."""
    name: str = ""
    policy: Policy = POLICY
    """`POLICY`, with the fingerprint of its weights."""
    model: Model | None = None
    """Its weights: `SHIPPED` unless the evaluation harness measures others (a judge with other
    weights must not share the shipped judge's cached judgements)."""

    def __post_init__(self) -> None:
        # the name keys the judgement cache too: the two variants must never share results, and
        # judgements made with other weights (an older CiteDesk's) are not reused
        self.name = self.name or ("heuristic+minilm" if self.embedder is not None else "heuristic:words")
        if not self.policy.fingerprint:
            self.policy = replace(self.policy, fingerprint=(self.model or SHIPPED).fingerprint)

    def judge(
        self, pairs: Sequence[Pair], progress: Callable[[int, int], None] | None = None
    ) -> list[Judgement]:
        dense = self._dense(pairs)
        out = []
        for i, pair in enumerate(pairs):
            sentences = pair.sentences or (pair.evidence,)
            values, contradiction = read_pair(pair.claim, sentences, dense[i] if dense is not None else None)
            out.append(Judgement(support_probability(values, self.model), contradiction))
            if progress is not None:
                progress(i + 1, len(pairs))
        return out

    def _dense(self, pairs: Sequence[Pair]) -> list[Similarity] | None:
        if self.embedder is None or not pairs:
            return None
        assert isinstance(self.embedder, Embedder)
        claims = self.embedder.encode([p.claim for p in pairs])
        flat = [s for p in pairs for s in (p.sentences or (p.evidence,))]
        vectors = self.embedder.encode(flat)
        scores = []
        cursor = 0
        for i, pair in enumerate(pairs):
            n = len(pair.sentences or (pair.evidence,))
            window = vectors[cursor : cursor + n]
            cursor += n
            if not n:
                scores.append((0.0, 0.0))
                continue
            centroid = window.mean(axis=0)
            centroid /= max(float(np.linalg.norm(centroid)), 1e-9)
            scores.append(
                (
                    float(np.clip((window @ claims[i]).max(), 0.0, 1.0)),
                    float(np.clip(centroid @ claims[i], 0.0, 1.0)),
                )
            )
        return scores


def _load(context: JudgeContext) -> HeuristicJudge:
    return HeuristicJudge(context.embedder)


SPEC = register(
    JudgeSpec(
        "heuristic",
        JudgeKind.WORD_LEVEL,
        "Heuristic judge (no model needed)",
        _load,
        POLICY,
        available=lambda: "",
        preference=0,
        when_auto="heuristic",
    )
)
