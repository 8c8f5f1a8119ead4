"""Does a sentence need a citation, and why.

A rule-based judgement that errs towards the writer: factual signals (figures, dates, named
sources, reporting verbs, comparisons, superlatives, quotations, causal and prevalence claims) ask
for a citation; questions, the writer's own framing and transitions do not. Each reason is a short
phrase the report and the window show verbatim.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass

from citedesk.core.document.sentences import Sentence
from citedesk.core.document.voice import CAPTION, SIGNPOSTING, is_caption, own_voice, without_addresses
from citedesk.core.names import in_name

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
_OWN_SOURCE = re.compile(
    r"\b(?:our|my|this|these|the present|the current|the same)\s+(?:own\s+)?(?:[\w-]+\s+)?"
    r"(?:study|studies|survey|surveys|research|analysis|analyses|data|dataset|trial|paper|experiment|experiments)\b",
    re.IGNORECASE,
)
"""The writer's own study or data ("our survey", "this study", "the present analysis"): no source
is referred to."""
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
    r"|\b(?:increased|decreased|doubled|tripled|halved|rose|fell|grew|declined|dropped|outperform\w*)\b"
    # a change said in the present ("hyperfibrinogenemia increases rates of …") and a likelihood
    # compared ("women with a higher birth weight are more likely to develop …")
    r"|\b(?:increases|decreases|reduces|lowers|doubles|halves)\s+(?:the\s+)?[\w-]+"
    r"|\b(?:more|less)\s+likely\s+to\b",
    re.IGNORECASE,
)
_UNIT = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a|an)"
_TENS = r"(?:ten|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|a hundred|one hundred)"
_ABOUT = r"(?:nearly|almost|about|around|roughly|approximately|over|under|some|only|just|fully|barely|by|than|to|more than|less than|fewer than|at least)"
_MEASURE = (
    r"(?:hours?|minutes?|seconds?|days?|weeks?|months?|years?|decades?|centuries|century|metres?|meters?|"
    r"kilometres?|kilometers?|miles?|feet|foot|inch(?:es)?|kilograms?|kilos?|pounds?|tonnes?|tons?|litres?|"
    r"liters?|gallons?|degrees?|hectares?|acres?)"
)
_FRACTION = (
    rf"(?:{_UNIT}[\s-](?:halves|thirds?|quarters?|fifths?|sixths?|sevenths?|eighths?|ninths?|tenths?))"
)
_FIGURE_WORDS = re.compile(
    # fractions said as a share: "two thirds of", "a quarter of", "half of", "by a third"
    rf"\b{_FRACTION}\s+(?:of|the|as|an?\s+(?:million|billion))\b"
    r"|(?<!first )(?<!second )(?<!latter )(?<!former )(?<!other )(?<!this )\bhalf\s+(?:of|as|the|a\s+(?:million|billion))\b"
    r"(?!\s+(?:the\s+)?(?:chapter|section|thesis|book|essay|paper|century|decade|day|year|hour|time)\b)"
    rf"|\b{_ABOUT}\s+half\b"
    rf"|\b{_ABOUT}\s+{_FRACTION}\b"
    # multiples: "doubled", "tripled", "twice as", "three times as many"
    r"|\b(?:doubled|tripled|trebled|quadrupled|halved|twofold|threefold|fourfold|tenfold)\b"
    rf"|\b(?:twice|{_UNIT} times)\s+(?:as|more|less|higher|lower|larger|smaller|greater|the)\b"
    # ratios: "one in five", "nine out of ten"
    rf"|\b{_UNIT}\s+(?:in|out of)\s+(?:{_UNIT}|{_TENS}|a thousand|\d+)\b(?<!\ba in a)(?<!\bone in one)(?<!\ban in an)"
    # quantities: "nearly a million", "two billion", "tens of thousands", "forty per cent"
    rf"|\b(?:{_UNIT}|{_TENS}|several|a few)\s+(?:hundred|thousand|million|billion|trillion|dozen)\b"
    r"|\b(?:tens|hundreds|thousands|millions|billions)\s+of\b"
    # a measure in words: "almost an hour of sleep", "by two years", "some three kilometres"
    rf"|\b{_ABOUT}\s+(?:{_UNIT}|{_TENS})\s+{_MEASURE}\b"
    # a count of things in words beyond the few a writer counts out: "twelve cities", "forty schools"
    r"|\b(?:eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|"
    r"fifty|sixty|seventy|eighty|ninety)(?:-\w+)?\s+(?:[a-z]+\s+)?[a-z]{3,}s\b"
    rf"|\b(?:{_UNIT}|{_TENS}|fifteen|twenty-\w+|thirty-\w+|forty-\w+|fifty-\w+)\s+(?:per\s?cent|percent)\b"
    # a majority with a quantity: "the majority of households", "most of the 40 schools"
    r"|\b(?:the|a)\s+(?:(?:vast|large|clear|slim|narrow|small|overwhelming|two-thirds)\s+)?majority\s+of\b"
    rf"|\bmost\s+of\s+(?:the|its|their|these|those)\s+(?:\d|(?:{_UNIT}|{_TENS}|twenty|thirty|forty|fifty)\b)",
    re.IGNORECASE,
)
"""A figure written in words ("nearly two thirds of households", "tripled", "one in five"): as much
a figure to cite as "64%"."""
_SUPERLATIVE = re.compile(
    r"\b(?:the\s+(?:most|least|largest|smallest|biggest|highest|lowest|first|last|only|oldest|newest|"
    r"fastest|slowest|best|worst|leading|greatest|longest|shortest|deadliest|richest|poorest)"
    r"|record|unprecedented|world'?s)\b"
    # without "the": "was largest in girls", "is most common in spring"
    r"|\b(?:is|was|are|were|been|remains?|remained)\s+(?:\w+ly\s+)?(?:largest|smallest|biggest|highest|"
    r"lowest|greatest|strongest|weakest|fastest|slowest|deadliest|most\s+(?!of\b)\w+|least\s+(?!of\b)\w+)\b",
    re.IGNORECASE,
)
_QUOTE = re.compile(r"[\"“][^\"”]{12,}[\"”]")
_CAUSAL = re.compile(
    r"\b(?:causes?|caused|leads? to|led to|results? in|resulted in|linked to|associated with|"
    r"increases? the risk|reduces? the risk|prevents?|contributes? to|is responsible for|"
    # what a study finds of a cause: an effect, a mechanism, a relationship ("polymeal nutrition
    # reduces …", "hypocretin neurones induce …", "is mediated by reactive oxygen species",
    # "an inverse relationship between hip fractures and statin use")
    r"induces|induce|induced|inhibits|inhibit|mediated by|improves|worsens|protects against|"
    r"(?:relationship|association|correlation)\s+between|correlated with|correlates with|links to|"
    r"(?:positive|negative|significant|beneficial|harmful)\s+(?:impact|effect|influence)s?\s+on)\b",
    re.IGNORECASE,
)
_PREVALENCE = re.compile(
    r"\b(?:most|majority|minority|nearly all|almost all|many|widely|commonly|typically|on average)\b",
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


_THIRD_PARTY = re.compile(
    r"\baccording to\b|\b(?:who|which|whose \w+)\s+(?:\w+ly\s+)?(?:found|showed|shows|reported|reports|"
    r"demonstrated|estimated|estimates|observed|documented|concluded)\b",
    re.IGNORECASE,
)
"""Someone else's finding inside the writer's signposting ("We follow Lee, who found that …"): the
finding still wants its source."""


@functools.lru_cache(maxsize=65_536)
def assess(sentence_text: str) -> ClaimAssessment:
    """Judge one sentence (markers and inline code already removed). Kept by text: a re-audit
    judges again only the sentences that changed (the answer is immutable)."""
    text = sentence_text.strip()
    words = _WORD.findall(text)
    if not words:
        return ClaimAssessment(False, ("no words to check",))
    if text.endswith("?"):
        return ClaimAssessment(False, ("a question",))
    voice = own_voice(text)
    if voice is not None and (voice != SIGNPOSTING or not _THIRD_PARTY.search(text)):
        return ClaimAssessment(False, (voice,))
    if _FRAMING.match(text) or _HEDGE_OPINION.search(text):
        return ClaimAssessment(False, ("the writer's own framing",))
    if len(words) < _MIN_WORDS:
        return ClaimAssessment(False, ("too short to be a factual claim",))

    reasons: list[str] = []
    plain = without_addresses(text)  # an e-mail address, a link or a file path is none of the below
    unlabelled = _LABEL.sub(" ", plain)  # "Figure 1", "Section 2.1": the document's own parts
    without_years = _YEAR.sub(" ", unlabelled)
    if any(not in_name(without_years, m.start()) for m in _NUMBER.finditer(without_years)):
        reasons.append("states a figure")  # "COVID-19", "Windows 11": a number in a name is none
    if _FIGURE_WORDS.search(unlabelled):
        reasons.append("states a figure in words")
    if _YEAR.search(plain) or _MONTH_DATE.search(plain):
        reasons.append("gives a date")
    others = _OWN_WORK.sub(" ", unlabelled)  # "we measured …" reports the writer's own work
    own_work = others != unlabelled
    if _REPORTING.search(others) or (
        _FOUND.search(others) and (_RESEARCH.search(others) or _SOURCES.search(others))
    ):
        reasons.append("reports a finding")
    if _SOURCES.search(_OWN_SOURCE.sub(" ", others)):
        reasons.append("refers to a study or source")
    if _QUOTE.search(plain):
        reasons.append("quotes someone")
    if _COMPARISON.search(plain):
        reasons.append("makes a comparison")
    if _SUPERLATIVE.search(plain):
        reasons.append("makes a superlative claim")
    if _CAUSAL.search(plain):
        reasons.append("claims a cause or association")
    if _PREVALENCE.search(plain) and len(reasons) >= 1:
        reasons.append("generalises about prevalence")
    if not reasons and own_work:
        return ClaimAssessment(False, ("the writer's own work",))
    if not reasons and _NAMED.search(unlabelled) and len(words) >= 8:
        reasons.append("makes a claim about a named entity")
    return ClaimAssessment(bool(reasons), tuple(reasons) if reasons else ("no factual signal",))


def make_claims(sentences: list[Sentence]) -> list[Claim]:
    """A claim for each sentence, judged on its words without inline code; a block that opens
    with a caption ("Table 2." "Survey response rates by district.") is a caption throughout."""
    claims: list[Claim] = []
    caption_block: int | None = None
    previous_block: int | None = None
    for sentence in sentences:
        words = sentence.prose if sentence.prose is not None else sentence.text
        if sentence.block != previous_block:
            caption_block = sentence.block if is_caption(words) else None
            previous_block = sentence.block
        verdict = ClaimAssessment(False, (CAPTION,)) if caption_block == sentence.block else assess(words)
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
