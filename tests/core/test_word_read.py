"""Reading a .docx into its pandoc Markdown view: the text and keys, the fields' offsets, the
bibliography from the front matter, and the clear refusals of hostile files."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest

from citedesk.core.containers.word_package import OLE2_MAGIC
from citedesk.core.reading import parse_document
from citedesk.core.text import DocumentError
from citedesk.core.word import read_docx
from citedesk.sources.citeworks import cited_works
from tests.helpers.docx_build import (
    LEE,
    SMITH,
    DocxBuilder,
    Field,
    item,
    mendeley_paper,
    numbered_paper,
    zotero,
    zotero_paper,
)


def test_zotero_view_is_pandoc_markdown_with_readable_keys() -> None:
    view = read_docx(zotero_paper())
    body = view.text.split("---\n\n", 1)[1]
    assert body.splitlines()[0] == "# Cooling cities"
    assert "Street trees cool streets by two degrees [@smith2020]." in body
    assert "Parks and trees both help [@smith2020; @lee2019]. Rain falls more in cities [@roe2018]." in body
    assert "Lee, A. (2019)" not in body  # the bibliography field is generated, not prose
    assert [f.keys for f in view.fields] == [
        ("smith2020",),
        ("smith2020", "lee2019"),
        ("roe2018",),
        ("lee2019",),
    ]
    assert [f.citation_id for f in view.fields] == ["cit1", "cit2", "cit3", "cit4"]
    assert list(view.references) == ["lee2019", "roe2018", "smith2020"]  # by key, not by first citation
    assert view.fields[0].displayed == "(Smith, 2020)"


def test_every_group_is_a_pandoc_citation_at_its_fields_index() -> None:
    view = read_docx(zotero_paper())
    works = cited_works(view.text, Path("x.docx"))
    assert works is not None
    assert {w.key: (w.title, w.year) for w in works.works} == {
        "smith2020": ("Street trees cool cities", "2020"),
        "lee2019": ("Parks and heat", "2019"),
        "roe2018": ("Urban rain", "2018"),
    }
    doc = parse_document(view.text, "x.docx", works.works)
    assert doc.dialect.name == "pandoc"
    assert [(g.start, g.end, g.keys) for g in doc.citations] == [
        (f.start, f.end, f.keys) for f in view.fields
    ]


def test_markdown_characters_in_plain_text_stay_text() -> None:
    view = read_docx(zotero_paper())
    works = cited_works(view.text, Path("x.docx"))
    assert works is not None
    doc = parse_document(view.text, "x.docx", works.works)
    line = next(s for s in doc.sentences if "Email" in s.text)
    assert not line.markers
    for word in ("a", "b.org", "5", "3", "draft", "bold", "words"):
        assert word in line.text
    assert len(doc.citations) == 4  # `a@b.org` and `[draft]` cite nothing
    assert "a@b.org" in line.text  # an address reads as written: no backslash in the view either
    assert "a@b.org" in view.text


def test_an_at_sign_that_pandoc_would_read_as_a_citation_is_escaped() -> None:
    data = (
        DocxBuilder()
        .paragraph("Trees cool streets ", zotero([item(SMITH, 1)], "(Smith, 2020)", "s"), ".")
        .paragraph("Follow @smith2020 on social media, or mail jo@city.org.")
        .build()
    )
    view = read_docx(data)
    assert "Follow \\@smith2020 on social media, or mail jo@city.org." in view.text
    works = cited_works(view.text, Path("x.docx"))
    assert works is not None
    doc = parse_document(view.text, "x.docx", works.works)
    assert len(doc.citations) == 1


def test_instruction_split_across_many_runs_reads_as_one_field() -> None:
    for split in (1, 3, 7, 50):
        view = read_docx(zotero_paper(split=split))
        assert view.fields[0].keys == ("smith2020",)
        assert view.text[view.fields[0].start : view.fields[0].end] == "[@smith2020]"


def test_mendeley_fields_simple_and_complex() -> None:
    view = read_docx(mendeley_paper())
    assert [f.kind for f in view.fields] == ["mendeley", "mendeley"]
    assert "Trees cool streets [@smith2020; @lee2019]." in view.text
    assert "Rain rises [@roe2018]." in view.text
    assert "Urban rain." not in view.text.split("---\n\n", 1)[1]


def test_same_work_in_several_fields_has_one_key_and_collisions_get_letters() -> None:
    other_smith = {**SMITH, "title": "Another Smith paper", "uri": "http://zotero.org/users/1/items/SMITH2"}
    data = (
        DocxBuilder()
        .paragraph("A ", zotero([item(SMITH, 1)], "(Smith, 2020a)", "c1"), ".")
        .paragraph("B ", zotero([item(other_smith, 2), item(SMITH, 1)], "(Smith, 2020b, 2020a)", "c2"), ".")
        .paragraph(
            "C ",
            zotero([item(LEE, 3, locator="33-35", prefix="see")], "(see Lee, 2019, pp. 33-35)", "c3"),
            ".",
        )
        .build()
    )
    view = read_docx(data)
    assert [f.keys for f in view.fields] == [("smith2020",), ("smith2020a", "smith2020"), ("lee2019",)]
    assert "C [see @lee2019, pp. 33-35]." in view.text


def test_a_citation_field_whose_json_is_broken_reads_as_its_displayed_text() -> None:
    broken = Field(' ADDIN ZOTERO_ITEM CSL_CITATION {"citationItems": [', "(Smith, 2020)")
    data = (
        DocxBuilder()
        .paragraph("A ", zotero([item(LEE, 1)], "(Lee, 2019)", "c1"), " and B ", broken, ".")
        .build()
    )
    view = read_docx(data)
    assert "A [@lee2019] and B (Smith, 2020)." in view.text
    assert [f.citation_id for f in view.fields] == ["c1"]


def test_numbered_document_reads_in_the_numbered_dialect() -> None:
    view = read_docx(numbered_paper())
    assert not view.fields
    assert not view.text.startswith("---")
    assert "\n# References\n\n[1] Smith, A. (2020)." in view.text
    doc = parse_document(view.text, "x.docx", None)
    assert doc.dialect.name == "numbered"
    assert [m.keys for m in doc.markers] == [("1",), ("2", "3"), ("3",)]
    assert [r.key for r in doc.references.entries] == ["1", "2", "3"]


# hostile files ----------------------------------------------------------------------------------------
def _zip(members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def _refused(data: bytes, *words: str) -> None:
    with pytest.raises(DocumentError) as caught:
        read_docx(data, "paper.docx")
    message = caught.value.message
    assert "paper.docx" in message
    for word in words:
        assert word in message


def test_ole2_files_say_encrypted_or_legacy() -> None:
    _refused(
        OLE2_MAGIC + bytes(600) + "EncryptedPackage".encode("utf-16-le") + bytes(100), "encrypted", "password"
    )
    _refused(OLE2_MAGIC + bytes(600) + "WordDocument".encode("utf-16-le"), "legacy", ".doc")


def test_not_a_zip_truncated_or_corrupt() -> None:
    _refused(b"just some text, not a package", "not a zip")
    good = zotero_paper()
    _refused(good[: len(good) // 2], "damaged")
    members = {"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w:document/>" * 50}
    broken = bytearray(_zip(members, zipfile.ZIP_STORED))
    at = broken.find(b"<w:document/>")
    broken[at + 1] = ord("x")  # the CRC no longer matches
    _refused(bytes(broken), "damaged")


def test_macro_enabled_packages_are_refused() -> None:
    docm = b'<Types><Override ContentType="application/vnd.ms-word.document.macroEnabled.main+xml"/></Types>'
    _refused(_zip({"[Content_Types].xml": docm, "word/document.xml": b"<x/>"}), "macro")
    _refused(
        _zip(
            {"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<x/>", "word/vbaProject.bin": b"\0"}
        ),
        "macro",
    )


def test_zip_bomb_and_huge_member_are_refused_before_reading() -> None:
    bomb = _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": bytes(5_000_000)})
    _refused(bomb, "zip bomb")
    small = _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<x/>"}, zipfile.ZIP_STORED)
    _refused(_claim_size(small, "word/document.xml", 150_000_000), "MB")


def test_a_long_repetitive_document_is_no_zip_bomb() -> None:
    builder = DocxBuilder()
    for n in range(1200):
        builder.paragraph(
            f"Paragraph {n} says trees cool streets ", zotero([item(SMITH, 1)], "(Smith, 2020)", f"c{n}"), "."
        )
    data = builder.build()
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo("word/document.xml")
    assert info.file_size > 1_000_000
    assert info.file_size > 90 * info.compress_size  # as well packed as real long papers get
    assert len(read_docx(data).fields) == 1200


def test_no_document_part_and_bad_xml() -> None:
    _refused(_zip({"[Content_Types].xml": b"<Types/>", "xl/workbook.xml": b"<x/>"}), "word/document.xml")
    _refused(_zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w:document"}), "XML")


def _claim_size(data: bytes, member: str, size: int) -> bytes:
    """The zip with `member`'s uncompressed size in its directory entries changed to `size`."""
    patched = bytearray(data)
    name = member.encode()
    at = 0
    while (at := patched.find(b"PK\x01\x02", at)) >= 0:
        if patched[at + 46 : at + 46 + len(name)] == name:
            struct.pack_into("<I", patched, at + 24, size)
        at += 4
    return bytes(patched)
