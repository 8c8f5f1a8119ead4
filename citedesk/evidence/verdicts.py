"""Judging: claims × their cited sources → verdicts, with the judgement cache.

For each claim and each reference it cites (with source text), the top `TOP_K` evidence windows
are retrieved and the judge reads the claim against them — together, or one by one with the best
deciding, as its `Policy` says. Several markers on one sentence are judged **one by one**: each
cited reference must support the sentence itself, so `[1, 2]` where [2] is unrelated flags [2]
even if [1] supports it. A citation whose source has no text is not judged here; the pipeline
gives it an `unchecked` verdict that says why (`core/coverage.py`).

Judgements are cached in the store by (judge, claim text, evidence text), so re-auditing after an
edit re-judges only the sentences whose text or evidence changed. Within one process (the window's
audit process, a benchmark) three more things are kept between audits (`evidence.reuse`): each
source's index and vectors by its passages' text, each sentence's retrieved evidence by (sentence,
heading, source version), and the judgements already read from the store: a re-audit after a
one-sentence edit retrieves and judges that sentence alone, and asks the store nothing else.
What the verdicts mean for the writer (findings, swaps, suggestions) is `suggest.py`'s business.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from citedesk.core.document.claims import Atom
from citedesk.core.document.model import Document
from citedesk.core.findings import Evidence, Verdict, VerdictLabel
from citedesk.evidence.judges.base import Judge, Judgement, Pair
from citedesk.evidence.retrieve import PassageIndex, Window, rank
from citedesk.evidence.reuse import Lru

if TYPE_CHECKING:
    from citedesk.evidence.embed import Embedder, Vectors
    from citedesk.sources.resolved import ResolvedSource
    from citedesk.store.records import Passage

TOP_K = 5
MODEL_WINDOWS = 3
"""A judge that reads windows one by one reads this many of the best, and the best one decides."""
CANDIDATES = 2
"""A model judge is asked about only this many other references (the heuristic judge's best)."""
BATCH = 64
"""Citations judged between two looks at the audit's time budget."""

Progress = Callable[[str, int, int], None]


class JudgementCache(Protocol):
    """Where judgements are kept between audits (the store)."""

    def get_judgement(self, key: str, judge: str) -> str | None: ...

    def put_judgements(self, judge: str, items: dict[str, str]) -> None: ...


def _no_progress(stage: str, done: int, total: int) -> None:
    """Progress goes nowhere."""


@dataclass
class PreparedSource:
    """A source ready for retrieval: its passages indexed, and embedded when a model is there."""

    key: str
    source: ResolvedSource
    index: PassageIndex
    vectors: Vectors | None
    version: str = ""
    """What the index and vectors were made from (the passages' texts, the embedding model): the
    source version that evidence retrieved from it is kept under."""


@dataclass(frozen=True)
class Retrieved:
    """One sentence's evidence in one source version, as retrieval found it (kept for re-audits)."""

    windows: list[Window]
    sentences: tuple[str, ...]


INDEXES: Lru[tuple[str, str], tuple[PassageIndex, Vectors | None]] = Lru(
    64,
    max_bytes=256 * 2**20,
    size=lambda item: 16 * sum(map(len, item[0].passages)) + (item[1].nbytes if item[1] is not None else 0),
)
"""(embedding model, passages digest) → a source's passage index and vectors: a source is indexed
and embedded once per process while its text stays the same (bytes: a rough estimate of the index,
16 per character of text, plus the vectors)."""
RETRIEVED: Lru[tuple[str, str, str], Retrieved] = Lru(50_000)
"""(sentence, heading, source version) → the evidence retrieved for it."""
JUDGED: Lru[tuple[str, str, str], Judgement] = Lru(100_000)
"""(store, judge@policy, pair digest) → a judgement the store holds (read or written this process)."""


def clear_reuse() -> None:
    """Forget what earlier audits in this process left (tests that count fresh work)."""
    for cache in (INDEXES, RETRIEVED, JUDGED):
        cache.clear()


@dataclass
class Question:
    """One claim (or fact) and one reference, with the windows retrieved for it."""

    claim_id: str
    key: str
    pair: Pair
    windows: list[Window]
    source_passages: list[str]


@dataclass(frozen=True)
class Judging:
    """What every judgement of one assessment shares: the prepared sources, each claim's heading,
    the judge, the embedder and the judgement cache."""

    prepared: dict[str, PreparedSource]
    context: dict[str, str]
    judge: Judge
    embedder: Embedder | None
    cache: JudgementCache | None
    out_of_time: Callable[[], bool] = lambda: False
    """True once the audit's time budget is spent: what is not judged by then is not checked."""
    local: Judge | None = None
    """The judge for `local_only` sources, when `judge` sends text away (Claude)."""
    local_only: frozenset[str] = frozenset()
    """References whose text must not leave the machine (files read from outside the allowed
    folders): their pairs are judged by `local`."""

    def ask(self, claim_id: str, claim_text: str, key: str) -> Question:
        context = self.context.get(claim_id, "")
        return _ask(claim_id, claim_text, self.prepared[key], context, self.embedder)

    def answer(self, questions: list[Question], progress: Progress = _no_progress) -> list[Judgement]:
        if self.local is None or not any(q.key in self.local_only for q in questions):
            return _answer(self.judge, questions, self.cache, progress)
        kept = [i for i, q in enumerate(questions) if q.key in self.local_only]
        sent = [i for i, q in enumerate(questions) if q.key not in self.local_only]
        answers: dict[int, Judgement] = {}
        local = _answer(self.local, [questions[i] for i in kept], self.cache, progress)
        answers.update(
            (i, replace(a, judge=a.judge or self.local.name)) for i, a in zip(kept, local, strict=True)
        )
        answers.update(
            zip(sent, _answer(self.judge, [questions[i] for i in sent], self.cache, progress), strict=True)
        )
        return [answers[i] for i in range(len(questions))]

    def verdict(self, question: Question, answer: Judgement) -> Verdict:
        if answer.unchecked is not None:  # the judge gave no verdict (its server is down): say why
            reason, detail = answer.unchecked
            judge = answer.judge or self.judge.name
            return Verdict(
                question.key, VerdictLabel.UNCHECKED, 0.0, judge, reason=reason, detail=detail or None
            )
        return Verdict(
            question.key,
            self.judge.policy.label(answer.support, answer.contradiction),
            answer.support,
            answer.judge or self.judge.name,
            evidence_of(self.prepared[question.key], question),
            contradiction=answer.contradiction,
        )

    def rank_others(self, claim_text: str, claim_id: str, exclude: Set[str]) -> list[tuple[str, Verdict]]:
        """The document's references (but `exclude`) judged against the claim, best support first
        (for a model judge, only the shortlist the heuristic judge rates highest)."""
        candidates = [k for k in self.prepared if k not in exclude]
        if not candidates:
            return []
        questions = _shortlist(
            [self.ask(claim_id, claim_text, k) for k in candidates], self.judge, self.embedder
        )
        ranked = [(q.key, self.verdict(q, a)) for q, a in zip(questions, self.answer(questions), strict=True)]
        return sorted(ranked, key=lambda item: -item[1].score)

    def best_other(
        self, claim_text: str, claim_id: str, exclude: set[str], *, partial_ok: bool = False
    ) -> tuple[str, Verdict] | None:
        """The document's other reference that best supports the claim, if one does (or, with
        `partial_ok`, supports it at least in part)."""
        accepted = (
            (VerdictLabel.SUPPORTED, VerdictLabel.PARTIALLY_SUPPORTED)
            if partial_ok
            else (VerdictLabel.SUPPORTED,)
        )
        return next(
            ((k, v) for k, v in self.rank_others(claim_text, claim_id, exclude) if v.label in accepted), None
        )


@dataclass
class Part:
    """One atomic fact of a claim and how each cited reference bears on it."""

    atom: Atom
    verdicts: dict[str, Verdict]

    def best(self) -> Verdict:
        return max(self.verdicts.values(), key=lambda v: v.score)

    def to_json(self) -> dict[str, object]:
        return {
            "text": self.atom.text,
            "span": [self.atom.start, self.atom.end],
            "support": {key: [v.label.value, round(v.score, 4)] for key, v in self.verdicts.items()},
        }


def prepare(
    sources: dict[str, ResolvedSource], embedder: Embedder | None, progress: Progress = _no_progress
) -> dict[str, PreparedSource]:
    """Index (and embed) every usable source: once per process while its text is the same
    (`INDEXES`, by the passages' texts and the embedding model)."""
    prepared = {}
    total = len(sources)
    model = embedder.name if embedder is not None else ""
    for done, (key, source) in enumerate(sources.items()):
        progress("retrieving evidence", done, total)
        texts = [p.text for p in source.passages]
        version = _digest("\x00".join(texts) + f"\x01{len(texts)}")
        made = INDEXES.get((model, version))
        if made is None:
            vectors = embedder.encode(texts) if embedder is not None and texts else None
            made = (PassageIndex(texts), vectors)
            INDEXES.put((model, version), made)
        prepared[key] = PreparedSource(key, source, made[0], made[1], f"{model}:{version}")
    progress("retrieving evidence", total, total)
    return prepared


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def headings(document: Document) -> dict[str, str]:
    """Each claim's nearest heading above it: the topic a pronoun in the claim refers to."""
    ordered = sorted(document.layout.headings, key=lambda h: h.start)
    out = {}
    for claim in document.claims:
        above = [h for h in ordered if h.start < claim.sentence.start]
        if above:
            out[claim.id] = above[-1].title
    return out


def judge_citations(
    document: Document, judging: Judging, progress: Progress = _no_progress
) -> dict[str, list[Verdict]]:
    """Claim id → one verdict per cited reference whose source has text (the others are not
    checked; the pipeline says why)."""
    pending = [
        (claim.id, claim.text, key)
        for claim in document.claims
        for key in document.cited_keys(claim)
        if key in judging.prepared
    ]
    verdicts: dict[str, list[Verdict]] = {}
    done = 0
    progress("judging", 0, len(pending))
    everything = tuple(judging.prepared)
    asked = [(claim, document.cited_keys(claim)) for claim in document.claims]
    encode_claims(
        judging,
        [
            # a cited sentence is read against its references; an uncited claim, against all of them
            (claim.text, judging.context.get(claim.id, ""), keys or everything)
            for claim, keys in asked
            if keys or claim.needs_citation
        ],
    )
    for start in range(0, len(pending), BATCH):  # the budget is looked at between batches
        if judging.out_of_time():
            break
        questions = [judging.ask(*item) for item in pending[start : start + BATCH]]
        for question, answer in zip(questions, judging.answer(questions), strict=True):
            verdicts.setdefault(question.claim_id, []).append(judging.verdict(question, answer))
        done += len(questions)
        progress("judging", done, len(pending))
    return verdicts


def judge_parts(
    atoms: dict[str, list[Atom]], verdicts: dict[str, list[Verdict]], judging: Judging
) -> dict[str, list[Part]]:
    """Each atomic fact × each cited reference with source text, judged like a claim."""
    questions: list[tuple[str, int, Question]] = []
    for claim_id, claim_atoms in atoms.items():
        keys = [v.reference for v in verdicts.get(claim_id, []) if v.reference in judging.prepared]
        for i, atom in enumerate(claim_atoms):
            questions.extend((claim_id, i, judging.ask(claim_id, atom.text, key)) for key in keys)
    answers = judging.answer([q for _, _, q in questions])
    parts: dict[str, list[Part]] = {}
    for (claim_id, i, question), answer in zip(questions, answers, strict=True):
        claim_parts = parts.setdefault(claim_id, [Part(atom, {}) for atom in atoms[claim_id]])
        claim_parts[i].verdicts[question.key] = judging.verdict(question, answer)
    return parts


def _ask(
    claim_id: str, claim_text: str, source: PreparedSource, context: str, embedder: Embedder | None
) -> Question:
    dense = embedder is not None and source.vectors is not None
    key = (claim_text, context, _version(source, embedder)) if source.version else None
    found = RETRIEVED.get(key) if key is not None else None
    if found is None:
        claim_vector = embedder.encode([claim_text])[0] if embedder is not None and dense else None
        windows = rank(
            claim_text,
            source.index,
            context=context,
            claim_vector=claim_vector,
            passage_vectors=source.vectors,
            k=TOP_K,
        )
        chosen = sorted({i for w in windows for i in w.indices})
        found = Retrieved(windows, tuple(source.index.passages[i] for i in chosen))
        if key is not None:
            RETRIEVED.put(key, found)
    return Question(
        claim_id,
        source.key,
        Pair(claim_text, " ".join(found.sentences), found.sentences),
        list(found.windows),
        source.index.passages,
    )


def _version(source: PreparedSource, embedder: Embedder | None) -> str:
    """The source version evidence is kept under: retrieval by words alone is another."""
    return (
        source.version if embedder is not None and source.vectors is not None else f"{source.version}:words"
    )


def encode_claims(judging: Judging, asked: list[tuple[str, str, Sequence[str]]]) -> None:
    """Embed at once the sentences (text, heading, the references it is read against) whose
    evidence is still to be retrieved from one of those sources: one batched pass instead of one
    per sentence (the vectors wait in the embedder's memory for `_ask`)."""
    embedder = judging.embedder
    if embedder is None:
        return
    texts = dict.fromkeys(
        text
        for text, context, keys in asked
        for source in (judging.prepared[k] for k in keys if k in judging.prepared)
        if source.vectors is not None
        and (not source.version or (text, context, _version(source, embedder)) not in RETRIEVED)
    )
    if texts:
        embedder.encode(list(texts))


def _cache_key(pair: Pair) -> str:
    payload = pair.claim + "\x00" + "\x01".join(pair.sentences or (pair.evidence,))
    return hashlib.blake2b(payload.encode("utf-8"), digest_size=20).hexdigest()


def _answer(
    judge: Judge, questions: list[Question], cache: JudgementCache | None, progress: Progress
) -> list[Judgement]:
    if judge.policy.reads_together:
        return _judge_cached(judge, [q.pair for q in questions], cache, progress)
    owners: list[int] = []
    pairs: list[Pair] = []
    for i, question in enumerate(questions):
        for window in question.windows[:MODEL_WINDOWS]:
            sentences = tuple(question.source_passages[window.first : window.last + 1])
            pairs.append(Pair(question.pair.claim, " ".join(sentences), sentences))
            owners.append(i)
    answers = _judge_cached(judge, pairs, cache, progress)
    best = [Judgement(0.0, 0.0) for _ in questions]
    for owner, answer in zip(owners, answers, strict=True):
        current = best[owner]
        best[owner] = Judgement(
            max(current.support, answer.support),
            max(current.contradiction, answer.contradiction),
            judge=current.judge or answer.judge,
        )
    return best


def _shortlist(questions: list[Question], judge: Judge, embedder: Embedder | None) -> list[Question]:
    """For a model judge, only the `CANDIDATES` references the heuristic judge rates highest are
    put to the model: suggestions stay cheap however many references the document has."""
    if judge.policy.reads_together or len(questions) <= CANDIDATES:
        return questions
    from citedesk.evidence.judges.heuristic import HeuristicJudge  # noqa: PLC0415

    scores = HeuristicJudge(embedder).judge([q.pair for q in questions])
    ranked = sorted(range(len(questions)), key=lambda i: -scores[i].support)
    return [questions[i] for i in ranked[:CANDIDATES]]


def _judge_cached(
    judge: Judge, pairs: list[Pair], cache: JudgementCache | None, progress: Progress
) -> list[Judgement]:
    results: list[Judgement | None] = [None] * len(pairs)
    keys = [_cache_key(p) for p in pairs]
    namespace = f"{judge.name}@{judge.policy.fingerprint}" if judge.policy.fingerprint else judge.name
    # what this store already answered, remembered in this process (`JUDGED`): only for a store
    # with a file, whose judgements last as long as the file does
    scope = str(getattr(cache, "path", "") or "")
    if cache is not None:
        for i, key in enumerate(keys):
            known = JUDGED.get((scope, namespace, key)) if scope else None
            if known is not None:
                results[i] = known
                continue
            cached = cache.get_judgement(key, namespace)
            if cached is not None:
                data = json.loads(cached)
                stored = Judgement(float(data["support"]), float(data["contradiction"]))
                results[i] = stored
                if scope:
                    JUDGED.put((scope, namespace, key), stored)
    todo = [i for i, r in enumerate(results) if r is None]
    if todo:
        fresh = judge.judge([pairs[i] for i in todo], lambda d, t: progress("judging", d, t))
        for i, judgement in zip(todo, fresh, strict=True):
            results[i] = judgement
        if cache is not None:
            cache.put_judgements(
                namespace,
                {
                    keys[i]: json.dumps({"support": j.support, "contradiction": j.contradiction})
                    for i, j in zip(todo, fresh, strict=True)
                    if j.judge is None  # a stand-in's answer is not the judge's: ask again next time
                },
            )
            if scope:
                for i, j in zip(todo, fresh, strict=True):
                    if j.judge is None:  # as the store gives it back: no quote
                        JUDGED.put((scope, namespace, keys[i]), Judgement(j.support, j.contradiction))
    progress("judging", len(pairs), len(pairs))
    return [r for r in results if r is not None]


def evidence_of(source: PreparedSource, question: Question) -> Evidence | None:
    """The passage the judge found best, in its window, with the source's title and location."""
    if not question.windows:
        return None
    top = question.windows[0]
    passage = source.source.passages[top.best]
    window = source.source.passages[top.first : top.last + 1]
    return Evidence(
        source=source.key,
        passage=passage.text,
        start=passage.start,
        end=passage.end,
        page=passage.page,
        window=joined(window, source.source.text),
        window_span=(window[0].start, window[-1].end),
        title=source.source.title,
        location=source.source.location,
    )


def joined(passages: Sequence[Passage], text: str) -> str:
    """The passages of a window as one text: a line break where the source has one between two of
    them (a title or heading above its first sentence stays on its own line), else a space."""
    out = passages[0].text
    for before, after in itertools.pairwise(passages):
        gap = text[before.end : after.start] if 0 <= before.end <= after.start <= len(text) else " "
        out += ("\n" if "\n" in gap else " ") + after.text
    return out
