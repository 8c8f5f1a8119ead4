"""A pandoc key in no bibliography but close to one it has is `unknown_key` ("did you mean"), with
a fix per candidate that re-keys the citation through the checked plan; a key close to none is
still `fabricated`."""

from __future__ import annotations

from citedesk.core.bibliographies.model import BibEntry
from citedesk.core.bibliographies.near_keys import author_year, near_keys
from citedesk.core.checks import structural_findings
from citedesk.core.document.works import BibReference
from citedesk.core.findings import Applicability, Finding, Kind
from citedesk.core.plan import plan_repairs
from citedesk.core.reading import parse_document
from citedesk.core.repair import prose_of


def bib(*entries: BibEntry) -> list[BibReference]:
    return [BibReference.from_entry(e, source="garden.bib") for e in entries]


HALE = BibEntry("hale2019", "article", title="Roof gardens", authors=("Hale, Ruth",), year="2019")
OKAFOR = BibEntry("okafor2022", "book", title="Rain", authors=("Okafor, Chidi",), year="2022")
PRIOR = BibEntry("priorEtAl2018a", "article", title="Moss", authors=("Prior, Dan",), year="2018")
PRIOR_B = BibEntry("priorEtAl2018b", "article", title="Lichen", authors=("Prior, Dan",), year="2018")
TANAKA = BibEntry("T21", "report", title="Soil", authors=("Tanaka, Emi",), year="2021")
BIB = bib(HALE, OKAFOR, PRIOR, PRIOR_B, TANAKA)


def findings(text: str, kind: Kind) -> list[Finding]:
    return [f for f in structural_findings(parse_document(text, None, BIB)) if f.kind is kind]


def test_a_swapped_pair_of_letters_is_an_unknown_key_with_a_safe_fix_that_keeps_the_locator() -> None:
    text = "Green roofs hold rain [see @okfaor2022, p. 12]. They also cool the floor below [@hale2019].\n"
    (finding,) = findings(text, Kind.UNKNOWN_KEY)
    assert text[finding.start : finding.end] == "[see @okfaor2022, p. 12]"
    assert finding.reference == "okfaor2022"
    assert "did you mean @okafor2022?" in finding.message
    assert [(f.title, f.applicability) for f in finding.fixes] == [("Cite @okafor2022", Applicability.SAFE)]
    assert findings(text, Kind.FABRICATED) == []
    doc = parse_document(text, None, BIB)
    plan = plan_repairs(doc, [finding.fixes[0]])
    assert plan.result == text.replace("okfaor2022", "okafor2022")
    assert prose_of(parse_document(plan.result, None, BIB)) == prose_of(doc)


def test_an_in_text_key_in_the_wrong_case_is_re_keyed_too() -> None:
    text = "@Hale2019 measured the runoff of forty roofs.\n"
    (finding,) = findings(text, Kind.UNKNOWN_KEY)
    assert [f.title for f in finding.fixes] == ["Cite @hale2019"]
    plan = plan_repairs(parse_document(text, None, BIB), [finding.fixes[0]])
    assert plan.result == "@hale2019 measured the runoff of forty roofs.\n"


def test_the_same_author_and_year_offers_every_such_entry_and_the_choice_is_the_writers() -> None:
    text = "Mosses survive on shallow substrate [@prior2018].\n"
    (finding,) = findings(text, Kind.UNKNOWN_KEY)
    assert [f.title for f in finding.fixes] == ["Cite @priorEtAl2018a", "Cite @priorEtAl2018b"]
    assert {f.applicability for f in finding.fixes} == {Applicability.UNSAFE}  # two candidates: a guess
    assert "did you mean @priorEtAl2018a or @priorEtAl2018b?" in finding.message
    assert finding.details["did_you_mean"] == ["priorEtAl2018a", "priorEtAl2018b"]


def test_an_entry_whose_key_names_no_author_is_found_by_its_first_author_and_year() -> None:
    text = "Soil depth matters most [@tanaka2021].\n"
    (finding,) = findings(text, Kind.UNKNOWN_KEY)
    assert [f.title for f in finding.fixes] == ["Cite @T21"]


def test_a_changed_year_is_offered_but_not_applied_without_the_writer() -> None:
    text = "Roof gardens spread after the subsidy [@hale2018].\n"
    (finding,) = findings(text, Kind.UNKNOWN_KEY)
    assert [(f.title, f.applicability) for f in finding.fixes] == [("Cite @hale2019", Applicability.UNSAFE)]


def test_a_key_close_to_nothing_is_not_in_the_bibliography_not_fabricated() -> None:
    """The work may well exist and its entry be missing (issue 43 #3): "not in the bibliography",
    never "fabricated", and its removal is a suggestion to verify, which plain `fix` leaves."""
    text = "Roofs are haunted [@ghost2020]. Short keys need a closer match [@hale19].\n"
    assert findings(text, Kind.FABRICATED) == []
    missing = findings(text, Kind.UNKNOWN_KEY)
    assert [f.reference for f in missing] == ["ghost2020", "hale19"]
    assert [f.fixes[0].title for f in missing] == ["Remove @ghost2020", "Remove @hale19"]
    assert not any(fix.safe for f in missing for fix in f.fixes)
    assert all("is not in the bibliography" in f.message for f in missing)
    assert all("fabricated" not in f.message.lower() for f in missing)


def test_near_keys_rank_fewer_edits_first_and_stop_at_three() -> None:
    years = [2010, 2011, 2012, 2013, 2014, 2016]
    works = bib(
        BibEntry("lee2015a", "article", title="A", authors=("Lee, Min",), year="2015"),
        *(BibEntry(f"lee{y}", "article", title=f"T{y}", year=str(y)) for y in years),
    )
    near = near_keys("lee2015", works)
    assert [n.key for n in near] == ["lee2015a", "lee2010", "lee2011"]  # the same year first
    assert [n.year_changed for n in near] == [False, True, True]
    assert author_year("smithEtAl2020a") == ("smith", "2020")
    assert author_year("Müller_2001") == ("muller", "2001")
    assert near_keys("lee2010", works)[0].key != "lee2010"  # a known key is not its own near match
