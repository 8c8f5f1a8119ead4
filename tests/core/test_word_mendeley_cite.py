"""Citations written by the Mendeley Cite add-in: content controls (`w:sdt`) tagged
`MENDELEY_CITATION_v3_<base64 JSON>`, read as citations like a field's and checked, never edited
(their format is not published); its bibliography control is no prose; an undecodable tag is text."""

from __future__ import annotations

from pathlib import Path

import pytest

from citedesk.core.reading import parse_document
from citedesk.core.word import read_docx, write_docx
from citedesk.errors import RepairError
from citedesk.sources.citeworks import cited_works
from tests.helpers.docx_build import LEE, ROE, SMITH, DocxBuilder, item, mendeley_cite, note, zotero


def cite_paper() -> bytes:
    return (
        DocxBuilder()
        .paragraph(
            "Trees cool streets ",
            mendeley_cite([item(SMITH, 1), item(LEE, 2)], "(Smith, 2020; Lee, 2019)"),
            ". Rain rises ",
            mendeley_cite([item(ROE, 3)], "(Roe, 2018)"),
            ".",
        )
        .paragraph("Parks help.", note("See ", mendeley_cite([item(LEE, 2)], "Lee (2019).")))
        .mendeley_cite_bibliography(["Lee, A. (2019). Parks and heat.", "Roe, A. (2018). Urban rain."])
        .paragraph("After the bibliography.")
        .build()
    )


def test_mendeley_cite_controls_read_as_citations_with_exact_offsets() -> None:
    view = read_docx(cite_paper())
    body = view.text.split("---\n\n", 1)[1]
    assert body == (
        "Trees cool streets [@smith2020; @lee2019]. Rain rises [@roe2018].\n\n"
        "Parks help.[^1]\n\n"
        "After the bibliography.\n\n"
        "[^1]: See [@lee2019]\n"
    )
    assert [(f.kind, f.keys, f.displayed) for f in view.fields] == [
        ("mendeley", ("smith2020", "lee2019"), "(Smith, 2020; Lee, 2019)"),
        ("mendeley", ("roe2018",), "(Roe, 2018)"),
        ("mendeley", ("lee2019",), "Lee (2019)."),
    ]
    works = cited_works(view.text, Path("x.docx"))
    assert works is not None
    doc = parse_document(view.text, "x.docx", works.works)
    assert [(g.start, g.end, g.keys) for g in doc.citations] == [
        (f.start, f.end, f.keys) for f in view.fields
    ]


def test_a_repair_of_a_mendeley_cite_citation_is_refused_and_others_still_written() -> None:
    data = cite_paper()
    view = read_docx(data)
    with pytest.raises(RepairError, match="Mendeley Cite"):
        write_docx(data, view, view.text.replace("[@smith2020; @lee2019]", "[@smith2020]"))
    with pytest.raises(RepairError, match="Mendeley Cite"):
        write_docx(data, view, view.text.replace(" [@roe2018]", ""))
    with pytest.raises(RepairError):
        write_docx(
            data,
            view,
            view.text.replace("Trees cool streets [@smith2020; @lee2019]. Rain rises [@roe2018].\n\n", ""),
        )
    edited = view.text.replace("After the bibliography.", "After the list.")
    assert read_docx(write_docx(data, view, edited)).text == edited


def test_a_tag_that_does_not_decode_is_read_as_text() -> None:
    data = (
        DocxBuilder()
        .paragraph(
            "A ",
            mendeley_cite([], "(Smith, 2020)", tag="MENDELEY_CITATION_v3_%%%not base64"),
            " and B ",
            mendeley_cite([], "(Lee, 2019)", tag="MENDELEY_CITATION_v3_bm90IGpzb24="),  # "not json"
            " and C ",
            zotero([item(ROE, 1)], "(Roe, 2018)", "z1"),
            ".",
        )
        .build()
    )
    view = read_docx(data)
    assert "A (Smith, 2020) and B (Lee, 2019) and C [@roe2018]." in view.text
    assert [f.citation_id for f in view.fields] == ["z1"]
