"""The repair plan's edits of a Word view (`core.containers.word_read`) written back into the .docx.

The plan edits the pandoc Markdown view; this module finds what changed, paragraph by paragraph
(aligned on their lines), and inside a paragraph unit by unit (a character of plain text, or a
whole citation group): a group that is still there with other keys rewrites its field, a group
that is gone removes its field (and the runs of its instruction and displayed text), and changed
plain text is written into the `w:t` it came from. A field keeps its `citationID` and each kept
item its `uris`, its `properties` are updated to the new displayed text, so Zotero and Mendeley
still recognise and refresh it; a swapped-in item is copied from a field that cites it elsewhere.

A citation field in a footnote or endnote is repaired the same way, in its notes part. Only the
parts whose XML changed are written (document.xml, footnotes.xml, endnotes.xml); every other member
of the package is copied as it was (same names, order, compression, bytes). The result must re-read
to the planned text, notes included, else RepairError and nothing is returned. A note's mark and
its definition's label are not text anyone edits: a repair that would move or remove one is
refused. A citation where no field is cannot be made here: Word's reference manager
inserts it; nor is a Mendeley Cite citation (a content control, `core.containers.word_read`) ever edited.
"""

from __future__ import annotations

import copy
import io
import itertools
import json
import re
import unicodedata
import zipfile
from dataclasses import dataclass, field
from typing import Any

from lxml import etree  # type: ignore[import-untyped]

from citedesk.core.containers.word_align import align_lines, opcodes
from citedesk.core.containers.word_csl import year_of
from citedesk.core.containers.word_read import (
    WQ,
    XML_SPACE,
    OpenField,
    Scan,
    Token,
    WordField,
    WordItem,
    WordView,
    read_docx,
    scan_docx,
)
from citedesk.core.document.citekeys import CitationGroup, find_citations
from citedesk.errors import RepairError

_ADDING = (
    "Adding a citation in Word is not done by CiteDesk: insert it with Zotero or Mendeley "
    "(Add/Edit Citation) so the reference manager knows it, then audit the document again."
)
_CONTROL = (
    "A Mendeley Cite citation (a content control, not a field) is read but not edited by CiteDesk: "
    "change it with Mendeley Cite (Edit citation), then audit the document again."
)
_DROPPED_ON_SWAP = ("locator", "label", "prefix", "suffix", "suppress-author", "author-only")


@dataclass
class _Edits:
    """Character edits of `w:t` elements, applied together at the end (indices stay valid)."""

    deleted: dict[Any, set[int]] = field(default_factory=dict)
    inserted: dict[Any, dict[int, str]] = field(default_factory=dict)
    elements: dict[int, Any] = field(default_factory=dict)

    def delete(self, element: Any, at: int) -> None:
        self.elements[id(element)] = element
        self.deleted.setdefault(id(element), set()).add(at)

    def insert(self, element: Any, at: int, text: str) -> None:
        if text:
            self.elements[id(element)] = element
            slot = self.inserted.setdefault(id(element), {})
            slot[at] = slot.get(at, "") + text

    def apply(self) -> None:
        for key, element in self.elements.items():
            old = element.text or ""
            gone = self.deleted.get(key, set())
            added = self.inserted.get(key, {})
            parts = [added.get(i, "") + ("" if i in gone else ch) for i, ch in enumerate(old)]
            element.text = "".join(parts) + added.get(len(old), "")
            element.set(XML_SPACE, "preserve")


@dataclass
class _Writer:
    scan: Scan
    edits: _Edits = field(default_factory=_Edits)
    removed_fields: list[OpenField] = field(default_factory=list)
    rewritten: dict[int, CitationGroup] = field(default_factory=dict)


def write_docx(data: bytes, view: WordView, new_text: str) -> bytes:
    """The .docx whose view is `new_text`, which differs from `view.text` by the repair plan's
    edits; RepairError for an edit that cannot be written (or does not re-read as planned)."""
    scan = scan_docx(data, view.name)
    if scan.view.text != view.text:
        raise RepairError(f"{view.name} is not the document this view was read from; read it again.")
    if new_text == view.text:
        return data
    before = {part: etree_tostring(tree) for part, tree in scan.parts.items()}
    body_start = view.paragraphs[0][0] if view.paragraphs else len(view.text)
    if not new_text.startswith(view.text[:body_start]):
        raise RepairError(
            "The references in a Word document's front matter come from its fields; they are never edited."
        )
    writer = _Writer(scan)
    old_lines = [view.text[s:e] for s, e, _ in view.paragraphs]
    new_lines = _lines(new_text, body_start)
    groups = find_citations(new_text) if view.fields else []
    for old_index, new_line in align_lines(old_lines, [text for _, text in new_lines], new_lines):
        if new_line is None:
            _delete_paragraph(writer, old_index)
        else:
            start, text = new_line
            inside = [g for g in groups if start <= g.start and g.end <= start + len(text)]
            _edit_paragraph(writer, old_index, text, start, inside)
    writer.edits.apply()
    for group_field in writer.removed_fields:
        _remove_field(group_field)
    for index, group in writer.rewritten.items():
        _rewrite_field(writer, index, group)
    result = _package(data, scan, before)
    if _by_work(read_docx(result, view.name)) != _by_work(view, new_text):
        raise RepairError(
            "The repaired Word document does not read back as planned, so nothing was written "
            "(a field or run CiteDesk cannot edit safely)."
        )
    return result


def _by_work(view: WordView, text: str | None = None) -> str:
    """The body of `text` (else of the view) with each key as the work it is and runs of blank lines
    as one: what a re-read must give (its keys are derived afresh, and paragraphs are separated by
    one blank line; the front matter follows from the fields)."""
    text = view.text if text is None else text
    body = view.paragraphs[0][0] if view.paragraphs else len(view.text)
    if not view.fields:
        return re.sub(r"\n{3,}", "\n\n", text[body:]).rstrip("\n")
    parts = []
    last = body
    for group in find_citations(text):
        for item in group.items:
            if item.key_span[0] >= body:
                parts += [text[last : item.key_span[0]], "{" + view.works.get(item.key, "?" + item.key) + "}"]
                last = item.key_span[1]
    parts.append(text[last:])
    return re.sub(r"\n{3,}", "\n\n", "".join(parts)).rstrip("\n")


def _lines(text: str, start: int) -> list[tuple[int, str]]:
    """The non-blank lines of the body, each with its offset."""
    lines = []
    offset = start
    for line in text[start:].split("\n"):
        if line.strip():
            lines.append((offset, line))
        offset += len(line) + 1
    return lines


# one paragraph ------------------------------------------------------------------------------------------
def _units_of_old(tokens: list[Token]) -> list[tuple[object, Token | None]]:
    units: list[tuple[object, Token | None]] = []
    for token in tokens:
        if token.field >= 0:
            units.append((("old", token.field), token))
        elif token.element is None:
            units.extend((char, None) for char in token.view)
        elif token.view:
            units.append((token.view, token))
    return units


def _units_of_new(text: str, start: int, groups: list[CitationGroup]) -> list[object]:
    units: list[object] = []
    at = 0
    by_start = {g.start - start: (n, g) for n, g in enumerate(groups)}
    while at < len(text):
        if at in by_start:
            n, group = by_start[at]
            units.append(("new", n))
            at = group.end - start
        elif text[at] == "\\" and at + 1 < len(text) and re.match(r"[!-/:-@\[-`{-~]", text[at + 1]):
            units.append(text[at : at + 2])
            at += 2
        else:
            units.append(text[at])
            at += 1
    return units


def _edit_paragraph(writer: _Writer, index: int, text: str, start: int, groups: list[CitationGroup]) -> None:
    """Write one paragraph's changes: fields rewritten or removed, plain text edited between them."""
    old = _units_of_old(writer.scan.lines[index])
    new = _units_of_new(text, start, groups)
    for _tag, i1, i2, j1, j2 in opcodes([u for u, _ in old], new):
        old_at = [k for k in range(i1, i2) if old[k][1] is not None and old[k][1].field >= 0]  # type: ignore[union-attr]
        new_at = [k for k in range(j1, j2) if isinstance(new[k], tuple)]
        if len(new_at) > len(old_at):
            raise RepairError(_ADDING)
        old_fields = [old[k][1].field for k in old_at]  # type: ignore[union-attr]
        new_groups = [groups[new[k][1]] for k in new_at]  # type: ignore[index]
        matched = _pair_groups(writer.scan.view, old_fields, new_groups)
        kept = {a for a, _ in matched}
        writer.removed_fields += [writer.scan.fields[f] for a, f in enumerate(old_fields) if a not in kept]
        writer.rewritten.update({old_fields[a]: new_groups[b] for a, b in matched})
        cuts_old = [i1, *(old_at[a] for a, _ in matched), i2]
        cuts_new = [j1, *(new_at[b] for _, b in matched), j2]
        for s in range(len(cuts_old) - 1):
            lo = cuts_old[s] + (1 if s else 0)
            new_lo = cuts_new[s] + (1 if s else 0)
            old_seg = [u for u in old[lo : cuts_old[s + 1]] if u[1] is None or u[1].field < 0]
            new_seg = [u for u in new[new_lo : cuts_new[s + 1]] if isinstance(u, str)]
            _plain_edit(writer, old, old_seg, "".join(_unescape(u) for u in new_seg), lo)


def _unescape(unit: str) -> str:
    return unit[1:] if len(unit) == 2 and unit[0] == "\\" else unit


def _pair_groups(view: WordView, fields: list[int], new: list[CitationGroup]) -> list[tuple[int, int]]:
    """Which old field (by position in `fields`) each new group is: in order, and where some are
    gone, the ones with most keys in common."""
    if len(fields) == len(new):
        return [(a, a) for a in range(len(new))]
    keys = [set(view.fields[f].keys) for f in fields]
    pairs: list[tuple[int, int]] = []
    low = 0
    for b, group in enumerate(new):
        room = len(fields) - (len(new) - b)
        best = max(range(low, room + 1), key=lambda a: (len(keys[a] & set(group.keys)), -a))
        pairs.append((best, b))
        low = best + 1
    return pairs


def _plain_edit(
    writer: _Writer,
    units: list[tuple[object, Token | None]],
    old: list[tuple[object, Token | None]],
    new: str,
    anchor: int,
) -> None:
    """Replace the plain characters `old` by `new` in the runs they are in."""
    if any(token is None for _, token in old):
        raise RepairError(
            "A repair would change a tab, a line break, a heading mark or a note's mark of the Word document."
        )
    tokens = [token for _, token in old if token is not None]
    if tokens:
        first = tokens[0]
        writer.edits.insert(first.element, first.at, new)
        for token in tokens:
            writer.edits.delete(token.element, token.at)
        return
    if not new:
        return
    before = units[anchor - 1][1] if anchor > 0 else None
    if before is not None and before.field < 0:
        writer.edits.insert(before.element, before.at + 1, new)
        return
    after = units[anchor][1] if anchor < len(units) else None
    if after is not None and after.field < 0:
        writer.edits.insert(after.element, after.at, new)
        return
    raise RepairError("A repair would add text where the Word document has no run of text to hold it.")


def _delete_paragraph(writer: _Writer, index: int) -> None:
    p = writer.scan.line_paragraphs[index]
    if p.tag != WQ + "p":
        raise RepairError("A repair that removes a whole note cannot be written into a Word document.")
    if p.find(f".//{WQ}footnoteReference") is not None or p.find(f".//{WQ}endnoteReference") is not None:
        raise RepairError("A paragraph that holds a note's mark cannot be removed by CiteDesk.")
    if any(p.find(f".//{WQ}{tag}") is not None for tag in ("fldChar", "fldSimple", "sdt")):
        tokens = writer.scan.lines[index]
        units = _units_of_old(tokens)
        for token in tokens:
            if token.field >= 0:
                writer.removed_fields.append(writer.scan.fields[token.field])
        _plain_edit(writer, units, [u for u in units if u[1] is not None and u[1].field < 0], "", 0)
        return
    p.getparent().remove(p)


# fields -------------------------------------------------------------------------------------------------
def _runs_between(first: Any, last: Any) -> list[Any]:
    """The runs of a paragraph from the one holding `first` to the one holding `last`."""
    start = first if first.tag == WQ + "r" else next(first.iterancestors(WQ + "r"))
    end = last if last.tag == WQ + "r" else next(last.iterancestors(WQ + "r"))
    paragraph = next(start.iterancestors(WQ + "p"))
    if next(end.iterancestors(WQ + "p")) is not paragraph:
        raise RepairError("A citation field that spans paragraphs cannot be edited by CiteDesk.")
    runs = list(paragraph.iter(WQ + "r"))
    return runs[runs.index(start) : runs.index(end) + 1]


def _remove_field(opened: OpenField) -> None:
    if opened.control:
        raise RepairError(_CONTROL)
    if opened.simple:
        opened.begin.getparent().remove(opened.begin)
        return
    if opened.end is None:
        raise RepairError("A citation field without its end cannot be removed safely.")
    for run in _runs_between(opened.begin, opened.end):
        run.getparent().remove(run)


def _rewrite_field(writer: _Writer, index: int, group: CitationGroup) -> None:
    """A field citing the group's keys: its citationItems (kept items as they were, swapped-in ones
    copied from where they are cited), its properties and its displayed text."""
    view = writer.scan.view
    cited = view.fields[index]
    opened = writer.scan.fields[index]
    keys = [item.key for item in group.items]
    if tuple(keys) == cited.keys:
        return
    if opened.control:
        raise RepairError(_CONTROL)
    had: dict[str, tuple[int, dict[str, Any]]] = {}
    for number, item in enumerate(cited.items):
        had.setdefault(item.key, (number, item.item))
    citation = copy.deepcopy(cited.citation)
    citation["citationItems"] = [
        copy.deepcopy(had[key][1]) if key in had else _donor(view, key) for key in keys
    ]
    shown = _displayed(view, cited, [had[key][0] if key in had else key for key in keys])
    properties = citation.get("properties")
    if isinstance(properties, dict):
        for name in ("formattedCitation", "plainCitation"):
            if name in properties or cited.kind == "zotero":
                properties[name] = shown
    mendeley = citation.get("mendeley")
    if isinstance(mendeley, dict):
        for name in ("formattedCitation", "plainTextFormattedCitation", "previouslyFormattedCitation"):
            if name in mendeley:
                mendeley[name] = shown
    instruction = opened.instruction
    brace = instruction.find("{")
    _, end = json.JSONDecoder().raw_decode(instruction, brace)
    _set_instruction(
        opened, instruction[:brace] + json.dumps(citation, ensure_ascii=False) + instruction[end:]
    )
    _set_displayed(opened, shown)


def _donor(view: WordView, key: str) -> dict[str, Any]:
    """The citationItem of `key` as another field has it (id, uris, itemData; not its locator)."""
    for cited in view.fields:
        for item in cited.items:
            if item.key == key:
                donor = copy.deepcopy(item.item)
                for name in _DROPPED_ON_SWAP:
                    donor.pop(name, None)
                return donor
    if key not in view.references:
        raise RepairError(f"{key} is cited by no field of this Word document. {_ADDING}")
    return {"id": key, "uris": [], "itemData": copy.deepcopy(view.references[key])}


def _brackets(shown: str) -> tuple[str, str, str]:
    """(opening, inside, closing) of a displayed citation: its brackets, or the full stop a note
    style ends a footnote's citation with (`Smith (2020); Lee (2019).`)."""
    if len(shown) >= 2 and shown[0] in "([" and shown[-1] in ")]":
        return shown[0], shown[1:-1], shown[-1]
    if len(shown) >= 2 and shown.endswith(".") and not shown.endswith(".."):
        return "", shown[:-1], "."
    return "", shown, ""


def _balanced(piece: str) -> bool:
    return piece.count("(") == piece.count(")") and piece.count("[") == piece.count("]")


def _pieces(shown: str, count: int) -> tuple[str, list[str], str, str, bool] | None:
    """The displayed text as (opening, one piece per item, separator, closing, whether each piece
    keeps its own brackets): `(Smith, 2020; Lee, 2019)`, `[1, 2]`, `[1], [2]`, `1,2`; None when
    it does not split into one piece per item."""
    opening, inner, closing = _brackets(shown)
    if count == 1:
        return opening, [inner], "; ", closing, False
    for whole in (False, True):
        text = shown if whole else inner
        for separator in ("; ", ", ", ";", ","):
            pieces = text.split(separator)
            if len(pieces) == count and all(p.strip() and _balanced(p) for p in pieces):
                return (
                    ("", pieces, separator, "", True)
                    if whole
                    else (opening, pieces, separator, closing, False)
                )
    return None


def _displayed(view: WordView, cited: WordField, plan: list[int | str]) -> str:
    """The field's new displayed text: its own piece for each kept item, a swapped-in item's piece
    as shown alone elsewhere, else `Family, Year`, in the field's own brackets and separator."""
    split = _pieces(cited.displayed, len(cited.items))
    pieces: list[str] = []
    if split is None:
        opening, _, closing = _brackets(cited.displayed)
        separator, whole = "; ", False
    else:
        opening, pieces, separator, closing, whole = split
    order = _matched(view, cited, pieces) if split is not None else []
    shown = []
    for step in plan:
        if isinstance(step, int) and split is not None:
            shown.append(pieces[order[step]])
        else:
            alone = _alone(view, step if isinstance(step, str) else cited.items[step].key)
            shown.append(alone if whole else _brackets(alone)[1])
    return opening + separator.join(shown) + closing


def _matched(view: WordView, cited: WordField, pieces: list[str]) -> list[int]:
    """For each of the field's items, the displayed piece that is its own. A style may sort what
    it shows (`(Haddad, 2021; Walker, 2017)` for items Walker, Haddad), so a piece is matched to
    its item by what it says: an author-date piece by the item's first family name and year, a
    numeric one by the number the item shows where it is cited alone. When every item finds exactly
    one piece, that is the order; when the pieces say nothing either way (no names, no numbers
    known), the items' own order; when they contradict it, RepairError — writing a piece to the
    wrong work is what must never happen."""
    count = len(cited.items)
    if count == 1:
        return [0]
    found = [[j for j, piece in enumerate(pieces) if _names(view, item, piece)] for item in cited.items]
    if all(len(hits) == 1 for hits in found) and len({hits[0] for hits in found}) == count:
        return [hits[0] for hits in found]
    if all(not hits for hits in found):
        return list(range(count))
    if all(i in hits for i, hits in enumerate(found) if hits):
        return list(range(count))
    raise RepairError(
        f"The citation shows {cited.displayed!r}, whose parts CiteDesk cannot match to its works one "
        "by one: change it in Zotero (or Mendeley), which will also refresh its text."
    )


def _names(view: WordView, item: WordItem, piece: str) -> bool:
    """Whether a displayed piece is this item's: its first family name and year, or its number."""
    found = item.item.get("itemData")
    data: dict[str, Any] = found if isinstance(found, dict) else {}
    digits = re.sub(r"\D", "", piece)
    if digits and not re.search(r"[^\W\d_]", piece):  # a numeric piece: `1`, `[2]`
        alone = re.sub(r"\D", "", _shown_alone(view, item.key) or "")
        return bool(alone) and alone == digits
    name = _first_name(data)
    year = year_of(data)
    return bool(name) and _plain(name) in _plain(piece) and (year == "nd" or year in piece)


def _plain(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().casefold()


def _first_name(data: dict[str, Any]) -> str:
    """The first author's (or editor's) family name, or an organisation's name; empty when none."""
    people = data.get("author") or data.get("editor") or [{}]
    first = people[0] if isinstance(people, list) and people and isinstance(people[0], dict) else {}
    return str(first.get("family") or first.get("literal") or "")


def _shown_alone(view: WordView, key: str) -> str | None:
    """How `key` is displayed where a field cites it alone (brackets included), if one does."""
    return view.shown_alone.get(key)


def _alone(view: WordView, key: str) -> str:
    """How `key` is displayed where it is cited alone, else as the document shows another work
    alone (`(Fujimoto 2022)` where it writes `(Oke 2017)`; `(Family, Year)` when it shows none)."""
    shown = _shown_alone(view, key)
    if shown is not None:
        return shown
    data = view.references.get(key, {})
    year = year_of(data)
    opening, between, closing = _house_style(view)
    return f"{opening}{_first_name(data) or data.get('title') or key}{between}{'n.d.' if year == 'nd' else year}{closing}"


STYLE_EXAMPLES = 50
"""Works shown alone that `_house_style` reads, at most (a few agree on the style; bounded)."""


def _house_style(view: WordView) -> tuple[str, str, str]:
    """(opening, what goes between name and year, closing) as the document's author-date fields show
    a work alone — read off one whose first family name and year it displays — else `(`, `, `, `)`."""
    for key, shown in itertools.islice(view.shown_alone.items(), STYLE_EXAMPLES):
        data = view.references.get(key, {})
        name, year = _first_name(data), year_of(data)
        if not name or year == "nd":
            continue
        found = re.fullmatch(
            rf"(\W*){re.escape(name)}(.*?)([^\w.]*\s*|,\s*){re.escape(year)}[a-z]?(\W*)", shown, re.IGNORECASE
        )
        if found is not None and not re.search(r"\d", found.group(2)):  # `et al.` is the work's own
            return found.group(1), found.group(3), found.group(4)
    return "(", ", ", ")"


def _set_instruction(opened: OpenField, instruction: str) -> None:
    if opened.simple:
        opened.begin.set(WQ + "instr", instruction)
        return
    first, *rest = opened.instr_elements
    first.text = instruction
    first.set(XML_SPACE, "preserve")
    for element in rest:
        run = element.getparent()
        run.remove(element)
        if all(child.tag == WQ + "rPr" for child in run):
            run.getparent().remove(run)


def _set_displayed(opened: OpenField, shown: str) -> None:
    if not opened.result_elements:
        raise RepairError("A citation field that shows no text cannot be edited by CiteDesk.")
    edits = _Edits()
    element, at = opened.result_elements[0]
    edits.insert(element, at, shown)
    for element, at in opened.result_elements:
        edits.delete(element, at)
    edits.apply()


def _package(data: bytes, scan: Scan, before: dict[str, bytes]) -> bytes:
    """The package with each part the repair changed written anew (its XML, serialised, differs
    from what it was `before`); every other member copied as it was."""
    changed = {}
    for part, tree in scan.parts.items():
        xml = etree_tostring(tree)
        if xml != before[part]:
            changed[part] = xml
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            payload = changed[info.filename] if info.filename in changed else source.read(info)
            clone = zipfile.ZipInfo(info.filename, info.date_time)
            clone.compress_type = info.compress_type
            clone.external_attr = info.external_attr
            clone.create_system = info.create_system
            clone.comment = info.comment
            target.writestr(clone, payload)
    return out.getvalue()


def etree_tostring(tree: Any) -> bytes:
    standalone = tree.docinfo.standalone
    return bytes(etree.tostring(tree, xml_declaration=True, encoding="UTF-8", standalone=standalone))
