"""Property: random pandoc citation groups, any subset of the fixes offered for them, one checked
plan — the prose stays byte-identical and no group comes out broken (the plan-level round trip;
`test_citekey_repair` has the edit-level one)."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citedesk.core.bibliographies.model import BibEntry
from citedesk.core.checks import structural_findings
from citedesk.core.dialects.pandoc.repair import citation_prose
from citedesk.core.document.citekeys import find_citations
from citedesk.core.document.model import reparse
from citedesk.core.document.works import BibReference
from citedesk.core.findings import Fix
from citedesk.core.operations import AddCitation, RetargetCitation
from citedesk.core.plan import plan_repairs
from citedesk.core.reading import parse_document
from citedesk.core.repair import cite_sentence, make_fix, prose_of
from citedesk.errors import RepairError

LISTED = ("doe99", "smith:2004", "odd.key.", "roe-2020", "twin")
MISSING = ("ghost", "phantom.")
BIBLIOGRAPHY = tuple(
    BibReference.from_entry(
        BibEntry(
            key,
            "article",
            title=f"Work {key}",
            year="2020",
            doi="10.1/same" if key in ("roe-2020", "twin") else None,
        )
    )
    for key in LISTED
)
WRITTEN = {key: "@{" + key + "}" if key.endswith(".") else "@" + key for key in (*LISTED, *MISSING)}
PREFIXES = ("", "see ", "*cf.* ", "e.g., ")
SUFFIXES = ("", ", p. 33", ", pp. 33-35", " chap. 1", ", 89, and *passim*")
SEPARATORS = ("; ", ";", " ; ", ";\n")
SENTENCES = ("Trees cool streets", "Prices rose 30% in 2019", "Smith found that parks help", "It rained")


@st.composite
def item(draw: st.DrawFn) -> str:
    key = draw(st.sampled_from((*LISTED, *MISSING)))
    dash = "-" if draw(st.booleans()) else ""
    return draw(st.sampled_from(PREFIXES)) + dash + WRITTEN[key] + draw(st.sampled_from(SUFFIXES))


@st.composite
def documents(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 5))):
        words = draw(st.sampled_from(SENTENCES))
        style = draw(st.sampled_from(["group", "in-text", "none"]))
        if style == "in-text":
            key = draw(st.sampled_from((*LISTED, *MISSING)))
            locator = draw(st.sampled_from(["", " [p. 2]", " [p. 2; see @doe99]"]))
            parts.append(f"{WRITTEN[key]}{locator} says {words.lower()}")
        else:
            items = draw(st.lists(item(), min_size=1, max_size=3))
            seps = [draw(st.sampled_from(SEPARATORS)) for _ in items[1:]]
            body = items[0] + "".join(sep + i for sep, i in zip(seps, items[1:], strict=True))
            parts.append(f"{words} [{body}]" if style == "group" else words)
        parts.append(draw(st.sampled_from([". ", ".\n", ".\n\n"])))
    return "".join(parts)


def offered(text: str) -> list[Fix]:
    doc = parse_document(text, None, BIBLIOGRAPHY)
    fixes = [fix for f in structural_findings(doc) for fix in f.fixes]
    for index, group in enumerate(doc.citations):
        for old in group.keys:
            for new in LISTED[:3]:
                swap = make_fix(f"swap {old} {new}", doc, [RetargetCitation(index, old, new)])
                fixes += [swap] if swap else []
        join = make_fix("join", doc, [AddCitation(group.end, "twin")])
        fixes += [join] if join else []
    for claim in doc.claims:
        add = make_fix("cite", doc, cite_sentence(doc, claim.sentence, ["doe99"]))
        fixes += [add] if add else []
    return fixes


def missing(text: str) -> int:
    return sum(1 for g in find_citations(text) for i in g.items if i.key not in LISTED)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.data())
def test_any_offered_fixes_applied_together_keep_the_prose_and_every_group_well_formed(
    text: str, data: st.DataObject
) -> None:
    doc = parse_document(text, None, BIBLIOGRAPHY)
    fixes = offered(text)
    chosen = data.draw(st.lists(st.sampled_from(fixes), max_size=8) if fixes else st.just([]))
    try:
        plan = plan_repairs(doc, chosen)
    except RepairError:
        return  # refused as a whole: nothing applied
    result = plan.result
    after = find_citations(result)
    before = find_citations(text)
    # the prose, byte for byte: as the plan defines it and as the citation parser does
    assert prose_of(reparse(doc, result)) == prose_of(doc)
    assert citation_prose(result, after) == citation_prose(text, before)
    # no key cited that is in no bibliography, unless it already was
    assert missing(result) <= missing(text)
    # in-text citations are part of their sentence: none is removed
    assert sum(g.in_text for g in after) == sum(g.in_text for g in before)
    # nothing invented: keys, prefixes and locators all come from the text or the bibliography
    keys_before = {i.key for g in before for i in g.items}
    assert {i.key for g in after for i in g.items} <= keys_before | set(LISTED)
    for part in ("prefix", "suffix"):
        written = {text[getattr(i, part)[0] : getattr(i, part)[1]] for g in before for i in g.items}
        assert {
            result[getattr(i, part)[0] : getattr(i, part)[1]] for g in after for i in g.items
        } <= written | {""}
    # well-formed groups: no empty brackets, no dangling separators
    for group in after:
        if group.bracket is not None:
            inner = result[group.bracket[0] + 1 : group.bracket[1] - 1]
            assert inner.strip()
            assert not re.match(r"\s*;", inner)
            assert not re.search(r";\s*$", inner)
