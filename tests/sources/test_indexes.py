"""Index clients: polite pools, per-host rate limits, 429 with Retry-After, the cache contract."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from citedesk.sources.fetch import Fetcher, FetchPolicy
from citedesk.sources.indexes import AnswerStatus, HostRateLimiter, IndexClient, LookupConfig, MemoryCache
from citedesk.sources.refcheck import CheckStatus, ReferenceChecker, check_references
from tests.helpers.indexes import DING, POLICY, UNKNOWN, IndexServer, entry, serve_indexes

DOI = "10.2337/dc13-1203"


@pytest.fixture
def server() -> Iterator[IndexServer]:
    with serve_indexes() as indexes:
        yield indexes


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    with Fetcher(POLICY) as made:
        yield made


def test_the_contact_address_and_key_go_to_the_polite_pools(server: IndexServer, fetcher: Fetcher) -> None:
    config = server.config(mailto="editor@example.org", openalex_api_key="k-123")
    client = IndexClient(config, fetcher)
    assert client.crossref_work(DOI).status is AnswerStatus.FOUND
    assert client.openalex_work(DOI).status is AnswerStatus.FOUND
    assert client.doi_work(DOI).status is AnswerStatus.FOUND
    queries = {urlsplit(p).path.split("/")[1]: parse_qs(urlsplit(p).query) for p in server.state.paths()}
    assert queries["crossref"]["mailto"] == ["editor@example.org"]
    assert queries["openalex"]["mailto"] == ["editor@example.org"]
    assert queries["openalex"]["api_key"] == ["k-123"]
    assert "mailto" not in queries["doi"]  # doi.org has no polite pool: nothing is sent there


def test_429_with_retry_after_is_waited_for_then_answered(server: IndexServer) -> None:
    server.state.busy["/crossref/works/"] = 1
    server.state.retry_after = "1"
    with ReferenceChecker(server.config(use_openalex=False), fetch_policy=POLICY) as checker:
        check = checker.check(entry(DING.format(year="2014", doi=DOI)))
    assert check.status is CheckStatus.OK
    times = [t for p, t in server.state.hits if p.startswith("/crossref/works/")]
    assert len(times) == 2
    assert times[1] - times[0] >= 0.9  # not sooner than Retry-After said


def test_a_host_that_keeps_refusing_is_not_checked_and_left_alone(server: IndexServer) -> None:
    server.state.busy["/crossref/"] = 100
    server.state.busy["/doi/"] = 100
    server.state.retry_after = "600"  # longer than anyone waits: no retry, and a pause for the host
    config = server.config(use_openalex=False, max_rate_wait=2.0)
    with ReferenceChecker(config, fetch_policy=POLICY) as checker:
        first = checker.check(entry(DING.format(year="2014", doi=DOI)))
        asked = len(server.state.hits)
        second = checker.check(entry(DING.format(year="2014", doi="10.1109/cvpr.2016.90"), "2"))
    assert first.status is CheckStatus.NOT_CHECKED
    assert "rate-limiting" in first.message
    assert second.status is CheckStatus.NOT_CHECKED
    assert len(server.state.hits) == asked  # the paused host was not asked again
    # one request, no retry sooner than asked; doi.org is skipped too, being the same host:port here
    assert asked == 1


def test_failures_are_not_cached_and_a_saved_answer_outlives_an_outage(
    server: IndexServer, fetcher: Fetcher
) -> None:
    cache = MemoryCache()
    config = server.config(max_age_days=0.0, max_rate_wait=0.5)
    client = IndexClient(config, fetcher, cache)
    assert client.crossref_work(DOI).status is AnswerStatus.FOUND
    server.state.busy["/crossref/"] = 100
    server.state.retry_after = "600"
    again = client.crossref_work(DOI)  # stale at once (max age 0), the refresh is refused …
    assert again.status is AnswerStatus.FOUND  # … so the saved answer stands
    assert again.from_cache
    assert "using the saved answer" in again.message
    missing = client.crossref_work("10.9999/not-cached")
    assert missing.status is AnswerStatus.FAILED
    assert cache.get("crossref:work:10.9999/not-cached") is None


def test_concurrent_identical_lookups_ask_once(server: IndexServer, fetcher: Fetcher) -> None:
    client = IndexClient(server.config(), fetcher, MemoryCache())
    threads = [threading.Thread(target=client.crossref_work, args=(DOI,)) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert server.state.paths("/crossref/") == [f"/crossref/works/{DOI}"]


def test_the_rate_limit_spaces_requests_to_one_host() -> None:
    limiter = HostRateLimiter({"api.crossref.org": 4.0})
    started = time.monotonic()
    for _ in range(8):  # four at once (one second's worth), then four more at 4 per second
        assert limiter.acquire("api.crossref.org", max_wait=10)
    assert time.monotonic() - started >= 0.9
    other = time.monotonic()
    assert limiter.acquire("api.openalex.org", max_wait=10)  # another host has its own bucket
    assert time.monotonic() - other < 0.5


def test_a_slot_further_away_than_allowed_is_refused_without_reserving_it() -> None:
    limiter = HostRateLimiter({"h": 1.0})
    assert limiter.acquire("h", max_wait=0)
    assert not limiter.acquire("h", max_wait=0.1)
    limiter.pause("h", 300)
    assert limiter.paused_for("h") > 250
    assert not limiter.acquire("h", max_wait=5)


def test_a_cancelled_wait_gives_up() -> None:
    cancelled = threading.Event()
    limiter = HostRateLimiter({"h": 0.2}, cancelled=cancelled.is_set)
    assert limiter.acquire("h", max_wait=60)
    cancelled.set()
    assert not limiter.acquire("h", max_wait=60)  # would wait 5 s; returns at the next poll instead


def test_endpoints_and_contact_come_from_the_environment() -> None:
    env = {
        "CITEDESK_DOI_BASE": "http://mirror.test/doi",
        "CITEDESK_CROSSREF_BASE": "http://mirror.test/crossref",
        "CITEDESK_OPENALEX_BASE": "http://mirror.test/openalex",
        "CITEDESK_CONTACT_EMAIL": "me@example.org",
    }
    config = LookupConfig.from_env(env, offline=True, mailto=None)
    assert (config.doi_base, config.crossref_base, config.openalex_base) == (
        "http://mirror.test/doi",
        "http://mirror.test/crossref",
        "http://mirror.test/openalex",
    )
    assert config.mailto == "me@example.org"  # a None setting does not erase the environment's
    assert config.offline
    assert (config.crossref_rate, config.crossref_search_rate) == (10.0, 3.0)  # the polite pool's limits
    public = LookupConfig.from_env({})
    assert public.crossref_base == "https://api.crossref.org"
    assert (public.crossref_rate, public.crossref_search_rate) == (5.0, 1.0)
    assert LookupConfig.from_env(env, crossref_search_rate=0.5).crossref_search_rate == 0.5


def test_a_fetch_refused_for_a_private_address_is_not_checked(server: IndexServer) -> None:
    """The network guard still applies: an index pointed at a private address gives no answer, no finding."""
    with ReferenceChecker(server.config(), fetch_policy=FetchPolicy(allow_private_network=False)) as checker:
        check = checker.check(entry(DING.format(year="2014", doi=DOI)))
    assert check.status is CheckStatus.NOT_CHECKED
    assert server.state.hits == []


def test_searches_have_their_own_slower_bucket() -> None:
    limiter = HostRateLimiter({"h": 100.0, "h/lists": 1.0})
    assert limiter.acquire("h", max_wait=0, bucket="h/lists")
    assert not limiter.acquire("h", max_wait=0.1, bucket="h/lists")  # the next search is a second away
    assert limiter.acquire("h", max_wait=0)  # single records are not held up by searches
    limiter.pause("h", 300)
    assert not limiter.acquire("h", max_wait=5, bucket="h/lists")  # a pause of the host stops both


@pytest.fixture
def hangs_up() -> Iterator[tuple[str, list[int]]]:
    """A host that accepts connections and closes them at once: (base URL, connections so far)."""
    listener = socket.create_server(("127.0.0.1", 0))
    count = [0]

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            count[0] += 1
            connection.close()

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", count
    finally:
        listener.shutdown(socket.SHUT_RDWR)
        listener.close()
        thread.join(timeout=30)


def test_a_host_that_cannot_be_reached_is_asked_once_per_run(hangs_up: tuple[str, list[int]]) -> None:
    """Without a network, twelve searches are not paced at one a second only to fail: the first
    failure to connect ends the host's part in this run, and nothing is a finding."""
    base, connections = hangs_up
    config = LookupConfig(
        doi_base=base + "/doi", crossref_base=base + "/crossref", openalex_base=base + "/openalex"
    )
    refs = [entry(UNKNOWN.replace("tardigrades", f"tardigrades {n}"), str(n)) for n in range(6)]
    results = check_references(refs, config, fetch_policy=POLICY)
    assert {r.status for r in results.values()} == {CheckStatus.NOT_CHECKED}
    assert all("could not be reached" in r.message for r in results.values())
    assert connections[0] <= 2  # one search, and at most one that was already on its way
