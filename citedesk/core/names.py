"""A number that is part of a name is no figure: `COVID-19`, `SARS-CoV-2`, `GPT-4`, `Windows 11`,
`ISO 9001`, `phase 3`, `Table 2`. One rule, read by the claim test (`core.document.claims`: does a sentence
state a figure?) and by the figures a claim is checked on (`evidence.numbers`)."""

from __future__ import annotations

import re


def _words(words: str) -> frozenset[str]:
    return frozenset(words.split())


_NAME_PREFIXES = _words("mid pre post early late ca circa c non over under top")
"""`mid-2020`, `pre-1990`: a word joined to a figure that is no name."""
_NAME_NOUNS = _words(
    "version phase type stage figure fig table chapter section appendix grade level class step item "
    "wave cohort group round model series release no vol volume part"
)
"""`phase 3`, `type 2`, `table 4`: a lower-case noun that names what follows it."""
_MONTHS = _words(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec spring summer autumn fall winter"
)
_APPROXIMATIONS = _words("over under above below about around nearly almost roughly approximately some")
"""A capitalised word before a figure that qualifies it ("Over 40%"), not a name."""
_BEFORE = re.compile(r"(?:(?P<joined>[A-Za-z][\w]*)-|(?P<word>[A-Za-z][\w]*)\s)$")
SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|[\"“(]\s*)$")
"""What comes right before a sentence's first word (searched backwards from a word's start)."""


def in_name(text: str, start: int) -> bool:
    """Is the number at `start` part of a name (`COVID-19`, `Windows 11`, `ISO 9001`, `phase 3`)?
    A capitalised word before it makes a name, unless it opens the sentence ("In 2020", "About
    40%"), is a month ("March 2020") or qualifies the figure ("Over 40%")."""
    found = _BEFORE.search(text, max(0, start - 40), start)
    if found is None:
        return False
    if found.group("joined"):
        return found.group("joined").lower() not in _NAME_PREFIXES
    word = found.group("word")
    lowered = word.lower()
    if lowered in _NAME_NOUNS:
        return True
    if not word[0].isupper() or lowered in _MONTHS or lowered in _APPROXIMATIONS:
        return False
    return SENTENCE_START.search(text, max(0, found.start() - 3), found.start()) is None
