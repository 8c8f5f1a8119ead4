"""Line endings: LF, CRLF, a lone CR (classic Mac) and any mixture read as CommonMark reads them.

Each property builds a document with LF endings, rewrites some of its line endings as CRLF or CR,
and checks that the rewritten document parses to the same markers, references, sentences and
findings as the LF one (offsets mapped through the longer endings), and that fixes keep every line
ending as it was.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citedesk.core.checks import structural_findings
from citedesk.core.document.model import Document
from citedesk.core.findings import Finding, Kind
from citedesk.core.reading import parse_document
from citedesk.core.repair import apply_checked, apply_edits, merge_fixes
from citedesk.core.text import LineIndex, iter_lines, line_end, line_start, next_line_start
from citedesk.errors import RepairError
from tests.core.test_properties import PIECES

LF_PIECES = PIECES.filter(lambda piece: "\r" not in piece)
LF_TEXTS = st.one_of(
    st.lists(LF_PIECES, max_size=40).map("".join),
    st.lists(
        st.one_of(
            LF_PIECES,
            st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\r"), max_size=5),
        ),
        max_size=30,
    ).map("".join),
)
ENDINGS = st.sampled_from(["\n", "\r\n", "\r"])
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Rewritten:
    """An LF text with its line endings replaced, and the map from LF offsets to the new ones."""

    def __init__(self, lf: str, endings: list[str]) -> None:
        pieces: list[str] = []
        self._breaks: list[int] = []  # LF offsets of the newlines that became CRLF
        cursor = 0
        for index, position in enumerate(i for i, ch in enumerate(lf) if ch == "\n"):
            ending = endings[index % len(endings)]
            if ending == "\n" and position == cursor and pieces and pieces[-1] == "\r":
                ending = "\r\n"  # CR then LF would be one CRLF ending, not two line endings
            pieces.append(lf[cursor:position])
            pieces.append(ending)
            if ending == "\r\n":
                self._breaks.append(position)
            cursor = position + 1
        pieces.append(lf[cursor:])
        self.text = "".join(pieces)

    def at(self, offset: int) -> int:
        """The offset in the rewritten text of LF offset `offset` (past a CRLF: one more)."""
        return offset + bisect.bisect_left(self._breaks, offset)


def _finding_shape(finding: Finding, at: Callable[[int], int]) -> tuple[object, ...]:
    fixes = tuple(
        (fix.title, tuple((at(e.start), at(e.end), e.replacement) for e in fix.edits))
        for fix in finding.fixes
    )
    return (finding.kind, at(finding.start), at(finding.end), finding.reference, finding.claim_id, fixes)


def _shape(doc: Document, at: Callable[[int], int]) -> dict[str, object]:
    return {
        "markers": [(at(m.start), at(m.end), m.keys) for m in doc.markers],
        "malformed": [(at(m.start), at(m.end), m.reason) for m in doc.malformed],
        "references": [
            (e.key, at(e.start), at(e.end), e.title, e.url, e.doi, e.path, e.text) for e in doc.entries
        ],
        "section": None
        if doc.references.section is None
        else (at(doc.references.section[0]), at(doc.references.section[1])),
        "sentences": [(at(s.start), at(s.end), at(s.span_end), s.markers, s.text) for s in doc.sentences],
        "claims": [(c.id, c.needs_citation, c.reasons) for c in doc.claims],
        "findings": sorted((_finding_shape(f, at) for f in structural_findings(doc)), key=repr),
    }


def _endings(text: str) -> list[str]:
    return [text[end:after] for _, end, after in iter_lines(text) if after > end]


@FAST
@given(LF_TEXTS, st.lists(ENDINGS, min_size=1, max_size=6))
def test_any_line_endings_parse_like_lf(lf: str, endings: list[str]) -> None:
    rewritten = Rewritten(lf, endings)
    expected = _shape(parse_document(lf), rewritten.at)
    actual = _shape(parse_document(rewritten.text), lambda offset: offset)
    assert actual == expected


@FAST
@given(LF_TEXTS, st.lists(ENDINGS, min_size=1, max_size=6))
def test_fixes_keep_every_line_ending(lf: str, endings: list[str]) -> None:
    text = Rewritten(lf, endings).text
    doc = parse_document(text)
    findings = structural_findings(doc)
    before = _endings(text)
    for finding in findings:
        for fix in finding.fixes:
            result = apply_edits(text, fix.edits)
            after = _endings(result)
            # a removed reference entry takes its own line ending with it; no other ending changes
            assert _is_subsequence(after, before), fix.title
            assert set(after) <= set(before) | {""}
    try:
        fixed = apply_checked(text, merge_fixes(doc, [f.fixes[0] for f in findings if f.fixes]), like=doc)
    except RepairError:
        return
    assert _is_subsequence(_endings(fixed), before)


def _is_subsequence(part: list[str], whole: list[str]) -> bool:
    remaining = iter(whole)
    return all(any(item == other for other in remaining) for item in part)


def test_a_classic_mac_document_is_read_line_by_line() -> None:
    lf = (
        "# Notes\n\nCoffee lowers the risk of diabetes [1]. Trees cool cities [2].\n\n"
        "## References\n\n1. Ding M. Coffee and diabetes. https://example.org/coffee\n"
        "2. Moreau L. Tree canopy. https://example.org/trees\n"
    )
    mac = lf.replace("\n", "\r")
    doc = parse_document(mac)
    assert [e.key for e in doc.entries] == ["1", "2"]
    assert [e.url for e in doc.entries] == ["https://example.org/coffee", "https://example.org/trees"]
    assert [m.keys for m in doc.markers] == [("1",), ("2",)]
    assert structural_findings(doc) == []  # no fabricated citation, no orphan
    assert LineIndex(mac).line_count == lf.count("\n") + 1
    assert doc.lines.line_col(mac.index("Trees")) == (3, mac.index("Trees") - mac.index("Coffee") + 1)


def test_fixing_a_mixed_ending_document_keeps_its_valid_citations() -> None:
    # the case from the issue: a lone CR between the heading and the list hid the reference list,
    # so every citation looked fabricated and `fix` removed them
    text = (
        "Intro line.\rCoffee lowers risk [1].\r\nTrees cool cities [2] [9].\n\n"
        "## References\r\r1. Smith. Coffee. https://example.org/a\r\n2. Jones. Trees. https://example.org/b\r"
    )
    doc = parse_document(text)
    findings = structural_findings(doc)
    assert [(f.kind, f.reference) for f in findings] == [(Kind.FABRICATED, "9")]
    fixed = apply_checked(text, merge_fixes(doc, [f.fixes[0] for f in findings]), like=doc)
    assert fixed == text.replace(" [9]", "")


def test_removing_an_entry_takes_its_own_ending_only() -> None:
    text = "A claim [1].\r\rReferences\r----------\r1. Cited. https://a.example\r2. Orphan. https://b.example\r\n3. Also. x.pdf\r"
    doc = parse_document(text)
    orphans = [f for f in structural_findings(doc) if f.kind is Kind.ORPHAN_REFERENCE]
    assert [f.reference for f in orphans] == ["2", "3"]
    fixed = apply_checked(text, merge_fixes(doc, [f.fixes[0] for f in orphans]), like=doc)
    assert fixed == "A claim [1].\r\rReferences\r----------\r1. Cited. https://a.example\r"


def test_line_helpers_treat_cr_crlf_and_lf_alike() -> None:
    text = "ab\rcd\r\nef\ngh"
    assert [text[s:e] for s, e, _ in iter_lines(text)] == ["ab", "cd", "ef", "gh"]
    assert line_start(text, text.index("d")) == text.index("c")
    assert line_start(text, text.index("e")) == text.index("e")
    assert line_end(text, text.index("c")) == text.index("\r\n")
    assert next_line_start(text, text.index("c")) == text.index("e")
    assert next_line_start(text, text.index("g")) == len(text)
    index = LineIndex(text)
    assert [index.line_col(text.index(ch)) for ch in "aceg"] == [(1, 1), (2, 1), (3, 1), (4, 1)]
