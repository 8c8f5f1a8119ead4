"""Fuzzy matching of reference entries against index records (rapidfuzz)."""

from __future__ import annotations

import pytest

from citedesk.sources.matching import (
    CitedWork,
    best_candidate,
    compare_work,
    first_author_matches,
    same_family,
    score_candidate,
    title_similarity,
    venue_matches,
)
from citedesk.sources.metadata import Author, Work
from tests.helpers.indexes import entry

DING_TITLE = (
    "Caffeinated and Decaffeinated Coffee Consumption and Risk of Type 2 Diabetes: "
    "A Systematic Review and a Dose-Response Meta-analysis"
)
DING = Work(
    source="crossref",
    doi="10.2337/dc13-1203",
    title=DING_TITLE,
    authors=(Author("Ding", "Ming"), Author("Bhupathiraju", "Shilpa N."), Author("van Dam", "Rob M.")),
    year=2014,
    years=(2014,),
    container="Diabetes Care",
    short_container="Diabetes Care",
    volume="37",
    issue="2",
    pages="569-586",
)
APA = (
    "Ding, M., Bhupathiraju, S. N., Chen, M., van Dam, R. M., & Hu, F. B. ({year}). Caffeinated and decaffeinated "
    "coffee consumption and risk of type 2 diabetes: A systematic review and a dose-response meta-analysis. "
    "{venue}, {volume}(2), {pages}. https://doi.org/10.2337/dc13-1203"
)


def cited(
    year: str = "2014", venue: str = "Diabetes Care", volume: str = "37", pages: str = "569–586"
) -> CitedWork:
    return CitedWork.from_reference(entry(APA.format(year=year, venue=venue, volume=volume, pages=pages)))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (DING_TITLE.upper(), DING_TITLE),  # case
        (
            "Les étoiles naissent dans les nuages froids",
            "Les etoiles naissent dans les nuages froids",
        ),  # accents
        (
            "Caffeinated & decaffeinated coffee consumption, and risk",
            "Caffeinated and decaffeinated coffee consumption and risk",
        ),
        (
            "Caffeinated and decaffeinated coffee consumption and risk of type 2 diabetes",
            DING_TITLE,
        ),  # subtitle
        (
            "Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive developmental disorder in children",
            "RETRACTED: Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive developmental disorder in children",
        ),
        (
            "Deep residual learning for image recognitoin",
            "Deep Residual Learning for Image Recognition",
        ),  # a typo
    ],
)
def test_titles_that_name_the_same_work(a: str, b: str) -> None:
    assert title_similarity(a, b) >= 0.9


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Deep residual learning for image recognition", DING_TITLE),
        ("Deep learning", "Deep learning: a critical appraisal"),  # a two-word main title is not enough
        ("Coffee and type 2 diabetes", "Tea and type 1 diabetes in children"),
    ],
)
def test_titles_of_different_works(a: str, b: str) -> None:
    assert title_similarity(a, b) < 0.75


@pytest.mark.parametrize(
    "authors",
    [
        "Ding, M., Hu, F. B.",
        "M. Ding and F. B. Hu",
        "Ding M, Hu FB",
        "Ming Ding, Frank Hu",
        "DING, Ming",
        "Dïng, M.",
    ],
)
def test_first_author_in_any_name_form(authors: str) -> None:
    assert first_author_matches(authors, DING) is True


def test_a_different_first_author_is_noticed() -> None:
    assert first_author_matches("Hu, F. B., Ding, M.", DING) is False
    assert first_author_matches("Dong, M.", DING) is False


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("Müller", "Mueller", True),
        ("García-López", "Garcia", True),
        ("van Dam", "Dam", True),
        ("Bhupathiraju", "Bhupatiraju", True),
        ("Li", "Lu", False),
        ("Ding", "Dong", False),
    ],
)
def test_family_names(a: str, b: str, same: bool) -> None:
    assert same_family(a, b) is same


@pytest.mark.parametrize(
    ("cited_venue", "container", "same"),
    [
        ("J. Am. Chem. Soc.", "Journal of the American Chemical Society", True),
        (
            "Proc Natl Acad Sci USA",
            "Proceedings of the National Academy of Sciences of the United States of America",
            True,
        ),
        ("The Lancet", "Lancet", True),
        ("Nature", "Science", False),
        ("Diabetes Research and Clinical Practice", "Diabetes Care", False),
    ],
)
def test_venues_and_their_abbreviations(cited_venue: str, container: str, same: bool) -> None:
    assert venue_matches(cited_venue, container) is same


def test_entry_fields_are_read_from_apa_and_vancouver() -> None:
    apa = cited()
    assert (apa.venue, apa.volume, apa.issue, apa.pages, apa.year) == (
        "Diabetes Care",
        "37",
        "2",
        "569–586",
        "2014",
    )
    vancouver = CitedWork.from_reference(
        entry(
            "Ding M, Bhupathiraju SN. Caffeinated and decaffeinated coffee consumption and risk of type 2 diabetes. "
            "Diabetes Care. 2014;37(2):569-86. doi:10.2337/dc13-1203"
        )
    )
    assert (vancouver.venue, vancouver.volume, vancouver.pages) == ("Diabetes Care", "37", "569-86")
    assert compare_work(
        vancouver, DING
    ).same_work  # the entry's title field swallowed the authors: still matched


def test_the_same_work_with_no_differences() -> None:
    result = compare_work(cited(), DING)
    assert result.same_work
    assert result.differences == ()


@pytest.mark.parametrize(
    ("changes", "field", "actual"),
    [
        ({"year": "2016"}, "year", "2014"),
        ({"venue": "Diabetes Research and Clinical Practice"}, "venue", "Diabetes Care"),
        ({"volume": "38"}, "volume", "37"),
        ({"pages": "570–586"}, "pages", "569-586"),
    ],
)
def test_metadata_errors_name_the_field_and_both_values(
    changes: dict[str, str], field: str, actual: str
) -> None:
    result = compare_work(cited(**changes), DING)
    assert result.same_work
    assert [(d.field, d.cited, d.actual) for d in result.differences] == [
        (field, next(iter(changes.values())), actual)
    ]


def test_a_wrong_first_author_is_a_metadata_error_on_the_same_work() -> None:
    work = CitedWork.from_reference(
        entry(
            APA.format(year="2014", venue="Diabetes Care", volume="37", pages="569").replace(
                "Ding, M.", "Dong, M."
            )
        )
    )
    result = compare_work(work, DING)
    assert result.same_work
    assert [(d.field, d.cited, d.actual) for d in result.differences] == [
        ("first_author", "Dong, M", "Ding, M.")
    ]


def test_any_year_the_record_gives_is_right() -> None:
    work = Work("crossref", "10.1/x", DING_TITLE, authors=DING.authors, year=2013, years=(2013, 2014))
    assert compare_work(cited(), work).differences == ()


def test_a_different_work() -> None:
    other = Work(
        "crossref",
        "10.1109/cvpr.2016.90",
        "Deep Residual Learning for Image Recognition",
        authors=(Author("He", "Kaiming"),),
        year=2016,
    )
    result = compare_work(cited(), other)
    assert not result.same_work
    assert result.title_score is not None
    assert result.title_score < 0.75


def test_a_title_only_match_is_never_confident() -> None:
    title_only = CitedWork(title=DING_TITLE)
    assert score_candidate(title_only, DING).confident is False
    assert score_candidate(cited(), DING).confident is True
    other_author = CitedWork(title=DING_TITLE, authors="Smith, J.", year="2014")
    assert score_candidate(other_author, DING).confident is False


def test_the_best_candidate_prefers_a_confident_match() -> None:
    preprint = Work(
        "crossref",
        "10.1101/x",
        "Coffee and diabetes: a preprint",
        authors=(Author("Ding", "M"),),
        year=2013,
        years=(2013,),
    )
    chosen = best_candidate(cited(), [preprint, DING])
    assert chosen is not None
    assert chosen.work.doi == DING.doi
    assert chosen.confident
