"""Property-based tests: parsing and repairs never raise and never change prose, on any text."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from citedesk.core.checks import structural_findings
from citedesk.core.document.markers import format_numeric
from citedesk.core.reading import parse_document, parse_structure
from citedesk.core.repair import apply_checked, apply_edits, merge_fixes, prose_of
from citedesk.errors import RepairError

# Marker groups longer than 200 characters: read as one marker each, whatever their length
LONG_GROUP = "[" + ", ".join(str(n) for n in range(1, 90)) + "]"
LONG_RANGES = "[1-3, 5, 7, 9, " + ", ".join(str(n) for n in range(11, 160, 2)) + "]"
LONG_MALFORMED = "[" + ",, ".join(str(n) for n in range(1, 60)) + "]"
assert min(len(LONG_GROUP), len(LONG_RANGES), len(LONG_MALFORMED)) > 200

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
        LONG_GROUP,  # last: hypothesis shrinks towards the first pieces, the simplest
        LONG_RANGES,
        LONG_MALFORMED,
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
@example("[[1][^a]: [1]")  # removing [1] would pair the open "[" with the note's
@example("[[1] [^a]: [1]")
@example("[[1]1. [^a]: [1]")
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
        fixed = apply_checked(text, edits, like=doc)
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
        fixed = apply_checked(text, merge_fixes(doc, [f.fixes[0] for f in fabricated]), like=doc)
    except RepairError:
        # refused because removing the marker would turn what follows into Markdown structure
        # (`[1]## References` → a heading): the check did its job; prose is the priority
        return
    again = [
        f for f in structural_findings(parse_document(fixed)) if f.kind.value == "fabricated" and f.fixes
    ]
    assert again == []


# --- repair plans: any subset of the offered fixes, applied together ----------------------------
KEYS = ("1", "2", "3", "4", "5", "6")
SENTENCE_WORDS = ("Trees cool streets", "Prices rose 30%", "Smith found that parks help", "It rained")


POOL = 120
"""Long groups cite numbers from 1 to POOL; a few of them have no entry (fabricated)."""


def _long_group(draw: st.DrawFn) -> tuple[str, list[int]]:
    """A marker group over 200 characters, as writers write them: numbers and ranges (`1–3`),
    separated by `, ` or `;` with spaces or none; and the numbers it cites."""
    numbers = sorted(draw(st.sets(st.integers(1, POOL), min_size=70, max_size=90)))
    separator = draw(st.sampled_from([", ", ",", "; ", ",  "]))
    dash = draw(st.sampled_from(["", "-", "–"]))
    group = "[" + format_numeric(numbers, separator, dash) + "]"
    if len(group) <= 200:  # ranges made it short: the numbers one by one (70 of them: 200+ characters)
        group = "[" + ", ".join(map(str, numbers)) + "]"
    return group, numbers


@st.composite
def cited_documents(draw: st.DrawFn) -> str:
    """Sentences citing numbers 1–6 (some with no entry), and a reference list of some of them,
    with duplicates by URL or by number: documents whose fixes interact. A quarter of them also
    cite a group over 200 characters long (numbers up to POOL, some listed, some not)."""
    sentences = []
    long_numbers: list[int] = []
    if draw(st.integers(0, 3)) == 0:
        group, long_numbers = _long_group(draw)
        sentences.append(f"{draw(st.sampled_from(SENTENCE_WORDS))} {group}.")
    for _ in range(draw(st.integers(1, 6))):
        words = draw(st.sampled_from(SENTENCE_WORDS))
        cited = draw(st.lists(st.sampled_from(KEYS), max_size=3, unique=True))
        marker = f" [{', '.join(cited)}]" if cited else ""
        style = draw(st.sampled_from(["inside", "outside", "malformed"]))
        if style == "malformed" and len(cited) > 1:
            marker = f" [{',,'.join(cited)}]"
        sentences.append(f"{words}{marker}." if style != "outside" else f"{words}.{marker}")
    listed = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=6))
    entries = []
    for key in listed:
        url = draw(st.sampled_from(["https://a.example/x", "https://b.example/y", f"https://k{key}.example"]))
        entries.append(f"[{key}] Work {key}. {url}")
    if long_numbers:
        also = draw(st.sets(st.sampled_from([n for n in long_numbers if str(n) not in KEYS])))
        entries += [f"[{n}] Work {n}. https://k{n}.example" for n in sorted(also)]
    return " ".join(sentences) + "\n\n## References\n\n" + "\n".join(entries) + "\n"


def _structural(text: str) -> int:
    kinds = {"fabricated", "malformed_marker", "orphan_reference", "duplicate_reference"}
    return sum(1 for f in structural_findings(parse_document(text)) if f.kind.value in kinds)


def _missing(text: str) -> int:
    """Citations of a reference that does not exist: by markers, and by malformed markers' clear
    intent (`[1,,9]` cites 9 whether or not it is rewritten)."""
    from citedesk.core.document.markers import find_markers, repair_malformed
    from citedesk.core.spans import SpanSet

    doc = parse_document(text)
    known = doc.references.by_key()
    cited = [k for m in doc.markers for k in m.keys]
    for bad in doc.malformed:
        repaired = repair_malformed(bad, text[bad.start : bad.end]) or ""
        cited += [k for m in find_markers(repaired, [(0, len(repaired))], SpanSet.of([]))[0] for k in m.keys]
    return sum(1 for k in cited if k not in known)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cited_documents(), st.data())
def test_a_plan_of_any_offered_fixes_never_breaks_a_reference_or_the_prose(
    text: str, data: st.DataObject
) -> None:
    from citedesk.core.findings import Fix
    from citedesk.core.operations import RetargetCitation
    from citedesk.core.plan import plan_repairs
    from citedesk.core.repair import cite_sentence, make_fix

    doc = parse_document(text)
    offered: list[Fix] = [fix for f in structural_findings(doc) for fix in f.fixes]
    keys = [e.key for e in doc.entries]
    # what the evidence stage offers too: swaps to another reference, and added citations
    # (for a long group, the swaps of its first keys only: 90 keys × every entry is too many fixes)
    for index, marker in enumerate(doc.markers):
        for old in marker.keys[:6]:
            for new in keys[:12]:
                if new != old:
                    swap = make_fix(
                        f"Cite [{new}] instead of [{old}]", doc, [RetargetCitation(index, old, new)]
                    )
                    offered += [swap] if swap else []
    for claim in doc.claims:
        for key in keys[:2]:
            added = make_fix(f"Cite [{key}]", doc, cite_sentence(doc, claim.sentence, [key]))
            offered += [added] if added else []
    chosen = data.draw(st.lists(st.sampled_from(offered), max_size=8) if offered else st.just([]))
    renumber = data.draw(st.booleans())
    try:
        plan = plan_repairs(doc, chosen, renumber=renumber)
    except RepairError:
        return  # refused as a whole: nothing applied
    assert prose_of(parse_structure(plan.result)) == prose_of(doc)
    assert _missing(plan.result) <= _missing(text)
    assert _structural(plan.result) <= _structural(text)


# --- long marker groups: fixing everything keeps every reference they cite ---------------------
@st.composite
def long_group_documents(draw: st.DrawFn) -> tuple[str, set[int]]:
    """Sentences citing long groups or short markers; a reference list with an entry for most cited
    numbers, some uncited ones and some duplicates. Returns the text and the numbers cited."""
    sentences: list[str] = []
    cited: set[int] = set()
    for _ in range(draw(st.integers(1, 4))):
        words = draw(st.sampled_from(SENTENCE_WORDS))
        if draw(st.booleans()):
            marker, numbers = _long_group(draw)
        else:
            numbers = sorted(draw(st.sets(st.integers(1, POOL + 5), min_size=1, max_size=3)))
            marker = "[" + ", ".join(map(str, numbers)) + "]"
        cited |= set(numbers)
        sentences.append(f"{words} {marker}." if draw(st.booleans()) else f"{words}. {marker}")
    missing = draw(st.sets(st.sampled_from(sorted(cited)), max_size=3))
    uncited = draw(st.sets(st.integers(POOL + 1, POOL + 10), max_size=3)) - cited
    listed = sorted((cited - missing) | uncited)
    duplicated = draw(st.sets(st.sampled_from(listed), max_size=2)) if listed else set()
    entries = []
    for n in listed:
        url = f"https://w{n}.example/paper"
        if n in duplicated and n != listed[0]:
            url = f"https://w{listed[0]}.example/paper"  # the same work listed twice
        entries.append(f"[{n}] Work {n}. {url}")
    return " ".join(sentences) + "\n\n## References\n\n" + "\n".join(entries) + "\n", cited


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_group_documents(), st.booleans())
def test_long_groups_are_one_marker_and_fixing_everything_keeps_what_they_cite(
    drawn: tuple[str, set[int]], renumber: bool
) -> None:
    from citedesk.core.plan import plan_repairs

    text, cited = drawn
    doc = parse_document(text)
    assert {int(k) for m in doc.markers for k in m.keys} == cited  # every group read, all of it
    assert not doc.malformed
    known = doc.references.by_key()
    works = {known[str(n)].url for n in cited if str(n) in known}  # cited and listed: must stay
    # `citedesk fix --kinds all`: the first fix of every finding, as one checked plan
    fixes = [f.fixes[0] for f in structural_findings(doc) if f.fixes]
    plan = plan_repairs(doc, fixes, renumber=renumber)
    after = parse_document(plan.result)
    assert prose_of(parse_structure(plan.result)) == prose_of(doc)  # prose byte-identical
    listed = after.references.by_key()
    assert works <= {entry.url for entry in listed.values()}  # no cited reference removed
    assert all(key in listed for m in after.markers for key in m.keys)  # nothing left fabricated
