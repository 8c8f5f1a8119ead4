"""Repairs planned on a Word view (`core.plan.plan_repairs`) and written into the .docx: only the
target field's instruction and displayed text change, every other zip member stays byte for byte,
the field keeps its citationID and its items their uris, and the result re-opens in python-docx
and re-reads to the planned text."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import docx
import pytest
from lxml import etree  # type: ignore[import-untyped]

from citedesk.core.document.model import Document
from citedesk.core.operations import AddCitation, Operation, RemoveCitation, RetargetCitation
from citedesk.core.plan import RepairPlan, plan_repairs
from citedesk.core.reading import parse_document
from citedesk.core.repair import try_fix
from citedesk.core.word import WordView, read_docx, write_docx
from citedesk.errors import RepairError
from citedesk.sources.citeworks import cited_works
from tests.helpers.docx_build import (
    LEE,
    ROE,
    SMITH,
    DocxBuilder,
    item,
    mendeley_paper,
    numbered_paper,
    zotero,
    zotero_paper,
)

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _parsed(view: WordView) -> Document:
    works = cited_works(view.text, Path("x.docx")) if view.fields else None
    return parse_document(view.text, "x.docx", works.works if works else None)


def _plan(view: WordView, *operations: Operation) -> RepairPlan:
    doc = _parsed(view)
    fix = try_fix("test", doc, list(operations))
    assert not isinstance(fix, str), fix
    return plan_repairs(doc, [fix])


def _members(data: bytes) -> dict[str, tuple[bytes, int]]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {i.filename: (archive.read(i), i.compress_type) for i in archive.infolist()}


def _repaired(data: bytes, *operations: Operation) -> tuple[WordView, RepairPlan, bytes]:
    view = read_docx(data, "paper.docx")
    plan = _plan(view, *operations)
    out = write_docx(data, view, plan.result)
    before, after = _members(data), _members(out)
    assert list(before) == list(after)  # same names, same order
    for name, (payload, compression) in before.items():
        assert after[name][1] == compression
        if name != "word/document.xml":
            assert after[name][0] == payload, name
    docx.Document(io.BytesIO(out))  # re-opens
    again = read_docx(out, "paper.docx")
    assert _body(again.text) == re.sub(r"\n{3,}", "\n\n", _body(plan.result)).rstrip("\n") + "\n"
    return view, plan, out


def _body(text: str) -> str:
    return text.split("---\n\n", 1)[1] if text.startswith("---\n") else text


def _instructions(data: bytes) -> list[dict[str, Any]]:
    """Each citation field's JSON, in order, read straight from document.xml with lxml."""
    root = etree.fromstring(_members(data)["word/document.xml"][0])
    instructions: list[str] = []
    collecting: list[str] | None = None
    for element in root.iter(W + "fldSimple", W + "fldChar", W + "instrText"):
        if element.tag == W + "fldSimple":
            instructions.append(element.get(W + "instr"))
        elif element.tag == W + "instrText" and collecting is not None:
            collecting.append(element.text or "")
        elif element.tag == W + "fldChar":
            if element.get(W + "fldCharType") == "begin":
                collecting = []
            elif collecting is not None:
                instructions.append("".join(collecting))
                collecting = None
    decoder = json.JSONDecoder()
    return [decoder.raw_decode(i, i.index("{"))[0] for i in instructions if "CSL_CITATION" in i]


def test_swap_rewrites_the_field_and_keeps_its_citation_id() -> None:
    data = zotero_paper()
    view, plan, out = _repaired(data, RetargetCitation(0, "smith2020", "roe2018"))
    assert "cool streets by two degrees [@roe2018]." in plan.result
    again = read_docx(out)
    assert again.text == plan.result  # the front matter too: keys and their order do not move
    field = again.fields[0]
    assert field.citation_id == "cit1"
    assert field.displayed == "(Roe, 2018)"  # the piece shown alone elsewhere
    item = field.citation["citationItems"][0]
    assert item["uris"] == ["http://zotero.org/users/1/items/ROE0001"]
    assert item["itemData"]["title"] == "Urban rain"
    assert field.citation["properties"]["plainCitation"] == "(Roe, 2018)"
    assert field.citation["properties"]["formattedCitation"] == "(Roe, 2018)"
    assert [f.citation for f in again.fields[1:]] == [f.citation for f in view.fields[1:]]
    assert [c.get("citationID") for c in _instructions(out)] == ["cit1", "cit2", "cit3", "cit4"]
    assert _instructions(out)[0] == field.citation


def test_swap_inside_a_group_keeps_the_other_items_piece_and_uris() -> None:
    _, _, out = _repaired(zotero_paper(), RetargetCitation(1, "lee2019", "roe2018"))
    field = read_docx(out).fields[1]
    assert field.citation_id == "cit2"
    assert field.displayed == "(Smith, 2020; Roe, 2018)"
    assert [i["uris"] for i in field.citation["citationItems"]] == [
        ["http://zotero.org/users/1/items/SMITH1"],
        ["http://zotero.org/users/1/items/ROE0001"],
    ]


def test_remove_from_a_group_drops_its_piece() -> None:
    view, _, out = _repaired(zotero_paper(), RemoveCitation(1, "smith2020"))
    field = read_docx(out).fields[1]
    assert field.citation_id == "cit2"
    assert field.displayed == "(Lee, 2019)"
    assert field.keys == ("lee2019",)
    assert field.citation["citationItems"][0] == view.fields[1].citation["citationItems"][1]


def test_remove_a_whole_citation_takes_the_field_and_the_space_before_it() -> None:
    data = zotero_paper(split=3)
    _, plan, out = _repaired(data, RemoveCitation(0, "smith2020"))
    assert "by two degrees." in plan.result
    again = read_docx(out)
    assert [f.citation_id for f in again.fields] == ["cit2", "cit3", "cit4"]
    texts = [p.text for p in docx.Document(io.BytesIO(out)).paragraphs]
    assert "Street trees cool streets by two degrees." in texts
    assert [c["citationID"] for c in _instructions(out)] == ["cit2", "cit3", "cit4"]
    xml = _members(out)["word/document.xml"][0]
    assert xml.count(b"<w:fldChar ") == _members(data)["word/document.xml"][0].count(b"<w:fldChar ") - 3


def test_remove_a_simple_field() -> None:
    _, plan, out = _repaired(zotero_paper(), RemoveCitation(2, "roe2018"))
    assert "Rain falls more in cities." in plan.result
    assert [f.citation_id for f in read_docx(out).fields] == ["cit1", "cit2", "cit4"]
    assert "fldSimple" not in _members(out)["word/document.xml"][0].decode()


def test_mendeley_remove_updates_its_own_properties() -> None:
    _, _, out = _repaired(mendeley_paper(), RemoveCitation(0, "lee2019"))
    field = read_docx(out).fields[0]
    assert field.displayed == "(Smith, 2020)"
    assert field.citation["mendeley"]["formattedCitation"] == "(Smith, 2020)"
    assert field.citation["mendeley"]["plainTextFormattedCitation"] == "(Smith, 2020)"
    assert field.citation["citationItems"][0]["uris"] == ["http://zotero.org/users/1/items/SMITH1"]


def test_numbered_marker_edits_go_into_the_runs() -> None:
    _, plan, out = _repaired(numbered_paper(), RemoveCitation(1, "2"))
    texts = [p.text for p in docx.Document(io.BytesIO(out)).paragraphs]
    assert "Street trees cool streets by two degrees [1]. Parks help [3]." in texts
    assert not any(t.startswith("[2] Lee") for t in texts)  # its entry, orphaned, went too
    assert len(texts) == len(docx.Document(io.BytesIO(numbered_paper())).paragraphs) - 1
    assert "[2] Lee" not in plan.result


def test_a_marker_split_across_runs_is_edited_in_them() -> None:
    data = (
        DocxBuilder()
        .paragraph("Trees cool streets [", "1", "]. Rain rises [", "2", "].")
        .paragraph("References")
        .paragraph("[1] Smith, A. (2020). Street trees.")
        .paragraph("[2] Roe, A. (2018). Urban rain.")
        .build()
    )
    _, _, out = _repaired(data, RetargetCitation(1, "2", "1"))
    paragraphs = docx.Document(io.BytesIO(out)).paragraphs
    assert paragraphs[0].text == "Trees cool streets [1]. Rain rises [1]."
    assert [r.text for r in paragraphs[0].runs] == ["Trees cool streets [", "1", "]. Rain rises [", "1", "]."]


@pytest.mark.parametrize(
    ("shown", "alone", "left"),
    [
        ("[1, 2]", "[3]", "[1, 3]"),
        ("[1], [2]", "[3]", "[1], [3]"),
        ("1,2", "3", "1,3"),
        ("(A 2020; B 2019)", "(C)", "(A 2020; C)"),
    ],
)
def test_numeric_and_author_date_displays_split_per_item(shown: str, alone: str, left: str) -> None:
    data = (
        DocxBuilder()
        .paragraph("Trees cool ", zotero([item(SMITH, 1), item(LEE, 2)], shown, "g"), ".")
        .paragraph("Rain rises ", zotero([item(ROE, 3)], alone, "r"), ".")
        .build()
    )
    _, _, out = _repaired(data, RetargetCitation(0, "lee2019", "roe2018"))
    assert read_docx(out).fields[0].displayed == left


def test_a_changed_paragraph_next_to_a_deleted_one_is_paired_by_likeness() -> None:
    data = numbered_paper()
    view = read_docx(data)
    planned = view.text.replace("[1] Smith, A. (2020). Street trees cool cities. Journal of Heat.\n\n", "")
    planned = planned.replace("[2] Lee, A. (2019). Parks and heat.", "[2] Lee, A. (2019). Parks and heat!")
    out = write_docx(data, view, planned)
    texts = [p.text for p in docx.Document(io.BytesIO(out)).paragraphs]
    assert texts[-2:] == [
        "[2] Lee, A. (2019). Parks and heat! Urban Studies.",
        "[3] Roe, A. (2018). Urban rain. Hydrology Letters.",
    ]
    assert read_docx(out).text == planned


def test_adding_a_citation_where_no_field_is_is_refused() -> None:
    data = zotero_paper()
    view = read_docx(data)
    planned = view.text.replace("more in cities [@roe2018]", "more in cities [@roe2018]. Email [@lee2019]")
    with pytest.raises(RepairError, match="Zotero"):
        write_docx(data, view, planned)


def test_joining_a_key_to_an_existing_field_is_written() -> None:
    data = zotero_paper()
    view = read_docx(data)
    doc = _parsed(view)
    plan = _plan(view, AddCitation(doc.citations[3].end, "roe2018"))
    out = write_docx(data, view, plan.result)
    field = read_docx(out).fields[3]
    assert field.keys == ("lee2019", "roe2018")
    assert field.displayed == "(Lee, 2019; Roe, 2018)"


def test_an_edit_of_plain_text_the_plan_never_makes_still_reads_back() -> None:
    data = zotero_paper()
    view = read_docx(data)
    out = write_docx(data, view, view.text.replace("Parks and trees both help", "Parks and trees help"))
    assert "Parks and trees help [@smith2020; @lee2019]." in read_docx(out).text


def test_front_matter_is_never_edited() -> None:
    data = zotero_paper()
    view = read_docx(data)
    with pytest.raises(RepairError, match="front matter"):
        write_docx(data, view, view.text.replace('"Urban rain"', '"Rain"'))


def test_a_sorted_display_is_matched_to_its_items_by_name_and_year() -> None:
    """Zotero shows a group sorted (`(Lee, 2019; Smith, 2020)`) whatever the items' order (Smith,
    Lee): removing Smith must leave Lee's piece, not the first one."""
    data = (
        DocxBuilder()
        .paragraph(
            "Trees cool ", zotero([item(SMITH, 1), item(LEE, 2)], "(Lee, 2019; Smith, 2020)", "g"), "."
        )
        .build()
    )
    _, _, out = _repaired(data, RemoveCitation(0, "smith2020"))
    (field,) = read_docx(out).fields
    assert field.keys == ("lee2019",)
    assert field.displayed == "(Lee, 2019)"
    assert _instructions(out)[0]["properties"]["plainCitation"] == "(Lee, 2019)"


def test_a_display_whose_parts_contradict_the_items_is_not_rewritten() -> None:
    data = (
        DocxBuilder()
        .paragraph(
            "Trees cool ",
            zotero([item(SMITH, 1), item(LEE, 2), item(ROE, 3)], "(Lee, 2019; Smith, 2020; Anon, 1999)", "g"),
            ".",
        )
        .build()
    )
    view = read_docx(data)
    plan = _plan(view, RemoveCitation(0, "roe2018"))
    with pytest.raises(RepairError, match="cannot match to its works"):
        write_docx(data, view, plan.result)
