"""A .docx package opened safely: the checks a hostile file must fail before any XML is read.

A .docx is a zip of XML parts. Before a byte of it is decompressed, its zip directory is checked:
an OLE2 compound file (a password-encrypted .docx or a legacy .doc), something that is no zip, a
macro-enabled package (refused: CiteDesk never writes one back), a member or a total that would
unpack to more than the limits, a member compressed suspiciously well (a zip bomb), or two members
of one name (a damaged package: a reader would take one, a writer copy both). Every
member is then read with its size capped at what the directory says, so a lying directory is
caught too. Only `word/document.xml`, its footnotes and endnotes parts (found as Word finds them,
through the document's relationships) and `word/styles.xml` (for heading names) are parsed, by
lxml with entities, DTDs and the network off.
"""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
import zlib
from dataclasses import dataclass

from lxml import etree  # type: ignore[import-untyped]

from citedesk.core.text import DocumentError

OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
"""The header of an OLE2 compound file: a legacy .doc, or a .docx encrypted with a password."""
MAX_TOTAL_BYTES = 200_000_000
"""What all members together may unpack to."""
MAX_MEMBER_BYTES = 100_000_000
"""What one member may unpack to."""
MAX_RATIO = 500
"""How much better than this a member over `RATIO_FLOOR` may not be compressed (a zip bomb:
deflate tops out near 1030:1; a long, repetitive document.xml reaches 100:1)."""
RATIO_FLOOR = 1_000_000
MAX_MEMBERS = 5000
DOCUMENT_PART = "word/document.xml"
STYLES_PART = "word/styles.xml"
CONTENT_TYPES = "[Content_Types].xml"
DOCUMENT_RELS = "word/_rels/document.xml.rels"
_RELS = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_WQ = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
FOOTNOTES = "footnotes"
ENDNOTES = "endnotes"
_MACRO_TYPE = b"macroEnabled"


@dataclass(frozen=True)
class Package:
    """The zip directory of a checked package and the parts CiteDesk reads."""

    infos: tuple[zipfile.ZipInfo, ...]
    document: bytes
    styles: bytes | None
    notes: tuple[tuple[str, str, bytes], ...] = ()
    """(`footnotes` or `endnotes`, the part's name, its bytes) for each notes part the document's
    relationships name and the package holds."""


def open_package(data: bytes, name: str = "document.docx") -> Package:
    """The checked package of a .docx's bytes; DocumentError saying what is wrong with it."""
    if data.startswith(OLE2_MAGIC):
        if "EncryptedPackage".encode("utf-16-le") in data:
            raise DocumentError(
                f"{name} is encrypted with a password, so CiteDesk cannot read it. In Word, remove the "
                "password (File > Info > Protect Document > Encrypt with Password) and save a copy."
            )
        raise DocumentError(
            f"{name} is a legacy Word 97-2003 document (.doc), not a .docx. Open it in Word and save "
            "it as a Word Document (.docx)."
        )
    if not data.startswith(b"PK"):
        raise DocumentError(f"{name} is not a Word document (.docx): it is not a zip package.")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = tuple(archive.infolist())
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError) as exc:
        raise _corrupt(name, exc) from exc
    _check_directory(infos, name)
    names = {info.filename for info in infos}
    content_types = _read(archive, CONTENT_TYPES, name) if CONTENT_TYPES in names else b""
    if _MACRO_TYPE in content_types or any(n.lower().endswith("vbaproject.bin") for n in names):
        raise DocumentError(
            f"{name} is a macro-enabled Word document (.docm); CiteDesk does not open documents with "
            "macros. Save a copy as a Word Document (.docx) without macros."
        )
    if DOCUMENT_PART not in names:
        raise DocumentError(
            f"{name} is not a Word document: its package has no {DOCUMENT_PART} (is it another "
            "Office file renamed?)."
        )
    document = _read(archive, DOCUMENT_PART, name)
    styles = _read(archive, STYLES_PART, name) if STYLES_PART in names else None
    rels = _read(archive, DOCUMENT_RELS, name) if DOCUMENT_RELS in names else None
    notes = tuple((kind, part, _read(archive, part, name)) for kind, part in _note_parts(rels, names, name))
    return Package(infos, document, styles, notes)


def _note_parts(rels: bytes | None, names: set[str], name: str) -> list[tuple[str, str]]:
    """The footnotes and endnotes parts as Word finds them: by the document's relationships (a
    part with no relationship is not the document's notes, whatever its name). A target outside
    the package, external, or naming a part CiteDesk reads for something else is left out."""
    if rels is None:
        return []
    found: list[tuple[str, str]] = []
    taken = {DOCUMENT_PART, STYLES_PART, CONTENT_TYPES, DOCUMENT_RELS}
    for relation in parse_xml(rels, name, DOCUMENT_RELS).getroot().iter(_RELS + "Relationship"):
        kind = relation.get("Type", "").rsplit("/", 1)[-1]
        target = relation.get("Target", "")
        if kind not in (FOOTNOTES, ENDNOTES) or relation.get("TargetMode") == "External":
            continue
        part = posixpath.normpath(target[1:] if target.startswith("/") else posixpath.join("word", target))
        if part in names and part not in taken and kind not in {k for k, _ in found}:
            taken.add(part)
            found.append((kind, part))
    return found


def heading_levels(styles: bytes | None, name: str) -> dict[str, int]:
    """Heading level by style id: `Heading N` is N, `Title` is 1 (python-docx's style names)."""
    if styles is None:
        return {"Title": 1, **{f"Heading{n}": n for n in range(1, 10)}}
    from docx.styles import BabelFish  # noqa: PLC0415 - python-docx (30 ms) only when a .docx is read

    levels: dict[str, int] = {}
    for style in parse_xml(styles, name, STYLES_PART).getroot().iter(_WQ + "style"):
        ident = style.get(_WQ + "styleId", "")
        named = style.find(_WQ + "name")
        ui = BabelFish.internal2ui(named.get(_WQ + "val", "")) if named is not None else ident
        found = re.fullmatch(r"Heading ([1-9])", ui)
        if found:
            levels[ident] = int(found.group(1))
        elif ui == "Title":
            levels[ident] = 1
    return levels


def parse_xml(data: bytes, name: str, part: str) -> etree._ElementTree:
    """A part's XML, parsed with entities, DTDs and the network off."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        return etree.ElementTree(etree.fromstring(data, parser))
    except etree.XMLSyntaxError as exc:
        raise DocumentError(f"{name} is damaged: its {part} is not well-formed XML ({exc}).") from exc


def _check_directory(infos: tuple[zipfile.ZipInfo, ...], name: str) -> None:
    if len(infos) > MAX_MEMBERS:
        raise DocumentError(f"{name} holds {len(infos)} parts; a Word document holds far fewer. Not read.")
    seen: set[str] = set()
    for info in infos:
        part = info.filename.casefold()  # part names are compared without case (ECMA-376 part 2)
        if part in seen:
            raise DocumentError(
                f"{name} is damaged: its package holds two parts named {info.filename}, so which one "
                "Word would read is not known. Not read; open it in Word and save it again."
            )
        seen.add(part)
    total = 0
    for info in infos:
        size = info.file_size
        total += size
        if size > MAX_MEMBER_BYTES:
            raise DocumentError(
                f"{name} has a part ({info.filename}) that unpacks to {size / 1e6:.0f} MB; CiteDesk "
                f"reads parts up to {MAX_MEMBER_BYTES / 1e6:.0f} MB. Not read."
            )
        if size > RATIO_FLOOR and size > MAX_RATIO * max(info.compress_size, 1):
            raise DocumentError(
                f"{name} looks like a zip bomb: its part {info.filename} unpacks to "
                f"{size / max(info.compress_size, 1):.0f} times its packed size. Not read."
            )
    if total > MAX_TOTAL_BYTES:
        raise DocumentError(
            f"{name} unpacks to {total / 1e6:.0f} MB; CiteDesk reads Word documents up to "
            f"{MAX_TOTAL_BYTES / 1e6:.0f} MB unpacked. Not read."
        )


def _read(archive: zipfile.ZipFile, member: str, name: str) -> bytes:
    """A member's bytes, never more than its directory entry says (a lying entry is corrupt)."""
    info = archive.getinfo(member)
    try:
        with archive.open(info) as stream:
            data = stream.read(info.file_size + 1)
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        OSError,
        ValueError,
        RuntimeError,
        NotImplementedError,
    ) as exc:
        raise _corrupt(name, exc) from exc
    if len(data) != info.file_size:
        raise _corrupt(name, ValueError(f"{member} is not the size its directory says"))
    return data


def _corrupt(name: str, exc: BaseException) -> DocumentError:
    return DocumentError(f"{name} is damaged and cannot be read as a Word document ({exc}).")
