"""Citations in footnotes and endnotes (issue 30): a thesis in a note style (Chicago notes, OSCOLA),
where Zotero puts every citation field in a footnote, is read as pandoc writes notes — `[^1]` at the
mark, `[^1]: …` after the body — its citations found with exact offsets and attached to the note's
claims; a repair in a note is written into footnotes.xml alone; an odd notes part is read safely."""

from __future__ import annotations

import io
import json
import re
import shutil
import time
import zipfile
from pathlib import Path
from typing import Any

import docx
import pytest
from lxml import etree  # type: ignore[import-untyped]

from citedesk.cli import main
from citedesk.core.document.model import Document
from citedesk.core.operations import RemoveCitation, RetargetCitation
from citedesk.core.plan import plan_repairs
from citedesk.core.reading import parse_document
from citedesk.core.repair import try_fix
from citedesk.core.text import DocumentError
from citedesk.core.word import WordView, read_docx, write_docx
from citedesk.errors import RepairError
from citedesk.sources.citeworks import cited_works
from tests.helpers.docx_build import (
    LEE,
    ROE,
    SMITH,
    DocxBuilder,
    Note,
    Raw,
    item,
    note,
    zotero,
)

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
SAMPLE_SOURCES = Path(__file__).resolve().parents[2] / "resources" / "samples" / "word" / "sources"


def note_paper() -> bytes:
    """A note-style paper: every citation in a footnote (one split across runs, one grouped, one
    in a note of two paragraphs), an endnote, a heading, Markdown-looking text in a note."""
    return (
        DocxBuilder()
        .heading("Cooling cities", 1)
        .paragraph(
            "Street trees cool streets by two degrees.",
            note(
                "See ", zotero([item(SMITH, 11)], "Smith, Street trees (2020).", "n1", split=9, note_index=1)
            ),
            " Parks help too.",
            note(
                zotero([item(SMITH, 11), item(LEE, 12)], "Smith (2020); Lee (2019).", "n2", note_index=2),
                " Email a@b.org, 5 * 3 and [draft].",
            ),
        )
        .paragraph(
            "Rain falls more in cities.",
            Note(
                (
                    (
                        "Roe measured rain in cities ",
                        zotero([item(ROE, 13)], "Roe (2018).", "n3", note_index=3),
                    ),
                    ("# Not a heading, 1. not a list.",),  # not a line's start: no escape
                )
            ),
        )
        .paragraph(
            "Lee says parks help.", note("Lee ", zotero([item(LEE, 12)], "(2019).", "e1"), endnote=True)
        )
        .build()
    )


def _parsed(view: WordView) -> Document:
    works = cited_works(view.text, Path("x.docx"))
    assert works is not None
    return parse_document(view.text, "x.docx", works.works)


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def test_notes_read_as_pandoc_writes_them() -> None:
    view = read_docx(note_paper())
    body = view.text.split("---\n\n", 1)[1]
    assert body == (
        "# Cooling cities\n\n"
        "Street trees cool streets by two degrees.[^1] Parks help too.[^2]\n\n"
        "Rain falls more in cities.[^3]\n\n"
        "Lee says parks help.[^4]\n\n"
        "[^1]: See [@smith2020]\n\n"
        "[^2]: [@smith2020; @lee2019] Email a@b.org, 5 * 3 and \\[draft\\].\n\n"
        "[^3]: Roe measured rain in cities [@roe2018] # Not a heading, 1. not a list.\n\n"
        "[^4]: Lee [@lee2019]\n"
    )
    assert [(f.keys, f.part, f.citation_id) for f in view.fields] == [
        (("smith2020",), "word/footnotes.xml", "n1"),
        (("smith2020", "lee2019"), "word/footnotes.xml", "n2"),
        (("roe2018",), "word/footnotes.xml", "n3"),
        (("lee2019",), "word/endnotes.xml", "e1"),
    ]
    assert list(view.references) == ["lee2019", "roe2018", "smith2020"]  # same keys as a body's
    assert view.fields[0].displayed == "Smith, Street trees (2020)."
    assert view.fields[0].location.startswith("/w:footnotes/w:footnote[3]/")  # after the two separators


def test_note_citations_are_found_at_their_exact_offsets_and_attached_to_the_note_claims() -> None:
    view = read_docx(note_paper())
    doc = _parsed(view)
    assert doc.dialect.name == "pandoc"
    assert [(g.start, g.end, g.keys) for g in doc.citations] == [
        (f.start, f.end, f.keys) for f in view.fields
    ]
    for f in view.fields:
        assert view.text[f.start : f.end] == "[" + "; ".join("@" + k for k in f.keys) + "]"
    roe = next(c for c in doc.claims if c.sentence.text.startswith("Roe measured rain"))
    assert [doc.citations[m].keys for m in roe.sentence.markers] == [("roe2018",)]
    body = next(s for s in doc.sentences if s.text.startswith("Street trees cool"))
    assert body.text == "Street trees cool streets by two degrees."  # the mark `[^1]` is no word
    assert "^" not in " ".join(s.text for s in doc.sentences)


def test_a_mark_at_a_paragraphs_start_does_not_define_a_note() -> None:
    data = DocxBuilder().paragraph(note("Lee ", zotero([item(LEE, 1)], "(2019).", "c1")), ": trees").build()
    view = read_docx(data)
    assert "\n[^1]\\: trees\n" in view.text
    assert [d.key for d in _parsed(view).layout.definitions if d.footnote] == ["1"]


def test_a_repair_in_a_note_rewrites_only_that_field_in_footnotes_xml() -> None:
    data = note_paper()
    view = read_docx(data, "thesis.docx")
    doc = _parsed(view)
    fix = try_fix("test", doc, [RetargetCitation(2, "roe2018", "lee2019")])
    assert not isinstance(fix, str), fix
    plan = plan_repairs(doc, [fix])
    out = write_docx(data, view, plan.result)
    before, after = _members(data), _members(out)
    assert list(before) == list(after)
    assert {name for name in before if before[name] != after[name]} == {"word/footnotes.xml"}
    docx.Document(io.BytesIO(out))  # re-opens
    again = read_docx(out, "thesis.docx")
    assert again.text.split("---\n\n", 1)[1] == plan.result.split("---\n\n", 1)[1]
    assert "roe2018" not in again.references  # cited nowhere now
    field = again.fields[2]
    assert (field.citation_id, field.keys, field.displayed) == ("n3", ("lee2019",), "(2019).")
    assert field.citation["properties"]["noteIndex"] == 3  # the note style's own number, kept
    assert field.citation["citationItems"][0]["uris"] == [LEE["uri"]]
    assert [f.citation for n, f in enumerate(again.fields) if n != 2] == [
        f.citation for n, f in enumerate(view.fields) if n != 2
    ]
    old = etree.fromstring(before["word/footnotes.xml"])
    new = etree.fromstring(after["word/footnotes.xml"])
    changed = [
        n
        for n, (a, b) in enumerate(zip(old.iter(W + "footnote"), new.iter(W + "footnote"), strict=True))
        if etree.tostring(a) != etree.tostring(b)
    ]
    assert changed == [4]  # the third note (after the two separators), nothing else


def test_each_repair_writes_only_the_notes_part_it_is_in() -> None:
    data = note_paper()
    view = read_docx(data)
    doc = _parsed(view)
    fix = try_fix("test", doc, [RemoveCitation(1, "lee2019")])
    assert not isinstance(fix, str), fix
    out = write_docx(data, view, plan_repairs(doc, [fix]).result)
    before, after = _members(data), _members(out)
    assert {name for name in before if before[name] != after[name]} == {"word/footnotes.xml"}
    assert read_docx(out).fields[1].displayed == "Smith (2020)."
    planned = view.text.replace("[^4]: Lee [@lee2019]", "[^4]: Lee [@smith2020]")
    out = write_docx(data, view, planned)
    assert {n for n, b in _members(out).items() if before[n] != b} == {"word/endnotes.xml"}
    assert json.loads(json.dumps(read_docx(out).fields[3].citation))["citationItems"][0]["uris"] == [
        SMITH["uri"]
    ]


def test_escaped_text_in_a_note_is_written_back_as_text() -> None:
    data = note_paper()
    view = read_docx(data)
    planned = view.text.replace("5 * 3 and \\[draft\\]", "5 * 4 and \\[final\\]")
    out = write_docx(data, view, planned)
    assert b"5 * 4 and [final]." in _members(out)["word/footnotes.xml"]
    assert read_docx(out).text == planned


def test_a_repair_that_would_move_a_mark_or_drop_a_note_is_refused() -> None:
    data = note_paper()
    view = read_docx(data)
    for planned in (
        view.text.replace("two degrees.[^1]", "two degrees."),
        view.text.replace("[^4]: Lee [@lee2019]\n", ""),
        view.text.replace("[^2]: [@smith", "[^5]: [@smith"),
    ):
        with pytest.raises(RepairError):
            write_docx(data, view, planned)


# odd and hostile notes parts -------------------------------------------------------------------------------
def _rewritten(data: bytes, name: str, change: Any) -> bytes:
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for info in source.infolist():
            payload = source.read(info)
            target.writestr(info, change(payload) if info.filename == name else payload)
    return out.getvalue()


def test_notes_without_a_relationship_are_not_the_documents() -> None:
    builder = DocxBuilder().paragraph(
        "Trees cool streets.", note("See ", zotero([item(SMITH, 1)], "Smith (2020).", "c1"))
    )
    view = read_docx(builder.build(relate=False))
    assert view.text == "Trees cool streets.\n"  # the mark whose note is not found is not shown
    assert not view.fields


def test_a_mark_whose_note_is_missing_and_notes_no_mark_refers_to_are_left_out() -> None:
    data = (
        DocxBuilder()
        .paragraph("Trees.", Raw('<w:r><w:footnoteReference w:id="99"/></w:r>'), " Rain.", note("Roe."))
        .build()
    )
    data = _rewritten(
        data,
        "word/footnotes.xml",
        lambda xml: xml.replace(
            b"</w:footnotes>",
            b'<w:footnote w:id="7"><w:p><w:r><w:t>orphan</w:t></w:r></w:p></w:footnote>'
            b'<w:footnote w:type="continuationNotice" w:id="8"><w:p><w:r><w:t>notice</w:t></w:r></w:p>'
            b"</w:footnote></w:footnotes>",
        ),
    )
    assert read_docx(data).text == "Trees. Rain.[^1]\n\n[^1]: Roe.\n"


def test_a_relationship_pointing_elsewhere_is_not_followed() -> None:
    data = DocxBuilder().paragraph("Trees.", note("Roe.")).build()
    for target in ("document.xml", "../../etc/passwd", "http://example.org/notes.xml"):
        odd = _rewritten(
            data,
            "word/_rels/document.xml.rels",
            lambda xml, target=target: xml.replace(b'Target="footnotes.xml"', f'Target="{target}"'.encode()),
        )
        assert read_docx(odd).text == "Trees.\n", target


def test_a_damaged_notes_part_is_refused_with_its_name() -> None:
    data = DocxBuilder().paragraph("Trees.", note("Roe.")).build()
    damaged = _rewritten(data, "word/footnotes.xml", lambda xml: xml[:-20])
    with pytest.raises(DocumentError, match=r"word/footnotes\.xml"):
        read_docx(damaged, "thesis.docx")
    entity = _rewritten(
        data,
        "word/footnotes.xml",
        lambda xml: xml.replace(
            b"<w:footnotes", b'<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><w:footnotes'
        ).replace(b">Roe.<", b">&e;<"),
    )
    assert "root:" not in read_docx(entity).text


# the CLI, and time ------------------------------------------------------------------------------------------
def test_the_audit_finds_a_problem_planted_in_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    climate = {
        "id": 11,
        "uris": ["http://zotero.org/users/1/items/CLIMATE1"],
        "itemData": {
            "id": 11,
            "type": "report",
            "title": "Urban heat islands: a fact sheet",
            "author": [{"literal": "Regional Climate Office"}],
            "issued": {"date-parts": [["2020"]]},
        },
    }
    data = (
        DocxBuilder()
        .paragraph(
            "Cities are warmer than the countryside.",
            note(
                "On calm summer nights, dense city centres can be up to 12 °C warmer than nearby rural land ",
                zotero([climate], "Regional Climate Office, Urban heat islands (2020).", "n1", note_index=1),
                ".",
            ),
        )
        .build()
    )
    shutil.copytree(SAMPLE_SOURCES, tmp_path / "sources")
    (tmp_path / "thesis.docx").write_bytes(data)
    monkeypatch.chdir(tmp_path)
    flags = ["--offline", "--judge", "heuristic", "--no-dense", "--sources", "sources", "--format", "json"]
    code = main(["audit", "thesis.docx", *flags])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    view = read_docx(data).text.splitlines()
    found = {(f["kind"], f["line"], f.get("reference")) for f in report["findings"]}
    line = next(n for n, text in enumerate(view, start=1) if text.startswith("[^1]: "))
    assert ("number_mismatch", line, "regionalclimateoffice2020") in found
    assert "12 °C" in view[line - 1]


def test_reading_five_hundred_notes_is_quick() -> None:
    builder = DocxBuilder()
    for n in range(500):
        builder.paragraph(
            f"Paragraph {n} says trees cool streets.",
            note(
                f"Note {n}: see ",
                zotero([item(SMITH, 1), item(LEE, 2)], "Smith; Lee.", f"c{n}", note_index=n + 1),
            ),
        )
    data = builder.build()
    started = time.perf_counter()
    view = read_docx(data)
    elapsed = time.perf_counter() - started
    assert len(view.fields) == 500
    assert re.search(r"^\[\^500\]: Note 499: see \[@smith2020; @lee2019\]$", view.text, re.MULTILINE)
    assert elapsed < 60, elapsed  # a hang guard: well under a second here
