"""Locators in a pandoc citation's suffix: `pp. 33-35` in `[@doe99, pp. 33-35 and passim]`.

A reading of pandoc's own heuristic (`Text.Pandoc.Citeproc.Locator`) for the en-US locale terms
listed in MANUAL.txt: after an optional comma, either a braced locator (`{pp. iv, vi-xi}`, label
optional) or a label followed by one or more locator words (`pp. 33, 35-37`), each with digits or,
after an explicit label, a roman numeral; with no label, a word with digits is a page
(`[@doe99, 33]`). What follows the locator is the suffix proper (`and passim`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citedesk.core.spans import Span

_TERMS: dict[str, str] = {}
for _label, _forms in {
    "book": "book books bk. bks.",
    "chapter": "chapter chapters chap. chaps.",
    "column": "column columns col. cols.",
    "figure": "figure figures fig. figs.",
    "folio": "folio folios fol. fols.",
    "issue": "issue issues",
    "line": "line lines l. ll.",
    "note": "note notes n. nn.",
    "number": "number numbers no. nos.",
    "opus": "opus opera op. opp.",
    "page": "page pages p. pp.",
    "paragraph": "paragraph paragraphs para. paras. ¶ ¶¶",
    "part": "part parts pt. pts.",
    "section": "section sections sec. secs. § §§",
    "sub-verbo": "sub|verbo sub|verbis s.v. s.vv.",
    "verse": "verse verses v. vv.",
    "volume": "volume volumes vol. vols.",
}.items():
    for _form in _forms.split():
        _TERMS[_form.replace("|", " ")] = _label

_TERM = re.compile(
    "|".join(
        re.escape(term) + ("" if not term[-1].isalpha() else r"(?![^\W\d_])")
        for term in sorted(_TERMS, key=len, reverse=True)
    ),
    re.IGNORECASE,
)
# A locator word: units of letters, digits, symbols, `-`, `–`, `:` (and emphasis marks, which
# pandoc reads through), joined by single periods, optionally in balanced brackets: `33-35`,
# `4.4.8`, `7A(2)(a)(i)-(iv)`, `[28]`.
_UNIT = r"(?:[\w\-–:*]|\\[\[\]])+"
_WORD = re.compile(rf"(?:[(\[]?{_UNIT}(?:\.{_UNIT})*[)\]]?)+")
_SEPARATOR = re.compile(r"[ \t\n]*,?[ \t\n]*")
_ROMAN = re.compile(
    r"(?=[MDCLXVI])M{0,4}(?:C[MD]|D?C{0,3})(?:X[CL]|L?X{0,3})(?:I[XV]|V?I{0,3})", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class Locator:
    """Where in the work: `label` is the CSL term (`page`, `chapter`, …), `value` what follows."""

    label: str
    value: str
    span: Span
    """The value as written (`33-35`)."""
    label_span: Span
    """The label as written (`pp.`); empty where the label is implied (a bare number is a page)."""


def parse_locator(text: str, start: int, end: int) -> Locator | None:
    """The locator at the start of the suffix text[start:end], or None when there is none."""
    pos = start
    if pos < end and text[pos] == ",":
        pos += 1
    while pos < end and text[pos].isspace():
        pos += 1
    if pos >= end:
        return None
    if text[pos] == "{":
        return _delimited(text, pos, end)
    label = ""
    label_span: Span = (pos, pos)
    term = _TERM.match(text, pos, end)
    value_start = pos
    if term is not None:
        after = term.end()
        while after < end and text[after] in " \t\n\u00a0":
            after += 1
        first = _WORD.match(text, after, end)
        if first is not None and _digit_like(first.group(0)):
            label = _TERMS[term.group(0).lower()]
            label_span = term.span()
            value_start = after
    explicit = bool(label)
    words_end = _words(text, value_start, end, explicit)
    if words_end == value_start:
        return None
    return Locator(label or "page", text[value_start:words_end], (value_start, words_end), label_span)


def _words(text: str, pos: int, end: int, explicit: bool) -> int:
    """The end of the run of locator words from `pos` (`pos` itself when the first is no locator)."""
    accepted = pos
    first = True
    while True:
        separator = None if first else _SEPARATOR.match(text, accepted, end)
        word = _WORD.match(text, separator.end() if separator else pos, end)
        if word is None or not word.group(0):
            return accepted
        value = word.group(0)
        if not (_has_digit(value) or (explicit and _digit_like(value))):
            return accepted
        accepted = word.end()
        first = False


def _delimited(text: str, open_pos: int, end: int) -> Locator | None:
    depth = 0
    pos = open_pos
    while pos < end:
        ch = text[pos]
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                break
        pos += 1
    else:
        return None
    inner_start, inner_end = open_pos + 1, pos
    while inner_start < inner_end and text[inner_start].isspace():
        inner_start += 1
    label = ""
    label_span: Span = (inner_start, inner_start)
    term = _TERM.match(text, inner_start, inner_end)
    value_start = inner_start
    if term is not None:
        label = _TERMS[term.group(0).lower()]
        label_span = term.span()
        value_start = term.end()
        while value_start < inner_end and text[value_start].isspace():
            value_start += 1
    elif inner_start < inner_end and text[inner_start].isdigit():
        label = "page"
    value = text[value_start:inner_end].rstrip()
    if not label and not value:
        return None  # `@smith{}`: braces that only stop the suffix being read as a locator
    return Locator(label, value, (value_start, value_start + len(value)), label_span)


def _has_digit(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


def _digit_like(word: str) -> bool:
    """Digits anywhere, or a roman numeral among the word's parts (`xi`, `(a)(iv)`)."""
    if _has_digit(word):
        return True
    return any(_ROMAN.fullmatch(part) for part in re.split(r"[()\[\].\-–:*\\]+", word) if part)
