"""How often `core.document.citekeys` reads citations exactly as pandoc does (figures, needs a pandoc binary).

    PANDOC=/path/to/pandoc .venv/bin/python -m tests.bench.citekeys_vs_pandoc [documents] [seed]

Builds random Markdown paragraphs from the pieces that matter to pandoc's citation parser (keys
with punctuation, braces, prefixes, locators, `-`, `;`, brackets, emphasis, e-mail addresses,
code, links), runs `pandoc -f markdown -t json` on each, and compares the citations pandoc finds
(key and mode, in order) with `find_citations`. Prints the agreement and the first disagreements.
pandoc is not a dependency of CiteDesk; any pandoc 3 binary will do (the `pypandoc-binary` wheel
ships one).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from typing import Any

from citedesk.core.document.citekeys import find_citations

PIECES = [
    "@a",
    "@b1",
    "-@c",
    "@Foo_bar.baz.",
    "@{odd.key.}",
    "@a--b",
    "@{http://x.org/p}",
    "@a:b",
    "@пункт3",
    "[",
    "]",
    ";",
    "; ",
    " ",
    " ",
    " ",
    "\n",
    "see ",
    "also ",
    "*see* ",
    "p. 33",
    ", pp. 33-35",
    ", chap. 1",
    "and *passim*",
    "john@doe.com",
    "a.",
    "x",
    "(",
    ")",
    "{",
    "}",
    "(url)",
    "`code @z`",
    "[@a]",
    "[-@b, p. 4]",
    "[see @a; @b]",
    "@a [p. 30]",
    "word",
    "**",
    "*",
    "_",
    "\\",
    ".",
    ",",
    "-",
    "^[",
    "[^1]",
    "$x@y$",
    "<https://e.org/@w>",
]


def _stringify(inlines: list[Any]) -> str:
    return "".join(_stringify_one(i) for i in inlines)


def _stringify_one(node: dict[str, Any]) -> str:
    kind = node["t"]
    if kind == "Str":
        return str(node["c"])
    if kind in ("Space", "SoftBreak", "LineBreak"):
        return " "
    return ""


def _pandoc_cites(node: Any, found: list[tuple[str, str]]) -> None:
    if isinstance(node, dict):
        if node.get("t") == "Cite":
            for citation in node["c"][0]:
                mode = citation["citationMode"]["t"]
                found.append((citation["citationId"], mode))
            # citations nested in a citation's prefix or suffix are rare and not compared
            return
        for value in node.values():
            _pandoc_cites(value, found)
    elif isinstance(node, list):
        for value in node:
            _pandoc_cites(value, found)


_MODES = {"normal": "NormalCitation", "suppress_author": "SuppressAuthor", "author_in_text": "AuthorInText"}


def main(count: int = 300, seed: int = 19) -> None:
    pandoc = os.environ.get("PANDOC", "pandoc")
    rng = random.Random(seed)
    agree = 0
    shown = 0
    for _ in range(count):
        text = "Text " + "".join(rng.choice(PIECES) for _ in range(rng.randint(2, 14))) + "\n"
        out = subprocess.run(
            [pandoc, "-f", "markdown", "-t", "json"], input=text, capture_output=True, text=True, check=True
        )
        theirs: list[tuple[str, str]] = []
        _pandoc_cites(json.loads(out.stdout)["blocks"], theirs)
        ours = [(item.key, _MODES[item.mode.value]) for g in find_citations(text) for item in g.items]
        if ours == theirs:
            agree += 1
        elif shown < 15:
            shown += 1
            print(f"{text!r}\n   pandoc: {theirs}\n   ours:   {ours}")
    print(f"agreement: {agree}/{count} ({agree / count:.1%})")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
