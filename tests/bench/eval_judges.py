"""Evaluation harness: evidence retrieval and judges on the labelled sets in ../shared/eval/ (not a test).

Prints evidence recall@1/5/10 on WiCE, balanced accuracy and AUROC of "supported vs the rest" per
dataset per judge, and pairs/s; compares with the stored baseline (tests/bench/baseline.json).

    .venv/bin/python -m tests.bench.eval_judges                  # heuristic judge (with MiniLM similarity)
    .venv/bin/python -m tests.bench.eval_judges --no-dense       # words only
    .venv/bin/python -m tests.bench.eval_judges --nli MODEL_DIR  # also a transformers NLI model
    .venv/bin/python -m tests.bench.eval_judges --fit            # refit the heuristic weights (train/dev)
    .venv/bin/python -m tests.bench.eval_judges --save-baseline

Embeddings are cached in a SQLite store under the user cache folder, so only the first run is slow.
Skips cleanly (exit 0, a message) when ../shared/eval/ is absent.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from citedesk.evidence.embed import Embedder
from citedesk.evidence.judges import heuristic
from citedesk.evidence.judges.base import Judge, Pair
from citedesk.evidence.retrieve import PassageIndex, rank

EVAL = Path(__file__).resolve().parents[3] / "shared" / "eval"
BASELINE = Path(__file__).with_name("baseline.json")
POSITIVE = {"supported", "support", "supports"}
SETS = {
    "wice": "wice/claim_dev.jsonl",
    "covidfact": "covidfact/dev.jsonl",
    "scifact": "scifact/dev.jsonl",
    "healthver": "healthver/dev.jsonl",
}
TRAIN = {"covidfact": "covidfact/train.jsonl", "scifact": "scifact/train.jsonl"}
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])")


@dataclass
class Example:
    claim: str
    sentences: list[str]
    positive: bool


def load(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def sentences_of(evidence: Sequence[str]) -> list[str]:
    return [s for item in evidence for s in _SENTENCE.split(item) if s.strip()]


def wice_examples(rows: list[dict[str, Any]], embedder: Embedder | None, k: int = 5) -> list[Example]:
    """Claim level: the judge sees the top-k retrieved windows of the whole cited page."""
    out = []
    for row in rows:
        page = row["evidence"]
        index = PassageIndex(page)
        vectors = embedder.encode(page) if embedder else None
        claim_vector = embedder.encode([row["claim"]])[0] if embedder else None
        windows = rank(
            row["claim"],
            index,
            context=row["meta"]["claim_title"],
            claim_vector=claim_vector,
            passage_vectors=vectors,
            k=k,
        )
        chosen = sorted({i for w in windows for i in w.indices})
        out.append(Example(row["claim"], [page[i] for i in chosen], row["label"] in POSITIVE))
    return out


def recall_at(rows: list[dict[str, Any]], embedder: Embedder | None) -> dict[str, float]:
    hits = {1: 0, 5: 0, 10: 0}
    counted = 0
    for row in rows:
        gold = [set(g) for g in row["supporting_sentences"] if g]
        if not gold:
            continue
        counted += 1
        index = PassageIndex(row["evidence"])
        windows = rank(
            row["claim"],
            index,
            context=row["meta"]["claim_title"],
            claim_vector=embedder.encode([row["claim"]])[0] if embedder else None,
            passage_vectors=embedder.encode(row["evidence"]) if embedder else None,
            k=10,
        )
        for k in hits:
            covered = {i for w in windows[:k] for i in w.indices}
            hits[k] += any(g <= covered for g in gold)
    return {f"recall@{k}": round(v / counted, 3) for k, v in hits.items()}


def plain_examples(rows: list[dict[str, Any]]) -> list[Example]:
    return [Example(r["claim"], sentences_of(r["evidence"]), r["label"] in POSITIVE) for r in rows]


def auroc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = np.array(labels, dtype=bool)
    n_pos, n_neg = pos.sum(), (~pos).sum()
    if not n_pos or not n_neg:
        return float("nan")
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def balanced_accuracy(scores: Sequence[float], labels: Sequence[bool], threshold: float) -> float:
    predicted = np.array(scores) >= threshold
    truth = np.array(labels, dtype=bool)
    tpr = (predicted & truth).sum() / max(1, truth.sum())
    tnr = (~predicted & ~truth).sum() / max(1, (~truth).sum())
    return float((tpr + tnr) / 2)


def run_judge(judge: Judge, examples: list[Example]) -> tuple[list[float], float]:
    pairs = [Pair(e.claim, " ".join(e.sentences), tuple(e.sentences)) for e in examples]
    started = time.perf_counter()
    judgements = judge.judge(pairs)
    elapsed = time.perf_counter() - started
    return [j.support for j in judgements], len(pairs) / elapsed if elapsed else float("inf")


def feature_matrix(examples: list[Example], embedder: Embedder | None) -> np.ndarray:
    judge = heuristic.HeuristicJudge(embedder)
    pairs = [Pair(e.claim, " ".join(e.sentences), tuple(e.sentences)) for e in examples]
    dense = judge._dense(pairs)
    return np.array(
        [
            heuristic.features(e.claim, e.sentences, dense[i] if dense is not None else None)
            for i, e in enumerate(examples)
        ]
    )


def fit_logistic(
    x: np.ndarray, y: np.ndarray, weights: np.ndarray, l2: float = 1.0
) -> tuple[np.ndarray, float]:
    """Weighted L2 logistic regression by Newton's method (a few features, exact and fast)."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    beta = np.zeros(xb.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-(xb @ beta)))
        gradient = xb.T @ (weights * (p - y)) + l2 * np.r_[beta[:-1], 0]
        hessian = (xb * (weights * p * (1 - p))[:, None]).T @ xb + l2 * np.diag(
            np.r_[np.ones(len(beta) - 1), 0]
        )
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return beta[:-1], float(beta[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--no-dense", action="store_true", help="no embedding model: words only")
    parser.add_argument("--nli", metavar="MODEL_DIR", help="also evaluate a transformers NLI model folder")
    parser.add_argument(
        "--fit", action="store_true", help="refit the heuristic judge's weights and print them"
    )
    parser.add_argument("--save-baseline", action="store_true")
    args = parser.parse_args()
    if not EVAL.is_dir():
        print(f"no evaluation data at {EVAL}; nothing to measure")
        return 0
    from platformdirs import user_cache_dir

    from citedesk.store import Store

    cache = Path(user_cache_dir("citedesk")) / "bench-embeddings.sqlite3"
    cache.parent.mkdir(parents=True, exist_ok=True)
    embedder = None if args.no_dense else Embedder(store=Store(cache))
    started = time.perf_counter()
    wice_rows = load(EVAL / SETS["wice"])
    figures: dict[str, Any] = {"retrieval": recall_at(wice_rows, embedder)}
    print(f"WiCE evidence recall (windows of 3 sentences): {figures['retrieval']}")
    examples = {"wice": wice_examples(wice_rows, embedder)}
    for name in ("covidfact", "scifact", "healthver"):
        examples[name] = plain_examples(load(EVAL / SETS[name]))
    print(f"(data and retrieval ready in {time.perf_counter() - started:.0f} s)")

    if args.fit:
        fit(examples, embedder)
        return 0

    judges: list[Judge] = [heuristic.HeuristicJudge(embedder)]
    if args.nli:
        from citedesk.evidence.judges.nli import NliJudge

        judges.append(NliJudge(Path(args.nli)))
    figures["judges"] = {}
    for judge in judges:
        rows = {}
        for name, data in examples.items():
            scores, rate = run_judge(judge, data)
            labels = [e.positive for e in data]
            threshold = heuristic.SUPPORTED if judge.name.startswith("heuristic") else 0.5
            rows[name] = {
                "balanced_accuracy": round(balanced_accuracy(scores, labels, threshold), 3),
                "auroc": round(auroc(scores, labels), 3),
                "pairs_per_s": round(rate, 1),
                "n": len(data),
            }
        figures["judges"][judge.name] = rows
    report(figures)
    if args.save_baseline:
        BASELINE.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
        print(f"baseline written to {BASELINE}")
    return 0


def report(figures: dict[str, Any]) -> None:
    baseline = json.loads(BASELINE.read_text(encoding="utf-8")) if BASELINE.is_file() else {}
    print(f"\n{'judge':<22}{'dataset':<11}{'bal.acc':>8}{'AUROC':>8}{'pairs/s':>10}   vs baseline")
    for judge, rows in figures["judges"].items():
        for name, row in rows.items():
            old = baseline.get("judges", {}).get(judge, {}).get(name)
            delta = (
                f"{row['balanced_accuracy'] - old['balanced_accuracy']:+.3f} / {row['auroc'] - old['auroc']:+.3f}"
                if old
                else "(none)"
            )
            print(
                f"{judge:<22}{name:<11}{row['balanced_accuracy']:>8.3f}{row['auroc']:>8.3f}"
                f"{row['pairs_per_s']:>10.1f}   {delta}"
            )
    old_retrieval = baseline.get("retrieval")
    if old_retrieval:
        print(
            "retrieval vs baseline:",
            {k: round(v - old_retrieval.get(k, 0), 3) for k, v in figures["retrieval"].items()},
        )


def fit(examples: dict[str, list[Example]], embedder: Embedder | None) -> None:
    """Fit on covidfact+scifact train and the WiCE/HealthVer dev sets, each dataset weighted equally
    and its classes balanced; print leave-one-dataset-out figures to show how it generalises."""
    train = {"covidfact": plain_examples(load(EVAL / TRAIN["covidfact"]))}
    train["scifact"] = plain_examples(load(EVAL / TRAIN["scifact"]))
    train["wice"] = examples["wice"]
    train["healthver"] = examples["healthver"]
    matrices = {
        name: (feature_matrix(data, embedder), np.array([e.positive for e in data], float))
        for name, data in train.items()
    }
    dev = {
        name: (feature_matrix(data, embedder), np.array([e.positive for e in data], float))
        for name, data in examples.items()
    }

    def weights_for(y: np.ndarray) -> np.ndarray:
        pos = y.sum()
        neg = len(y) - pos
        return np.asarray(np.where(y > 0, 0.5 / max(pos, 1), 0.5 / max(neg, 1)))

    def stack(names: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        x = np.vstack([matrices[n][0] for n in names])
        y = np.concatenate([matrices[n][1] for n in names])
        w = np.concatenate([weights_for(matrices[n][1]) for n in names]) * 100
        return x, y, w

    if embedder is None:  # words only: the dense column is absent
        matrices = {n: (np.nan_to_num(x, nan=0.0), y) for n, (x, y) in matrices.items()}
        dev = {n: (np.nan_to_num(x, nan=0.0), y) for n, (x, y) in dev.items()}
    x, y, w = stack(list(matrices))
    coef, bias = fit_logistic(x, y, w)
    print("WEIGHTS = (" + ", ".join(f"{c:.3f}" for c in coef) + ")")
    print(f"BIAS = {bias:.3f}")
    for name, (xd, yd) in dev.items():
        p = 1 / (1 + np.exp(-(xd @ coef + bias)))
        held = [n for n in matrices if n != name]
        xh, yh, wh = stack(held)
        ch, bh = fit_logistic(xh, yh, wh)
        ph = 1 / (1 + np.exp(-(xd @ ch + bh)))
        print(
            f"{name:<10} fitted: bal.acc {balanced_accuracy(list(p), list(yd > 0), 0.5):.3f} AUROC {auroc(list(p), list(yd > 0)):.3f}"
            f"   held out of the fit: bal.acc {balanced_accuracy(list(ph), list(yd > 0), 0.5):.3f} AUROC {auroc(list(ph), list(yd > 0)):.3f}"
        )


if __name__ == "__main__":
    sys.exit(main())
