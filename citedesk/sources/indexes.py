"""Asking Crossref, OpenAlex and the DOI resolver about works — politely, with every answer cached.

All HTTP goes through `fetch.Fetcher` (guards, size and time caps, 429/503 retries honouring
Retry-After). On top of it, this module adds what a good API citizen owes:

- a **contact address** (`LookupConfig.mailto`) sent as `mailto=` to Crossref and OpenAlex, which
  puts requests in their polite pools, and an optional OpenAlex API key (`api_key=`);
- a **per-host rate limit** (a token bucket per host, `HostRateLimiter`; requests per second set per
  index, searches in a slower bucket of their own, as Crossref limits list queries more) shared by
  every thread, and a **pause** for the whole host when it still answers 429/503
  after the fetcher's retries: nobody asks it again before its Retry-After has passed;
- **a cache for every definitive answer** (`AnswerCache`, implemented by the store): a work found, a
  DOI or work unknown (404), a search's results. Each is reused until it is older than
  `max_age_days` (`negative_max_age_days` for "unknown" answers), then asked again; a failed refresh
  falls back on the old answer. Failures (time-outs, 5xx, 429, offline) are never cached.
- **offline**: cached answers of any age, and nothing is fetched; a host that cannot be reached at
  all (its name does not resolve, it refuses connections, the network guard refuses it) is not
  asked again in the same run, so a machine without a network is not held up by the rate limits.

Endpoints (`LookupConfig.from_env`): `CITEDESK_DOI_BASE`, `CITEDESK_CROSSREF_BASE`,
`CITEDESK_OPENALEX_BASE`; contact and key: `CITEDESK_CONTACT_EMAIL`, `CITEDESK_OPENALEX_API_KEY`.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol
from urllib.parse import quote, urlencode, urlsplit

from citedesk.sources.fetch import FetchResult, FetchStatus
from citedesk.sources.identifiers import CROSSREF_BASE, CSL_ACCEPT, DOI_BASE
from citedesk.sources.matching import fold
from citedesk.sources.metadata import Work, parse_crossref_work, parse_csl_work, parse_openalex_work

OPENALEX_BASE = "https://api.openalex.org"
JSON_ACCEPT = "application/json"
OPENALEX_FIELDS = (
    "id,doi,title,display_name,publication_year,publication_date,type,authorships,"
    "primary_location,biblio,is_retracted"
)
DAY = 86400.0
POLITE_CROSSREF_RATE = 10.0
POLITE_CROSSREF_SEARCH_RATE = 3.0
"""Crossref's polite pool (requests with a contact address): 10 single records and 3 list queries
a second, where the public pool allows 5 and 1 (`LookupConfig`'s defaults)."""


@dataclass(frozen=True)
class LookupConfig:
    """Where and how politely to ask. The lead builds one from settings and `from_env`."""

    doi_base: str = DOI_BASE
    crossref_base: str = CROSSREF_BASE
    openalex_base: str = OPENALEX_BASE
    mailto: str | None = None
    """A contact address for the polite pools (Crossref and OpenAlex both ask for one)."""
    openalex_api_key: str | None = None
    """OpenAlex asks for a free key; without one its searches have a small daily allowance."""
    use_openalex: bool = True
    offline: bool = False
    crossref_rate: float = 5.0
    openalex_rate: float = 5.0
    doi_rate: float = 5.0
    """Requests per second to each host for single records (Crossref's public pool allows 5/s, its
    polite pool 10/s; OpenAlex 100/s)."""
    crossref_search_rate: float = 1.0
    openalex_search_rate: float = 1.0
    """Searches per second (Crossref allows 1 list query/s in its public pool, 3 in the polite one)."""
    max_rate_wait: float = 120.0
    """The longest a look-up waits for its turn at a host (or a host's pause) before giving up."""
    max_age_days: float = 30.0
    """A cached answer about a work is asked again once it is this old (retractions appear later)."""
    negative_max_age_days: float = 7.0
    """A cached "no such DOI / no such title" is asked again sooner."""
    failed_max_age_hours: float = 1.0
    """A look-up the index failed on (a server error, an unreadable answer, a host not reached) is
    not asked again for this long: said as it was, not asked again by every document of a corpus
    citing the work, nor by a re-run soon after (issue 42)."""
    search_rows: int = 5
    concurrency: int = 4
    suggest_on_mismatch: bool = True
    """Search by title when a DOI is unregistered or names another work, to offer the right DOI."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **settings: Any) -> LookupConfig:
        """Endpoints, contact address and key from the environment; `settings` (from the user's
        settings or the command line) override them."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for name, variable in (
            ("doi_base", "CITEDESK_DOI_BASE"),
            ("crossref_base", "CITEDESK_CROSSREF_BASE"),
            ("openalex_base", "CITEDESK_OPENALEX_BASE"),
            ("mailto", "CITEDESK_CONTACT_EMAIL"),
            ("openalex_api_key", "CITEDESK_OPENALEX_API_KEY"),
        ):
            if env.get(variable):
                values[name] = env[variable].strip()
        values.update({k: v for k, v in settings.items() if v is not None})
        if values.get("mailto"):  # the polite pool's limits, unless set explicitly
            values.setdefault("crossref_rate", POLITE_CROSSREF_RATE)
            values.setdefault("crossref_search_rate", POLITE_CROSSREF_SEARCH_RATE)
        return cls(**values)


class UrlFetcher(Protocol):
    """What the index clients need of `fetch.Fetcher` (a lazily made one will do)."""

    def fetch(self, url: str, *, accept: str | None = None) -> FetchResult: ...


# the cache contract -----------------------------------------------------------------------------
class AnswerCache(Protocol):
    """Where answers are kept between audits (the store implements it; `MemoryCache` for one run).

    `payload` is JSON-serialisable. `get` returns it with the time it was `put` (seconds since the
    epoch), or None.
    """

    def get(self, key: str) -> tuple[dict[str, Any], float] | None: ...

    def put(self, key: str, payload: dict[str, Any]) -> None: ...


class MemoryCache:
    """An `AnswerCache` in a dict (thread-safe); payloads are copied through JSON like a store's."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._items: dict[str, tuple[str, float]] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> tuple[dict[str, Any], float] | None:
        with self._lock:
            item = self._items.get(key)
        if item is None:
            return None
        payload: dict[str, Any] = json.loads(item[0])
        return payload, item[1]

    def put(self, key: str, payload: dict[str, Any]) -> None:
        with self._lock:
            self._items[key] = (json.dumps(payload), self._clock())

    def __len__(self) -> int:
        return len(self._items)


# rate limits ------------------------------------------------------------------------------------
class HostRateLimiter:
    """A token bucket per host (capacity one second's worth), plus pauses after 429s. Thread-safe."""

    POLL_S = 0.2

    def __init__(
        self,
        rates: Mapping[str, float],
        *,
        default_rate: float = 5.0,
        cancelled: Callable[[], bool] = lambda: False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._rates = {host.lower(): rate for host, rate in rates.items()}
        self._default = default_rate
        self._cancelled = cancelled
        self._clock = clock
        self._tokens: dict[str, tuple[float, float]] = {}  # host → (tokens, at)
        self._paused: dict[str, float] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()

    def rate(self, host: str) -> float:
        return max(0.01, self._rates.get(host.lower(), self._default))

    def acquire(self, host: str, *, max_wait: float, bucket: str | None = None) -> bool:
        """Wait for the next free slot in `bucket` (the host's own by default; `host/lists` for its
        searches); False (nothing reserved) if that is more than `max_wait` seconds away — a pause of
        the host included — or the audit is cancelled meanwhile."""
        host = host.lower()
        bucket = (bucket or host).lower()
        rate = self.rate(bucket)
        with self._lock:
            now = self._clock()
            tokens, at = self._tokens.get(bucket, (max(1.0, rate), now))
            tokens = min(max(1.0, rate), tokens + (now - at) * rate) - 1.0
            wait = max(self._paused.get(host, now) - now, -tokens / rate if tokens < 0 else 0.0)
            if wait > max_wait:
                return False
            self._tokens[bucket] = (tokens, now)
        deadline = self._clock() + wait
        while (left := deadline - self._clock()) > 0:
            if self._cancelled():
                return False
            self._wake.wait(min(left, self.POLL_S))
        return not self._cancelled()

    def pause(self, host: str, seconds: float) -> None:
        """Nobody asks `host` again for `seconds` (its Retry-After, or a back-off)."""
        with self._lock:
            until = self._clock() + max(0.0, seconds)
            self._paused[host.lower()] = max(self._paused.get(host.lower(), 0.0), until)

    def paused_for(self, host: str) -> float:
        with self._lock:
            return max(0.0, self._paused.get(host.lower(), 0.0) - self._clock())


# answers ----------------------------------------------------------------------------------------
class AnswerStatus(StrEnum):
    FOUND = "found"
    MISSING = "missing"
    """The index answered that it has no such work (HTTP 404, or a search with no results)."""
    FAILED = "failed"
    """No answer: offline, unreachable, rate-limited, cancelled, or unreadable. Never a finding."""


@dataclass(frozen=True)
class IndexAnswer:
    index: str
    """`crossref`, `openalex` or `doi.org`."""
    status: AnswerStatus
    works: tuple[Work, ...] = ()
    fetched_at: float | None = None
    from_cache: bool = False
    message: str = ""
    unreachable: bool = False
    """FAILED because the host could not be reached (no network, DNS, refused, reset) or the audit is offline:
    not a slow-down, not an error the index answered."""

    @property
    def work(self) -> Work | None:
        return self.works[0] if self.works else None

    @property
    def answered(self) -> bool:
        return self.status is not AnswerStatus.FAILED


_BUSY = (429, 503)
_UNREACHABLE = (FetchStatus.DNS_FAILURE, FetchStatus.CONNECTION_ERROR, FetchStatus.RESET, FetchStatus.BLOCKED)
"""A host that refused, dropped or reset the connection is not asked again in this run."""
_DEFAULT_PAUSE = 60.0


@dataclass
class IndexClient:
    """Crossref, OpenAlex and doi.org look-ups on one Fetcher, cached, rate-limited per host."""

    config: LookupConfig
    fetcher: UrlFetcher
    cache: AnswerCache = field(default_factory=MemoryCache)
    limiter: HostRateLimiter | None = None
    cancelled: Callable[[], bool] = lambda: False
    clock: Callable[[], float] = time.time
    requests: int = 0
    """How many requests went to the network (for tests and the benchmark)."""

    def __post_init__(self) -> None:
        if self.limiter is None:
            rates = {
                _host(self.config.crossref_base): self.config.crossref_rate,
                _host(self.config.openalex_base): self.config.openalex_rate,
                _host(self.config.doi_base): self.config.doi_rate,
                _host(self.config.crossref_base) + "/lists": self.config.crossref_search_rate,
                _host(self.config.openalex_base) + "/lists": self.config.openalex_search_rate,
            }
            self.limiter = HostRateLimiter(rates, cancelled=self.cancelled)
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._down: dict[str, str] = {}
        """Host → why it could not be reached; not asked again by this client."""

    # the look-ups -------------------------------------------------------------------------------
    def crossref_work(self, doi: str) -> IndexAnswer:
        """Crossref `/works/{doi}`: the record, with its `updated-by` notices."""
        url = f"{self.config.crossref_base.rstrip('/')}/works/{quote(doi, safe='/()')}{self._polite()}"
        return self._lookup("crossref", f"crossref:work:{doi}", url, JSON_ACCEPT, _crossref_one)

    def doi_work(self, doi: str) -> IndexAnswer:
        """doi.org content negotiation (CSL-JSON): any registration agency's record; 404 = unregistered."""
        url = f"{self.config.doi_base.rstrip('/')}/{quote(doi, safe='/()')}"
        return self._lookup("doi.org", f"doi.org:work:{doi}", url, CSL_ACCEPT, _csl_one)

    def openalex_work(self, doi: str) -> IndexAnswer:
        """OpenAlex `/works/doi:{doi}` (free of OpenAlex credits): its record and `is_retracted`."""
        query = self._polite({"select": OPENALEX_FIELDS}, openalex=True)
        url = f"{self.config.openalex_base.rstrip('/')}/works/doi:{quote(doi, safe='/()')}{query}"
        return self._lookup("openalex", f"openalex:work:{doi}", url, JSON_ACCEPT, _openalex_one)

    def crossref_search(self, bibliographic: str) -> IndexAnswer:
        """Crossref `/works?query.bibliographic=…&rows=…`: the best matches for a reference string."""
        query = self._polite(
            {"query.bibliographic": bibliographic[:500], "rows": str(self.config.search_rows)}
        )
        url = f"{self.config.crossref_base.rstrip('/')}/works{query}"
        key = f"crossref:search:{self.config.search_rows}:{fold(bibliographic)[:400]}"
        return self._lookup("crossref", key, url, JSON_ACCEPT, _crossref_many)

    def openalex_search(self, title: str) -> IndexAnswer:
        """OpenAlex `/works?filter=title.search:…`: works whose title matches (a search: costs credits)."""
        words = " ".join(fold(title).split()[:30])  # `,` `:` `|` are filter syntax; folding drops them
        query = self._polite(
            {
                "filter": f"title.search:{words}",
                "per_page": str(self.config.search_rows),
                "select": OPENALEX_FIELDS,
            },
            openalex=True,
        )
        url = f"{self.config.openalex_base.rstrip('/')}/works{query}"
        key = f"openalex:search:{self.config.search_rows}:{words}"
        return self._lookup("openalex", key, url, JSON_ACCEPT, _openalex_many)

    # the machinery ------------------------------------------------------------------------------
    def _polite(self, params: dict[str, str] | None = None, *, openalex: bool = False) -> str:
        params = dict(params or {})
        if self.config.mailto:
            params["mailto"] = self.config.mailto
        if openalex and self.config.openalex_api_key:
            params["api_key"] = self.config.openalex_api_key
        return "?" + urlencode(params) if params else ""

    def _max_age(self, payload: dict[str, Any]) -> float:
        found = payload.get("status") == AnswerStatus.FOUND.value
        return (self.config.max_age_days if found else self.config.negative_max_age_days) * DAY

    def _cached(self, index: str, key: str, *, stale_ok: bool) -> IndexAnswer | None:
        hit = self.cache.get(key)
        if hit is None:
            return None
        payload, fetched_at = hit
        if payload.get("status") == AnswerStatus.FAILED.value:  # never stale: asked again once old
            if self.clock() - fetched_at > self.config.failed_max_age_hours * 3600:
                return None
            message = str(payload.get("message") or "")
            return IndexAnswer(
                index, AnswerStatus.FAILED, message=message, unreachable=bool(payload.get("unreachable"))
            )
        if not stale_ok and self.clock() - fetched_at > self._max_age(payload):
            return None
        try:
            status = AnswerStatus(str(payload.get("status")))
            works = tuple(Work.from_json(w) for w in payload.get("works") or ())
        except (ValueError, TypeError, KeyError):
            return None  # a payload from an older format: ask again
        answered_at = payload.get("fetched_at")
        when = float(answered_at) if isinstance(answered_at, int | float) else fetched_at
        return IndexAnswer(index, status, works, when, from_cache=True)

    @contextmanager
    def _one_at_a_time(self, key: str) -> Iterator[None]:
        """Two threads asking the same thing: the second waits and reads the first's answer."""
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            yield

    def _lookup(
        self,
        index: str,
        key: str,
        url: str,
        accept: str,
        parse: Callable[[Any], tuple[Work, ...] | None],
    ) -> IndexAnswer:
        fresh = self._cached(index, key, stale_ok=self.config.offline)
        if fresh is not None:
            return fresh
        if self.config.offline:
            return IndexAnswer(
                index, AnswerStatus.FAILED, message="not checked: working offline", unreachable=True
            )
        with self._one_at_a_time(key):
            fresh = self._cached(index, key, stale_ok=False)
            if fresh is not None:
                return fresh
            answer, asked = self._ask(index, url, accept, parse)
            if answer.answered:
                payload = {
                    "status": answer.status.value,
                    "works": [w.to_json() for w in answer.works],
                    "fetched_at": answer.fetched_at,
                }
                self.cache.put(key, payload)
                return answer
            stale = self._cached(index, key, stale_ok=True)
            if stale is None and asked:  # kept a while: the next to ask gets the same answer
                failed = {
                    "status": answer.status.value,
                    "message": answer.message,
                    "unreachable": answer.unreachable,
                }
                self.cache.put(key, failed)
                return answer
            if stale is not None and stale.answered:  # the index is unreachable now: its last answer stands
                return IndexAnswer(
                    index,
                    stale.status,
                    stale.works,
                    stale.fetched_at,
                    True,
                    f"{answer.message}; using the saved answer",
                )
            return answer

    def _ask(
        self, index: str, url: str, accept: str, parse: Callable[[Any], tuple[Work, ...] | None]
    ) -> tuple[IndexAnswer, bool]:
        """The index's answer, and whether the index was asked (False: cancelled, waited too long
        for its turn, or its host found unreachable earlier in this run)."""
        host = _host(url)
        assert self.limiter is not None
        if self.cancelled():
            return IndexAnswer(index, AnswerStatus.FAILED, message="cancelled"), False
        with self._guard:
            down = self._down.get(host)
        if down is not None:
            return IndexAnswer(index, AnswerStatus.FAILED, message=down, unreachable=True), False
        bucket = f"{host}/lists" if urlsplit(url).path.rstrip("/").endswith("/works") else host
        if not self.limiter.acquire(host, max_wait=self.config.max_rate_wait, bucket=bucket):
            why = "cancelled" if self.cancelled() else f"{index} asked us to slow down; not checked this time"
            return IndexAnswer(index, AnswerStatus.FAILED, message=why), False
        with self._guard:  # found unreachable by another thread while this one waited its turn
            down = self._down.get(host)
        if down is not None:
            return IndexAnswer(index, AnswerStatus.FAILED, message=down, unreachable=True), False
        result = self.fetcher.fetch(url, accept=accept)
        with self._guard:
            self.requests += 1
        return self._answer(index, host, result, parse), not self.cancelled()

    def _answer(
        self, index: str, host: str, result: FetchResult, parse: Callable[[Any], tuple[Work, ...] | None]
    ) -> IndexAnswer:
        """What the index's response says."""
        now = self.clock()
        if result.ok:
            works = parse(_json(result))
            if works is None:
                return IndexAnswer(
                    index, AnswerStatus.FAILED, message=f"{index} answered something unreadable"
                )
            status = AnswerStatus.FOUND if works else AnswerStatus.MISSING
            return IndexAnswer(index, status, works, now)
        if result.status is FetchStatus.NOT_FOUND:
            return IndexAnswer(index, AnswerStatus.MISSING, (), now, message=result.message)
        if result.status in _UNREACHABLE:
            message = f"{index} could not be reached ({result.message or result.status.value})"
            with self._guard:
                self._down.setdefault(host, message)
            return IndexAnswer(index, AnswerStatus.FAILED, message=message, unreachable=True)
        if result.http_status in _BUSY:
            assert self.limiter is not None
            self.limiter.pause(host, result.retry_after or _DEFAULT_PAUSE)
            return IndexAnswer(
                index,
                AnswerStatus.FAILED,
                message=f"{index} is busy or rate-limiting (HTTP {result.http_status})",
            )
        return IndexAnswer(
            index, AnswerStatus.FAILED, message=f"{index}: {result.message or result.status.value}"
        )


def _host(url: str) -> str:
    parts = urlsplit(url)
    return f"{(parts.hostname or '').lower()}:{parts.port}" if parts.port else (parts.hostname or "").lower()


def _json(result: FetchResult) -> Any:
    try:
        return json.loads(result.body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None


def _crossref_one(data: Any) -> tuple[Work, ...] | None:
    message = data.get("message") if isinstance(data, dict) else None
    return (parse_crossref_work(message),) if isinstance(message, dict) else None


def _crossref_many(data: Any) -> tuple[Work, ...] | None:
    message = data.get("message") if isinstance(data, dict) else None
    items = message.get("items") if isinstance(message, dict) else None
    if not isinstance(items, list):
        return None
    return tuple(parse_crossref_work(item) for item in items if isinstance(item, dict))


def _csl_one(data: Any) -> tuple[Work, ...] | None:
    if isinstance(data, dict) and isinstance(data.get("message"), dict):
        return _crossref_one(data)
    return (parse_csl_work(data),) if isinstance(data, dict) and data.get("title") else None


def _openalex_one(data: Any) -> tuple[Work, ...] | None:
    return (parse_openalex_work(data),) if isinstance(data, dict) and data.get("id") else None


def _openalex_many(data: Any) -> tuple[Work, ...] | None:
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        return None
    return tuple(parse_openalex_work(item) for item in results if isinstance(item, dict))
