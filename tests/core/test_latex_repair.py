"""LaTeX repairs through the checked plan (issue 29): a typo key's "did you mean" fix, a key taken
out of a multi-key citation, a whole `~\\cite{}` removed, swaps and additions — and after each,
braces balanced and nothing changed outside the edited keys."""

from __future__ import annotations

from collections.abc import Sequence

from citedesk.core.bibliographies.model import BibEntry
from citedesk.core.checks import structural_findings
from citedesk.core.document.model import Document, document_of, reparse
from citedesk.core.document.works import BibReference
from citedesk.core.findings import Fix, Kind
from citedesk.core.operations import RemoveCitation, RetargetCitation
from citedesk.core.plan import plan_repairs
from citedesk.core.reading import parse_document
from citedesk.core.repair import cite_sentence, make_fix, prose_of

BIBLIOGRAPHY = tuple(
    BibReference.from_entry(BibEntry(key, "article", title=title, year=year))
    for key, title, year in (
        ("smith2020", "Shade trees and street heat", "2020"),
        ("lee2019", "Parks and mortality", "2019"),
        ("roe2018", "Urban canopies", "2018"),
    )
)
TEXT = (
    "\\begin{document}\n"
    "Shade trees cool streets~\\citep{smiht2020}. Parks cut deaths~\\citep[see][]{lee2019, ghost , roe2018}.\n"
    "Canopies matter~\\cite{ghost}. As \\citet{ghost} shows, heat kills.\n"
    "Cities are warm \\cite{lee2019,lee2019}. Empty~\\cite{} here.\n"
    "\\end{document}\n"
)


def parse(text: str = TEXT) -> Document:
    return parse_document(text, "paper.tex", BIBLIOGRAPHY)


def balanced(text: str) -> bool:
    depth = 0
    for char in text.replace("\\{", "").replace("\\}", ""):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def test_findings_of_every_structural_kind() -> None:
    document = parse()
    found = {(f.kind, document.text[f.start : f.end].lstrip("~")) for f in structural_findings(document)}
    assert (Kind.UNKNOWN_KEY, "\\citep{smiht2020}") in found
    assert (Kind.UNKNOWN_KEY, "ghost") in found
    assert (Kind.UNKNOWN_KEY, "\\cite{ghost}") in found
    assert (Kind.MALFORMED_MARKER, "lee2019") in found  # cited twice in one command
    assert (Kind.MALFORMED_MARKER, "\\cite{}") in found
    assert not any(f.kind is Kind.ORPHAN_REFERENCE for f in structural_findings(document))


def apply(document: Document, fixes: Sequence[Fix | None]) -> str:
    """The plan's result for `fixes` (each made), checked: prose byte-identical, braces balanced."""
    assert all(fix is not None for fix in fixes)
    plan = plan_repairs(document, [fix for fix in fixes if fix is not None])
    after = reparse(document, plan.result)
    assert prose_of(after) == prose_of(document)
    assert balanced(plan.result)
    return plan.result


def test_the_did_you_mean_fix_retargets_the_typo_key() -> None:
    document = parse()
    finding = next(f for f in structural_findings(document) if f.kind is Kind.UNKNOWN_KEY)
    assert finding.details["did_you_mean"] == ["smith2020"]
    result = apply(document, list(finding.fixes[:1]))
    assert result == TEXT.replace("smiht2020", "smith2020")


def test_a_key_leaves_a_multi_key_citation_with_its_comma() -> None:
    document = parse()
    result = apply(document, [make_fix("x", document, [RemoveCitation(1, "ghost")])])
    assert "~\\citep[see][]{lee2019, roe2018}." in result
    assert result == TEXT.replace("lee2019, ghost , roe2018", "lee2019, roe2018")
    last = apply(document, [make_fix("x", document, [RemoveCitation(1, "roe2018")])])
    assert last == TEXT.replace("lee2019, ghost , roe2018", "lee2019, ghost")


def test_a_whole_citation_goes_with_its_tie() -> None:
    document = parse()
    fix = make_fix("x", document, [RemoveCitation(2, "ghost")])
    result = apply(document, [fix])
    assert result == TEXT.replace("Canopies matter~\\cite{ghost}.", "Canopies matter.")


def test_an_in_text_citation_is_not_removed_whole() -> None:
    document = parse()
    assert make_fix("x", document, [RemoveCitation(3, "ghost")]) is None
    fabricated = [f for f in structural_findings(document) if f.kind is Kind.UNKNOWN_KEY]
    in_text = next(f for f in fabricated if document.text[f.start : f.end] == "\\citet{ghost}")
    assert not in_text.fixes
    assert any(c.text == "As ghost shows, heat kills." for c in document.claims)


def test_repeated_key_and_empty_citation_fixes() -> None:
    document = parse()
    findings = [f for f in structural_findings(document) if f.kind is Kind.MALFORMED_MARKER]
    fixes = [f.fixes[0] for f in findings]
    result = apply(document, fixes)
    assert "Cities are warm \\cite{lee2019}. Empty here." in result


def test_a_swap_keeps_every_other_byte_and_refuses_a_locator() -> None:
    text = "Heat kills~\\citep[p.~4]{lee2019}. Trees cool~\\citep[see][]{ roe2018 }.\n"
    document = parse(text)
    assert make_fix("x", document, [RetargetCitation(0, "lee2019", "smith2020")]) is None
    result = apply(document, [make_fix("x", document, [RetargetCitation(1, "roe2018", "smith2020")])])
    assert result == text.replace(" roe2018 ", " smith2020 ")


def test_an_addition_joins_the_citation_there_or_makes_a_new_one() -> None:
    text = "Heat kills~\\citep{lee2019}. Trees cool streets.\n"
    document = parse(text)
    first, second = document.claims[0].sentence, document.claims[1].sentence
    joined = apply(document, [make_fix("x", document, cite_sentence(document, first, ["roe2018"]))])
    assert joined == text.replace("{lee2019}", "{lee2019,roe2018}")
    added = apply(document, [make_fix("x", document, cite_sentence(document, second, ["roe2018"]))])
    assert added == text.replace("streets.", "streets~\\citep{roe2018}.")


def test_without_a_bibliography_nothing_is_called_unknown() -> None:
    document = document_of(parse_document(TEXT, "paper.tex"))
    kinds = {f.kind for f in structural_findings(document)}
    assert Kind.UNKNOWN_KEY not in kinds
    assert Kind.UNKNOWN_KEY not in kinds


def test_nocite_keys_are_read_but_cite_no_sentence() -> None:
    text = "\\nocite{smiht2020, listed}\\nocite{*}\nHeat kills~\\cite{lee2019}.\n"
    document = parse(text)
    assert [m.keys for m in document.markers] == [("lee2019",)]
    found = {(f.kind, document.text[f.start : f.end]) for f in structural_findings(document)}
    assert found == {(Kind.UNKNOWN_KEY, "smiht2020"), (Kind.UNKNOWN_KEY, "listed")}


def test_a_group_of_a_multi_citation_goes_with_its_notes() -> None:
    text = "Heat kills~\\cites[see][]{lee2019}[p.~3]{ghost}.\n"
    document = parse(text)
    result = apply(document, [make_fix("x", document, [RemoveCitation(0, "ghost")])])
    assert result == "Heat kills~\\cites[see][]{lee2019}.\n"


def test_a_command_that_began_its_line_goes_with_the_line_break_before_it() -> None:
    """Hard-wrapped source often puts a citation at the start of a line: removing it must not leave
    `order` ⏎ `.` (one line break is a space in LaTeX: `order .`). After a paragraph break or a
    line that ends in a comment, the line break stays."""
    text = "\\begin{document}\nDreams replay the day in order\n  \\citep{ghost}.\nNext \\cite{lee2019}.\n\\end{document}\n"
    document = parse(text)
    result = apply(document, [make_fix("x", document, [RemoveCitation(0, "ghost")])])
    assert result == text.replace("in order\n  \\citep{ghost}.", "in order.")
    commented = text.replace("in order\n", "in order % why\n")
    document = parse(commented)
    result = apply(document, [make_fix("x", document, [RemoveCitation(0, "ghost")])])
    assert result == commented.replace("\\citep{ghost}.", ".")  # the comment ate the line break


def test_messages_and_fixes_name_the_command_the_writer_wrote() -> None:
    """`\\citep`, `\\textcite`, `\\autocite` in messages and fix titles as written, never a `\\cite` the
    writer did not write (issue 43 #2); a key not cited yet takes the document's usual command."""
    text = (
        "\\begin{document}\nTrees cool streets \\citep{smiht2020}. \\textcite{jones2019} found parks cool too.\n"
        "Shade helps \\citep{ghost1999}.\n\\end{document}\n"
    )
    doc = parse(text)
    found = {f.reference: f for f in structural_findings(doc)}
    assert "\\citep{smiht2020} is not a key" in found["smiht2020"].message
    assert [fix.title for fix in found["smiht2020"].fixes] == ["Cite \\citep{smith2020}"]
    assert found["ghost1999"].message.startswith("\\citep{ghost1999} is not in the bibliography")
    assert doc.label("jones2019") == "\\textcite{jones2019}"
    assert doc.label("notcited2001") == "\\citep{notcited2001}"  # the document's usual command
    assert "\\cite{" not in " ".join(f.message for f in found.values())
