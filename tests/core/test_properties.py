"""Property-based tests: parsing and repairs never raise and never change prose, on any text."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citedesk.core.checks import structural_findings
from citedesk.core.document import parse_document, parse_structure
from citedesk.core.repair import apply_checked, apply_edits, merge_fixes, prose_of
from citedesk.errors import RepairError

# Text built from the pieces that matter to the parser, plus arbitrary characters.
PIECES = st.sampled_from(
    [
        "[1]",
        "[2]",
        "[1, 2]",
        "[1-3]",
        "[3–1]",
        "[1,,2]",
        "[^a]",
        "[^",
        "]",
        "[",
        "[7]",
        "[2][3]",
        " ",
        "  ",
        "\n",
        "\n\n",
        "\r\n",
        ".",
        ". ",
        "e.g. ",
        "et al. ",
        "U.S. ",
        "3.5% ",
        "`",
        "```\n",
        "# ",
        "## References\n",
        "**Sources**\n",
        "1. ",
        "[^a]: ",
        "- ",
        "> ",
        "| a | b |\n|---|---|\n",
        "<!--",
        "-->",
        "---\n",
        "https://x.example/a ",
        "[t](https://y.example) ",
        "![i](p.png)",
        "Water boils at 100 °C",
        "Prices rose",
        "Smith found that",
        "It is the largest",
        "word",
        "doi:10.1234/abc ",
        "file.pdf ",
        "\t",
        "😀",
        "é",
    ]
)
TEXTS = st.one_of(
    st.lists(PIECES, max_size=40).map("".join),
    st.text(max_size=200),
    st.lists(st.one_of(PIECES, st.text(max_size=5)), max_size=30).map("".join),
)
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(TEXTS)
def test_parser_never_raises_and_offsets_are_valid(text: str) -> None:
    doc = parse_document(text)
    for marker in doc.markers:
        assert 0 <= marker.start < marker.end <= len(text)
        assert text[marker.start] == "["
        assert text[marker.end - 1] == "]"
    for sentence in doc.sentences:
        assert 0 <= sentence.start < sentence.end <= sentence.span_end <= len(text)
        assert text[sentence.start : sentence.end].strip() == text[sentence.start : sentence.end]
    for entry in doc.entries:
        assert 0 <= entry.start <= entry.end <= len(text)


@FAST
@given(TEXTS)
def test_every_fix_keeps_prose_identical(text: str) -> None:
    doc = parse_document(text)
    before = prose_of(doc)
    findings = structural_findings(doc)
    for finding in findings:
        for fix in finding.fixes:
            result = apply_edits(text, fix.edits)
            assert prose_of(parse_structure(result)) == before, fix.title
    all_fixes = [f.fixes[0] for f in findings if f.fixes]
    try:
        edits = merge_fixes(doc, all_fixes)
        fixed = apply_checked(text, edits)
    except RepairError:
        # together they may expose structure each alone did not ("[1][1]" above a bold "Sources"
        # line): then "fix all" is refused as a whole (nothing applied), never half-applied
        return
    assert prose_of(parse_structure(fixed)) == before


@FAST
@given(TEXTS)
def test_fixing_fabricated_markers_removes_them(text: str) -> None:
    doc = parse_document(text)
    fabricated = [f for f in structural_findings(doc) if f.kind.value == "fabricated" and f.fixes]
    if not fabricated:
        return
    try:
        fixed = apply_checked(text, merge_fixes(doc, [f.fixes[0] for f in fabricated]))
    except RepairError:
        # refused because removing the marker would turn what follows into Markdown structure
        # (`[1]## References` → a heading): the check did its job; prose is the priority
        return
    again = [
        f for f in structural_findings(parse_document(fixed)) if f.kind.value == "fabricated" and f.fixes
    ]
    assert again == []
