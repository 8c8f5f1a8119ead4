"""How long pandoc citations and bibliographies take to read (figures).

    .venv/bin/python -m tests.bench.citations_speed

1. `find_citations` on a 20,000-word Markdown document with 2,000 citation groups.
2. `parse_bibliography` on BibTeX, CSL-JSON and RIS bibliographies of 2,000 entries, built by
   repeating the real exports in tests/fixtures/bibliographies under new keys.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from citedesk.core.bibliographies.model import BibFormat
from citedesk.core.bibliographies.parse import parse_bibliography
from citedesk.core.document.citekeys import find_citations

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "bibliographies"


def timed(label: str, run: object, repeat: int = 3) -> None:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    print(f"  {label:<58} {best * 1000:8.1f} ms  ({result})")


def main() -> None:
    sentence = "Drought rose in the north while rainfall fell sharply across the region"
    forms = ["[@doe99]", "[see @roe:2020, pp. 33-35; -@moe]", "@doe99 [p. 4]", "[@{odd.key.}; @b]"]
    paragraphs = [
        " ".join(f"{sentence} {forms[(p + s) % 4]}." for s in range(4)) + " Mail me@x.org, `code [@no]`."
        for p in range(500)
    ]
    text = "\n\n".join(paragraphs)
    print(f"Citations ({len(text.split())} words):")
    timed("find_citations", lambda: f"{len(find_citations(text))} groups")

    print("Bibliographies (2,000 entries each):")
    bib = (FIXTURES / "bbt-bibtex.bib").read_text(encoding="utf-8")
    entries = re.split(r"(?m)^(?=@)", bib)[1:]
    big_bib = "".join(
        re.sub(r"^(@\w+\{)([^,]+),", rf"\g<1>\g<2>-{i},", e) for i in range(400) for e in entries
    )
    timed(
        "BibTeX (bibtexparser 2 + middlewares)",
        lambda: f"{len(parse_bibliography(big_bib, BibFormat.BIBTEX).entries)} entries",
        1,
    )
    items = json.loads((FIXTURES / "bbt-csl.json").read_text(encoding="utf-8"))
    big_json = json.dumps([{**item, "id": f"{item['id']}-{i}"} for i in range(500) for item in items])
    timed("CSL-JSON", lambda: f"{len(parse_bibliography(big_json, BibFormat.CSL_JSON).entries)} entries")
    ris = (FIXTURES / "rispy-full.ris").read_text(encoding="utf-8")
    big_ris = ris * 1000
    timed("RIS (rispy)", lambda: f"{len(parse_bibliography(big_ris, BibFormat.RIS).entries)} entries")


if __name__ == "__main__":
    main()
