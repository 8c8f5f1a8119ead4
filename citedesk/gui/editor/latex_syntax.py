"""LaTeX colouring for the editor: commands, comments and math in muted colours, line by line.

The highlighter (`highlighter.FindingHighlighter`) paints this layer first and the finding marks
over it, so a mark keeps the colour of the text it lies on and the colour never hides a mark.

Why a small hand-written scanner and not pylatexenc, which reads LaTeX for the audit: colouring
runs on one line at a time (Qt's highlighter asks block by block, as the writer types), on text
that is half typed most of the time, and must never fail or take long. A parse of the whole file
per keystroke would be too slow, and an unbalanced brace mid-edit would stop it; what colouring
needs is where a command name, a comment or a math span starts and ends, which a line scanner
with a small carried state (inside `$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]`, a math or verbatim
environment) finds exactly. Nothing here decides what is cited: that is the dialect's reading.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from citedesk.gui.qt import QColor, QTextCharFormat

COMMAND, COMMENT, MATH = "command", "comment", "math"
TEXT = -1
"""The state of a line that starts outside math (Qt's `previousBlockState` of the first block)."""
INLINE, DISPLAY, PAREN, BRACKET = 1, 2, 3, 4
"""Inside `$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]`."""
MATH_ENVS = (
    "equation", "equation*", "align", "align*", "gather", "gather*", "multline", "multline*",
    "eqnarray", "eqnarray*", "flalign", "flalign*", "alignat", "alignat*", "math", "displaymath",
)  # fmt: skip
VERBATIM_ENVS = ("verbatim", "verbatim*", "lstlisting", "minted", "comment", "Verbatim")
ENV_BASE = 10
"""Inside math environment i: state ENV_BASE + i; inside verbatim environment j: VERBATIM_BASE + j."""
VERBATIM_BASE = 100

_TEXT_TOKEN = re.compile(r"%|\\(?:[A-Za-z@]+\*?|.)|\$\$?")
_BEGIN = re.compile(r"\\begin\s*\{([A-Za-z*]+)\}")
_VERB = re.compile(r"\\verb\*?([^A-Za-z\s*])")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


@dataclass(frozen=True)
class Colours:
    command: str
    comment: str
    math: str


LIGHT = Colours(command="#2c5d87", comment="#7b8487", math="#6a4c93")
DARK = Colours(command="#82aede", comment="#8d979a", math="#c3a6e6")
"""Muted on either background: the text stays the thing read, the marks stay the loudest."""

Span = tuple[int, int, str]
"""(start, length, kind) in the line, in Qt's units (UTF-16)."""


def scan_line(text: str, state: int) -> tuple[list[Span], int]:
    """The coloured spans of one line, in order and disjoint, and the state the next line starts
    in. An empty line ends inline math, as it ends a paragraph in TeX."""
    if not text.strip() and state in (INLINE, PAREN):
        return [], TEXT
    spans: list[Span] = []
    position = 0
    while position < len(text):
        if state >= VERBATIM_BASE:
            position, state = _verbatim(text, position, state)
        elif state != TEXT:
            position, state = _math(text, position, state, spans)
        else:
            position, state = _text(text, position, spans)
    return _utf16(text, spans), state


def _text(text: str, position: int, spans: list[Span]) -> tuple[int, int]:
    """From `position` outside math: to the next math or verbatim start, or to the line's end."""
    for token in _TEXT_TOKEN.finditer(text, position):
        word, start = token.group(), token.start()
        if word == "%":
            spans.append((start, len(text) - start, COMMENT))
            return len(text), TEXT
        if word.startswith("$") or word in ("\\(", "\\["):
            spans.append((start, len(word), MATH))  # the opening delimiter is the math's
            return token.end(), {"$": INLINE, "$$": DISPLAY, "\\(": PAREN, "\\[": BRACKET}[word]
        if len(word) == 2 and not word[1].isalpha():
            continue  # an escaped character (\%, \$, \\): text, not a command
        verb = _VERB.match(text, start)
        if verb:
            spans.append((start, verb.end() - start, COMMAND))
            close = text.find(verb.group(1), verb.end())
            return (len(text) if close < 0 else close + 1), TEXT
        spans.append((start, token.end() - start, COMMAND))
        begin = _BEGIN.match(text, start)
        if begin:
            name = begin.group(1)
            if name in MATH_ENVS or name in VERBATIM_ENVS:
                spans[-1] = (start, begin.end() - start, COMMAND)
                base, names = (ENV_BASE, MATH_ENVS) if name in MATH_ENVS else (VERBATIM_BASE, VERBATIM_ENVS)
                return begin.end(), base + names.index(name)
    return len(text), TEXT


def _closing(state: int) -> str:
    if state == INLINE:
        return "$"
    if state == DISPLAY:
        return "$$"
    if state in (PAREN, BRACKET):
        return "\\)" if state == PAREN else "\\]"
    return "\\end{" + MATH_ENVS[state - ENV_BASE] + "}"


def _math(text: str, position: int, state: int, spans: list[Span]) -> tuple[int, int]:
    """From `position` inside math: to its closing delimiter (math), or to a comment, or the end."""
    closing = _closing(state)
    index = position
    while index < len(text):
        char = text[index]
        if char == "\\" and not text.startswith(closing, index):
            index += 2  # \$ and \% are characters of the math
            continue
        if char == "%":
            _add(spans, position, index, MATH)
            spans.append((index, len(text) - index, COMMENT))
            return len(text), state
        if text.startswith(closing, index):
            end = index + len(closing)
            if closing.startswith("\\end"):
                _add(spans, position, index, MATH)
                spans.append((index, end - index, COMMAND))
            else:
                _add(spans, position, end, MATH)
            return end, TEXT
        index += 1
    _add(spans, position, len(text), MATH)
    return len(text), state


def _verbatim(text: str, position: int, state: int) -> tuple[int, int]:
    """Inside a verbatim environment nothing is coloured, up to its `\\end{…}`."""
    closing = "\\end{" + VERBATIM_ENVS[state - VERBATIM_BASE] + "}"
    found = text.find(closing, position)
    return (len(text), state) if found < 0 else (found, TEXT)


def _add(spans: list[Span], start: int, end: int, kind: str) -> None:
    if end > start:
        spans.append((start, end - start, kind))


def _utf16(text: str, spans: list[Span]) -> list[Span]:
    """Python offsets to Qt's: a character outside the BMP (an emoji) is two UTF-16 units."""
    if not spans or not _ASTRAL.search(text):
        return spans
    units = [0]
    for char in text:
        units.append(units[-1] + (2 if ord(char) > 0xFFFF else 1))
    return [(units[s], units[s + n] - units[s], kind) for s, n, kind in spans]


@functools.cache
def syntax_format(kind: str, dark: bool) -> QTextCharFormat:
    """The colour of a kind of LaTeX text (comments also in italics), built once per theme."""
    colours = DARK if dark else LIGHT
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(getattr(colours, kind)))
    if kind == COMMENT:
        fmt.setFontItalic(True)
    return fmt
