"""Evaluation harness: evidence retrieval and judges on the labelled sets in ../shared/eval/ (not a test).

Headline figures are **leave-one-dataset-out** (LODO): for each dataset, a heuristic judge is fitted
on the *other* datasets' fit splits only (weights and both thresholds, `supported` and `partial`,
all chosen on that fit data: `fit_weights`), then measured on the held-out dataset's dev split. Those are the figures to quote: they
say what the judge does on data it has never seen. The shipped judge (fitted on every fit split,
WiCE and HealthVer dev included) is printed below them, labelled in-sample where it saw the set.

Fit splits: COVID-Fact train, SciFact train, WiCE dev and HealthVer dev (WiCE and HealthVer have no
other labelled split here). Measured on: each dataset's dev split. Retrieval constants were chosen
on WiCE dev, so recall@k on WiCE is in-sample too.

The artefact guard (swapped evidence): every claim of a set is paired with the evidence of another
claim, and the harness prints the share that the judge labels `supported` as the app would (the
judge's thresholds, its `policy.label`). A judge that reads the source scores ~0 here; one that
rates the claim alone does not. The pairing is a fixed derangement (`swap_partners`): rows that
share a claim, an evidence text or a topic (HealthVer's question, WiCE's article) are one group,
and a claim only ever gets the evidence of another group; on WiCE the claim's windows are then
retrieved from the other claim's cited page, as an audit would.

    .venv/bin/python -m tests.bench.eval_judges                  # heuristic judge (with MiniLM similarity)
    .venv/bin/python -m tests.bench.eval_judges --no-dense       # words only
    .venv/bin/python -m tests.bench.eval_judges --nli MODEL_DIR  # also a transformers NLI model
    .venv/bin/python -m tests.bench.eval_judges --fit            # refit the shipped weights, print them
    .venv/bin/python -m tests.bench.eval_judges --save-baseline

Embeddings are cached in a SQLite store under the user cache folder, so only the first run is slow.
Skips cleanly (exit 0, a message) when ../shared/eval/ is absent.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from citedesk.core.findings import VerdictLabel
from citedesk.evidence.embed import Embedder
from citedesk.evidence.judges import heuristic
from citedesk.evidence.judges.base import Judge, Judgement, Pair
from citedesk.evidence.policy import Policy
from citedesk.evidence.retrieve import PassageIndex, rank

EVAL = Path(__file__).resolve().parents[3] / "shared" / "eval"
BASELINE = Path(__file__).with_name("baseline.json")
POSITIVE = {"supported", "support", "supports"}
NAMES = ("wice", "covidfact", "scifact", "healthver")
DEV = {
    "wice": "wice/claim_dev.jsonl",
    "covidfact": "covidfact/dev.jsonl",
    "scifact": "scifact/dev.jsonl",
    "healthver": "healthver/dev.jsonl",
}
FIT = {
    "wice": "wice/claim_dev.jsonl",
    "covidfact": "covidfact/train.jsonl",
    "scifact": "scifact/train.jsonl",
    "healthver": "healthver/dev.jsonl",
}
"""What the shipped weights are fitted on; a LODO judge for dataset D is fitted on the others'."""
SWAP_SEED = 15
SWAPPED_LIMIT = 0.02
"""The artefact guard's bar: at most this share of swapped-evidence pairs may read as supported."""
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


def wice_window(claim: str, title: str, page: list[str], embedder: Embedder | None, k: int = 5) -> list[str]:
    """Claim level, as an audit reads a source: the top-k retrieved windows of the whole cited page."""
    index = PassageIndex(page)
    windows = rank(
        claim,
        index,
        context=title,
        claim_vector=embedder.encode([claim])[0] if embedder else None,
        passage_vectors=embedder.encode(page) if embedder else None,
        k=k,
    )
    return [page[i] for i in sorted({i for w in windows for i in w.indices})]


def examples_of(name: str, rows: list[dict[str, Any]], embedder: Embedder | None) -> list[Example]:
    if name == "wice":
        return [
            Example(
                r["claim"],
                wice_window(r["claim"], r["meta"]["claim_title"], r["evidence"], embedder),
                r["label"] in POSITIVE,
            )
            for r in rows
        ]
    return [Example(r["claim"], sentences_of(r["evidence"]), r["label"] in POSITIVE) for r in rows]


def _topics(row: dict[str, Any]) -> list[str]:
    """What makes two rows the same subject: their claim, their evidence, their question or article."""
    keys = ["claim:" + row["claim"].strip().lower(), "evidence:" + " ".join(row["evidence"])[:2000]]
    if "question" in row:
        keys.append("question:" + row["question"])
    if "meta" in row:
        keys.append("title:" + row["meta"]["claim_title"])
    return keys


def topic_groups(rows: list[dict[str, Any]]) -> list[int]:
    """Each row's group: rows sharing any topic key (`_topics`) are one group (union-find)."""
    parent = list(range(len(rows)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for i, row in enumerate(rows):
        for key in _topics(row):
            if key in owner:
                parent[root(i)] = root(owner[key])
            else:
                owner[key] = i
    return [root(i) for i in range(len(rows))]


def swap_partners(rows: list[dict[str, Any]], seed: int = SWAP_SEED) -> list[int]:
    """For each row, the row whose evidence it is paired with in the artefact guard.

    Groups (`topic_groups`) are put in a seeded random order, rows within a group too, and row p of
    that sequence gets the evidence of row p + L (cyclically), L being the largest group's size: a
    permutation, so every evidence is used exactly once, and never within a group (that needs
    L <= N/2, true of every set here)."""
    groups: dict[int, list[int]] = {}
    for i, group in enumerate(topic_groups(rows)):
        groups.setdefault(group, []).append(i)
    rng = random.Random(seed)
    ordered = list(groups.values())
    rng.shuffle(ordered)
    for members in ordered:
        rng.shuffle(members)
    sequence = [i for members in ordered for i in members]
    shift = max(len(members) for members in ordered)
    if 2 * shift > len(rows):
        raise ValueError(f"one topic holds {shift} of {len(rows)} rows: no derangement across topics")
    partner = [0] * len(rows)
    for p, i in enumerate(sequence):
        partner[i] = sequence[(p + shift) % len(sequence)]
    return partner


def swapped_examples(
    name: str, rows: list[dict[str, Any]], embedder: Embedder | None, seed: int = SWAP_SEED
) -> list[Example]:
    """Every claim with the evidence of a claim from another group (`swap_partners`); none supported."""
    partners = swap_partners(rows, seed)
    if name == "wice":
        return [
            Example(
                r["claim"],
                wice_window(r["claim"], r["meta"]["claim_title"], rows[j]["evidence"], embedder),
                False,
            )
            for r, j in zip(rows, partners, strict=True)
        ]
    return [
        Example(r["claim"], sentences_of(rows[j]["evidence"]), False)
        for r, j in zip(rows, partners, strict=True)
    ]


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


def auroc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    order = np.argsort(scores, kind="stable")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = np.array(labels, dtype=bool)
    n_pos, n_neg = pos.sum(), (~pos).sum()
    if not n_pos or not n_neg:
        return float("nan")
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def balanced_accuracy(predicted: Sequence[bool] | np.ndarray, labels: Sequence[bool] | np.ndarray) -> float:
    said = np.array(predicted, dtype=bool)
    truth = np.array(labels, dtype=bool)
    tpr = (said & truth).sum() / max(1, truth.sum())
    tnr = (~said & ~truth).sum() / max(1, (~truth).sum())
    return float((tpr + tnr) / 2)


def pairs_of(examples: list[Example]) -> list[Pair]:
    return [Pair(e.claim, " ".join(e.sentences), tuple(e.sentences)) for e in examples]


def run_judge(judge: Judge, examples: list[Example]) -> tuple[list[Judgement], float]:
    pairs = pairs_of(examples)
    started = time.perf_counter()
    judgements = judge.judge(pairs)
    elapsed = time.perf_counter() - started
    return judgements, len(pairs) / elapsed if elapsed else float("inf")


def supported(judgements: list[Judgement], policy: Policy) -> list[bool]:
    """Which pairs the app would label `supported` (a contradiction outranks support, as in audits)."""
    return [policy.label(j.support, j.contradiction) is VerdictLabel.SUPPORTED for j in judgements]


# ---- fitting -------------------------------------------------------------------------------

FIT_SWAP_SEED = 1
"""The fit's own swapped pairs (negatives) use another derangement than the guard's (`SWAP_SEED`)."""
FIT_SWAPPED_CAP = 0.01
"""The `supported` threshold is chosen so that at most this share of each fit set's swapped pairs
reach it: half the guard's bar, set before measuring, not tuned."""
SWAPPED_WEIGHT = 1.0
"""A set's swapped pairs weigh as much in the fit as its labelled pairs (set before measuring)."""
GRID = np.round(np.arange(0.05, 0.9, 0.01), 2)


@dataclass
class Reading:
    """One set's feature matrix (the judge's inputs, NaN where the embedder is absent), labels, and
    its swapped-evidence pairs' features."""

    x: np.ndarray
    y: np.ndarray
    swapped: np.ndarray


def features_of(examples: list[Example], embedder: Embedder | None) -> np.ndarray:
    dense = heuristic.HeuristicJudge(embedder)._dense(pairs_of(examples))
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


def fit_directed(
    x: np.ndarray, y: np.ndarray, weights: np.ndarray, usable: np.ndarray
) -> tuple[np.ndarray, float]:
    """`fit_logistic` keeping each weight to its sign in `heuristic.DIRECTIONS`: while some weight
    goes the wrong way, the worst one is fixed at 0 and the rest refitted (an active set)."""
    directions = np.array(heuristic.DIRECTIONS)
    active = usable.copy()
    while True:
        coef, bias = fit_logistic(np.nan_to_num(x[:, active]), y, weights)
        full = np.zeros(x.shape[1])
        full[active] = coef
        wrong = full * directions < 0
        if not wrong.any():
            return full, bias
        active[int(np.argmin(np.where(wrong, full * directions, 0.0)))] = False


def _balanced_weights(y: np.ndarray) -> np.ndarray:
    pos = y.sum()
    neg = len(y) - pos
    return np.asarray(np.where(y > 0, 0.5 / max(pos, 1), 0.5 / max(neg, 1)))


def _logit(p: float) -> float:
    return float(np.log(p / (1 - p)))


def fit_weights(readings: dict[str, Reading], dense: bool) -> tuple[tuple[float, ...], float]:
    """One variant's weights (with the MiniLM columns, or words only), fitted on these sets only.

    Each set weighs the same, its classes balanced, and its swapped-evidence pairs are added as
    negatives weighing as much again (`SWAPPED_WEIGHT`); weights keep to `heuristic.DIRECTIONS`.
    Two thresholds are then chosen on the same sets: `supported`, the one with the best mean
    balanced accuracy among those that at most `FIT_SWAPPED_CAP` of any set's swapped pairs reach,
    and `partial`, the one that best separates the sets' supported claims from their swapped pairs
    (mean balanced accuracy). The weights are rescaled (an affine map of the logit, which changes
    no ranking) so that those thresholds fall on `heuristic.SUPPORTED` and `heuristic.PARTIAL`."""
    sets = list(readings.values())
    x = np.vstack([m for r in sets for m in (r.x, r.swapped)])
    y = np.concatenate([v for r in sets for v in (r.y, np.zeros(len(r.swapped)))])
    w = 100 * np.concatenate(
        [
            v
            for r in sets
            for v in (_balanced_weights(r.y), np.full(len(r.swapped), SWAPPED_WEIGHT / len(r.swapped)))
        ]
    )
    usable = np.ones(x.shape[1], bool)
    if not dense:
        usable[list(heuristic.DENSE_FEATURES)] = False
    coef, bias = fit_directed(x, y, w, usable)

    def scores(m: np.ndarray) -> np.ndarray:
        return np.asarray(
            1 / (1 + np.exp(-np.clip(np.nan_to_num(m[:, usable]) @ coef[usable] + bias, -30, 30)))
        )

    fitted = [(scores(r.x), r.y > 0, scores(r.swapped)) for r in sets]
    allowed = [t for t in GRID if all(np.mean(s >= t) <= FIT_SWAPPED_CAP for _, _, s in fitted)]
    supported = max(allowed, key=lambda t: np.mean([balanced_accuracy(p >= t, y) for p, y, _ in fitted]))
    below = [t for t in GRID if t < supported]
    partial = max(
        below,
        key=lambda t: np.mean([(np.mean(p[y] >= t) + np.mean(s < t)) / 2 for p, y, s in fitted]),
    )
    scale = _logit(heuristic.PARTIAL) - _logit(heuristic.SUPPORTED)
    scale /= _logit(partial) - _logit(supported)
    shift = _logit(heuristic.SUPPORTED) - scale * _logit(supported)
    return tuple(round(float(c), 3) for c in coef * scale), round(scale * bias + shift, 3)


def fit_model(readings: dict[str, Reading], dense: bool) -> heuristic.Model:
    """The judge fitted on these sets only: both weight sets when the MiniLM columns are there,
    else the words-only weights (the MiniLM ones kept as shipped)."""
    words = fit_weights(readings, dense=False)
    if not dense:
        return heuristic.Model(heuristic.WEIGHTS, heuristic.BIAS, *words)
    return heuristic.Model(*fit_weights(readings, dense=True), *words)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--no-dense", action="store_true", help="no embedding model: words only")
    parser.add_argument("--nli", metavar="MODEL_DIR", help="also evaluate a transformers NLI model folder")
    parser.add_argument(
        "--fit",
        action="store_true",
        help="refit the shipped heuristic weights on every fit split, print them",
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
    dense = embedder is not None
    started = time.perf_counter()
    rows = {name: load(EVAL / DEV[name]) for name in NAMES}
    figures: dict[str, Any] = {"retrieval": recall_at(rows["wice"], embedder)}
    print(f"WiCE evidence recall (windows of 3 sentences; constants chosen on it): {figures['retrieval']}")
    dev = {name: examples_of(name, rows[name], embedder) for name in NAMES}
    swapped = {name: swapped_examples(name, rows[name], embedder) for name in NAMES}
    readings = {}
    for name in NAMES:
        fit_rows = rows[name] if FIT[name] == DEV[name] else load(EVAL / FIT[name])
        fit_set = dev[name] if FIT[name] == DEV[name] else examples_of(name, fit_rows, embedder)
        readings[name] = Reading(
            features_of(fit_set, embedder),
            np.array([e.positive for e in fit_set], float),
            features_of(swapped_examples(name, fit_rows, embedder, FIT_SWAP_SEED), embedder),
        )
    print(f"(data, retrieval and features ready in {time.perf_counter() - started:.0f} s)")

    if args.fit:
        model = fit_model(readings, dense)
        print(
            "fitted on "
            + ", ".join(FIT[n] for n in NAMES)
            + "; paste into citedesk/evidence/judges/heuristic.py:"
        )
        if dense:
            print(model.source(dense=True))
        print(model.source(dense=False))
        return 0

    variant = "heuristic+minilm" if dense else "heuristic:words"
    figures["retrieval"] = {variant: figures["retrieval"]}
    held_out = {}
    for name in NAMES:
        model = fit_model({n: r for n, r in readings.items() if n != name}, dense)
        held_out[name] = measure(heuristic.HeuristicJudge(embedder, model=model), dev[name], swapped[name])
    shipped_judge = heuristic.HeuristicJudge(embedder)
    shipped = {}
    for name in NAMES:
        shipped[name] = measure(shipped_judge, dev[name], swapped[name])
        shipped[name]["in_sample"] = FIT[name] == DEV[name]
    figures["judges"] = {variant: {"lodo": held_out, "shipped": shipped}}
    if args.nli:
        from citedesk.evidence.judges.nli import NliJudge

        nli = NliJudge(Path(args.nli))
        figures["judges"][nli.name] = {"shipped": {n: measure(nli, dev[n], swapped[n]) for n in NAMES}}
    baseline = json.loads(BASELINE.read_text(encoding="utf-8")) if BASELINE.is_file() else {}
    report(figures, baseline)
    if args.save_baseline:  # the other variants' and judges' figures are kept
        for key in ("retrieval", "judges"):
            figures[key] = {**baseline.get(key, {}), **figures[key]}
        BASELINE.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
        print(f"baseline written to {BASELINE}")
    return 0


def measure(judge: Judge, examples: list[Example], swapped: list[Example]) -> dict[str, Any]:
    """Balanced accuracy of the app's `supported` label, AUROC of the score, the swapped-evidence
    `supported` rate, and the judge's speed (pairs/s on the labelled set)."""
    limits = judge.policy
    judgements, rate = run_judge(judge, examples)
    labels = [e.positive for e in examples]
    scores = [j.support for j in judgements]
    swapped_judgements, _ = run_judge(judge, swapped)
    return {
        "balanced_accuracy": round(balanced_accuracy(supported(judgements, limits), labels), 3),
        "auroc": round(auroc(scores, labels), 3),
        "swapped_supported": round(float(np.mean(supported(swapped_judgements, limits))), 4),
        "pairs_per_s": round(rate, 1),
        "n": len(examples),
    }


def report(figures: dict[str, Any], baseline: dict[str, Any]) -> None:
    print(f"\n{'':<28}{'dataset':<11}{'bal.acc':>8}{'AUROC':>8}{'swapped':>10}{'pairs/s':>9}   vs baseline")
    for judge, sections in figures["judges"].items():
        for section, rows in sections.items():
            title = f"{'LODO' if section == 'lodo' else 'shipped'} {judge}"
            old_rows = baseline.get("judges", {}).get(judge, {}).get(section, {})
            for name, row in rows.items():
                old = old_rows.get(name)
                delta = (
                    f"{row['balanced_accuracy'] - old['balanced_accuracy']:+.3f} / "
                    f"{row['auroc'] - old['auroc']:+.3f} / {row['swapped_supported'] - old['swapped_supported']:+.3f}"
                    if old
                    else "(none)"
                )
                over = "!" if row["swapped_supported"] >= SWAPPED_LIMIT else " "
                print(
                    f"{title[:27]:<28}{name:<11}{row['balanced_accuracy']:>8.3f}{row['auroc']:>8.3f}"
                    f"{row['swapped_supported']:>9.1%}{over}{row['pairs_per_s']:>9.1f}   {delta}"
                    + (" (in-sample: fitted on this split)" if row.get("in_sample") else "")
                )
    print(
        "LODO: fitted without the set (quote these); swapped: share of claims paired with another claim's"
        f" evidence that read as supported (bar: under {SWAPPED_LIMIT:.0%}, '!' at or above it)"
    )
    for variant, recall in figures["retrieval"].items():
        old_recall = baseline.get("retrieval", {}).get(variant)
        if old_recall:
            print(
                f"retrieval ({variant}) vs baseline:",
                {k: round(v - old_recall.get(k, 0), 3) for k, v in recall.items()},
            )


if __name__ == "__main__":
    sys.exit(main())
