"""Build .docx bytes for tests the way Zotero and Mendeley leave them: python-docx for the package,
lxml for the field runs (simple `w:fldSimple` and complex `w:fldChar`/`w:instrText` fields, the
instruction split across many runs of different formatting), the bibliography field over several
paragraphs, a plain numbered document with a References section, and footnotes and endnotes
(python-docx has none: their parts, content-type overrides and relationships written as Word
writes them, separator notes included)."""

from __future__ import annotations

import base64
import io
import json
import zipfile
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import docx
from docx.oxml import parse_xml
from docx.oxml.ns import nsdecls
from lxml import etree  # type: ignore[import-untyped]

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


def zotero_json(
    items: list[dict[str, Any]], displayed: str, citation_id: str, note_index: int = 0
) -> dict[str, Any]:
    """A Zotero field's JSON; `note_index` the number of the footnote a note style puts it in."""
    return {
        "citationID": citation_id,
        "properties": {"formattedCitation": displayed, "plainCitation": displayed, "noteIndex": note_index},
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


@dataclass(frozen=True)
class Note:
    """A footnote (or endnote) whose mark goes where it is among a paragraph's parts; each of its
    `paragraphs` is a tuple of parts as a body paragraph's."""

    paragraphs: tuple[tuple[str | Field | Raw, ...], ...]
    endnote: bool = False


def note(*parts: str | Field | Raw, endnote: bool = False) -> Note:
    """A one-paragraph note."""
    return Note((parts,), endnote)


def zotero(
    items: list[dict[str, Any]],
    displayed: str,
    citation_id: str,
    *,
    simple: bool = False,
    split: int = 0,
    note_index: int = 0,
) -> Field:
    citation = json.dumps(zotero_json(items, displayed, citation_id, note_index))
    return Field(f" ADDIN ZOTERO_ITEM CSL_CITATION {citation} ", displayed, simple, split)


def mendeley(items: list[dict[str, Any]], displayed: str, *, simple: bool = False, split: int = 0) -> Field:
    citation = json.dumps(mendeley_json(items, displayed))
    return Field(f"ADDIN CSL_CITATION {citation}", displayed, simple, split)


def mendeley_cite(items: list[dict[str, Any]], displayed: str, *, tag: str | None = None) -> Raw:
    """A citation as the Mendeley Cite add-in writes it: a content control tagged
    `MENDELEY_CITATION_v3_` and the base64 of its JSON, its content the displayed text."""
    citation = {
        "citationID": "MENDELEY_CITATION_" + displayed.encode().hex()[:16],
        "properties": {"noteIndex": 0},
        "isEdited": False,
        "manualOverride": {
            "isManuallyOverridden": False,
            "citeprocText": displayed,
            "manualOverrideText": "",
        },
        "citationItems": items,
    }
    value = tag or "MENDELEY_CITATION_v3_" + base64.b64encode(json.dumps(citation).encode()).decode()
    return Raw(
        f'<w:sdt><w:sdtPr><w:tag w:val="{escape(value)}"/><w:id w:val="1"/></w:sdtPr>'
        f"<w:sdtContent><w:r>{_text(displayed)}</w:r></w:sdtContent></w:sdt>"
    )


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


def _run(inner: str, bold: bool = False, style: str = "") -> Any:
    props = "<w:rPr><w:b/></w:rPr>" if bold else ""
    props = f'<w:rPr><w:rStyle w:val="{style}"/></w:rPr>' if style else props
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


_FOOTNOTES_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"
_ENDNOTES_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.endnotes+xml"
_REL_BASE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"


def _fill(p: Any, parts: tuple[str | Field | Raw | Note, ...], notes: dict[str, list[Any]]) -> None:
    """Append the parts' runs to the paragraph element `p`; a Note's mark goes in the body and its
    `w:footnote`/`w:endnote` into `notes` (numbered from 1 in each part, as Word does)."""
    for part in parts:
        if isinstance(part, Note):
            kind = "endnote" if part.endnote else "footnote"
            ident = len(notes[kind]) + 1
            p.append(_run(f'<w:{kind}Reference w:id="{ident}"/>', style=kind.title() + "Reference"))
            element = parse_xml(f'<w:{kind} {nsdecls("w")} w:id="{ident}"/>')
            for n, paragraph in enumerate(part.paragraphs):
                inner = parse_xml(
                    f'<w:p {nsdecls("w")}><w:pPr><w:pStyle w:val="{kind.title()}Text"/></w:pPr></w:p>'
                )
                if n == 0:  # the note's own number, then a space, as Word starts a note
                    inner.append(_run(f"<w:{kind}Ref/>", style=kind.title() + "Reference"))
                    inner.append(_run(_text(" ")))
                _fill(inner, paragraph, notes)
                element.append(inner)
            notes[kind].append(element)
        elif isinstance(part, Raw):
            wrapper = parse_xml(f"<w:r {nsdecls('w')}>{part.xml}</w:r>")
            for child in list(wrapper):
                p.append(child)
        elif isinstance(part, str):
            p.append(_run(_text(part)))
        elif part.simple:
            p.append(
                parse_xml(
                    f"<w:fldSimple {nsdecls('w')} w:instr={quoteattr(part.instruction)}>"
                    f"<w:r>{_text(part.displayed)}</w:r></w:fldSimple>"
                )
            )
        else:
            for element in [_char("begin"), *_instr_runs(part), _char("separate")]:
                p.append(element)
            p.append(_run(_text(part.displayed)))
            p.append(_char("end"))


def _notes_part(kind: str, notes: list[Any]) -> bytes:
    """footnotes.xml or endnotes.xml: Word's separator and continuation notes (ids -1 and 0, each a
    `w:type`), then the notes."""
    separators = "".join(
        f'<w:{kind} w:type="{t}" w:id="{i}"><w:p><w:r><w:{t}/></w:r></w:p></w:{kind}>'
        for i, t in ((-1, "separator"), (0, "continuationSeparator"))
    )
    root = parse_xml(f"<w:{kind}s {nsdecls('w')}>{separators}</w:{kind}s>")
    for element in notes:
        root.append(element)
    return b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n' + bytes(etree.tostring(root))


@dataclass
class DocxBuilder:
    """A document made paragraph by paragraph; `build()` gives its bytes. `relate=False` leaves out
    the notes parts' relationships (a hostile package: the parts are there, nothing points to them)."""

    doc: Any = field(default_factory=docx.Document)
    notes: dict[str, list[Any]] = field(default_factory=lambda: {"footnote": [], "endnote": []})

    def heading(self, text: str, level: int = 1) -> DocxBuilder:
        self.doc.add_heading(text, level)
        return self

    def paragraph(self, *parts: str | Field | Raw | Note) -> DocxBuilder:
        _fill(self.doc.add_paragraph()._p, parts, self.notes)
        return self

    def mendeley_cite_bibliography(self, entries: list[str]) -> DocxBuilder:
        """Mendeley Cite's bibliography: a block content control holding one paragraph per entry."""
        paragraphs = "".join(f"<w:p><w:r>{_text(entry)}</w:r></w:p>" for entry in entries)
        sdt = parse_xml(
            f'<w:sdt {nsdecls("w")}><w:sdtPr><w:tag w:val="MENDELEY_BIBLIOGRAPHY"/></w:sdtPr>'
            f"<w:sdtContent>{paragraphs}</w:sdtContent></w:sdt>"
        )
        body = self.doc.element.body
        body.insert(len(body) - 1, sdt)  # before the section properties, which come last
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

    def build(self, *, relate: bool = True) -> bytes:
        out = io.BytesIO()
        self.doc.save(out)
        added = {f"word/{kind}s.xml": _notes_part(kind, notes) for kind, notes in self.notes.items() if notes}
        if not added:
            return out.getvalue()
        return _with_parts(out.getvalue(), added, relate)


def _with_parts(data: bytes, added: dict[str, bytes], relate: bool) -> bytes:
    """The package with the notes parts added: each its content-type override and (when `relate`)
    its relationship from the document, as Word writes them."""
    overrides = "".join(
        f'<Override PartName="/{name}" ContentType="{_FOOTNOTES_TYPE if "foot" in name else _ENDNOTES_TYPE}"/>'
        for name in added
    )
    relations = "".join(
        f'<Relationship Id="rIdNotes{n}" Type="{_REL_BASE}{name[5:-4]}" Target="{name[5:]}"/>'
        for n, name in enumerate(added)
    )
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for info in source.infolist():
            payload = source.read(info)
            if info.filename == "[Content_Types].xml":
                payload = payload.replace(b"</Types>", overrides.encode() + b"</Types>")
            elif info.filename == "word/_rels/document.xml.rels" and relate:
                payload = payload.replace(b"</Relationships>", relations.encode() + b"</Relationships>")
            target.writestr(info, payload)
        for name, payload in added.items():
            target.writestr(name, payload)
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
