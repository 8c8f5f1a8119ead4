"""Reference truth against local stand-ins for doi.org, Crossref and OpenAlex (real response shapes)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from citedesk.core.document.references import extract_fields
from citedesk.sources.fetch import Fetcher
from citedesk.sources.indexes import MemoryCache
from citedesk.sources.metadata import NoticeKind
from citedesk.sources.refcheck import (
    CheckStatus,
    ReferenceCheck,
    ReferenceChecker,
    check_references,
    doi_edit,
    field_edit,
    wants_check,
)
from citedesk.sources.retractions import MemoryRetractionIndex, read_snapshot
from citedesk.store import Store
from tests.helpers.indexes import (
    DING,
    POLICY,
    SNAPSHOT_SAMPLE,
    UNKNOWN,
    WAKEFIELD,
    ZHOU,
    IndexServer,
    entry,
    serve_indexes,
)


@pytest.fixture
def server() -> Iterator[IndexServer]:
    with serve_indexes() as indexes:
        yield indexes


@pytest.fixture
def checker(server: IndexServer) -> Iterator[ReferenceChecker]:
    with ReferenceChecker(server.config(), fetch_policy=POLICY) as made:
        yield made


def test_a_correct_reference_is_ok(checker: ReferenceChecker) -> None:
    check = checker.check(entry(DING.format(year="2014", doi="10.2337/dc13-1203")))
    assert check.status is CheckStatus.OK, check.message
    assert check.differences == ()
    assert check.notices == ()
    assert check.source == "crossref"
    assert check.work is not None
    assert check.work.doi == "10.2337/dc13-1203"
    assert check.checked_at is not None


def test_a_retracted_work_names_the_notice_and_its_date(checker: ReferenceChecker) -> None:
    check = checker.check(entry(WAKEFIELD))
    assert check.status is CheckStatus.OK  # the entry describes its work correctly …
    assert check.retracted  # … and that work is retracted
    notice = check.standing
    assert notice is not None
    assert (notice.kind, notice.doi, notice.date) == (
        NoticeKind.RETRACTION,
        "10.1016/s0140-6736(10)60175-4",
        "2010-02-06",
    )
    assert notice.url == "https://doi.org/10.1016/s0140-6736(10)60175-4"
    assert {n.kind for n in check.notices} == {NoticeKind.RETRACTION, NoticeKind.CORRECTION}
    # OpenAlex's bare flag says the same thing with less detail: it is not listed twice
    assert [n.source for n in check.notices if n.kind is NoticeKind.RETRACTION] == ["retraction-watch"]


def test_a_retraction_only_openalex_knows_is_still_reported(checker: ReferenceChecker) -> None:
    text = "Kumar, R. (2020). An improved method for hardware task scheduling on reconfigurable systems. doi:10.5555/openalex-flagged.2020"
    check = checker.check(entry(text))
    assert check.retracted
    assert [(n.source, n.doi, n.date) for n in check.notices] == [("openalex", None, None)]


def test_a_doi_of_a_different_work(checker: ReferenceChecker) -> None:
    check = checker.check(entry(DING.format(year="2014", doi="10.1109/cvpr.2016.90")))
    assert check.status is CheckStatus.DIFFERENT_WORK
    assert check.work is not None
    assert check.work.title == "Deep Residual Learning for Image Recognition"
    assert check.notices == ()
    assert check.title_score is not None
    assert check.title_score < 0.75


def test_the_right_work_with_a_wrong_year_is_a_metadata_error_with_a_fix(checker: ReferenceChecker) -> None:
    text = DING.format(year="2016", doi="10.2337/dc13-1203")
    document = "Coffee lowers the risk [1].\n\n## References\n\n[1] " + text + "\n"
    ref = entry(text, start=document.index(text))
    check = checker.check(ref)
    assert check.status is CheckStatus.METADATA_ERROR
    assert [(d.field, d.cited, d.actual) for d in check.differences] == [("year", "2016", "2014")]
    edit = field_edit(document, ref, check.differences[0])
    assert edit is not None
    fixed = document[: edit.start] + edit.replacement + document[edit.end :]
    assert fixed == document.replace("(2016)", "(2014)")


def test_a_wrong_first_author_is_fixed_on_the_family_name_only(checker: ReferenceChecker) -> None:
    text = DING.format(year="2014", doi="10.2337/dc13-1203").replace("Ding, M.", "Dong, M.")
    ref = entry(text)
    check = checker.check(ref)
    assert check.status is CheckStatus.METADATA_ERROR
    edit = field_edit(text, ref, check.differences[0])
    assert edit is not None
    assert text[: edit.start] + edit.replacement + text[edit.end :] == DING.format(
        year="2014", doi="10.2337/dc13-1203"
    )


def test_an_unregistered_doi(checker: ReferenceChecker, server: IndexServer) -> None:
    check = checker.check(entry("Smith, J. (2021). A study that never was. doi:10.9999/never.registered"))
    assert check.status is CheckStatus.UNREGISTERED
    assert check.source == "doi.org"
    assert server.state.paths("/doi/") == [
        "/doi/10.9999/never.registered"
    ]  # doi.org was asked before deciding


def test_a_doi_only_doi_org_knows_is_checked_against_its_csl(checker: ReferenceChecker) -> None:
    text = "Moreau, L. (2019). Urban tree canopy and afternoon heat: survey data from 112 cities. Zenodo. doi:10.80000/citedesk.dataset.1"
    check = checker.check(entry(text))
    assert check.status is CheckStatus.OK, check.message
    assert check.source == "doi.org"


def test_an_unregistered_doi_with_a_findable_title_is_offered_the_right_doi(
    checker: ReferenceChecker,
) -> None:
    check = checker.check(entry(ZHOU + " doi:10.1038/s41586-020-9999-x"))
    assert check.status is CheckStatus.UNREGISTERED
    assert check.suggestion_doi == "10.1038/s41586-020-2012-7"


def test_a_reference_without_identifiers_is_found_by_title(
    checker: ReferenceChecker, server: IndexServer
) -> None:
    document = "Bats carry it [1].\n\n## References\n\n[1] " + ZHOU + "\n"
    ref = entry(ZHOU, start=document.index(ZHOU))
    check = checker.check(ref)
    assert check.status is CheckStatus.FOUND_BY_TITLE
    assert check.suggestion_doi == "10.1038/s41586-020-2012-7"
    assert check.source == "crossref"
    assert [n.kind for n in check.notices] == [NoticeKind.CORRECTION]  # the published addendum comes along
    assert server.state.paths("/openalex/") == []  # Crossref was confident: OpenAlex's quota is spared
    edit = doi_edit(document, ref, check.suggestion_doi)
    fixed = document[: edit.start] + edit.replacement + document[edit.end :]
    assert fixed.endswith("270–273. https://doi.org/10.1038/s41586-020-2012-7\n")
    assert (
        extract_fields(fixed[ref.start : edit.end + len(edit.replacement)])["doi"]
        == "10.1038/s41586-020-2012-7"
    )


def test_an_unknown_title_is_not_found_never_fabricated(
    checker: ReferenceChecker, server: IndexServer
) -> None:
    check = checker.check(entry(UNKNOWN))
    assert check.status is CheckStatus.NOT_FOUND
    assert "check that it exists" in check.message
    assert len(server.state.paths("/crossref/works?")) == 1
    assert len(server.state.paths("/openalex/works?")) == 1  # both indexes were asked before saying so


def test_a_title_only_entry_is_never_given_a_doi(checker: ReferenceChecker) -> None:
    check = checker.check(
        entry('"A pneumonia outbreak associated with a new coronavirus of probable bat origin"')
    )
    assert check.status is CheckStatus.POSSIBLE_MATCH
    assert check.suggestion_doi is None


def test_offline_nothing_is_fetched_and_nothing_is_a_finding(server: IndexServer) -> None:
    refs = [
        entry(DING.format(year="2014", doi="10.2337/dc13-1203"), "1"),
        entry("Smith, J. (2021). A study that never was. doi:10.9999/never.registered", "2"),
        entry(UNKNOWN, "3"),
        entry(WAKEFIELD, "4"),
    ]
    snapshot = MemoryRetractionIndex(read_snapshot(SNAPSHOT_SAMPLE))
    results = check_references(refs, server.config(offline=True), retractions=snapshot, fetch_policy=POLICY)
    assert server.state.hits == []
    assert {r.status for r in results.values()} == {CheckStatus.NOT_CHECKED}
    assert results["4"].retracted  # the imported snapshot flags the retraction offline
    assert results["4"].standing is not None
    assert results["4"].standing.date == "2010-02-06"
    assert not results["1"].notices


def test_offline_a_cached_negative_answer_stays_not_checked(server: IndexServer) -> None:
    ref = entry("Smith, J. (2021). A study that never was. doi:10.9999/never.registered")
    cache = MemoryCache()
    with ReferenceChecker(server.config(), cache=cache, fetch_policy=POLICY) as online:
        assert online.check(ref).status is CheckStatus.UNREGISTERED
    with ReferenceChecker(server.config(offline=True), cache=cache, fetch_policy=POLICY) as offline:
        check = offline.check(ref)
    assert check.status is CheckStatus.NOT_CHECKED
    assert "not checked while offline" in check.message


def test_the_second_check_is_served_by_the_cache(server: IndexServer, tmp_path: Path) -> None:
    store = Store(tmp_path / "store.sqlite3")
    refs = [
        entry(DING.format(year="2014", doi="10.2337/dc13-1203"), "1"),
        entry(ZHOU, "2"),
        entry(UNKNOWN, "3"),
    ]
    try:
        with store.lookups() as cache:
            first = check_references(refs, server.config(), cache=cache, fetch_policy=POLICY)
        asked = len(server.state.hits)
        assert asked > 0
        with store.lookups() as cache:  # another audit, another connection
            second = check_references(refs, server.config(), cache=cache, fetch_policy=POLICY)
        assert len(server.state.hits) == asked  # the second check made no request at all
        assert {k: v.status for k, v in second.items()} == {k: v.status for k, v in first.items()}
        assert all(v.from_cache for v in second.values())
        assert second["1"].checked_at == first["1"].checked_at  # a cached answer keeps its date
    finally:
        store.close()


def test_an_answer_older_than_the_configured_age_is_asked_again(server: IndexServer, tmp_path: Path) -> None:
    store = Store(tmp_path / "store.sqlite3")
    ref = entry(DING.format(year="2014", doi="10.2337/dc13-1203"))
    now = [time.time() - 31 * 86400]  # the first answer is stored 31 days ago
    try:
        with (
            store.lookups(clock=lambda: now[0]) as cache,
            ReferenceChecker(server.config(max_age_days=30), cache=cache, fetch_policy=POLICY) as checker,
        ):
            checker.check(ref)
            now[0] = time.time()
            before = len(server.state.paths("/crossref/"))
            check = checker.check(ref)
        assert len(server.state.paths("/crossref/")) == before + 1
        assert not check.from_cache
    finally:
        store.close()


def test_check_references_covers_doi_and_bare_entries_only(server: IndexServer) -> None:
    refs = [
        entry(DING.format(year="2014", doi="10.2337/dc13-1203"), "1"),
        entry("Moreau, L. (2021). Tree canopy cools cities. https://example.org/article", "2"),
        entry(ZHOU, "3"),
        entry(DING.format(year="2014", doi="10.2337/dc13-1203"), "1"),  # the same key twice
    ]
    assert [wants_check(r) for r in refs] == [True, False, True, True]
    seen: list[tuple[int, int]] = []
    results = check_references(
        refs, server.config(), fetch_policy=POLICY, progress=lambda d, t: seen.append((d, t))
    )
    assert sorted(results) == ["1", "3"]
    assert seen[0] == (0, 2)
    assert seen[-1] == (2, 2)


def test_a_check_round_trips_through_json(checker: ReferenceChecker) -> None:
    check = checker.check(entry(WAKEFIELD))
    again = ReferenceCheck.from_json(check.to_json())
    assert again.to_json() == check.to_json()
    assert again.retracted


def test_a_shared_fetcher_is_left_open_for_its_owner(server: IndexServer) -> None:
    with Fetcher(POLICY) as fetcher:
        with ReferenceChecker(server.config(), fetcher=fetcher) as checker:
            checker.check(entry(DING.format(year="2014", doi="10.2337/dc13-1203")))
        assert fetcher.fetch(server.base + "/crossref/works/10.2337/dc13-1203").ok


@pytest.mark.parametrize(
    ("written", "corrected"),
    [
        ("Diabetes Care, 38(2), 569–586.", "Diabetes Care, 37(2), 569–586."),
        ("Diabetes Care, 37(2), 579–586.", "Diabetes Care, 37(2), 569-586."),
        ("Diabetes Research and Clinical Practice, 37(2), 569–586.", "Diabetes Care, 37(2), 569–586."),
    ],
)
def test_volume_pages_and_venue_are_corrected_in_place(
    checker: ReferenceChecker, written: str, corrected: str
) -> None:
    good = DING.format(year="2014", doi="10.2337/dc13-1203")
    text = good.replace("Diabetes Care, 37(2), 569–586.", written)
    ref = entry(text)
    check = checker.check(ref)
    assert check.status is CheckStatus.METADATA_ERROR
    assert len(check.differences) == 1
    edit = field_edit(text, ref, check.differences[0])
    assert edit is not None
    assert text[: edit.start] + edit.replacement + text[edit.end :] == good.replace(
        "Diabetes Care, 37(2), 569–586.", corrected
    )
