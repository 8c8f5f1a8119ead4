"""Every reference → its source: a local file, the cache, or the network; with a status that says which.

Order of preference for a reference's content: a file named by its key in `--sources DIR`, a local
path named in the entry, then its DOI, arXiv id or URL (the cache first unless refreshing; nothing
from the network when offline). An unreachable link keeps using its last good cached copy.

Whether a DOI names the work the entry describes is not decided here: `refcheck` compares the
entry with the indexes' records (`truth.py` turns that into findings); this module only gets the
work's text.

Each reference is isolated: whatever its entry holds (a malformed link, a file outside the allowed
folders, a server that never answers), the outcome is a status on that reference, never an
exception that stops the audit. Local files are read only from the allowed folders (`local`); the
network sources together can be given a time budget, after which those not finished are "not
checked" — neither dead nor fabricated.

A failed fetch is named for what happened (`_failure`). Only "gone" is DEAD (a dead link): the
server answered 404 or 410, the page says it does not exist (a soft 404), or the host name does not
exist while other hosts answer. A server error (5xx), a refusal (401, 403, 429, any other 4xx), a
timeout, a connection reset or a connection that could not be opened say nothing about whether the
page exists: each is its own status, its citations are "not checked" for that reason, and the last
good copy is used. When no host answered anything and every fetch failed at the network level, the
machine is offline (OFFLINE), and no link is called dead.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from citedesk.core.document.references import LabelStyle, Reference
from citedesk.core.document.works import CitedEntry
from citedesk.errors import UsageError
from citedesk.files import FileTooLargeError, NotRegularFileError, read_regular_file
from citedesk.sources.extract import Extracted, extract
from citedesk.sources.fetch import (
    PDF_ACCEPT,
    Fetcher,
    FetchResult,
    FetchStatus,
)
from citedesk.sources.guard import InvalidLink, parse_link
from citedesk.sources.identifiers import (
    CSL_ACCEPT,
    WorkMetadata,
    arxiv_abs_url,
    crossref_url,
    doi_url,
    expects_pdf,
    locator_of,
    parse_csl,
)
from citedesk.sources.identifiers import location_of as _location  # (moved there: a source's names)
from citedesk.sources.local import LOCAL_EXTENSIONS, allowed_roots, is_within, outside_message, refused_file
from citedesk.sources.passages import split_passages
from citedesk.sources.resolved import NOT_CHECKED_MESSAGE, ResolvedSource, SourceOptions, SourceStatus
from citedesk.store import SourceRecord, Store

MAX_LOCAL_BYTES = 20 * 1024 * 1024


def gather_sources(
    references: Sequence[CitedEntry],
    options: SourceOptions,
    store: Store,
    *,
    cancelled: Callable[[], bool] = lambda: False,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> dict[str, ResolvedSource]:
    """Each reference's source (first entry per key), in the references' order; never raises for
    what an entry or a server holds. With `options.budget`, network sources still running when it
    runs out end as NOT_CHECKED, and those not started by then are not started."""
    stop_at = None if options.budget is None else time.monotonic() + max(0.0, options.budget)
    unique: dict[str, CitedEntry] = {}
    for ref in references:
        unique.setdefault(ref.key, ref)
    results: dict[str, ResolvedSource] = {}
    network: list[CitedEntry] = []
    for key, ref in unique.items():
        local = _local_source(ref, options, store, stop_at)
        if local is not None:
            results[key] = local
            continue
        locator = locator_of(ref)
        if locator is None:
            results[key] = ResolvedSource(
                key, SourceStatus.UNLOCATED, message="the entry names no link, DOI or file"
            )
            continue
        fresh = options.refresh or key in options.refresh_keys
        given = options.settled.get(locator)
        if given is not None and not fresh:
            results[key] = replace(given, key=key, location=given.location or _location(ref))
            continue
        cached = store.source(locator)
        if cached is not None and cached.status == "ok" and not fresh:
            results[key] = _from_record(key, cached, SourceStatus.CACHED, store)
            continue
        if options.offline:
            results[key] = ResolvedSource(
                key, SourceStatus.OFFLINE, locator, _location(ref), message="not cached, and fetching is off"
            )
            continue
        network.append(ref)

    first: dict[str, str] = {}  # locator → the first key naming it: a DOI or link is fetched once
    for ref in network:
        first.setdefault(locator_of(ref) or ref.key, ref.key)
    total = len(first)
    progress(0, total)
    if network:
        with (
            Fetcher(options.fetch, cancelled=cancelled, stop_at=stop_at) as fetcher,
            ThreadPoolExecutor(
                max_workers=max(1, options.fetch.concurrency), thread_name_prefix="source"
            ) as pool,
        ):
            futures = {
                key: pool.submit(_resolve_in_time, unique[key], options, fetcher, stop_at)
                for key in first.values()
            }
            outcomes: dict[str, _Remote] = {}
            for done, (key, future) in enumerate(futures.items(), start=1):
                outcomes[key] = future.result()
                progress(done, total)
        offline = _no_network(list(outcomes.values()))
        for key, outcome in outcomes.items():
            if offline and outcome.status in _OFFLINE_LOOKS:
                outcome = replace(outcome, status=SourceStatus.OFFLINE, message=OFFLINE_MESSAGE)
            results[key] = _record_outcome(key, unique[key], outcome, store)
        for ref in (r for r in network if r.key not in results):  # named again: the first's answer
            first_key = first[locator_of(ref) or ref.key]
            results[ref.key] = replace(results[first_key], key=ref.key, location=_location(ref))
    return {key: _file_refused_first(unique[key], results[key], options) for key in unique}


def _file_refused_first(ref: CitedEntry, source: ResolvedSource, options: SourceOptions) -> ResolvedSource:
    """An entry's file outside the allowed folders, when its link gave nothing either, is what is
    said ("outside", with the folder to allow), never "offline" (issue 28)."""
    roots = allowed_roots(options.document_dir, options.sources_dir, extra=options.local_roots)
    kept = source.usable or options.allow_local_paths or source.status is SourceStatus.OUTSIDE
    said = None if kept else refused_file(ref.path, options.document_dir, roots, source.message)
    return ResolvedSource(ref.key, SourceStatus.OUTSIDE, None, ref.path, message=said) if said else source


OFFLINE_MESSAGE = "not checked: no host could be reached (this machine seems to be offline)"
_NETWORK_FAILURES = (FetchStatus.DNS_FAILURE, FetchStatus.CONNECTION_ERROR, FetchStatus.TIMEOUT)
_OFFLINE_LOOKS = (SourceStatus.DEAD, SourceStatus.UNREACHABLE, SourceStatus.TIMED_OUT)
"""What a source looks like when the machine is offline: a host not found, a connection not
opened, a connection that timed out."""


def _no_network(outcomes: list[_Remote]) -> bool:
    """Whether the machine is offline, as far as this audit can tell: no host answered anything at
    all (no HTTP status, not even an error page), and every fetch failed at the network level (a
    name that did not resolve, a connection that did not open or timed out before any answer). A
    host that does not exist is a dead link only while others answer; with no network, every link
    would look dead, and that is not a property of the citations. One HTTP answer — a 500 too —
    means the machine is online."""
    fetches = [o.fetch for o in outcomes if o.fetch is not None]
    if not fetches or any(f.http_status is not None for f in fetches):
        return False
    return all(f.status in _NETWORK_FAILURES for f in fetches)


def _resolve_in_time(
    ref: CitedEntry, options: SourceOptions, fetcher: Fetcher, stop_at: float | None
) -> _Remote:
    """`_resolve_remote`, unless the budget ran out first; a fetch the budget cut is not checked."""

    def over() -> bool:
        return stop_at is not None and time.monotonic() >= stop_at

    locator = locator_of(ref)
    assert locator is not None
    if over():
        return _Remote(locator, SourceStatus.NOT_CHECKED, None, message=NOT_CHECKED_MESSAGE)
    own_deadline = time.monotonic() + options.fetch.deadline
    remote = _resolve_remote(ref, options, fetcher)
    cut = remote.fetch is not None and remote.fetch.status in (FetchStatus.TIMEOUT, FetchStatus.CANCELLED)
    by_budget = stop_at is not None and stop_at < own_deadline  # else its own deadline cut it: timed out
    if cut and over() and by_budget and remote.status is not SourceStatus.FETCHED:
        return _Remote(locator, SourceStatus.NOT_CHECKED, remote.fetch, message=NOT_CHECKED_MESSAGE)
    return remote


def refresh_source(locator: str, options: SourceOptions, store: Store) -> ResolvedSource:
    """Resolve one cached source again from the network (`citedesk sources refresh`).

    The same path as an audit: a DOI is re-resolved, an arXiv id re-read, a URL re-fetched; a
    failure keeps the cached copy, as in an audit.
    """
    kind, _, value = locator.partition(":")
    if kind not in ("doi", "arxiv", "url") or not value:
        raise UsageError(f"{locator} is not a DOI, arXiv or URL source; local files are re-read by an audit")
    record = store.source(locator)
    ref = Reference(
        key=locator,
        start=0,
        end=0,
        label_start=0,
        label_end=0,
        style=LabelStyle.BRACKET,
        text=locator,
        title=record.title if record is not None and kind == "doi" else None,
        doi=value if kind == "doi" else None,
        arxiv=value if kind == "arxiv" else None,
        url=value if kind == "url" else None,
    )
    with Fetcher(options.fetch) as fetcher:
        outcome = _resolve_remote(ref, options, fetcher)
    return _record_outcome(locator, ref, outcome, store)


# local files ------------------------------------------------------------------------------------
def _local_source(
    ref: CitedEntry, options: SourceOptions, store: Store, stop_at: float | None = None
) -> ResolvedSource | None:
    """The reference's local file: attached by the writer (always read), `--sources DIR/KEY.ext`, or
    a path in the entry — the last two only inside the allowed folders (see `local`)."""
    attached = [(Path(p), str(p)) for k, p in options.attached if k == ref.key]
    candidates: list[tuple[Path, str]] = []
    if options.sources_dir is not None:
        candidates.extend(
            (options.sources_dir / f"{ref.key}{ext}", f"{ref.key}{ext}") for ext in LOCAL_EXTENSIONS
        )
    named: Path | None = None
    if ref.path:
        named = Path(ref.path)
        if not named.is_absolute() and options.document_dir is not None:
            named = options.document_dir / named
        candidates.append((named, ref.path))
    roots = allowed_roots(options.document_dir, options.sources_dir, extra=options.local_roots)
    refused = False
    for path, shown in attached:
        if os.path.isfile(path):
            return _read_local(ref.key, path, store, shown, stop_at)
    for path, shown in candidates:
        if not options.allow_local_paths and not is_within(path, roots):
            refused = refused or path is named  # nothing is looked at outside the allowed folders
            continue
        # the --sources folder is probed by name; a file the entry names is read if anything is
        # there, so a pipe or device says what it is (`_read_local` refuses it unopened)
        if os.path.isfile(path) or (path is named and os.path.exists(path) and not os.path.isdir(path)):
            found = _read_local(ref.key, path, store, shown, stop_at)
            found.private = not is_within(path, roots)
            return found
    if named is not None and not (ref.url or ref.doi or ref.arxiv):
        if refused:
            return ResolvedSource(
                ref.key,
                SourceStatus.OUTSIDE,
                None,
                ref.path,
                message=outside_message(ref.path or str(named), named),
            )
        return ResolvedSource(
            ref.key, SourceStatus.DEAD, None, str(named), message=f"the file {ref.path} does not exist"
        )
    return None


def _read_local(
    key: str, path: Path, store: Store, shown: str, stop_at: float | None = None
) -> ResolvedSource:
    resolved = Path(os.path.realpath(path))  # never raises, even on a loop of symbolic links
    locator = f"file:{resolved}"
    try:
        data = read_regular_file(resolved, MAX_LOCAL_BYTES)
    except FileTooLargeError as exc:
        more = "more than " if exc.at_least else ""
        problem = f"the file is {more}{exc.size / 1e6:.1f} MB, over the {MAX_LOCAL_BYTES / 1e6:.0f} MB limit"
        return ResolvedSource(key, SourceStatus.UNREADABLE, locator, shown, message=problem)
    except NotRegularFileError as exc:
        return ResolvedSource(
            key, SourceStatus.UNREADABLE, locator, shown, message=f"it is {exc.file_kind}, not a file"
        )
    except OSError as exc:
        return ResolvedSource(
            key,
            SourceStatus.UNREADABLE,
            locator,
            shown,
            message=f"the file cannot be read: {exc.strerror or exc}",
        )
    digest = hashlib.sha256(data).hexdigest()
    cached = store.source(locator)
    if cached is not None and cached.content_hash == digest and cached.status == "ok":
        return _from_record(key, cached, SourceStatus.LOCAL, store, location=shown)
    extracted = extract(data, None, resolved.name, deadline=stop_at)
    status = "ok" if extracted.text.strip() else "unreadable"
    record = SourceRecord(
        locator=locator,
        kind=extracted.kind,
        status=status,
        fetched_at=time.time(),
        content_hash=digest,
        title=extracted.title,
        author=extracted.author,
        date=extracted.date,
        text=extracted.text,
        message="" if status == "ok" else (extracted.problem or "the file has no readable text"),
    )
    passages = split_passages(extracted.text, extracted.pages)
    store.save_source(record, passages)
    if status != "ok":
        return ResolvedSource(key, SourceStatus.UNREADABLE, locator, shown, message=record.message)
    return ResolvedSource(
        key,
        SourceStatus.LOCAL,
        locator,
        shown,
        extracted.title,
        extracted.text,
        passages,
        fetched_at=record.fetched_at,
        date=extracted.date,
    )


def _from_record(
    key: str,
    record: SourceRecord,
    status: SourceStatus,
    store: Store,
    location: str | None = None,
) -> ResolvedSource:
    return ResolvedSource(
        key,
        status,
        record.locator,
        location or record.final_url or record.locator.split(":", 1)[1],
        record.title,
        record.text,
        store.passages(record.locator),
        from_cache=status is SourceStatus.CACHED,
        fetched_at=record.fetched_at,
        date=record.date,
    )


# the network ------------------------------------------------------------------------------------
@dataclass
class _Remote:
    locator: str
    status: SourceStatus
    fetch: FetchResult | None
    extracted: Extracted | None = None
    message: str = ""
    title: str | None = None
    work: WorkMetadata | None = None


def _resolve_remote(ref: CitedEntry, options: SourceOptions, fetcher: Fetcher) -> _Remote:
    locator = locator_of(ref)
    assert locator is not None
    if ref.doi:
        meta, work = _doi_metadata(ref.doi, options, fetcher)
        if work is None:
            if meta.status is FetchStatus.NOT_FOUND:
                return _Remote(
                    locator,
                    SourceStatus.NOT_FOUND,
                    meta,
                    message=f"the DOI {ref.doi} does not resolve to any work",
                )
            if not meta.ok:
                return _Remote(locator, _failure(meta), meta, message=meta.message)
            return _Remote(
                locator,
                SourceStatus.UNREADABLE,
                meta,
                message="the DOI services answered with unreadable metadata",
            )
        if work.abstract and len(work.abstract) > 200:
            extracted = Extracted(work.abstract, "text", title=work.title, date=work.year)
        else:
            page_url = work.url or doi_url(ref.doi, options.doi_base)
            page = fetcher.fetch(page_url, accept=PDF_ACCEPT if expects_pdf(page_url) else None)
            if page.status in _UNREACHED:
                # the work exists, but its page could not be had now: not checked for what happened
                # (the last good copy is used), not a page without text
                return _Remote(
                    locator,
                    _failure(page),
                    page,
                    message=f"its page could not be reached: {page.message}",
                    title=work.title,
                    work=work,
                )
            if page.ok:
                extracted = extract(page.body, page.content_type, deadline=fetcher.stop_at)
            else:
                extracted = Extracted(
                    "", "html", title=work.title, problem=f"its page could not be read: {page.message}"
                )
            extracted.title = extracted.title or work.title
            extracted.date = extracted.date or work.year
        return _Remote(locator, SourceStatus.FETCHED, meta, extracted, title=work.title, work=work)
    url = arxiv_abs_url(ref.arxiv, options.arxiv_base) if ref.arxiv else ref.url
    assert url is not None
    if not ref.arxiv:
        try:
            parse_link(url)
        except InvalidLink as exc:
            return _Remote(locator, SourceStatus.INVALID_LINK, None, message=str(exc))
    result = fetcher.fetch(url, accept=PDF_ACCEPT if expects_pdf(url) else None)
    if not result.ok:
        if ref.arxiv and result.status is FetchStatus.NOT_FOUND:
            return _Remote(locator, SourceStatus.NOT_FOUND, result, message=f"arXiv has no paper {ref.arxiv}")
        return _Remote(locator, _failure(result), result, message=result.message)
    extracted = extract(result.body, result.content_type, url, deadline=fetcher.stop_at)
    if extracted.soft_404:
        return _Remote(
            locator,
            SourceStatus.DEAD,
            result,
            extracted,
            message="the page says it does not exist (a soft 404)",
        )
    return _Remote(locator, SourceStatus.FETCHED, result, extracted)


def _doi_metadata(
    doi: str, options: SourceOptions, fetcher: Fetcher
) -> tuple[FetchResult, WorkMetadata | None]:
    """The DOI's record: doi.org content negotiation, then the Crossref works API when that fails.

    doi.org answering 404 is final (the DOI is not registered anywhere); any other failure (an
    error, a timeout, a registrar that answers HTML instead of CSL-JSON) asks Crossref, and only if
    Crossref has no record either is the first failure reported.
    """
    meta = fetcher.fetch(doi_url(doi, options.doi_base), accept=CSL_ACCEPT)
    work = parse_csl(meta.body) if meta.ok else None
    if work is not None or meta.status is FetchStatus.NOT_FOUND:
        return meta, work
    fallback = fetcher.fetch(crossref_url(doi, options.crossref_base), accept="application/json")
    fallback_work = parse_csl(fallback.body) if fallback.ok else None
    if fallback_work is not None:
        return fallback, fallback_work
    return meta, None


_UNREACHED = frozenset(
    {
        FetchStatus.TIMEOUT,
        FetchStatus.CANCELLED,
        FetchStatus.DNS_FAILURE,
        FetchStatus.CONNECTION_ERROR,
        FetchStatus.RESET,
        FetchStatus.SERVER_ERROR,
    }
)
"""Fetch outcomes that say nothing about the page, only that it could not be had now."""

_BY_FETCH = {
    FetchStatus.BLOCKED: SourceStatus.BLOCKED,
    FetchStatus.UNSUPPORTED_TYPE: SourceStatus.UNREADABLE,
    FetchStatus.TOO_LARGE: SourceStatus.UNREADABLE,
    FetchStatus.NOT_FOUND: SourceStatus.DEAD,
    FetchStatus.DNS_FAILURE: SourceStatus.DEAD,  # OFFLINE instead when no host answers (`_no_network`)
    FetchStatus.SERVER_ERROR: SourceStatus.SERVER_ERROR,
    FetchStatus.TIMEOUT: SourceStatus.TIMED_OUT,
    FetchStatus.RESET: SourceStatus.RESET,
    FetchStatus.CONNECTION_ERROR: SourceStatus.UNREACHABLE,
    FetchStatus.CANCELLED: SourceStatus.NOT_CHECKED,
}


def _failure(result: FetchResult) -> SourceStatus:
    """A failed fetch's source status: gone (DEAD) only when the server said so or the host does not
    exist; a server error, a refusal, a timeout, a reset or a connection not opened is its own "not
    checked" status. A malformed redirect target, a redirect loop or a redirect with no target is the
    server's fault, so it is a dead link; the entry's own malformed link is found before fetching
    (INVALID_LINK)."""
    if result.status is FetchStatus.SERVER_ERROR and result.http_status == 429:
        return SourceStatus.REFUSED  # too many requests: refused for now (after the retries)
    if result.status is FetchStatus.CLIENT_ERROR and (result.http_status or 0) >= 400:
        return SourceStatus.REFUSED
    return _BY_FETCH.get(result.status, SourceStatus.DEAD)


def _detail(remote: _Remote) -> str:
    """The figure that goes with a failed source's status (`ResolvedSource.detail`)."""
    fetch = remote.fetch
    if fetch is None:
        return ""
    if remote.status is SourceStatus.DEAD and fetch.ok:
        return "soft 404"
    if remote.status is SourceStatus.DEAD and fetch.status is FetchStatus.DNS_FAILURE:
        return "host not found"
    answered = fetch.status in (FetchStatus.NOT_FOUND, FetchStatus.SERVER_ERROR, FetchStatus.CLIENT_ERROR)
    if answered and remote.status in (SourceStatus.DEAD, SourceStatus.SERVER_ERROR, SourceStatus.REFUSED):
        return f"HTTP {fetch.http_status}" if fetch.http_status else ""
    if remote.status is SourceStatus.TIMED_OUT and fetch.limit is not None:
        return f"after {fetch.limit:g} s"
    return ""


_KEEPS_LAST_COPY = (
    SourceStatus.DEAD,
    SourceStatus.NOT_CHECKED,
    SourceStatus.OFFLINE,
    SourceStatus.SERVER_ERROR,
    SourceStatus.REFUSED,
    SourceStatus.TIMED_OUT,
    SourceStatus.RESET,
    SourceStatus.UNREACHABLE,
)
"""Statuses of a source not had now that use its last good copy (and say so: `from_cache`)."""


def _record_outcome(key: str, ref: CitedEntry, remote: _Remote, store: Store) -> ResolvedSource:
    fetch = remote.fetch
    if fetch is not None:
        store.log_fetch(remote.locator, fetch.status.value, fetch.http_status, fetch.elapsed, fetch.message)
    location = _location(ref)
    extracted = remote.extracted
    previous = store.source(remote.locator)
    if remote.status is SourceStatus.FETCHED and extracted is not None:
        readable = extracted.readable
        record = SourceRecord(
            locator=remote.locator,
            kind=extracted.kind,
            status="ok" if readable else "unreadable",
            fetched_at=time.time(),
            final_url=fetch.final_url if fetch else None,
            http_status=fetch.http_status if fetch else None,
            content_type=fetch.content_type if fetch else None,
            content_hash=hashlib.sha256(extracted.text.encode()).hexdigest(),
            title=extracted.title or remote.title,
            author=extracted.author,
            date=extracted.date,
            text=extracted.text,
            metadata={"work": asdict(replace(remote.work, abstract=None)) if remote.work else None},
        )
        passages = split_passages(extracted.text, extracted.pages) if readable else []
        if readable or previous is None or previous.status != "ok":
            store.save_source(record, passages)
        if not readable:
            return ResolvedSource(
                key,
                SourceStatus.UNREADABLE,
                remote.locator,
                location,
                record.title,
                message=extracted.problem
                or "the page has no readable main text (a paywall, a login page or a scan?)",
            )
        return ResolvedSource(
            key,
            remote.status,
            remote.locator,
            location,
            record.title,
            extracted.text,
            passages,
            fetched_at=record.fetched_at,
            date=record.date,
        )
    # failure: keep using the last good copy, say so
    detail = _detail(remote)
    resolved = ResolvedSource(
        key, remote.status, remote.locator, location, message=remote.message, detail=detail
    )
    if previous is not None and previous.status == "ok" and remote.status in _KEEPS_LAST_COPY:
        cached = _from_record(key, previous, remote.status, store, location=location)
        cached.message = remote.message
        cached.detail = detail
        cached.from_cache = True
        return cached
    return resolved
