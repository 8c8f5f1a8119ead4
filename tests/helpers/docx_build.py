"""Build .docx bytes for tests the way Zotero and Mendeley leave them: python-docx for the package,
lxml for the field runs (simple `w:fldSimple` and complex `w:fldChar`/`w:instrText` fields, the
instruction split across many runs of different formatting), the bibliography field over several
paragraphs, and a plain numbered document with a References section."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import docx
from docx.oxml import parse_xml
from docx.oxml.ns import nsdecls

ZOTERO_SCHEMA = "https://github.com/citation-style-language/schema/raw/master/csl-citation.json"


def csl_item(
    family: str,
    year: int,
    title: str,
    *,
    ident: int | str,
    uri: str | None = None,
    doi: str | None = None,
    locator: str | None = None,
    prefix: str | None = None,
) -> dict[str, Any]:
    """A citationItem as Zotero embeds it: id, uris and the CSL-JSON itemData."""
    data: dict[str, Any] = {
        "id": ident,
        "type": "article-journal",
        "title": title,
        "author": [{"family": family, "given": "A."}],
        "issued": {"date-parts": [[year]]},
    }
    if doi:
        data["DOI"] = doi
    item: dict[str, Any] = {"id": ident, "uris": [uri] if uri else [], "itemData": data}
    if uri:
        item["uri"] = [uri]
    if locator:
        item.update(locator=locator, label="page")
    if prefix:
        item["prefix"] = prefix
    return item


def zotero_json(items: list[dict[str, Any]], displayed: str, citation_id: str) -> dict[str, Any]:
    return {
        "citationID": citation_id,
        "properties": {"formattedCitation": displayed, "plainCitation": displayed, "noteIndex": 0},
        "citationItems": items,
        "schema": ZOTERO_SCHEMA,
    }


def mendeley_json(items: list[dict[str, Any]], displayed: str) -> dict[str, Any]:
    for n, item in enumerate(items, start=1):
        item["id"] = f"ITEM-{n}"
        item["itemData"]["id"] = f"ITEM-{n}"
    return {
        "citationItems": items,
        "mendeley": {
            "formattedCitation": displayed,
            "plainTextFormattedCitation": displayed,
            "previouslyFormattedCitation": displayed,
        },
        "properties": {"noteIndex": 0},
        "schema": ZOTERO_SCHEMA,
    }


@dataclass(frozen=True)
class Field:
    """A field to put in a paragraph: its whole instruction and its displayed text."""

    instruction: str
    displayed: str
    simple: bool = False
    split: int = 0
    """Write the instruction in runs of this many characters (0: one run), bold and plain in turn."""


@dataclass(frozen=True)
class Raw:
    """WordprocessingML put into a paragraph as it is (`w` is declared): a tracked change, a
    bookmark, a field nested in another."""

    xml: str


def zotero(
    items: list[dict[str, Any]], displayed: str, citation_id: str, *, simple: bool = False, split: int = 0
) -> Field:
    citation = json.dumps(zotero_json(items, displayed, citation_id))
    return Field(f" ADDIN ZOTERO_ITEM CSL_CITATION {citation} ", displayed, simple, split)


def mendeley(items: list[dict[str, Any]], displayed: str, *, simple: bool = False, split: int = 0) -> Field:
    citation = json.dumps(mendeley_json(items, displayed))
    return Field(f"ADDIN CSL_CITATION {citation}", displayed, simple, split)


def nested_zotero(items: list[dict[str, Any]], displayed: str, citation_id: str) -> Raw:
    """A Zotero field whose displayed text holds another field (a hyperlink Word added)."""
    citation = escape(
        " ADDIN ZOTERO_ITEM CSL_CITATION " + json.dumps(zotero_json(items, displayed, citation_id))
    )
    inner = escape(displayed)
    return Raw(
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
        f'<w:r><w:instrText xml:space="preserve">{citation}</w:instrText></w:r>'
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r>'
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
        '<w:r><w:instrText xml:space="preserve"> HYPERLINK "http://example.org" </w:instrText></w:r>'
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r>'
        f'<w:r><w:t xml:space="preserve">{inner}</w:t></w:r>'
        '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
        '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
    )


def _run(inner: str, bold: bool = False) -> Any:
    props = "<w:rPr><w:b/></w:rPr>" if bold else ""
    return parse_xml(f"<w:r {nsdecls('w')}>{props}{inner}</w:r>")


def _text(text: str) -> str:
    return f'<w:t xml:space="preserve">{escape(text)}</w:t>'


def _char(kind: str) -> Any:
    return _run(f'<w:fldChar w:fldCharType="{kind}"/>')


def _instr_runs(field: Field) -> list[Any]:
    size = field.split or len(field.instruction)
    chunks = [field.instruction[i : i + size] for i in range(0, len(field.instruction), size)]
    return [
        _run(f'<w:instrText xml:space="preserve">{escape(chunk)}</w:instrText>', bold=n % 2 == 1)
        for n, chunk in enumerate(chunks)
    ]


class DocxBuilder:
    """A document made paragraph by paragraph; `build()` gives its bytes."""

    def __init__(self) -> None:
        self.doc = docx.Document()

    def heading(self, text: str, level: int = 1) -> DocxBuilder:
        self.doc.add_heading(text, level)
        return self

    def paragraph(self, *parts: str | Field | Raw) -> DocxBuilder:
        p = self.doc.add_paragraph()
        for part in parts:
            if isinstance(part, Raw):
                wrapper = parse_xml(f"<w:r {nsdecls('w')}>{part.xml}</w:r>")
                for child in list(wrapper):
                    p._p.append(child)
            elif isinstance(part, str):
                p._p.append(_run(_text(part)))
            elif part.simple:
                p._p.append(
                    parse_xml(
                        f"<w:fldSimple {nsdecls('w')} w:instr={quoteattr(part.instruction)}>"
                        f"<w:r>{_text(part.displayed)}</w:r></w:fldSimple>"
                    )
                )
            else:
                for element in [_char("begin"), *_instr_runs(part), _char("separate")]:
                    p._p.append(element)
                p._p.append(_run(_text(part.displayed)))
                p._p.append(_char("end"))
        return self

    def bibliography(self, instruction: str, entries: list[str]) -> DocxBuilder:
        """A bibliography field whose result is one paragraph per entry."""
        for n, entry in enumerate(entries):
            p = self.doc.add_paragraph()._p
            if n == 0:
                p.append(_char("begin"))
                p.append(_run(f'<w:instrText xml:space="preserve">{escape(instruction)}</w:instrText>'))
                p.append(_char("separate"))
            p.append(_run(_text(entry)))
            if n == len(entries) - 1:
                p.append(_char("end"))
        return self

    def build(self) -> bytes:
        out = io.BytesIO()
        self.doc.save(out)
        return out.getvalue()


SMITH = {
    "family": "Smith",
    "year": 2020,
    "title": "Street trees cool cities",
    "uri": "http://zotero.org/users/1/items/SMITH1",
}
LEE = {
    "family": "Lee",
    "year": 2019,
    "title": "Parks and heat",
    "uri": "http://zotero.org/users/1/items/LEE0001",
}
ROE = {"family": "Roe", "year": 2018, "title": "Urban rain", "uri": "http://zotero.org/users/1/items/ROE0001"}


def item(spec: dict[str, Any], ident: int, **extra: Any) -> dict[str, Any]:
    return csl_item(ident=ident, **spec, **extra)


def zotero_paper(*, split: int = 7, simple_second: bool = True) -> bytes:
    """Zotero fields: a single one split across runs, a grouped one, a simple one, a repeat, the
    bibliography; a paragraph of Markdown-looking text."""
    return (
        DocxBuilder()
        .heading("Cooling cities", 1)
        .paragraph(
            "Street trees cool streets by two degrees ",
            zotero([item(SMITH, 11)], "(Smith, 2020)", "cit1", split=split),
            ".",
        )
        .paragraph(
            "Parks and trees both help ",
            zotero([item(SMITH, 11), item(LEE, 12)], "(Smith, 2020; Lee, 2019)", "cit2"),
            ". Rain falls more in cities ",
            zotero([item(ROE, 13)], "(Roe, 2018)", "cit3", simple=simple_second),
            ".",
        )
        .paragraph("Email a@b.org, 5 * 3, [draft] and <b>bold</b> words.")
        .paragraph("Lee says parks help ", zotero([item(LEE, 12)], "(Lee, 2019)", "cit4"), ".")
        .heading("References", 1)
        .bibliography(
            ' ADDIN ZOTERO_BIBL {"uncited":[],"omitted":[],"custom":[]} CSL_BIBLIOGRAPHY ',
            [
                "Lee, A. (2019). Parks and heat.",
                "Roe, A. (2018). Urban rain.",
                "Smith, A. (2020). Street trees.",
            ],
        )
        .build()
    )


def mendeley_paper() -> bytes:
    return (
        DocxBuilder()
        .paragraph(
            "Trees cool streets ",
            mendeley([item(SMITH, 1), item(LEE, 2)], "(Smith, 2020; Lee, 2019)", split=11),
            ".",
        )
        .paragraph("Rain rises ", mendeley([item(ROE, 1)], "(Roe, 2018)", simple=True), ".")
        .bibliography(
            "ADDIN Mendeley Bibliography CSL_BIBLIOGRAPHY ",
            ["Lee, A. (2019). Parks and heat.", "Roe, A. (2018). Urban rain."],
        )
        .build()
    )


def numbered_paper() -> bytes:
    return (
        DocxBuilder()
        .heading("Cooling cities", 1)
        .paragraph("Street trees cool streets by two degrees [1]. Parks help [2, 3].")
        .paragraph("Rain falls more in cities [3].")
        .paragraph("References")
        .paragraph("[1] Smith, A. (2020). Street trees cool cities. Journal of Heat.")
        .paragraph("[2] Lee, A. (2019). Parks and heat. Urban Studies.")
        .paragraph("[3] Roe, A. (2018). Urban rain. Hydrology Letters.")
        .build()
    )
