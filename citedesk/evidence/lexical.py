"""Words as the judges see them: content words, light stems, negations and antonym pairs.

Pure functions, no model: the heuristic judge and retrieval both build on these.
"""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*[A-Za-z]|[A-Za-z]|\d+(?:[.,]\d+)*")

# fmt: off
STOPWORDS = frozenset([
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each",
    "either", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her",
    "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is",
    "it", "its", "itself", "just", "may", "me", "might", "more", "most", "must", "my", "myself",
    "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "our", "ours",
    "ourselves", "out", "over", "own", "same", "shall", "she", "should", "so", "some", "such",
    "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these",
    "they", "this", "those", "through", "to", "too", "under", "until", "up", "upon", "very",
    "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why",
    "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "one", "ones",
    "many", "much", "per", "via", "among", "within", "without", "according", "said", "says",
    "say", "according", "however", "although", "though", "thus", "therefore", "whereas",
    "since", "like", "well", "even", "still", "yet", "s", "t", "including", "include",
    "includes", "included"
])
# fmt: on

# Not "without": a preposition whose negation stays inside its noun phrase ("households without a
# plot bought fewer vegetables" says nothing negative about buying fewer).
# fmt: off
NEGATIONS = frozenset([
    "not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "cannot", "cant",
    "can't", "won't", "wont", "don't", "dont", "doesn't", "doesnt", "didn't", "didnt", "isn't",
    "isnt", "aren't", "arent", "wasn't", "wasnt", "weren't", "werent", "lack", "lacks",
    "lacked", "lacking", "absence", "absent", "fail", "fails", "failed", "unable"
])
# fmt: on

_ANTONYM_PAIRS = [
    ("increase", "decrease"),
    ("increase", "reduce"),
    ("increase", "lower"),
    ("rise", "fall"),
    ("rise", "decline"),
    ("higher", "lower"),
    ("high", "low"),
    ("more", "less"),
    ("more", "fewer"),
    ("greater", "smaller"),
    ("larger", "smaller"),
    ("large", "small"),
    ("long", "short"),
    ("longer", "shorter"),
    ("positive", "negative"),
    ("positively", "negatively"),
    ("promote", "inhibit"),
    ("promote", "suppress"),
    ("activate", "inhibit"),
    ("activate", "suppress"),
    ("enhance", "impair"),
    ("enhance", "reduce"),
    ("improve", "worsen"),
    ("benefit", "harm"),
    ("beneficial", "harmful"),
    ("effective", "ineffective"),
    ("safe", "unsafe"),
    ("safe", "dangerous"),
    ("gain", "loss"),
    ("win", "lose"),
    ("won", "lost"),
    ("accept", "reject"),
    ("support", "oppose"),
    ("before", "after"),
    ("first", "last"),
    ("earliest", "latest"),
    ("maximum", "minimum"),
    ("upregulate", "downregulate"),
    ("upregulated", "downregulated"),
    ("overexpression", "underexpression"),
    ("present", "absent"),
    ("common", "rare"),
    ("strong", "weak"),
    ("stronger", "weaker"),
    ("faster", "slower"),
    ("fast", "slow"),
    ("early", "late"),
    ("earlier", "later"),
    ("older", "younger"),
    ("old", "young"),
    ("male", "female"),
    ("men", "women"),
    ("north", "south"),
    ("east", "west"),
    ("cause", "prevent"),
    ("protect", "harm"),
    ("protective", "harmful"),
    ("sufficient", "insufficient"),
    ("necessary", "unnecessary"),
    ("likely", "unlikely"),
    ("associated", "unassociated"),
    ("correlated", "uncorrelated"),
    ("significant", "insignificant"),
    ("all", "none"),
    ("always", "never"),
    ("majority", "minority"),
    ("above", "below"),
    ("over", "under"),
    ("inside", "outside"),
    ("win", "defeat"),
    ("born", "died"),
    ("open", "closed"),
    ("public", "private"),
    ("legal", "illegal"),
    ("true", "false"),
    ("success", "failure"),
    ("successful", "unsuccessful"),
]


def _stem(word: str) -> str:
    """A light, deterministic stem: plural, -ing, -ed, -ly and common derivations, then 7 letters."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    w = w.strip("'-")
    if len(w) > 4:
        for suffix, repl in (
            ("ational", "ate"),
            ("ization", "ize"),
            ("isation", "ize"),
            ("iveness", "ive"),
            ("fulness", "ful"),
            ("ousness", "ous"),
            ("ations", "ate"),
            ("ation", "ate"),
            ("ements", ""),
            ("ement", ""),
            ("ments", ""),
            ("ment", ""),
            ("ness", ""),
            ("ities", "ity"),
            ("ings", ""),
            ("ing", ""),
            ("edly", ""),
            ("ied", "y"),
            ("ies", "y"),
            ("ed", ""),
            ("ly", ""),
            ("es", ""),
            ("s", ""),
        ):
            if w.endswith(suffix) and len(w) - len(suffix) >= 3:
                w = w[: len(w) - len(suffix)] + repl
                break
    if w.endswith("e") and len(w) > 4:
        w = w[:-1]
    return w[:7]


stem = lru_cache(maxsize=200_000)(_stem)

_ANTONYMS: dict[str, frozenset[str]] = {}
for _a, _b in _ANTONYM_PAIRS:
    for _x, _y in ((_a, _b), (_b, _a)):
        _ANTONYMS[stem(_x)] = _ANTONYMS.get(stem(_x), frozenset()) | {stem(_y)}


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def content_stems(text: str) -> list[str]:
    """The stems of the words that carry content (no stopwords, no negations), in order."""
    return list(_content_stems(text))


@lru_cache(maxsize=32_768)
def _content_stems(text: str) -> tuple[str, ...]:
    """Kept by text: a claim is read against every source it is compared with, a passage by every
    claim retrieval ranks it for, and a re-audit reads both again."""
    out = []
    for word in words(text):
        lower = word.lower()
        if lower in STOPWORDS or lower in NEGATIONS or (len(lower) < 2 and not lower.isdigit()):
            continue
        out.append(stem(lower))
    return tuple(out)


_CLAUSE = re.compile(r"[^.,;:!?()]+")


def _after(text: str, preposition: str, reach: int = 3) -> set[str]:
    """Content stems within `reach` words after each `preposition` ("with a garden" → {garden})."""
    tokens = [w.lower() for w in words(text)]
    found: set[str] = set()
    for index, token in enumerate(tokens):
        if token == preposition:
            found.update(
                stem(t) for t in tokens[index + 1 : index + 1 + reach] if t not in STOPWORDS and len(t) > 1
            )
    return found


def with_without_clash(claim: str, evidence: str) -> bool:
    """One text has "with X" where the other has only "without X" ("children who grew up without a
    garden" against "… with a garden"): a negation kept inside a noun phrase, which the clause-level
    count leaves out."""
    claim_with, claim_without = _after(claim, "with"), _after(claim, "without")
    evidence_with, evidence_without = _after(evidence, "with"), _after(evidence, "without")
    return bool(
        (claim_with & evidence_without) - evidence_with or (claim_without & evidence_with) - evidence_without
    )


def negation_count(text: str) -> int:
    """Negations that negate something: an elliptical one that ends its clause ("half as likely
    to die as trees that were not.") carries no content of its own and is not counted."""
    count = 0
    for clause in _CLAUSE.findall(text):
        tokens = words(clause)
        for index, word in enumerate(tokens):
            lower = word.lower().replace("’", "'")
            if (lower in NEGATIONS or lower.endswith("n't")) and _content_follows(tokens[index + 1 :]):
                count += 1
    return count


def _content_follows(tokens: list[str]) -> bool:
    return any(t.lower() not in STOPWORDS and t.lower() not in NEGATIONS for t in tokens)


# negation read in its clause ------------------------------------------------------------------------
_SCOPE_BREAK = re.compile(
    r"[.,;:!?()]|\b(?:and|but|while|whereas|although|though|yet|however|unlike)\b", re.IGNORECASE
)
_CONTRASTIVE = (
    re.compile(r",\s*(?:and\s+|but\s+)?not\s+[^,.;:!?()]+(?:,|(?=[.;:!?)]|$))", re.IGNORECASE),
    re.compile(r"\bnot\s+(?!only\b)[^,.;:!?()]*?\bbut\b(?:\s+rather\b)?", re.IGNORECASE),
)
"""A negated alternative, not a negated claim: "Cars, not buses, are …" (and "…, not buses.")
claims something about cars; "not buses but cars" likewise."""


def scope_clauses(text: str) -> list[str]:
    """The text cut where a negation's reach ends: at punctuation and at the words that join two
    clauses ("not expensive, and it is safe", "costs rose while ridership fell")."""
    return [part for part in _SCOPE_BREAK.split(text) if part.strip()]


def without_contrast(text: str) -> str:
    """The text with its negated alternatives left out ("X, not Y, is the most common" → "X is the
    most common"): what is negated there is the alternative, not the claim."""
    for pattern in _CONTRASTIVE:
        text = pattern.sub(" ", text)
    return text


def _negations(tokens: list[str]) -> list[int]:
    """Where the tokens negate something (an elliptical negation that ends its clause does not;
    "not only" is emphasis, not negation)."""
    found = []
    for index, word in enumerate(tokens):
        lower = word.lower().replace("’", "'")
        if not (lower in NEGATIONS or lower.endswith("n't")):
            continue
        after = tokens[index + 1 :]
        if lower == "not" and after and after[0].lower() == "only":
            continue
        if _content_follows(after):
            found.append(index)
    return found


def claim_negations(claim: str) -> int:
    """Negations of the claim itself: a negated alternative ("X, not Y") and "not only" do not
    count, nor an elliptical one."""
    return sum(len(_negations(words(clause))) for clause in _CLAUSE.findall(without_contrast(claim)))


def negations_about(text: str, wanted: set[str]) -> int:
    """Negations in `text` whose reach (the rest of their clause) holds one of the claim's content
    stems: "not expensive, and it is safe" does not negate "the drug is safe"; "did not reduce
    costs" negates "reduced costs"."""
    count = 0
    for clause in scope_clauses(text):
        tokens = words(clause)
        for index in _negations(tokens):
            reach = {stem(t.lower()) for t in tokens[index + 1 :]}
            if reach & wanted:
                count += 1
    return count


def antonyms(word_stem: str) -> frozenset[str]:
    return _ANTONYMS.get(word_stem, frozenset())


def antonym_clashes(claim: set[str], evidence: set[str]) -> int:
    """Claim stems whose antonym, and not themselves, appear in the evidence."""
    return sum(1 for s in claim if s not in evidence and antonyms(s) & evidence)


def capitalised(text: str) -> set[str]:
    """Stems of capitalised words not at a sentence start: a cheap stand-in for named entities."""
    found: set[str] = set()
    tokens = words(text)
    for index, token in enumerate(tokens):
        if index == 0 or not token[0].isupper() or token.lower() in STOPWORDS:
            continue
        found.add(stem(token))
    return found


# fmt: off
_UP = [
    "increase", "increased", "rise", "rose", "raise", "elevate", "elevated", "elevation", "higher",
    "high", "highest", "greater", "greatest", "more", "enhance", "enhanced", "boost", "promote",
    "accelerate", "induce", "activate", "activation", "upregulate", "upregulated", "upregulation",
    "exacerbate", "augment", "amplify", "stimulate", "stimulation", "trigger", "facilitate",
    "worsen", "worse", "larger", "grow", "growth", "surge", "spike", "double", "doubled", "triple",
    "tripled", "exceed", "excess", "positively"
]
_DOWN = [
    "decrease", "decreased", "reduce", "reduced", "reduction", "lower", "lowest", "low", "less",
    "fewer", "least", "decline", "drop", "fall", "fell", "cut", "cuts", "diminish", "attenuate",
    "attenuation", "inhibit", "inhibition", "suppress", "suppression", "block", "prevent",
    "prevention", "protect", "protective", "protection", "impair", "downregulate", "downregulated",
    "downregulation", "alleviate", "mitigate", "limit", "slow", "abolish", "eliminate", "minimize",
    "loss", "lose", "lost", "shrink", "smaller", "halve", "halved", "negatively", "inversely"
]
# fmt: on
_UPWARD = frozenset(stem(w) for w in _UP)
_DOWNWARD = frozenset(stem(w) for w in _DOWN)
_STATEMENT = re.compile(r"[^.;:!?]+")


def direction(text: str) -> tuple[int, int]:
    """How many times the text says something goes up, and how many down ("reduces", "lower",
    "inhibits"); a negation in the same clause turns one into the other ("did not increase")."""
    up = down = 0
    for statement in _STATEMENT.findall(text):
        negated = negation_count(statement) % 2 == 1
        for token in words(statement):
            s = stem(token.lower())
            if s in _UPWARD or s in _DOWNWARD:
                if (s in _UPWARD) != negated:
                    up += 1
                else:
                    down += 1
    return up, down


def opposite_directions(claim: str, evidence: str) -> bool:
    """The claim says only "up" where the evidence says only "down", or the reverse: "raises the
    risk" against "reduces the risk"."""
    claim_up, claim_down = direction(claim)
    evidence_up, evidence_down = direction(evidence)
    return bool(
        (claim_up and not claim_down and evidence_down and not evidence_up)
        or (claim_down and not claim_up and evidence_up and not evidence_down)
    )


HEDGES = frozenset(
    ["may", "might", "could", "can", "possibly", "potentially", "suggest", "suggests", "likely"]
)


def hedged(text: str) -> bool:
    """The text claims a possibility rather than a fact ("may reduce", "could help")."""
    return any(word.lower() in HEDGES for word in words(text))
