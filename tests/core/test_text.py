from __future__ import annotations

import codecs

import pytest

from citedesk.core.text import DocumentError, LineIndex, decode_document, encode_document, iter_lines


def test_utf8_and_boms() -> None:
    assert decode_document("café [1]".encode()).text == "café [1]"
    assert decode_document(b"\xef\xbb\xbfcaf\xc3\xa9").text == "café"
    assert decode_document("café".encode("utf-16")).text == "café"


def test_latin1_with_declared_charset() -> None:
    data = "---\nencoding: latin-1\n---\nCaf\xe9 cr\xe8me [1].".encode("latin-1")
    decoded = decode_document(data)
    assert "Café crème" in decoded.text
    assert decoded.encoding in ("iso8859-1", "latin-1", "latin_1")


def test_undeclared_non_utf8_is_detected() -> None:
    text = "Les données montrent que la température a augmenté de 1,2 degré depuis 1900. " * 20
    decoded = decode_document(text.encode("cp1252"))
    assert decoded.text.startswith("Les données")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x00\x01\x02\x03binary\x00" * 100, "binary"),
        (bytes(range(256)) * 10, "binary"),
    ],
)
def test_bad_input_has_a_clear_message(data: bytes, message: str) -> None:
    with pytest.raises(DocumentError, match=message):
        decode_document(data)


def test_oversized_is_refused_with_sizes() -> None:
    with pytest.raises(DocumentError, match="MB"):
        decode_document(b"a" * 2000, max_bytes=1000)


def test_empty_document() -> None:
    assert decode_document(b"").text == ""


def test_line_index() -> None:
    text = "ab\ncd\r\nef"
    index = LineIndex(text)
    assert index.line_col(0) == (1, 1)
    assert index.line_col(4) == (2, 2)
    assert index.line_col(text.index("e")) == (3, 1)
    assert [text[s:e] for s, e, _ in iter_lines(text)] == ["ab", "cd", "ef"]


@pytest.mark.parametrize("codec", ["utf-16-be", "utf-16-le", "utf-32-be", "utf-32-le"])
def test_utf16_and_utf32_are_written_back_in_their_byte_order(codec: str) -> None:
    bom = {
        "utf-16-be": codecs.BOM_UTF16_BE,
        "utf-16-le": codecs.BOM_UTF16_LE,
        "utf-32-be": codecs.BOM_UTF32_BE,
        "utf-32-le": codecs.BOM_UTF32_LE,
    }[codec]
    data = bom + "Größe [1]\r\n".encode(codec)
    decoded = decode_document(data)
    assert decoded.text == "Größe [1]\r\n"  # the mark is not part of the text
    assert encode_document(decoded.text, decoded.encoding) == data


def test_plain_codecs_encode_as_python_does() -> None:
    assert encode_document("café", "utf-8") == "café".encode()
    assert encode_document("café", "utf-8-sig") == codecs.BOM_UTF8 + "café".encode()
    assert encode_document("café", "cp1252") == b"caf\xe9"
