"""Which parts of a source bear on a claim: evidence windows ranked by BM25 fused with dense similarity.

A source's sentences (its passages) are grouped into windows of `WINDOW` consecutive sentences.
A window scores `(1 - w) · BM25/best + w · cosine`, where the cosine is the best of its sentences'
(clipped at 0) and w = `DENSE_WEIGHT`; without an embedding model it is BM25 alone. Windows are
then picked greedily: after each pick the claim words it covered count for less (`COVERED`), so the
next window is the one that covers the *rest* of the claim — claims whose support is spread over
several sentences need that. Constants were chosen on WiCE dev (`tests/bench/eval_judges.py`
prints recall@1/5/10); the query may carry context (the document's heading) at a lower weight.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from citedesk.evidence.embed import Vectors
from citedesk.evidence.lexical import content_stems

Floats = npt.NDArray[np.float64]

WINDOW = 3
DENSE_WEIGHT = 0.5
COVERED = 0.7
CONTEXT_WEIGHT = 0.5
K1, B = 0.9, 0.4


@dataclass(frozen=True)
class Window:
    first: int
    last: int
    """Passage indices, inclusive."""
    score: float
    lexical: float
    dense: float
    best: int
    """The passage of the window most similar to the claim (the one to highlight)."""

    @property
    def indices(self) -> range:
        return range(self.first, self.last + 1)


class PassageIndex:
    """BM25 statistics of one source's windows (built once per source, queried per claim)."""

    def __init__(self, passages: Sequence[str], window: int = WINDOW) -> None:
        self.passages = list(passages)
        self.window = max(1, window)
        self.spans = [
            (start, min(len(self.passages), start + self.window) - 1)
            for start in range(0, len(self.passages), self.window)
        ]
        self.sentence_terms = [Counter(content_stems(p)) for p in self.passages]
        self.terms: list[Counter[str]] = []
        for first, last in self.spans:
            merged: Counter[str] = Counter()
            for i in range(first, last + 1):
                merged.update(self.sentence_terms[i])
            self.terms.append(merged)
        self.lengths = [sum(t.values()) for t in self.terms]
        self.average = (sum(self.lengths) / len(self.lengths)) if self.lengths else 0.0
        frequency: Counter[str] = Counter()
        for terms in self.terms:
            frequency.update(terms.keys())
        n = len(self.terms)
        self.idf = {t: math.log(1 + (n - df + 0.5) / (df + 0.5)) for t, df in frequency.items()}
        # BM25 over numpy arrays: each term's (windows, counts), and each window's length norm, in
        # the very arithmetic of the plain loop (term by term, left to right), so the scores are
        # the same floats, only computed a window array at a time
        self.norms = np.array(
            [K1 * (1 - B + B * length / self.average) if self.average else K1 for length in self.lengths],
            dtype=np.float64,
        )
        where: dict[str, list[int]] = {}
        counts: dict[str, list[int]] = {}
        for i, terms in enumerate(self.terms):
            for term, tf in terms.items():
                where.setdefault(term, []).append(i)
                counts.setdefault(term, []).append(tf)
        self.postings: dict[str, tuple[npt.NDArray[np.intp], Floats, Floats]] = {}
        for term, rows in where.items():
            counted = np.array(counts[term], dtype=np.float64)
            at = np.array(rows, dtype=np.intp)
            self.postings[term] = (at, counted, counted + self.norms[at])  # windows, counts, denominators

    def bm25(self, weights: dict[str, float]) -> list[float]:
        return [float(s) for s in self.bm25_scores(weights)]

    def bm25_scores(self, weights: dict[str, float]) -> Floats:
        """Each window's BM25 score for the weighted query terms (an array)."""
        scores = np.zeros(len(self.terms), dtype=np.float64)
        for term, weight in weights.items():
            posting = self.postings.get(term)
            if posting is None:
                continue
            rows, tf, denominator = posting
            scores[rows] += weight * self.idf[term] * tf * (K1 + 1) / denominator
        return scores


def query_weights(claim: str, context: str = "") -> dict[str, float]:
    weights: dict[str, float] = {}
    for term in content_stems(context):
        weights[term] = CONTEXT_WEIGHT
    for term, count in Counter(content_stems(claim)).items():
        weights[term] = 1.0 + 0.1 * (count - 1)
    return weights


def rank(
    claim: str,
    index: PassageIndex,
    *,
    context: str = "",
    claim_vector: Vectors | None = None,
    passage_vectors: Vectors | None = None,
    k: int = 5,
    dense_weight: float = DENSE_WEIGHT,
) -> list[Window]:
    """The k windows that best cover the claim, best first."""
    if not index.passages:
        return []
    if claim_vector is not None and passage_vectors is not None and len(passage_vectors):
        sentence_dense = np.clip(passage_vectors @ claim_vector, 0.0, 1.0)
        weight = dense_weight
    else:
        sentence_dense = np.zeros(len(index.passages), dtype=np.float32)
        weight = 0.0
    # each window's best sentence (the spans cut the passages in order, without gaps)
    window_dense = np.maximum.reduceat(sentence_dense, [first for first, _ in index.spans]).astype(np.float64)
    dense = window_dense.tolist()
    dense_part = weight * window_dense
    weights = query_weights(claim, context)
    chosen: list[Window] = []
    taken = np.zeros(len(index.spans), dtype=bool)
    for _ in range(min(k, len(index.spans))):
        # score = (1 - w) · lex / best + w · dense, the first best window not yet taken
        lexical = index.bm25_scores(weights)
        best = float(lexical.max()) or 1.0
        scores = (1 - weight) * lexical / best + dense_part
        scores[taken] = -np.inf
        pick = int(np.argmax(scores))
        pick_score = float(scores[pick])
        first, last = index.spans[pick]
        if weight:
            strongest = first + int(np.argmax(sentence_dense[first : last + 1]))
        else:
            overlap = [
                sum(index.sentence_terms[j].get(t, 0) > 0 for t in weights) for j in range(first, last + 1)
            ]
            strongest = first + int(np.argmax(overlap))
        chosen.append(Window(first, last, pick_score, float(lexical[pick]) / best, dense[pick], strongest))
        taken[pick] = True
        for term in index.terms[pick]:
            if term in weights:
                weights[term] *= COVERED
    return chosen
