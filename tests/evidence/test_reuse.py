"""Re-audits reuse what did not change (issue 26), and only that: a judge that counts what it is
asked shows that an edited sentence is judged again and an unchanged one is not; a source whose
text changed is indexed again; the caches stay within their bounds; BM25 on arrays gives the plain
loop's very floats."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from citedesk.core.reports.report import Report
from citedesk.evidence import retrieve
from citedesk.evidence.judges.registry import JudgeKind, registered
from citedesk.evidence.reuse import Lru
from citedesk.evidence.verdicts import INDEXES, RETRIEVED, clear_reuse
from citedesk.pipeline import AuditOptions, audit_text
from tests.evidence.test_judge_registry import ToyJudge, toy_spec

EDITED = ("hot, dry summers", "hot, humid summers")
"""One sentence of the sample ("The cooling effect was strongest in cities with hot, dry summers
[2].") and the edit made to it."""


@pytest.fixture
def counting() -> Iterator[ToyJudge]:
    """A judge registered as `toy-count` whose every load is the same object: what it was asked
    adds up over audits."""
    spec = toy_spec("toy-count", JudgeKind.SERVER)
    judge = ToyJudge(spec.policy, "toy-count")
    clear_reuse()
    with registered(replace(spec, load=lambda _: judge)):
        yield judge
    clear_reuse()


def audit(sample: Path, text: str | None = None) -> Report:
    options = AuditOptions(
        offline=True,
        dense=False,
        judge="toy-count",
        document_dir=sample.parent,
        store_path=sample.parent / "store.sqlite3",
    )
    return audit_text(text if text is not None else sample.read_text(encoding="utf-8"), str(sample), options)


def labels(report: Report) -> dict[str, list[tuple[str, str, float]]]:
    """Each claim's verdicts, by the claim's text (ids move when sentences do)."""
    text = {c.id: c.text for c in report.document.claims}
    return {
        text[claim_id]: [(v.reference, v.label.value, v.score) for v in verdicts]
        for claim_id, verdicts in report.verdicts.items()
    }


def test_only_the_edited_sentence_is_retrieved_and_judged_again(sample: Path, counting: ToyJudge) -> None:
    first = audit(sample)
    assert counting.asked, "the first audit judges every cited sentence"

    counting.asked.clear()
    again = audit(sample)
    assert counting.asked == []  # nothing changed: nothing is judged
    assert labels(again) == labels(first)

    kept = {key for key, _ in RETRIEVED.items()}
    text = sample.read_text(encoding="utf-8")
    assert EDITED[0] in text
    edited = audit(sample, text.replace(*EDITED))
    sentence = next(c.text for c in edited.document.claims if EDITED[1] in c.text)

    # the edited sentence (and it alone) was retrieved and judged: against its own source and, for
    # a second look, against the others
    assert counting.asked
    assert set(counting.asked) == {sentence}
    assert {key[0] for key in {key for key, _ in RETRIEVED.items()} - kept} == {sentence}
    # it has its own verdict; every other sentence keeps the verdicts it had
    before, after = labels(first), labels(edited)
    assert sentence in after
    assert sentence not in before
    assert {k: v for k, v in after.items() if k != sentence} == {
        k: v for k, v in before.items() if EDITED[0] not in k
    }


def test_a_changed_source_text_is_indexed_again(sample: Path, counting: ToyJudge) -> None:
    audit(sample)
    indexes = {key: made[0] for key, made in INDEXES.items()}
    assert len(indexes) == 3  # one per source

    source = sample.parent / "sources" / "canopy-survey.txt"
    changed = source.read_text(encoding="utf-8").replace("canopy", "tree cover")
    source.write_text(changed, encoding="utf-8")
    counting.asked.clear()
    report = audit(sample)

    after = {key: made[0] for key, made in INDEXES.items()}
    new = [index for key, index in after.items() if key not in indexes]
    assert len(new) == 1  # the changed source alone was indexed again …
    assert all("canopy" not in p for p in new[0].passages)
    assert all(after[key] is index for key, index in indexes.items() if key in after)  # … the others kept
    # … and what cites it was judged again, on the new text
    citing = [c.text for c in report.document.claims if "2" in report.document.cited_keys(c)]
    assert citing
    assert set(citing) <= set(counting.asked)
    evidence = [
        v.evidence for vs in report.verdicts.values() for v in vs if v.reference == "2" and v.evidence
    ]
    assert evidence
    assert all(e.passage in changed for e in evidence)


def test_the_cache_forgets_the_least_recently_used_first_within_its_bounds() -> None:
    cache: Lru[str, str] = Lru(3, max_bytes=10, size=len)
    for key in "abc":
        cache.put(key, "xx")
    assert cache.get("a") == "xx"  # a is now the most recent
    cache.put("d", "xx")
    assert "b" not in cache  # three entries at most: the least recent went
    assert [k for k in "acd" if k in cache] == ["a", "c", "d"]
    cache.put("e", "x" * 8)  # 14 bytes: the oldest go until 10 or fewer are left
    assert len(cache) == 2
    assert cache.bytes == 10
    cache.put("f", "x" * 11)  # larger than the whole cache: not kept, nothing else lost
    assert "f" not in cache
    assert len(cache) == 2
    assert (cache.hits, cache.misses) == (1, 0)


def _plain_bm25(index: retrieve.PassageIndex, weights: dict[str, float]) -> list[float]:
    """BM25 as the loop it was before it ran on arrays."""
    scores = []
    for terms, length in zip(index.terms, index.lengths, strict=True):
        norm = (
            retrieve.K1 * (1 - retrieve.B + retrieve.B * length / index.average)
            if index.average
            else retrieve.K1
        )
        score = 0.0
        for term, weight in weights.items():
            tf = terms.get(term, 0)
            if tf:
                score += weight * index.idf.get(term, 0.0) * tf * (retrieve.K1 + 1) / (tf + norm)
        scores.append(score)
    return scores


def test_bm25_on_arrays_gives_the_plain_loops_floats(sample: Path) -> None:
    passages = [
        line
        for path in sorted((sample.parent / "sources").iterdir())
        for line in path.read_text(encoding="utf-8").split(". ")
        if line.strip()
    ]
    index = retrieve.PassageIndex(passages)
    vocabulary = Counter(t for terms in index.terms for t in terms)
    queries = [retrieve.query_weights(p, "Street trees and summer heat") for p in passages[:40]]
    queries.append({term: 1.0 + (n % 3) / 10 for n, term in enumerate(vocabulary)})
    for weights in queries:
        got, want = index.bm25(weights), _plain_bm25(index, weights)
        assert got == want  # exactly: not approximately
        assert all(math.isfinite(s) for s in got)


def _plain_rank(claim: str, index: retrieve.PassageIndex, context: str, claim_vector, passage_vectors):  # type: ignore[no-untyped-def]
    """`retrieve.rank` as the loop it was before it ran on arrays (dense weight 0.5, k 5)."""
    sentence_dense = np.clip(passage_vectors @ claim_vector, 0.0, 1.0)
    dense = [float(sentence_dense[first : last + 1].max()) for first, last in index.spans]
    weights = retrieve.query_weights(claim, context)
    chosen, taken = [], set()
    for _ in range(min(5, len(index.spans))):
        lexical = _plain_bm25(index, weights)
        best = max(lexical) or 1.0
        pick, pick_score = -1, -1.0
        for i, (lex, den) in enumerate(zip(lexical, dense, strict=True)):
            score = (1 - 0.5) * lex / best + 0.5 * den
            if i not in taken and score > pick_score:
                pick, pick_score = i, score
        first, last = index.spans[pick]
        strongest = first + int(np.argmax(sentence_dense[first : last + 1]))
        chosen.append(retrieve.Window(first, last, pick_score, lexical[pick] / best, dense[pick], strongest))
        taken.add(pick)
        for term in index.terms[pick]:
            if term in weights:
                weights[term] *= retrieve.COVERED
    return chosen


def test_ranking_on_arrays_picks_the_plain_loops_windows_with_the_same_scores(sample: Path) -> None:
    passages = [
        line
        for path in sorted((sample.parent / "sources").iterdir())
        for line in path.read_text(encoding="utf-8").split(". ")
        if line.strip()
    ]
    index = retrieve.PassageIndex(passages)
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((len(passages), 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for n, claim in enumerate(passages[:30]):
        query = vectors[n] + 0.3 * rng.standard_normal(8).astype(np.float32)
        query /= np.linalg.norm(query)
        got = retrieve.rank(claim, index, context="Trees", claim_vector=query, passage_vectors=vectors)
        assert got == _plain_rank(claim, index, "Trees", query, vectors)
        assert all(type(w.score) is float and type(w.lexical) is float for w in got)
