"""Reference truth: for each reference entry, what the indexes say about the work it names.

`check_references` gives one `ReferenceCheck` per entry that has a DOI or no identifier at all
(entries with only a URL, arXiv id or file are checked by fetching them, in `gather.py`). An entry
is a Markdown reference-list entry or a bibliography entry (`core.document.works.CitedEntry`): a
bibliography entry's fields are compared as parsed (`CitedWork.of`), never scraped from text.

| status | when | finding (see the final report) |
|---|---|---|
| `ok` | the DOI's record is the entry's work and agrees with it | none |
| `metadata_error` | the same work, but the year / first author / venue / volume / pages differ | `metadata_error` (warning) + a fix per field |
| `different_work` | the DOI's record is another work (titles do not match) | `doi_mismatch` (error) |
| `unregistered` | neither Crossref nor doi.org knows the DOI (404 from both) | `fabricated_reference` (error) |
| `found_by_title` | no DOI in the entry; an index has a confident match | info, fix "Add doi:…" (none when the work has no DOI) |
| `possible_match` | an index has a work with this title but author or year do not confirm it | info, no fix |
| `not_found` | no index knows the title | `not_found` (warning: check it exists) — never fabricated |
| `not_checked` | offline, unreachable, rate-limited, cancelled, or nothing to look up | none |

Whatever the status, `notices` carries the work's retractions, withdrawals, expressions of concern
and corrections (Crossref update relations, OpenAlex `is_retracted`, the local Retraction Watch
snapshot — the last one even offline and even when no index answered).

A local index mirror (`mirror.WorkMirror`: works imported from a Crossref or OpenAlex snapshot) is
asked first: a DOI it holds is checked against its record and the network is not asked; a title is
searched in it before the indexes' searches. What it does not hold is asked of the network as
before — offline, it is not looked up (`not_checked`), never `not_found`: the mirror is a subset.

Offline, only cached answers are used and nothing is fetched; a cached "unknown" never becomes
`unregistered` or `not_found` while offline (it is `not_checked`, its message saying what the last
check found).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import StrEnum
from types import TracebackType
from typing import Any

from citedesk.core.document.references import Reference
from citedesk.core.document.works import CitedEntry
from citedesk.sources.fetch import Fetcher, FetchPolicy, FetchResult
from citedesk.sources.indexes import (
    AnswerCache,
    AnswerStatus,
    IndexAnswer,
    IndexClient,
    LookupConfig,
    MemoryCache,
    UrlFetcher,
)
from citedesk.sources.matching import (
    DEFAULT_POLICY,
    Candidate,
    CitedWork,
    Difference,
    MatchPolicy,
    best_candidate,
    compare_work,
)
from citedesk.sources.metadata import Notice, Work, normalise_doi, written_doi
from citedesk.sources.mirror import MIRROR_NAMES, WorkMirror
from citedesk.sources.retractions import RetractionIndex, merge_notices, standing


class CheckStatus(StrEnum):
    OK = "ok"
    METADATA_ERROR = "metadata_error"
    DIFFERENT_WORK = "different_work"
    UNREGISTERED = "unregistered"
    FOUND_BY_TITLE = "found_by_title"
    POSSIBLE_MATCH = "possible_match"
    NOT_FOUND = "not_found"
    NOT_CHECKED = "not_checked"


@dataclass(frozen=True)
class ReferenceCheck:
    """What the indexes say about one reference entry."""

    key: str
    status: CheckStatus
    doi: str | None = None
    """The DOI that was checked: the entry's, as written (compare with `normalise_doi`)."""
    work: Work | None = None
    """The record compared with the entry (for `found_by_title`, the work found)."""
    differences: tuple[Difference, ...] = ()
    notices: tuple[Notice, ...] = ()
    suggestion_doi: str | None = None
    """A DOI to add (`found_by_title`) or to use instead (`different_work`, `unregistered`)."""
    checked_at: float | None = None
    """When the deciding answer was fetched (a cached answer keeps its date)."""
    source: str = ""
    """The index whose record decided: `crossref`, `doi.org`, `openalex`; empty when none did."""
    from_cache: bool = False
    title_score: float | None = None
    message: str = ""
    unreachable: bool = False
    """Not checked because no index asked could be reached (the machine seems to be offline)."""
    offline: bool = False
    """The audit was offline (`--offline`): nothing was asked, only saved answers used."""

    @property
    def standing(self) -> Notice | None:
        """The notice that sets the work's standing now (see `retractions.standing`)."""
        return standing(self.notices)

    @property
    def retracted(self) -> bool:
        notice = self.standing
        return notice is not None and notice.kind.withdraws

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "status": self.status.value,
            "doi": self.doi,
            "work": self.work.to_json() if self.work else None,
            "differences": [
                {"field": d.field, "cited": d.cited, "actual": d.actual, "label": d.label}
                for d in self.differences
            ],
            "notices": [n.to_json() for n in self.notices],
            "suggestion_doi": self.suggestion_doi,
            "checked_at": self.checked_at,
            "source": self.source,
            "from_cache": self.from_cache,
            "title_score": None if self.title_score is None else round(self.title_score, 3),
            "message": self.message,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ReferenceCheck:
        return cls(
            key=str(data["key"]),
            status=CheckStatus(data["status"]),
            doi=data.get("doi"),
            work=Work.from_json(data["work"]) if data.get("work") else None,
            differences=tuple(
                Difference(d["field"], d["cited"], d["actual"]) for d in data.get("differences") or ()
            ),
            notices=tuple(Notice.from_json(n) for n in data.get("notices") or ()),
            suggestion_doi=data.get("suggestion_doi"),
            checked_at=data.get("checked_at"),
            source=str(data.get("source") or ""),
            from_cache=bool(data.get("from_cache")),
            title_score=data.get("title_score"),
            message=str(data.get("message") or ""),
        )


class _OnDemandFetcher:
    """A Fetcher made at the first request: making one loads the TLS certificates (~50 ms), which
    a check answered wholly from the cache — every re-audit of an unchanged list — need not pay."""

    def __init__(self, policy: FetchPolicy, cancelled: Callable[[], bool]) -> None:
        self._policy = policy
        self._cancelled = cancelled
        self._fetcher: Fetcher | None = None
        self._lock = threading.Lock()

    def fetch(self, url: str, *, accept: str | None = None) -> FetchResult:
        with self._lock:
            if self._fetcher is None:
                self._fetcher = Fetcher(self._policy, cancelled=self._cancelled)
            fetcher = self._fetcher
        return fetcher.fetch(url, accept=accept)

    def close(self) -> None:
        with self._lock:
            if self._fetcher is not None:
                self._fetcher.close()
                self._fetcher = None


def wants_check(ref: CitedEntry) -> bool:
    """Entries the truth checks cover: those with a DOI, and those with no identifier or file at all."""
    return bool(ref.doi) or not (ref.url or ref.arxiv or ref.path)


def _day(at: float | None) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d") if at else "an earlier check"


class ReferenceChecker:
    """Checks reference entries against Crossref, OpenAlex, doi.org and the local retraction snapshot.

    Thread-safe: `check_references` runs `check` for many entries at once over one Fetcher.
    """

    def __init__(
        self,
        config: LookupConfig,
        *,
        cache: AnswerCache | None = None,
        retractions: RetractionIndex | None = None,
        mirror: WorkMirror | None = None,
        fetcher: Fetcher | None = None,
        fetch_policy: FetchPolicy | None = None,
        policy: MatchPolicy = DEFAULT_POLICY,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> None:
        self.config = config
        self.policy = policy
        self.retractions = retractions
        self.mirror = mirror
        self._own: _OnDemandFetcher | None = None
        used: UrlFetcher
        if fetcher is None:
            used = self._own = _OnDemandFetcher(fetch_policy or FetchPolicy(), cancelled)
        else:
            used = fetcher
        self.client = IndexClient(
            config, used, cache if cache is not None else MemoryCache(), cancelled=cancelled
        )

    def close(self) -> None:
        if self._own is not None:
            self._own.close()

    def __enter__(self) -> ReferenceChecker:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def requests(self) -> int:
        """Requests sent to the network so far."""
        return self.client.requests

    def check(self, ref: CitedEntry) -> ReferenceCheck:
        """One reference-list entry or bibliography entry."""
        return self.check_cited(ref.key, CitedWork.of(ref))

    def check_cited(self, key: str, cited: CitedWork) -> ReferenceCheck:
        """One entry given field by field (a Markdown entry, or a structured bibliography entry)."""
        result = self._check_cited(key, cited)
        return replace(result, offline=True) if self.config.offline else result

    def _check_cited(self, key: str, cited: CitedWork) -> ReferenceCheck:
        written = written_doi(cited.doi)  # looked up lower-cased, shown as the writer wrote it
        result = self._by_doi(key, written, cited) if written else self._by_title(key, cited)
        if self.config.offline and result.status in (CheckStatus.UNREGISTERED, CheckStatus.NOT_FOUND):
            what = "does not exist" if result.status is CheckStatus.UNREGISTERED else "was in no index"
            result = replace(
                result,
                status=CheckStatus.NOT_CHECKED,
                suggestion_doi=None,
                message=f"not checked while offline (on {_day(result.checked_at)} it {what})",
                unreachable=True,  # offline: a saved answer is not enough to call it anything
            )
        return result

    # with a DOI ---------------------------------------------------------------------------------
    def _local_notices(self, doi: str | None) -> list[Notice]:
        return self.retractions.notices_for(doi) if self.retractions is not None and doi else []

    def _by_doi(self, key: str, written: str, cited: CitedWork) -> ReferenceCheck:
        """`written`: the entry's DOI as written, in the check and its messages; every look-up
        (the indexes, their cache, the snapshot) is by its lower-case form, so `10.1/AB` and
        `10.1/ab` are one DOI, asked about once."""
        doi = written.lower()
        local = self._local_notices(doi)
        base = ReferenceCheck(key, CheckStatus.NOT_CHECKED, doi=written, notices=merge_notices(local))
        mirrored = self.mirror.work(doi) if self.mirror is not None else None
        if mirrored is not None:  # the mirror holds it: checked against its record, the network not asked
            return self._against(cited, base, mirrored, [mirrored], local)
        crossref = self.client.crossref_work(doi)
        resolver = self.client.doi_work(doi) if crossref.status is not AnswerStatus.FOUND else None
        unknown = (
            crossref.status is AnswerStatus.MISSING
            and resolver is not None
            and resolver.status is AnswerStatus.MISSING
        )
        openalex = self.client.openalex_work(doi) if self.config.use_openalex and not unknown else None
        deciding = next(
            (a for a in (crossref, resolver, openalex) if a is not None and a.status is AnswerStatus.FOUND),
            None,
        )
        if deciding is None or deciding.work is None:
            if unknown and resolver is not None:
                return self._suggest(
                    cited,
                    replace(
                        base,
                        status=CheckStatus.UNREGISTERED,
                        checked_at=resolver.fetched_at,
                        source="doi.org",
                        from_cache=resolver.from_cache,
                        message=f"the DOI {written} is registered nowhere (Crossref and doi.org do not know it)",
                    ),
                )
            asked = [a for a in (crossref, resolver, openalex) if a is not None]
            why = "; ".join(dict.fromkeys(a.message for a in asked if a.message))
            if self.mirror is not None and self.config.offline and not any(a.answered for a in asked):
                why = f"not looked up: {self.mirror.describe()} does not hold doi:{written}, and the audit is offline"
            return replace(
                base,
                message=why or "no index answered",
                unreachable=all(a.unreachable for a in asked),
            )
        return self._against(cited, base, deciding, [crossref, resolver, openalex], local)

    def _against(
        self,
        cited: CitedWork,
        base: ReferenceCheck,
        deciding: IndexAnswer,
        answers: list[IndexAnswer | None],
        local: list[Notice],
    ) -> ReferenceCheck:
        """The entry compared with the deciding record: the same work (ok, or a metadata error per
        field), or another work (`different_work`, with the DOI the title finds)."""
        work = deciding.work
        assert work is not None
        assert base.doi is not None
        written = base.doi
        comparison = compare_work(cited, work, self.policy)
        common = replace(
            base,
            work=work,
            checked_at=deciding.fetched_at,
            source=deciding.index,
            from_cache=deciding.from_cache,
            title_score=comparison.title_score,
        )
        mirrored = MIRROR_NAMES.get(deciding.index) is not None and self.mirror is not None
        said = f"checked against {self.mirror.describe()}" if mirrored and self.mirror is not None else ""
        if not comparison.same_work:
            return self._suggest(
                cited,
                replace(
                    common,
                    status=CheckStatus.DIFFERENT_WORK,
                    notices=(),  # the record's notices are about another work
                    message=_joined(
                        f"the DOI {written} is “{work.title}”, not the work the entry describes", said
                    ),
                ),
            )
        notices = merge_notices(local, *(w.notices for a in answers if a is not None for w in a.works))
        if comparison.differences:
            what = "; ".join(f"{d.label}: “{d.cited}” → “{d.actual}”" for d in comparison.differences)
            return replace(
                common,
                status=CheckStatus.METADATA_ERROR,
                differences=comparison.differences,
                notices=notices,
                message=_joined(f"the entry's details differ from the DOI's record ({what})", said),
            )
        return replace(common, status=CheckStatus.OK, notices=notices, message=said)

    def _suggest(self, cited: CitedWork, check: ReferenceCheck) -> ReferenceCheck:
        """For a DOI that is wrong, the DOI the entry's title finds, when the match is confident."""
        if not self.config.suggest_on_mismatch or not cited.title:
            return check
        found = self._by_title(check.key, replace(cited, doi=None))
        if found.status is CheckStatus.FOUND_BY_TITLE and normalise_doi(
            found.suggestion_doi
        ) != normalise_doi(check.doi):
            return replace(check, suggestion_doi=found.suggestion_doi)
        return check

    # without one --------------------------------------------------------------------------------
    def _by_title(self, key: str, cited: CitedWork) -> ReferenceCheck:
        if not cited.title or len(cited.title.split()) < 2:
            return ReferenceCheck(key, CheckStatus.NOT_CHECKED, message="the entry has no title to look up")
        answers: list[IndexAnswer] = []
        best: tuple[Candidate, IndexAnswer] | None = None
        query = _bibliographic(cited)
        searches: list[Callable[[], IndexAnswer]] = [lambda: self.client.crossref_search(query)]
        if self.mirror is not None:
            mirror = self.mirror
            searches.insert(0, lambda: mirror.search(cited.title or ""))
        if self.config.use_openalex:
            searches.append(lambda: self.client.openalex_search(cited.title or ""))
        for search in searches:
            answer = search()
            answers.append(answer)
            candidate = best_candidate(cited, list(answer.works), self.policy)
            if candidate is not None and (
                best is None or (candidate.confident, candidate.score) > (best[0].confident, best[0].score)
            ):
                best = (candidate, answer)
            if best is not None and best[0].confident:
                break  # a confident match: no need to spend another index's quota
        if best is not None and best[0].confident:
            candidate, answer = best
            work = candidate.work
            return ReferenceCheck(
                key,
                CheckStatus.FOUND_BY_TITLE,
                work=work,
                differences=candidate.differences,
                notices=merge_notices(self._local_notices(work.doi), work.notices),
                suggestion_doi=work.doi,
                checked_at=answer.fetched_at,
                source=answer.index,
                from_cache=answer.from_cache,
                title_score=candidate.title_score,
                message=f"{MIRROR_NAMES.get(answer.index, answer.index)} knows this work as doi:{work.doi}"
                if work.doi
                else f"{MIRROR_NAMES.get(answer.index, answer.index)} knows this work (it has no DOI)",
            )
        if (
            best is not None
            and best[0].title_score >= self.policy.title_maybe
            and best[0].author_ok is not False
        ):
            candidate, answer = best
            return ReferenceCheck(
                key,
                CheckStatus.POSSIBLE_MATCH,
                work=candidate.work,
                differences=candidate.differences,
                checked_at=answer.fetched_at,
                source=answer.index,
                from_cache=answer.from_cache,
                title_score=candidate.title_score,
                message=f"{MIRROR_NAMES.get(answer.index, answer.index)} has a work with a similar title, but its authors or year do not confirm it",
            )
        failed = [a for a in answers if not a.answered]
        if failed:
            why = "; ".join(dict.fromkeys(a.message for a in failed if a.message))
            if self.mirror is not None and self.config.offline:
                why = f"not looked up: {self.mirror.describe()} has no work with this title, and the audit is offline"
            return ReferenceCheck(
                key,
                CheckStatus.NOT_CHECKED,
                message=why,
                unreachable=len(failed) == len(answers) and all(a.unreachable for a in failed),
            )
        names = [_index_name(a.index) for a in answers]
        asked = " and ".join(filter(None, (", ".join(names[:-1]), names[-1])))
        return ReferenceCheck(
            key,
            CheckStatus.NOT_FOUND,
            checked_at=min((a.fetched_at for a in answers if a.fetched_at), default=None),
            from_cache=all(a.from_cache for a in answers),
            title_score=best[0].title_score if best else None,
            message=f"no work with this title in {asked} — check that it exists",
        )


def _index_name(index: str) -> str:
    return MIRROR_NAMES.get(index) or ("OpenAlex" if index == "openalex" else index.capitalize())


def _joined(message: str, said: str) -> str:
    """A message, and how it was checked when that is worth saying (`checked against the local …`)."""
    return f"{message}; {said}" if said else message


def _bibliographic(cited: CitedWork) -> str:
    """The query for Crossref's reference matcher: the entry as written, without links."""
    text = re.sub(r"https?://\S+|\bdoi:\s*\S+|\b10\.\d{4,9}/\S+", " ", cited.text or "")
    text = " ".join(text.split())
    if cited.title and cited.title.lower() in text.lower():
        return text
    return " ".join(p for p in (cited.authors, cited.title, cited.year) if p)


def check_references(
    references: Iterable[CitedEntry],
    config: LookupConfig,
    *,
    cache: AnswerCache | None = None,
    retractions: RetractionIndex | None = None,
    mirror: WorkMirror | None = None,
    fetcher: Fetcher | None = None,
    fetch_policy: FetchPolicy | None = None,
    policy: MatchPolicy = DEFAULT_POLICY,
    cancelled: Callable[[], bool] = lambda: False,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> dict[str, ReferenceCheck]:
    """Check every entry `wants_check` selects (one per key), `config.concurrency` at a time."""
    unique: dict[str, CitedEntry] = {}
    for ref in references:
        if wants_check(ref):
            unique.setdefault(ref.key, ref)
    results: dict[str, ReferenceCheck] = {}
    total = len(unique)
    progress(0, total)
    if not unique:
        return results
    with (
        ReferenceChecker(
            config,
            cache=cache,
            retractions=retractions,
            mirror=mirror,
            fetcher=fetcher,
            fetch_policy=fetch_policy,
            policy=policy,
            cancelled=cancelled,
        ) as checker,
        ThreadPoolExecutor(max_workers=max(1, config.concurrency), thread_name_prefix="refcheck") as pool,
    ):
        futures = {key: pool.submit(checker.check, ref) for key, ref in unique.items()}
        for done, (key, future) in enumerate(futures.items(), start=1):
            results[key] = future.result()
            progress(done, total)
    return results


# fixes in the reference entry -------------------------------------------------------------------
@dataclass(frozen=True)
class EntryEdit:
    """Replace document[start:end] with `replacement`: an edit inside one reference entry."""

    start: int
    end: int
    replacement: str
    title: str = field(default="")


_LINKS = re.compile(r"https?://\S+|\bdoi:\s*\S+|\b10\.\d{4,9}/\S+", re.IGNORECASE)


def field_edit(text: str, ref: Reference, difference: Difference) -> EntryEdit | None:
    """The edit that corrects one field of `ref` in the document `text`, or None if it cannot be
    placed safely (the entry's value is not found outside its links)."""
    entry = text[ref.start : ref.end]
    links = [m.span() for m in _LINKS.finditer(entry)]
    old, new = _minimal(difference)
    if not old:
        return None
    if difference.field in ("year", "volume"):
        pattern = re.compile(rf"(?<![\w.]){re.escape(old)}(?![\w])")
    else:
        pattern = re.compile(r"\s+".join(re.escape(part) for part in old.split()))
    for match in pattern.finditer(entry):
        if any(s <= match.start() < e for s, e in links):
            continue
        return EntryEdit(
            ref.start + match.start(),
            ref.start + match.end(),
            new,
            f"Correct the {difference.label}: {difference.cited} → {difference.actual}",
        )
    return None


def _minimal(difference: Difference) -> tuple[str, str]:
    """The smallest text change for a difference: the family name alone for a first author."""
    if difference.field == "first_author":
        written = difference.cited
        family = written.split(",", 1)[0].strip() if "," in written else _family_in(written)
        return family, difference.actual.split(",", 1)[0].strip()
    return difference.cited, difference.actual


def _family_in(name: str) -> str:
    words = name.split()
    if len(words) > 1 and re.fullmatch(r"[A-Z]{1,3}", words[-1]):  # Vancouver: `Smith JA`
        return " ".join(words[:-1])
    return words[-1] if words else name


def doi_edit(text: str, ref: Reference, doi: str) -> EntryEdit:
    """Add `https://doi.org/{doi}` at the end of the entry (after its last character, before the line end)."""
    entry = text[ref.start : ref.end]
    end = ref.start + len(entry.rstrip())
    return EntryEdit(end, end, f" https://doi.org/{doi}", f"Add doi:{doi}")


def age_days(check: ReferenceCheck, now: float | None = None) -> float | None:
    """How old the deciding answer is, in days (for "checked N days ago" in the report)."""
    if check.checked_at is None:
        return None
    return max(0.0, ((now if now is not None else time.time()) - check.checked_at) / 86400.0)
