"""A citation dialect CiteDesk does not have — `{{cite:key}}` against a bibliography — defined here,
registered here, and checked and repaired by the core as it is (issue 24): a new dialect is one
module implementing `CitationDialect`, and no other module names it."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import pytest

from citedesk.core.bibliographies.model import BibEntry
from citedesk.core.checks import structural_findings
from citedesk.core.dialects import (
    PlainDialect,
    Reading,
    dialect_for,
    dialect_named,
    register,
    registered,
    unregister,
)
from citedesk.core.document.markdown import Layout
from citedesk.core.document.markers import Marker, MarkerItem, MarkerStyle
from citedesk.core.document.model import Document, Structure, document_of, reparse
from citedesk.core.document.references import ReferenceList
from citedesk.core.document.works import BibReference
from citedesk.core.findings import Finding, Kind, TextEdit, make_finding
from citedesk.core.operations import AddCitation, Operation, RemoveCitation, RemoveMarker, RetargetCitation
from citedesk.core.plan import plan_repairs
from citedesk.core.reading import parse_document
from citedesk.core.repair import (
    apply_checked,
    cite_sentence,
    make_fix,
    normalise_edits,
    prose_of,
    removal_edit,
)
from citedesk.errors import RepairError

_CITE = re.compile(r"\{\{cite:([A-Za-z0-9_.-]+)\}\}")


class ToyDialect(PlainDialect):
    """`{{cite:key}}`, one key per citation, keys of a bibliography kept elsewhere."""

    name = "toy"
    works_in_text = False

    def read(self, text: str, layout: Layout, bibliography: tuple[BibReference, ...] | None) -> Reading:
        blocks = tuple((b.start, b.end) for b in layout.blocks)
        markers = tuple(
            # the marker style is read only by the numbered dialect's code: any will do
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
        known = document.work_by_key
        findings = []
        for index, marker in enumerate(document.markers):
            for key in marker.keys:
                if key in known:
                    continue
                label = document.label(key)
                fix = make_fix(f"Remove {label}", document, [RemoveCitation(index, key)])
                findings.append(
                    make_finding(
                        Kind.FABRICATED,
                        marker.span_of(key),
                        f"{label} cites a key that is in no bibliography.",
                        reference=key,
                        fixes=(fix,) if fix else (),
                    )
                )
        return findings

    def edits(self, structure: Structure, operations: Sequence[Operation]) -> list[TextEdit]:
        text, markers = structure.text, structure.markers
        edits = []
        for op in operations:
            if isinstance(op, RemoveCitation | RemoveMarker):
                marker = markers[op.marker]
                edits.append(removal_edit(text, marker.start, marker.end))
            elif isinstance(op, RetargetCitation):
                marker = markers[op.marker]
                edits.append(TextEdit(marker.start, marker.end, self.label(structure, op.new)))
            elif isinstance(op, AddCitation):
                edits.append(TextEdit(op.offset, op.offset, " " + self.label(structure, op.key)))
            else:
                raise RepairError(f"{type(op).__name__} does not apply to a toy document")
        return normalise_edits(edits)


TOY = ToyDialect()
BIBLIOGRAPHY = (BibReference.from_entry(BibEntry("lee2020", "article", title="Cool streets", year="2020")),)
TEXT = (
    "# Heat\n\n"
    "Shade trees cool streets by 2 °C {{cite:lee2020}}. Parks cut deaths by 30% {{cite:ghost}}.\n\n"
    "Write `{{cite:key}}` to cite a work.\n"
)


@pytest.fixture(autouse=True, scope="module")
def _registered() -> Iterator[None]:
    """The toy dialect is registered for this module's tests only (other tests see CiteDesk's own)."""
    register(TOY)
    yield
    unregister(TOY.name)


@pytest.fixture
def document() -> Document:
    return parse_document(TEXT, "heat.md", BIBLIOGRAPHY, dialect=dialect_named("toy"))


def test_it_registers_itself_without_being_chosen_for_anyone_else() -> None:
    assert dialect_named("toy") is TOY
    assert TOY in registered()
    assert dialect_for(None).name == "numbered"
    assert dialect_for(BIBLIOGRAPHY).name == "pandoc"


def test_it_finds_its_citations_with_exact_offsets(document: Document) -> None:
    assert document.dialect is TOY
    assert [TEXT[m.start : m.end] for m in document.markers] == ["{{cite:lee2020}}", "{{cite:ghost}}"]
    assert [m.keys for m in document.markers] == [("lee2020",), ("ghost",)]  # not the one in code
    assert [document.cited_keys(c) for c in document.claims if c.sentence.markers] == [["lee2020"], ["ghost"]]
    assert reparse(document, TEXT).dialect is TOY


def test_a_key_with_no_entry_is_fabricated(document: Document) -> None:
    fabricated = [f for f in structural_findings(document) if f.kind is Kind.FABRICATED]
    assert [(f.reference, TEXT[f.start : f.end], f.message) for f in fabricated] == [
        ("ghost", "{{cite:ghost}}", "{{cite:ghost}} cites a key that is in no bibliography.")
    ]
    assert [fix.title for fix in fabricated[0].fixes] == ["Remove {{cite:ghost}}"]


def test_its_fix_goes_through_the_plan_with_the_prose_unchanged(document: Document) -> None:
    finding = next(f for f in structural_findings(document) if f.kind is Kind.FABRICATED)
    plan = plan_repairs(document, finding.fixes)
    assert plan.result == TEXT.replace(" {{cite:ghost}}", "")
    assert apply_checked(TEXT, plan.edits, like=document) == plan.result
    after = reparse(document, plan.result)
    assert prose_of(after) == prose_of(document)
    assert not [f for f in structural_findings(document_of(after)) if f.kind is Kind.FABRICATED]


def test_a_swap_and_an_addition_are_spelled_by_the_dialect(document: Document) -> None:
    swap = make_fix("Cite lee2020", document, [RetargetCitation(1, "ghost", "lee2020")])
    assert swap is not None
    plan = plan_repairs(document, [swap])
    assert plan.result == TEXT.replace("{{cite:ghost}}", "{{cite:lee2020}}")
    heading = next(c for c in document.claims if "Write" in c.text)
    add = make_fix("Cite it", document, cite_sentence(document, heading.sentence, ["lee2020"]))
    assert add is not None
    added = plan_repairs(document, [add]).result
    assert "to cite a work {{cite:lee2020}}." in added
    assert prose_of(reparse(document, added)) == prose_of(document)


def test_a_plan_that_would_cite_a_missing_key_is_refused(document: Document) -> None:
    swap = make_fix("Cite nobody", document, [RetargetCitation(0, "lee2020", "nobody")])
    assert swap is not None
    with pytest.raises(RepairError, match="does not exist"):
        plan_repairs(document, [swap])
