"""Does a sentence need a citation, and why.

A rule-based judgement that errs towards the writer: factual signals (figures, dates, named
sources, reporting verbs, comparisons, superlatives, quotations, causal and prevalence claims) ask
for a citation; questions, the writer's own framing and transitions do not. Each reason is a short
phrase the report and the window show verbatim.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from citedesk.core.sentences import Sentence

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_NUMBER = re.compile(
    r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s?(?:%|percent|per\s?cent|million|billion|trillion|"
    r"thousand|[kKmMbB]n?\b|x\b|-fold|fold))?"
)
_YEAR = re.compile(r"\b(?:1[6-9]\d{2}|20\d{2})s?\b")
_MONTH_DATE = re.compile(
    r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December)"
    r"\s+(?:\d{1,2},?\s+)?\d{4}\b"
)
_REPORTING = re.compile(
    r"\b(?:according to|reported|reports|found that|find that|finds that|showed|shows that|show that|"
    r"demonstrated|demonstrates|estimated|estimates|concluded|suggests? that|revealed|observed|"
    r"measured|confirmed|documented|surveyed|discovered|predicted|projected|announced|claimed|stated)\b",
    re.IGNORECASE,
)
_SOURCES = re.compile(
    r"\b(?:study|studies|survey|surveys|research|researchers|scientists|experts|analysis|analyses|"
    r"report|data|dataset|trial|trials|meta-analysis|census|paper|journal|poll|statistics|evidence|"
    r"experiment|experiments)\b(?!\s+(?:area|areas|site|sites|region|period|design)\b)",
    re.IGNORECASE,
)
_FOUND = re.compile(r"\b(?:found|identified|detected)\b", re.IGNORECASE)
"""Reporting only beside a research noun ("testing of soils found lead"), not in a story ("she found
her keys")."""
_RESEARCH = re.compile(
    r"\b(?:testing|tests|measurements?|monitoring|sampling|samples|screening|inspections?|audits?|"
    r"reviews?|investigations?|assessments?|inquiry|inquiries|modelling|modeling|analysts)\b",
    re.IGNORECASE,
)
_COMPARISON = re.compile(
    r"\b(?:\w+er|more|less|fewer|better|worse)\b(?:\s+[\w-]+){0,3}\s+than\b"
    r"|\b(?:increased|decreased|doubled|tripled|halved|rose|fell|grew|declined|dropped|outperform\w*)\b",
    re.IGNORECASE,
)
_SUPERLATIVE = re.compile(
    r"\b(?:the\s+(?:most|least|largest|smallest|biggest|highest|lowest|first|last|only|oldest|newest|"
    r"fastest|slowest|best|worst|leading|greatest|longest|shortest|deadliest|richest|poorest)"
    r"|record|unprecedented|world'?s)\b",
    re.IGNORECASE,
)
_QUOTE = re.compile(r"[\"“][^\"”]{12,}[\"”]")
_CAUSAL = re.compile(
    r"\b(?:causes?|caused|leads? to|led to|results? in|resulted in|linked to|associated with|"
    r"increases? the risk|reduces? the risk|prevents?|contributes? to|is responsible for)\b",
    re.IGNORECASE,
)
_PREVALENCE = re.compile(
    r"\b(?:most|majority|minority|half|quarter|third|nearly all|almost all|many|widely|commonly|"
    r"typically|on average)\b",
    re.IGNORECASE,
)
_NAMED = re.compile(r"(?<=[a-z,;:] )(?:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*|[A-Z]{2,})")
_FRAMING = re.compile(
    r"^(?:in this (?:essay|article|post|paper|section|chapter|report|piece|guide)|this (?:essay|article|post|"
    r"paper|section|chapter|report|piece|guide)|here,? we|here,? i|we (?:argue|propose|believe|think|suggest|"
    r"describe|discuss|present|review|consider|focus)|i (?:argue|propose|believe|think|suggest|feel|would|will|"
    r"want|hope)|in my (?:view|opinion|experience)|let us|let's|to summari[sz]e|in summary|in conclusion|"
    r"to conclude|overall,? (?:we|i)|next,|first,|second,|third,|finally,|for example,? (?:consider|imagine)|"
    r"note that|recall that|imagine|consider)",
    re.IGNORECASE,
)
_OWN_WORK = re.compile(
    r"\b(?:we|i)\s+(?:\w+ly\s+)?(?:measured|found|surveyed|observed|recorded|sampled|collected|interviewed|"
    r"analy[sz]ed|tested|conducted|used|compared|estimated|calculated|computed|model+ed|followed|mapped|"
    r"identified|detected|showed|show|demonstrated|demonstrate|confirmed|documented|discovered|concluded|"
    r"conclude|predicted|projected|report|reported)\b(?:\s+that\b)?"
    r"|\bour (?:results|data|findings|measurements|survey|analysis|model|sample)\s+(?:\w+\s+)?"
    r"(?:show|shows|showed|suggest|suggests|suggested|indicate|indicates|indicated)?",
    re.IGNORECASE,
)
"""The writer reporting their own work ("we measured shade with …"): theirs to state, not to cite."""
_LABEL = re.compile(
    r"\b(?:Figures?|Figs?\.|Tables?|Sections?|Chapters?|Equations?|Eqs?\.|Appendix|Appendices|Boxes|Box|"
    r"Panels?|Listings?|Supplementary (?:Figure|Table))\s*\(?[A-Z]?\d+(?:\.\d+)*[a-z]?\)?"
    r"(?:\s*(?:[-–,&]|and|to)\s*\(?[A-Z]?\d+(?:\.\d+)*[a-z]?\)?)*"
)
"""A label of the document's own parts ("Figure 1", "Table 2.3", "Eq. (4)"): not a figure to cite."""
_HEDGE_OPINION = re.compile(r"\b(?:i think|i believe|in my opinion|we believe|seems to me)\b", re.IGNORECASE)
_MIN_WORDS = 5


@dataclass(frozen=True, slots=True)
class ClaimAssessment:
    needs_citation: bool
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Claim:
    id: str
    sentence: Sentence
    needs_citation: bool
    reasons: tuple[str, ...]
    fingerprint: str
    """A hash of the claim's words: stable across edits elsewhere in the document."""

    @property
    def text(self) -> str:
        return self.sentence.text


@dataclass(frozen=True, slots=True)
class Atom:
    """One independently checkable fact of a claim ("launched in 2024"), with the span of the
    document's text that states it, so a finding can point at the failing part of the sentence."""

    text: str
    start: int
    end: int


def assess(sentence_text: str) -> ClaimAssessment:
    """Judge one sentence (markers already removed)."""
    text = sentence_text.strip()
    words = _WORD.findall(text)
    if text.endswith("?"):
        return ClaimAssessment(False, ("a question",))
    if _FRAMING.match(text) or _HEDGE_OPINION.search(text):
        return ClaimAssessment(False, ("the writer's own framing",))
    if len(words) < _MIN_WORDS:
        return ClaimAssessment(False, ("too short to be a factual claim",))

    reasons: list[str] = []
    unlabelled = _LABEL.sub(" ", text)  # "Figure 1", "Section 2.1": the document's own parts
    without_years = _YEAR.sub(" ", unlabelled)
    if _NUMBER.search(without_years) and re.search(r"\d", without_years):
        reasons.append("states a figure")
    if _YEAR.search(text) or _MONTH_DATE.search(text):
        reasons.append("gives a date")
    others = _OWN_WORK.sub(" ", unlabelled)  # "we measured …" reports the writer's own work
    own_work = others != unlabelled
    if _REPORTING.search(others) or (
        _FOUND.search(others) and (_RESEARCH.search(others) or _SOURCES.search(others))
    ):
        reasons.append("reports a finding")
    if _SOURCES.search(others):
        reasons.append("refers to a study or source")
    if _QUOTE.search(text):
        reasons.append("quotes someone")
    if _COMPARISON.search(text):
        reasons.append("makes a comparison")
    if _SUPERLATIVE.search(text):
        reasons.append("makes a superlative claim")
    if _CAUSAL.search(text):
        reasons.append("claims a cause or association")
    if _PREVALENCE.search(text) and len(reasons) >= 1:
        reasons.append("generalises about prevalence")
    if not reasons and own_work:
        return ClaimAssessment(False, ("the writer's own work",))
    if not reasons and _NAMED.search(unlabelled) and len(words) >= 8:
        reasons.append("makes a claim about a named entity")
    return ClaimAssessment(bool(reasons), tuple(reasons) if reasons else ("no factual signal",))


def make_claims(sentences: list[Sentence]) -> list[Claim]:
    claims: list[Claim] = []
    for sentence in sentences:
        verdict = assess(sentence.text)
        claims.append(
            Claim(
                id=f"c{sentence.index + 1}",
                sentence=sentence,
                needs_citation=verdict.needs_citation,
                reasons=verdict.reasons,
                fingerprint=fingerprint(sentence.text),
            )
        )
    return claims


def fingerprint(text: str) -> str:
    normalised = " ".join(text.lower().split())
    return hashlib.sha1(normalised.encode("utf-8"), usedforsecurity=False).hexdigest()[:16]
