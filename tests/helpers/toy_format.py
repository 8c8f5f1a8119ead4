"""A document format CiteDesk does not have, registered from this one module (issue 39): a toy
package (`NAME.cite.txt`: a zip holding `body.txt`) whose text cites `{{cite:key}}` against a
bibliography kept elsewhere. `toy_format()` registers its container's format and its dialect and
takes both back afterwards; no module of `citedesk/` names either."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from citedesk.core import containers, dialects, formats
from citedesk.core.containers import View
from citedesk.core.dialects import PlainDialect, Reading
from citedesk.core.document.markdown import Layout
from citedesk.core.document.markers import Marker, MarkerItem, MarkerStyle
from citedesk.core.document.model import Document, Structure
from citedesk.core.document.references import ReferenceList
from citedesk.core.document.works import BibReference
from citedesk.core.findings import Finding, Kind, TextEdit, make_finding
from citedesk.core.formats import DialectRule, DocumentFormat
from citedesk.core.operations import Operation, RemoveCitation, RemoveMarker
from citedesk.core.repair import make_fix, normalise_edits, removal_edit
from citedesk.core.text import DocumentError
from citedesk.errors import RepairError

SUFFIX = ".cite.txt"
BODY = "body.txt"
_CITE = re.compile(r"\{\{cite:([A-Za-z0-9_.-]+)\}\}")


class ToyPackage:
    """`NAME.cite.txt`: a zip whose `body.txt` is the text (UTF-8); other members are kept as they are."""

    name = "toy-package"

    def read(self, data: bytes, name: str) -> View:
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as package:
                text = package.read(BODY).decode("utf-8")
        except (zipfile.BadZipFile, KeyError, UnicodeDecodeError) as exc:
            raise DocumentError(f"{name} is not a toy package ({exc}).") from exc
        return View(text, data=data)

    def check(self, view: View, text: str) -> None:
        if "\n\n\n" in text:
            raise RepairError("a toy package cannot hold an empty paragraph")

    def write(self, view: View, text: str, name: str) -> View:
        if text == view.text:
            return view
        self.check(view, text)
        out = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(view.data)) as old, zipfile.ZipFile(out, "w") as new:
            for info in old.infolist():
                new.writestr(info, text.encode("utf-8") if info.filename == BODY else old.read(info))
        written = self.read(out.getvalue(), name)
        if written.text != text:
            raise RepairError(f"{name} would not read back as planned")
        return written


class ToyDialect(PlainDialect):
    """`{{cite:key}}`, one key per citation, keys of a bibliography kept elsewhere."""

    name = "toy-cite"
    works_in_text = False

    def read(self, text: str, layout: Layout, bibliography: tuple[BibReference, ...] | None) -> Reading:
        blocks = tuple((b.start, b.end) for b in layout.blocks)
        markers = tuple(
            Marker(m.start(), m.end(), MarkerStyle.PANDOC, (MarkerItem(m.start(), m.end(), (m[1],)),), "")
            for start, end in blocks
            for m in _CITE.finditer(text, start, end)
            if not layout.opaque.contains(m.start())
        )
        return Reading(markers, (), ReferenceList((), None, None), blocks, bibliography=bibliography or ())

    def label(self, structure: Structure, key: str) -> str:
        return "{{cite:" + key + "}}"

    def structural_findings(self, document: Document) -> list[Finding]:
        """A key no bibliography entry has is fabricated; the fix removes its citation."""
        findings = []
        for index, marker in enumerate(document.markers):
            for key in marker.keys:
                if key in document.work_by_key:
                    continue
                label = document.label(key)
                fix = make_fix(f"Remove {label}", document, [RemoveCitation(index, key)])
                message = f"{label} cites a key that is in no bibliography."
                findings.append(
                    make_finding(
                        Kind.FABRICATED,
                        marker.span_of(key),
                        message,
                        reference=key,
                        fixes=(fix,) if fix else (),
                    )
                )
        return findings

    def edits(self, structure: Structure, operations: Sequence[Operation]) -> list[TextEdit]:
        edits = []
        for op in operations:
            if not isinstance(op, RemoveCitation | RemoveMarker):
                raise RepairError(f"{type(op).__name__} does not apply to a toy document")
            marker = structure.markers[op.marker]
            edits.append(removal_edit(structure.text, marker.start, marker.end))
        return normalise_edits(edits)


TOY_FORMAT = DocumentFormat(
    "toy",
    "Toy package",
    (SUFFIX,),
    container=ToyPackage.name,
    editable=False,
    dialect=DialectRule.fixed(ToyDialect.name),
)


@contextmanager
def toy_format() -> Iterator[DocumentFormat]:
    """The toy format and its dialect registered while in the block, and no longer after it."""
    dialects.register(ToyDialect())
    containers.register(ToyPackage())
    formats.register(TOY_FORMAT)
    try:
        yield TOY_FORMAT
    finally:
        formats.unregister(TOY_FORMAT.name)
        containers.unregister(ToyPackage.name)
        dialects.unregister(ToyDialect.name)


def toy_package(text: str) -> bytes:
    """A toy package's bytes: `body.txt` and a member that is not the text (kept byte for byte)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as package:
        package.writestr("meta.json", '{"made": "by the tests"}')
        package.writestr(BODY, text.encode("utf-8"))
    return out.getvalue()


def body_of(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        return package.read(BODY).decode("utf-8")
