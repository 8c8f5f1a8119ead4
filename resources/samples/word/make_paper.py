"""Make `paper.docx`, the Word sample: a short article with Zotero citation fields, as Zotero's Word
plugin writes them, and its bibliography field.

Run from the repository (`.venv/bin/python resources/samples/word/make_paper.py`); the file is
written beside this script. python-docx (and its lxml) makes the document; each citation is a complex field
(`w:fldChar` begin / `w:instrText` / separate / the displayed text / end) whose instruction is
`ADDIN ZOTERO_ITEM CSL_CITATION {json}`, the JSON holding a `citationID`, the displayed text and,
per item, Zotero's `id`, its `uris` and its CSL-JSON `itemData`. The instruction is split across
several runs, as Word splits long ones.

What it plants (the sources are in `sources/`, named by each item's citation key, for `--sources`):
- a number mismatch: 12 °C where the fact sheet says 7 °C;
- a swapped citation: the canopy survey's finding cited to the forestry report;
- a grouped citation whose second item adds nothing (the fact sheet, beside the forestry report);
- a fabricated item: a DOI no registry has, for a paper that does not exist (found with the network).

The package is made deterministic (fixed core properties, fixed zip dates), so running this again
gives the same bytes.
"""

from __future__ import annotations

import io
import json
import sys
import zipfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import docx
from docx.oxml.ns import qn
from docx.oxml.xmlchemy import BaseOxmlElement
from docx.text.paragraph import Paragraph

HERE = Path(__file__).resolve().parent
SCHEMA = "https://github.com/citation-style-language/schema/raw/master/csl-citation.json"
USER = "http://zotero.org/users/local/Q1w2E3r4"


@dataclass(frozen=True)
class Item:
    """One Zotero item: its library id, its item key (in its URI) and its CSL-JSON."""

    number: int
    key: str
    data: dict[str, Any]

    def citation_item(self) -> dict[str, Any]:
        return {
            "id": self.number,
            "uris": [f"{USER}/items/{self.key}"],
            "itemData": {"id": self.number, **self.data},
        }


CLIMATE = Item(
    11,
    "HX7Q2KLA",
    {
        "type": "report",
        "title": "Urban heat islands: a fact sheet",
        "publisher": "Regional Climate Office",
        "author": [{"literal": "Regional Climate Office"}],
        "issued": {"date-parts": [["2020"]]},
    },
)
MOREAU = Item(
    12,
    "Z9D4MB2C",
    {
        "type": "article-journal",
        "title": "Tree canopy and afternoon heat in 112 mid-sized cities",
        "container-title": "Urban Climate",
        "volume": "38",
        "page": "100-112",
        "author": [{"family": "Moreau", "given": "Léa"}, {"family": "Okafor", "given": "Tunde"}],
        "issued": {"date-parts": [["2021"]]},
    },
)
FORESTRY = Item(
    13,
    "P3RT8WNE",
    {
        "type": "report",
        "title": "Street tree survival after planting",
        "author": [{"literal": "Municipal Forestry Network"}],
        "issued": {"date-parts": [["2019"]]},
    },
)
HARTLEY = Item(  # fabricated: no such paper, and its DOI is registered nowhere
    14,
    "K2VN6YQS",
    {
        "type": "article-journal",
        "title": "Street trees halve stormwater runoff: a meta-analysis of 48 cities",
        "container-title": "Journal of Urban Hydrology",
        "DOI": "10.5555/juh.2022.0481",
        "author": [{"family": "Hartley", "given": "Simon"}, {"family": "Venn", "given": "Ada"}],
        "issued": {"date-parts": [["2022"]]},
    },
)

BODY: list[tuple[str, Any]] = [
    ("heading", "Street trees and summer heat"),
    (
        "text",
        [
            "Cities are warmer than the countryside around them, an effect known as the urban heat island ",
            ("c1", [CLIMATE], "(Regional Climate Office, 2020)"),
            ". On calm summer nights, dense city centres can be up to 12 °C warmer than nearby rural land ",
            ("c2", [CLIMATE], "(Regional Climate Office, 2020)"),
            ".",
        ],
    ),
    (
        "text",
        [
            "A survey of 112 mid-sized cities found that neighbourhoods with more than 30% tree canopy were "
            "on average 1.5 °C cooler in the afternoon than neighbourhoods with less than 10% canopy ",
            ("c3", [FORESTRY], "(Municipal Forestry Network, 2019)"),
            ". The cooling effect was strongest in cities with hot, dry summers ",
            ("c4", [MOREAU], "(Moreau & Okafor, 2021)"),
            ".",
        ],
    ),
    (
        "text",
        [
            "About 20% of newly planted street trees die within five years, most often from drought ",
            (
                "c5",
                [FORESTRY, CLIMATE],
                "(Municipal Forestry Network, 2019; Regional Climate Office, 2020)",
            ),
            ".",
        ],
    ),
    (
        "text",
        [
            "Street trees also halve the stormwater that runs off city streets ",
            ("c6", [HARTLEY], "(Hartley & Venn, 2022)"),
            ".",
        ],
    ),
    ("heading", "References"),
]

BIBLIOGRAPHY = [
    "Hartley, S., & Venn, A. (2022). Street trees halve stormwater runoff: a meta-analysis of 48 cities. "
    "Journal of Urban Hydrology. https://doi.org/10.5555/juh.2022.0481",
    "Moreau, L., & Okafor, T. (2021). Tree canopy and afternoon heat in 112 mid-sized cities. "
    "Urban Climate, 38, 100–112.",
    "Municipal Forestry Network. (2019). Street tree survival after planting.",
    "Regional Climate Office. (2020). Urban heat islands: a fact sheet. Regional Climate Office.",
]


def citation_json(citation_id: str, items: list[Item], shown: str) -> str:
    return json.dumps(
        {
            "citationID": citation_id,
            "properties": {"formattedCitation": shown, "plainCitation": shown, "noteIndex": 0},
            "citationItems": [item.citation_item() for item in items],
            "schema": SCHEMA,
        },
        ensure_ascii=False,
    )


def _run(paragraph: Paragraph) -> BaseOxmlElement:
    run: BaseOxmlElement = paragraph._p.makeelement(qn("w:r"), {})
    paragraph._p.append(run)
    return run


def _field_char(paragraph: Paragraph, kind: str) -> None:
    char = _run(paragraph).makeelement(qn("w:fldChar"), {qn("w:fldCharType"): kind})
    paragraph._p[-1].append(char)


def _instruction(paragraph: Paragraph, text: str) -> None:
    element = _run(paragraph).makeelement(qn("w:instrText"), {})
    element.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    element.text = text
    paragraph._p[-1].append(element)


def add_field(paragraph: Paragraph, instruction: str, shown: str, *, pieces: int = 3) -> None:
    """A complex field: begin, the instruction in `pieces` runs, separate, the shown text, end."""
    _field_char(paragraph, "begin")
    step = max(1, len(instruction) // pieces + 1)
    for start in range(0, len(instruction), step):
        _instruction(paragraph, instruction[start : start + step])
    _field_char(paragraph, "separate")
    paragraph.add_run(shown)
    _field_char(paragraph, "end")


def add_citation(paragraph: Paragraph, citation_id: str, items: list[Item], shown: str) -> None:
    add_field(
        paragraph, f" ADDIN ZOTERO_ITEM CSL_CITATION {citation_json(citation_id, items, shown)} ", shown
    )


def build() -> bytes:
    """The sample's bytes (the same every time)."""
    document = docx.Document()
    for kind, content in BODY:
        if kind == "heading":
            document.add_heading(content, level=1)
            continue
        paragraph = document.add_paragraph()
        for part in content:
            if isinstance(part, str):
                paragraph.add_run(part)
            else:
                add_citation(paragraph, *part)
    first = document.add_paragraph()
    bibl = ' ADDIN ZOTERO_BIBL {"uncited":[],"omitted":[],"custom":[]} CSL_BIBLIOGRAPHY '
    _field_char(first, "begin")
    _instruction(first, bibl)
    _field_char(first, "separate")
    first.add_run(BIBLIOGRAPHY[0])
    for entry in BIBLIOGRAPHY[1:]:
        document.add_paragraph(entry)
    _field_char(document.paragraphs[-1], "end")
    properties = document.core_properties
    properties.author = properties.last_modified_by = "A. Writer"
    properties.title = "Street trees and summer heat"
    properties.created = properties.modified = datetime(2026, 1, 1)  # naive, as Word writes it
    properties.revision = 1
    out = io.BytesIO()
    document.save(out)
    return _fixed_dates(out.getvalue())


def _fixed_dates(data: bytes) -> bytes:
    """The same zip with every member dated 2026-01-01, so the file is the same at each run."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for info in source.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=(2026, 1, 1, 0, 0, 0))
            fixed.compress_type = zipfile.ZIP_DEFLATED
            target.writestr(fixed, source.read(info))
    return out.getvalue()


def main(argv: list[str]) -> int:
    target = Path(argv[1]) if len(argv) > 1 else HERE / "paper.docx"
    target.write_bytes(build())
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
