"""LaTeX text that reads otherwise than its characters: what `\\iffalse … \\fi` switches off (never
read), and figures and units written as siunitx commands or `\\textdegree` (read as the symbols a
reader sees). `core.dialects.latex.reading` asks these while it reads a source; pure functions on the text."""

from __future__ import annotations

import re

from citedesk.core.spans import Span

QUANTITY_MACROS = {"SI": 2, "qty": 2, "SIrange": 3, "qtyrange": 3, "si": 1, "unit": 1, "num": 1}
"""siunitx's figures and units (`\\SI{2.5}{\\celsius}`, `\\qty{25}{\\percent}`): how many arguments."""
_UNIT_SYMBOLS = {
    "celsius": "°C",
    "degreeCelsius": "°C",
    "fahrenheit": "°F",
    "kelvin": "K",
    "percent": "%",
    "degree": "°",
    "metre": "m",
    "meter": "m",
    "gram": "g",
    "second": "s",
    "minute": "min",
    "hour": "h",
    "day": "d",
    "litre": "L",
    "liter": "L",
    "hectare": "ha",
    "tonne": "t",
    "watt": "W",
    "joule": "J",
    "volt": "V",
    "ampere": "A",
    "hertz": "Hz",
    "pascal": "Pa",
    "newton": "N",
    "mole": "mol",
    "kilo": "k",
    "mega": "M",
    "giga": "G",
    "milli": "m",
    "micro": "µ",
    "nano": "n",
    "centi": "c",
    "per": "/",
    "squared": "²",
    "cubed": "³",
    "square": "",
    "cubic": "",
}
"""siunitx's unit macros as the symbols a reader sees."""
DEGREE = re.compile(r"\\(?:textdegree|degree)(?![A-Za-z])(?:\{\})?\s*([CF](?![A-Za-z]))?")
"""`\\textdegree C`, `\\degree{}F`: the sign and its scale's letter."""
_UNIT_MACRO = re.compile(r"\\([A-Za-z]+)\s*")
_CONDITIONAL = re.compile(r"\\(?:newif\\)?(?:if[A-Za-z@]*|fi|else)(?![A-Za-z@])")


def mask_switched_off(text: str) -> tuple[str, list[Span]]:
    """`text` with what `\\iffalse … \\fi` and `\\if0 … \\fi` switch off blanked (to `\\else`, when
    there is one: the text after it is read, its `\\fi` blanked), nested conditionals counted,
    and those spans. A conditional after a `%` on its line is a comment's."""
    tokens = [m for m in _CONDITIONAL.finditer(text) if not _commented(text, m.start())]
    spans: list[Span] = []
    i = 0
    while i < len(tokens):
        opening = tokens[i]
        i += 1
        if opening.group(0) != "\\iffalse" and not text.startswith("\\if0", opening.start()):
            continue
        depth, start = 1, opening.start()
        while i < len(tokens) and depth:
            word = tokens[i].group(0)
            if word == "\\fi":
                depth -= 1
                if depth == 0 and start >= 0:
                    spans.append((start, tokens[i].end()))
                elif depth == 0:
                    spans.append(tokens[i].span())  # the `\\fi` of a read `\\else` branch
            elif word == "\\else" and depth == 1 and start >= 0:
                spans.append((start, tokens[i].end()))
                start = -1
            elif word.startswith("\\if"):
                depth += 1
            i += 1
        if depth and start >= 0:
            spans.append((start, len(text)))  # never closed: off to the end, as TeX reads it
    pieces, cursor = [], 0
    for start, end in spans:
        pieces += [text[cursor:start], " " * (end - start)]
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces), spans


def _commented(text: str, at: int) -> bool:
    line = text[text.rfind("\n", 0, at) + 1 : at]
    return re.search(r"(?<!\\)%", line) is not None


def said_quantity(name: str, groups: list[str]) -> str:
    """`\\SI{2.5}{\\celsius}` → "2.5 °C", `\\qty{25}{\\percent}` → "25%", `\\qtyrange{10}{20}{\\percent}`
    → "10-20%", `\\num{1200}` → "1200"."""
    unit = _UNIT_MACRO.sub(lambda m: _UNIT_SYMBOLS.get(m.group(1), ""), groups[-1]).strip()
    unit = unit if unit == "%" or not unit else " " + unit
    figures = [" ".join(g.split()) for g in groups]
    if name in ("num", "si", "unit"):
        return figures[0] if name == "num" else unit.strip()
    if name in ("SIrange", "qtyrange"):
        return f"{figures[0]}-{figures[1]}{unit}"
    return f"{figures[0]}{unit}"
