"""What real Word files hold beside plain runs: tracked changes, a field nested in a citation's
displayed text, a hyperlink, and every fix the plan offers on a paper written back and re-read."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import docx

from citedesk.core.operations import Operation, RemoveCitation, RetargetCitation
from citedesk.core.plan import plan_repairs
from citedesk.core.reading import parse_document
from citedesk.core.repair import try_fix
from citedesk.core.word import read_docx, write_docx
from citedesk.sources.citeworks import cited_works
from tests.helpers.docx_build import (
    LEE,
    ROE,
    SMITH,
    DocxBuilder,
    Raw,
    item,
    mendeley_paper,
    nested_zotero,
    zotero,
    zotero_paper,
)

TRACKED = Raw(
    '<w:ins w:id="1" w:author="Ann" w:date="2026-01-01T00:00:00Z"><w:r><w:t xml:space="preserve">newly </w:t></w:r></w:ins>'
    '<w:del w:id="2" w:author="Ann" w:date="2026-01-01T00:00:00Z"><w:r><w:delText>old </w:delText></w:r></w:del>'
)


def _document_xml(data: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return archive.read("word/document.xml")


def test_tracked_changes_read_as_accepted_and_survive_a_repair() -> None:
    data = (
        DocxBuilder()
        .paragraph(
            "Trees were ",
            TRACKED,
            "planted ",
            zotero([item(SMITH, 1), item(LEE, 2)], "(Smith, 2020; Lee, 2019)", "c1"),
            ".",
        )
        .build()
    )
    view = read_docx(data)
    assert "Trees were newly planted [@smith2020; @lee2019]." in view.text
    assert "old" not in view.text
    planned = view.text.replace("[@smith2020; @lee2019]", "[@lee2019]")
    out = write_docx(data, view, planned)
    xml = _document_xml(out)
    assert b"<w:delText>old </w:delText>" in xml
    assert b'w:author="Ann"' in xml
    assert read_docx(out).fields[0].displayed == "(Lee, 2019)"


def test_a_field_nested_in_a_citations_displayed_text_is_read_safely() -> None:
    data = (
        DocxBuilder()
        .paragraph("Rain rises ", nested_zotero([item(ROE, 1)], "(Roe, 2018)", "n1"), " in cities.")
        .paragraph("Trees cool ", zotero([item(SMITH, 2)], "(Smith, 2020)", "c2"), ".")
        .build()
    )
    view = read_docx(data)
    assert "Rain rises [@roe2018] in cities." in view.text
    assert [f.keys for f in view.fields] == [("roe2018",), ("smith2020",)]
    assert view.fields[0].displayed == "(Roe, 2018)"
    out = write_docx(data, view, view.text.replace(" [@roe2018]", ""))
    assert docx.Document(io.BytesIO(out)).paragraphs[0].text == "Rain rises in cities."
    assert b"HYPERLINK" not in _document_xml(out)  # went with the field that held it


def test_an_ordinary_fields_text_is_plain_text() -> None:
    hyperlink = Raw(
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
        '<w:r><w:instrText xml:space="preserve"> HYPERLINK "http://x.org" </w:instrText></w:r>'
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r>'
        "<w:r><w:t>the site</w:t></w:r>"
        '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
    )
    view = read_docx(DocxBuilder().paragraph("See ", hyperlink, " for [1].").build())
    assert view.text == "See the site for [1].\n"


def test_every_swap_and_removal_the_plan_makes_is_written_and_reads_back() -> None:
    """All single fixes on both papers: each is written, re-opens, and re-reads to the plan."""
    for data in (zotero_paper(split=5), mendeley_paper()):
        view = read_docx(data)
        works = cited_works(view.text, Path("x.docx"))
        assert works is not None
        doc = parse_document(view.text, "x.docx", works.works)
        tried = 0
        for index, group in enumerate(doc.citations):
            for key in group.keys:
                operations: list[list[Operation]] = [[RemoveCitation(index, key)]]
                operations += [
                    [RetargetCitation(index, key, other)]
                    for other in view.references
                    if other not in group.keys
                ]
                for ops in operations:
                    fix = try_fix("t", doc, ops)
                    if isinstance(fix, str):
                        continue
                    plan = plan_repairs(doc, [fix])
                    out = write_docx(data, view, plan.result)
                    docx.Document(io.BytesIO(out))
                    again = read_docx(out)
                    assert [again.works[k] for f in again.fields for k in f.keys] == [
                        view.works[k]
                        for g in parse_document(plan.result, "x.docx", works.works).citations
                        for k in g.keys
                    ]
                    tried += 1
        assert tried >= 7
