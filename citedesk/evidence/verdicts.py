"""Claims × their cited sources → verdicts, and the findings a writer acts on.

For each claim and each reference it cites (with source text), the top `k` evidence windows are
retrieved and the judge reads the claim against them together (claim level, as the judges were
calibrated). Several markers on one sentence are judged **one by one**: each cited reference must
support the sentence itself, so `[1, 2]` where [2] is unrelated flags [2] even if [1] supports
it. That gives:

- `misattributed` — the cited source does not support the claim (warning) or contradicts it
  (error), or supports it only in part while another reference scores clearly higher
  (`CLEARLY_BETTER`, chosen on WiCE documents: `tests/bench/eval_documents.py`); with a swap to
  that reference when there is one;
- `unsupported_number` — a figure of the claim that none of its cited sources states (`[1] … 30%
  … [2]` is fine when [2] says 30%; not reported where every citation is already misattributed);
- suggestions on `uncited` findings — the document's reference that supports the claim, as an
  "add citation" fix;
- with atomic facts (Claude's checked decomposition of a long sentence, `assist/atoms.py`), each
  fact is judged against each cited source too. A citation that fully supports one fact is right
  for its part (not misattributed); a fact none of the citations supports is flagged
  `unsupported_part` on its own words, with "cite [k] for this part" when another reference
  supports it; a citation that supports no fact is misattributed only when every fact is
  supported elsewhere (an extra, wrong citation) or none is (the whole sentence is unsupported).

Judgements are cached in the store by (judge, claim text, evidence text), so re-auditing after an
edit re-judges only the sentences whose text or evidence changed.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from citedesk.core.claims import Atom
from citedesk.core.document import Document
from citedesk.core.findings import Finding, Fix, Kind, Severity, Verdict, VerdictLabel, make_finding
from citedesk.core.repair import AddCitation, RetargetCitation, citation_offset, cite_sentence, make_fix
from citedesk.evidence.judges.base import Judge, Judgement, Pair
from citedesk.evidence.numbers import missing_figures
from citedesk.evidence.retrieve import PassageIndex, Window, rank

if TYPE_CHECKING:
    from citedesk.evidence.embed import Embedder, Vectors
    from citedesk.sources.gather import ResolvedSource
    from citedesk.store import Store

TOP_K = 5
MODEL_WINDOWS = 3
CANDIDATES = 2
CLEARLY_BETTER = 0.05
"""A partly supporting citation is misattributed when another reference scores this much higher."""
STANDS_OUT = 0.04
"""An uncited claim's best reference is suggested on partial support when it leads every other
reference by this much (chosen on WiCE documents: `tests/bench/eval_documents.py`)."""


@dataclass(frozen=True)
class Thresholds:
    supported: float
    partial: float
    contradicted: float = 0.5


def thresholds_for(judge: Judge) -> Thresholds:
    if judge.name.startswith("heuristic"):
        from citedesk.evidence.judges.heuristic import PARTIAL, SUPPORTED  # noqa: PLC0415

        return Thresholds(SUPPORTED, PARTIAL)
    return Thresholds(0.5, 0.25)


def label_of(judgement: Judgement, limits: Thresholds) -> VerdictLabel:
    if judgement.contradiction >= limits.contradicted and judgement.contradiction > judgement.support:
        return VerdictLabel.CONTRADICTED
    if judgement.support >= limits.supported:
        return VerdictLabel.SUPPORTED
    if judgement.support >= limits.partial:
        return VerdictLabel.PARTIALLY_SUPPORTED
    return VerdictLabel.NOT_SUPPORTED


@dataclass
class _Source:
    key: str
    source: ResolvedSource
    index: PassageIndex
    vectors: Vectors | None


@dataclass
class _Question:
    claim_id: str
    key: str
    pair: Pair
    windows: list[Window]
    source_passages: list[str]


@dataclass(frozen=True)
class _Judging:
    """What every judgement of one assessment shares: the prepared sources, each claim's heading,
    the judge and its thresholds, the embedder and the judgement cache."""

    prepared: dict[str, _Source]
    context: dict[str, str]
    judge: Judge
    limits: Thresholds
    embedder: Embedder | None
    store: Store | None

    def ask(self, claim_id: str, claim_text: str, key: str) -> _Question:
        context = self.context.get(claim_id, "")
        return _ask(claim_id, claim_text, self.prepared[key], context, self.embedder)

    def answer(
        self, questions: list[_Question], progress: Callable[[str, int, int], None] = lambda *_: None
    ) -> list[Judgement]:
        return _answer(self.judge, questions, self.store, progress)

    def verdict(self, question: _Question, answer: Judgement) -> Verdict:
        return Verdict(
            question.key,
            label_of(answer, self.limits),
            answer.support,
            answer.judge or self.judge.name,
            _evidence_json(self.prepared[question.key], question),
        )

    def rank_others(self, claim_text: str, claim_id: str, exclude: set[str]) -> list[tuple[str, Verdict]]:
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
class _Part:
    """One atomic fact of a claim and how each cited reference bears on it."""

    atom: Atom
    verdicts: dict[str, Verdict]

    def best(self) -> Verdict:
        return max(self.verdicts.values(), key=lambda v: v.score)

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.atom.text,
            "span": [self.atom.start, self.atom.end],
            "support": {key: [v.label.value, round(v.score, 4)] for key, v in self.verdicts.items()},
        }


@dataclass
class EvidenceResult:
    verdicts: dict[str, list[Verdict]]
    findings: list[Finding]
    """New findings (misattributed, unsupported_number)."""
    uncited_fixes: dict[str, Finding]
    """Claim id → the uncited finding, now with an "add citation" fix."""
    confirm: Callable[[str, str, Judge], tuple[str, Verdict] | None] = lambda claim_id, key, judge: None
    """(claim id, reference key, a judge) → that reference's verdict if the judge finds it supports
    the claim (at least in part), on the evidence already retrieved: how citations proposed
    elsewhere (Claude) are confirmed by a local judge."""


def assess_evidence(
    document: Document,
    sources: dict[str, ResolvedSource],
    judge: Judge,
    *,
    embedder: Embedder | None = None,
    store: Store | None = None,
    uncited: Sequence[Finding] = (),
    atoms: dict[str, list[Atom]] | None = None,
    progress: Callable[[str, int, int], None] = lambda stage, done, total: None,
) -> EvidenceResult:
    usable = {key: s for key, s in sources.items() if s.usable}
    prepared = _prepare(usable, embedder, progress)
    judging = _Judging(prepared, _context(document), judge, thresholds_for(judge), embedder, store)

    # 1. every (claim, cited reference) with source text
    questions: list[_Question] = []
    unchecked: dict[str, list[Verdict]] = {}
    for claim in document.claims:
        for key in document.cited_keys(claim):
            if key in prepared:
                questions.append(judging.ask(claim.id, claim.text, key))
            elif key in sources:
                unchecked.setdefault(claim.id, []).append(
                    Verdict(
                        key, VerdictLabel.UNCHECKED, 0.0, None, {"reason": sources[key].message or "no text"}
                    )
                )
    progress("judging", 0, len(questions))
    answers = judging.answer(questions, progress)

    verdicts: dict[str, list[Verdict]] = {}
    findings: list[Finding] = []
    for question, answer in zip(questions, answers, strict=True):
        verdicts.setdefault(question.claim_id, []).append(judging.verdict(question, answer))
    for claim_id, extra in unchecked.items():
        verdicts.setdefault(claim_id, []).extend(extra)
    parts = _judge_parts(atoms or {}, verdicts, judging)

    # 2. misattributed, with a swap where another reference supports the claim; a partly
    #    supporting source counts as misattributed only when another reference clearly does better
    claims = document.claim_by_id
    misattributed: set[tuple[str, str]] = set()
    for claim_id, claim_verdicts in verdicts.items():
        claim = claims[claim_id]
        for verdict in claim_verdicts:
            if verdict.label in (VerdictLabel.SUPPORTED, VerdictLabel.UNCHECKED):
                continue
            claim_parts = parts.get(claim_id, [])
            if claim_parts and _judged_by_part(claim_parts, verdict.reference):
                continue
            cited = {v.reference for v in claim_verdicts}
            better = _clearly_better(judging, claim.text, claim_id, cited, verdict, partial_ok=True)
            if verdict.label is VerdictLabel.PARTIALLY_SUPPORTED and better is None:
                continue
            figures = [q.text for q in missing_figures(claim.text, prepared[verdict.reference].source.text)]
            findings.append(_misattributed(document, claim_id, verdict, better, figures, claim_parts))
            misattributed.add((claim_id, verdict.reference))
    # 2b. facts of a decomposed sentence that none of its (otherwise right) citations supports
    for claim_id, claim_parts in parts.items():
        cited = set(claim_parts[0].verdicts)
        if cited <= {key for c, key in misattributed if c == claim_id}:
            continue  # every citation is already flagged: the whole sentence is the finding
        for part in claim_parts:
            finding = _unsupported_part(document, claim_id, part, cited, judging)
            if finding is not None:
                findings.append(finding)
    # 3. figures that none of the sentence's cited sources states (moot where every citation is
    #    the wrong one, or where the figure lies in a part already flagged as unsupported)
    flagged = [(f.claim_id, f.start, f.end) for f in findings if f.kind is Kind.UNSUPPORTED_PART]
    for claim in document.claims:
        keys = [k for k in document.cited_keys(claim) if k in prepared]
        right = [k for k in keys if (claim.id, k) not in misattributed]
        if right:
            findings.extend(
                f
                for f in _figures(document, claim.id, keys, right[0], prepared)
                if not any(c == claim.id and s <= f.start and f.end <= e for c, s, e in flagged)
            )
    # 4. uncited claims that one of the references supports
    fixed: dict[str, Finding] = {}
    for finding in uncited:
        if finding.claim_id is None:
            continue
        claim = claims[finding.claim_id]
        better = _suggestion(judging.rank_others(claim.text, claim.id, set()))
        if better is not None:
            key, verdict = better
            how = "supports this" if verdict.label is VerdictLabel.SUPPORTED else "best matches this, in part"
            fix = make_fix(
                f"Cite [{key}] (its source {how})",
                document,
                cite_sentence(document, claim.sentence, [key]),
            )
            if fix is not None:
                fixed[claim.id] = replace(
                    finding,
                    fixes=(fix, *finding.fixes),
                    evidence=verdict.evidence,
                    details={**finding.details, "suggested": key, "score": round(verdict.score, 4)},
                )

    def confirm(claim_id: str, key: str, local: Judge) -> tuple[str, Verdict] | None:
        if key not in prepared or claim_id not in claims:
            return None
        by_local = replace(judging, judge=local, limits=thresholds_for(local))
        return by_local.best_other(claims[claim_id].text, claim_id, set(prepared) - {key}, partial_ok=True)

    return EvidenceResult(verdicts, findings, fixed, confirm)


def _judge_parts(
    atoms: dict[str, list[Atom]], verdicts: dict[str, list[Verdict]], judging: _Judging
) -> dict[str, list[_Part]]:
    """Each atomic fact × each cited reference with source text, judged like a claim."""
    questions: list[tuple[str, int, _Question]] = []
    for claim_id, claim_atoms in atoms.items():
        keys = [v.reference for v in verdicts.get(claim_id, []) if v.reference in judging.prepared]
        for i, atom in enumerate(claim_atoms):
            questions.extend((claim_id, i, judging.ask(claim_id, atom.text, key)) for key in keys)
    answers = judging.answer([q for _, _, q in questions])
    parts: dict[str, list[_Part]] = {}
    for (claim_id, i, question), answer in zip(questions, answers, strict=True):
        claim_parts = parts.setdefault(claim_id, [_Part(atom, {}) for atom in atoms[claim_id]])
        claim_parts[i].verdicts[question.key] = judging.verdict(question, answer)
    return parts


def _clearly_better(
    judging: _Judging,
    claim_text: str,
    claim_id: str,
    cited: set[str],
    than: Verdict,
    *,
    partial_ok: bool = False,
) -> tuple[str, Verdict] | None:
    """Another reference that supports the claim (or, with `partial_ok`, part of it) and scores
    `CLEARLY_BETTER` above `than`: the one a swap or an added citation may offer."""
    better = judging.best_other(claim_text, claim_id, cited, partial_ok=partial_ok)
    return better if better is not None and better[1].score >= than.score + CLEARLY_BETTER else None


def _judged_by_part(parts: list[_Part], key: str) -> bool:
    """Whether a decomposed sentence's citation `key` is judged by its facts, not as a whole: it
    is right for a fact it supports; and while other facts are supported and some are not, the
    unsupported facts are the findings (on their own words), not this marker."""
    if any(p.verdicts[key].label is VerdictLabel.SUPPORTED for p in parts):
        return True
    supported = [p.best().label is VerdictLabel.SUPPORTED for p in parts]
    return any(supported) and not all(supported)


def _unsupported_part(
    document: Document, claim_id: str, part: _Part, cited: set[str], judging: _Judging
) -> Finding | None:
    """A finding on the fact's own words when no citation of its sentence supports it (a partial
    match counts as support unless another reference clearly does better, as for whole claims)."""
    best = part.best()
    if best.label is VerdictLabel.SUPPORTED:
        return None
    better = _clearly_better(judging, part.atom.text, claim_id, cited, best)
    if best.label is VerdictLabel.PARTIALLY_SUPPORTED and better is None:
        return None
    who = (
        "A citation of this sentence contradicts"
        if best.label is VerdictLabel.CONTRADICTED
        else f"No citation of this sentence ([{', '.join(sorted(cited))}]) supports"
    )
    message = f"{who} this part: “{part.atom.text}” ({best.judge} judge, best support {best.score:.2f})."
    fixes: list[Fix] = []
    details: dict[str, Any] = {
        "fact": part.atom.text,
        "verdict": best.label.value,
        "score": round(best.score, 4),
        "judge": best.judge,
        "parts": [part.to_json()],
    }
    if better is not None:
        key = better[0]
        fixes, why = _offer(
            document,
            better,
            details,
            f"Cite [{key}] for this part",
            AddCitation(_part_offset(document, claim_id, part), key),
        )
        message += why
    return make_finding(
        Kind.UNSUPPORTED_PART,
        (part.atom.start, part.atom.end),
        message,
        reference=best.reference,
        claim_id=claim_id,
        fixes=tuple(fixes),
        evidence=best.evidence,
        severity=Severity.ERROR if best.label is VerdictLabel.CONTRADICTED else None,
        details=details,
    )


def _part_offset(document: Document, claim_id: str, part: _Part) -> int:
    """Where a citation for one fact goes: right after its words, or — when they end the sentence
    (only markers and the full stop follow) — where the sentence's citations go, joining them."""
    sentence = document.claim_by_id[claim_id].sentence
    tail = document.text[part.atom.end : sentence.end]
    if re.sub(r"\[[^\]\n]*\]", "", tail).strip() in ("", ".", "!", "?"):
        return citation_offset(document, sentence.start, sentence.end)
    return part.atom.end


def _prepare(
    sources: dict[str, ResolvedSource], embedder: Embedder | None, progress: Callable[[str, int, int], None]
) -> dict[str, _Source]:
    prepared = {}
    total = len(sources)
    for done, (key, source) in enumerate(sources.items()):
        progress("retrieving evidence", done, total)
        texts = [p.text for p in source.passages]
        vectors = embedder.encode(texts) if embedder is not None and texts else None
        prepared[key] = _Source(key, source, PassageIndex(texts), vectors)
    progress("retrieving evidence", total, total)
    return prepared


def _context(document: Document) -> dict[str, str]:
    """Each claim's nearest heading above it: the topic a pronoun in the claim refers to."""
    headings = sorted(document.layout.headings, key=lambda h: h.start)
    out = {}
    for claim in document.claims:
        above = [h for h in headings if h.start < claim.sentence.start]
        if above:
            out[claim.id] = above[-1].title
    return out


def _ask(
    claim_id: str, claim_text: str, source: _Source, context: str, embedder: Embedder | None
) -> _Question:
    claim_vector = (
        embedder.encode([claim_text])[0] if embedder is not None and source.vectors is not None else None
    )
    windows = rank(
        claim_text,
        source.index,
        context=context,
        claim_vector=claim_vector,
        passage_vectors=source.vectors,
        k=TOP_K,
    )
    chosen = sorted({i for w in windows for i in w.indices})
    sentences = tuple(source.index.passages[i] for i in chosen)
    return _Question(
        claim_id, source.key, Pair(claim_text, " ".join(sentences), sentences), windows, source.index.passages
    )


def _cache_key(pair: Pair) -> str:
    payload = pair.claim + "\x00" + "\x01".join(pair.sentences or (pair.evidence,))
    return hashlib.blake2b(payload.encode("utf-8"), digest_size=20).hexdigest()


def _claim_level(judge: Judge) -> bool:
    """The heuristic judge reads the top windows together (as calibrated); model judges read each
    of the top `MODEL_WINDOWS` windows on its own, and the best one decides (max aggregation)."""
    return judge.name.startswith("heuristic")


def _answer(
    judge: Judge,
    questions: list[_Question],
    store: Store | None,
    progress: Callable[[str, int, int], None],
) -> list[Judgement]:
    if _claim_level(judge):
        return _judge_cached(judge, [q.pair for q in questions], store, progress)
    owners: list[int] = []
    pairs: list[Pair] = []
    for i, question in enumerate(questions):
        for window in question.windows[:MODEL_WINDOWS]:
            sentences = tuple(question.source_passages[window.first : window.last + 1])
            pairs.append(Pair(question.pair.claim, " ".join(sentences), sentences))
            owners.append(i)
    answers = _judge_cached(judge, pairs, store, progress)
    best = [Judgement(0.0, 0.0) for _ in questions]
    for owner, answer in zip(owners, answers, strict=True):
        current = best[owner]
        best[owner] = Judgement(
            max(current.support, answer.support),
            max(current.contradiction, answer.contradiction),
            judge=current.judge or answer.judge,
        )
    return best


def _shortlist(questions: list[_Question], judge: Judge, embedder: Embedder | None) -> list[_Question]:
    """For a model judge, only the `CANDIDATES` references the heuristic judge rates highest are
    put to the model: suggestions stay cheap however many references the document has."""
    if _claim_level(judge) or len(questions) <= CANDIDATES:
        return questions
    from citedesk.evidence.judges.heuristic import HeuristicJudge  # noqa: PLC0415

    scores = HeuristicJudge(embedder).judge([q.pair for q in questions])
    ranked = sorted(range(len(questions)), key=lambda i: -scores[i].support)
    return [questions[i] for i in ranked[:CANDIDATES]]


def _judge_cached(
    judge: Judge, pairs: list[Pair], store: Store | None, progress: Callable[[str, int, int], None]
) -> list[Judgement]:
    results: list[Judgement | None] = [None] * len(pairs)
    keys = [_cache_key(p) for p in pairs]
    if store is not None:
        for i, key in enumerate(keys):
            cached = store.get_judgement(key, judge.name)
            if cached is not None:
                data = json.loads(cached)
                results[i] = Judgement(float(data["support"]), float(data["contradiction"]))
    todo = [i for i, r in enumerate(results) if r is None]
    if todo:
        fresh = judge.judge([pairs[i] for i in todo], lambda d, t: progress("judging", d, t))
        for i, judgement in zip(todo, fresh, strict=True):
            results[i] = judgement
        if store is not None:
            store.put_judgements(
                judge.name,
                {
                    keys[i]: json.dumps({"support": j.support, "contradiction": j.contradiction})
                    for i, j in zip(todo, fresh, strict=True)
                    if j.judge is None  # a stand-in's answer is not the judge's: ask again next time
                },
            )
    progress("judging", len(pairs), len(pairs))
    return [r for r in results if r is not None]


def _evidence_json(source: _Source, question: _Question) -> dict[str, Any] | None:
    if not question.windows:
        return None
    top = question.windows[0]
    passage = source.source.passages[top.best]
    window = source.source.passages[top.first : top.last + 1]
    return {
        "source": source.key,
        "passage": passage.text,
        "start": passage.start,
        "end": passage.end,
        "page": passage.page,
        "window": " ".join(p.text for p in window),
        "window_span": [window[0].start, window[-1].end],
        "title": source.source.title,
        "location": source.source.location,
    }


def _suggestion(ranked: list[tuple[str, Verdict]]) -> tuple[str, Verdict] | None:
    """The reference to suggest for an uncited claim: the best one when it supports the claim, or
    when it supports it in part and stands clearly above every other reference (`STANDS_OUT`)."""
    if not ranked:
        return None
    key, best = ranked[0]
    if best.label is VerdictLabel.SUPPORTED:
        return key, best
    runner_up = ranked[1][1].score if len(ranked) > 1 else 0.0
    if best.label is VerdictLabel.PARTIALLY_SUPPORTED and best.score - runner_up >= STANDS_OUT:
        return key, best
    return None


def _misattributed(
    document: Document,
    claim_id: str,
    verdict: Verdict,
    better: tuple[str, Verdict] | None,
    missing: Sequence[str] = (),
    parts: Sequence[_Part] = (),
) -> Finding:
    claim = document.claim_by_id[claim_id]
    marker_index = next(i for i in claim.sentence.markers if verdict.reference in document.markers[i].keys)
    marker = document.markers[marker_index]
    contradicted = verdict.label is VerdictLabel.CONTRADICTED
    what = {
        VerdictLabel.CONTRADICTED: "contradicts",
        VerdictLabel.PARTIALLY_SUPPORTED: "supports only part of",
    }.get(verdict.label, "does not support")
    message = (
        f"The cited source [{verdict.reference}] {what} this sentence "
        f"({verdict.judge} judge, support {verdict.score:.2f})."
    )
    if missing:
        message += f" It never states {', '.join(f'“{m}”' for m in missing)}."
    fixes: list[Fix] = []
    details: dict[str, Any] = {
        "verdict": verdict.label.value,
        "score": round(verdict.score, 4),
        "judge": verdict.judge,
    }
    if parts:
        details["parts"] = [p.to_json() for p in parts]
    if better is not None:
        key = better[0]
        fixes, why = _offer(
            document,
            better,
            details,
            f"Cite [{key}] instead of [{verdict.reference}]",
            RetargetCitation(marker_index, verdict.reference, key),
        )
        message += why
    return make_finding(
        Kind.MISATTRIBUTED,
        (marker.start, marker.end),
        message,
        reference=verdict.reference,
        claim_id=claim_id,
        fixes=tuple(fixes),
        evidence=verdict.evidence,
        severity=Severity.ERROR if contradicted else Severity.WARNING,
        details=details,
    )


def _offer(
    document: Document,
    better: tuple[str, Verdict],
    details: dict[str, Any],
    title: str,
    operation: AddCitation | RetargetCitation,
) -> tuple[list[Fix], str]:
    """The fix that cites the better reference, and the sentence of the message that says why;
    `details` gains the suggestion and its evidence."""
    key, supporting = better
    details["suggested"] = key
    details["suggested_evidence"] = supporting.evidence
    fix = make_fix(title, document, [operation])
    return (
        [fix] if fix is not None else []
    ), f" Reference [{key}] supports it (support {supporting.score:.2f})."


def _figures(
    document: Document, claim_id: str, keys: list[str], owner: str, prepared: dict[str, _Source]
) -> list[Finding]:
    """Figures of the claim that no cited source states (`[1] … 30% … [2]` is fine when [2] says
    30%), reported against `owner`, the first citation that is not itself misattributed."""
    claim = document.claim_by_id[claim_id]
    missing = missing_figures(claim.text, prepared[keys[0]].source.text)
    for key in keys[1:]:
        elsewhere = {q.text for q in missing_figures(claim.text, prepared[key].source.text)}
        missing = [q for q in missing if q.text in elsewhere]
    where = (
        f"the cited source [{owner}]"
        if len(keys) == 1
        else f"any cited source ({', '.join(f'[{k}]' for k in keys)})"
    )
    findings = []
    raw = document.text[claim.sentence.start : claim.sentence.end]
    for figure in missing:
        at = raw.find(figure.text)
        span = (
            (claim.sentence.start + at, claim.sentence.start + at + len(figure.text))
            if at >= 0
            else (claim.sentence.start, claim.sentence.end)
        )
        findings.append(
            make_finding(
                Kind.UNSUPPORTED_NUMBER,
                span,
                f"“{figure.text}” does not appear in {where} (no figure there matches it).",
                reference=owner,
                claim_id=claim_id,
                details={"figure": figure.text, "value": figure.value, "kind": figure.kind},
            )
        )
    return findings
