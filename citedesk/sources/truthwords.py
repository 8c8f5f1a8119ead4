"""How reference checks are told: the one set of messages for a reference's truth, whether the
reference is an entry of the document's own list or of a bibliography file (`truth.py` decides
which finding each check makes and where it goes) — each message a template in the work's `name`
(`[3]`, `@ding2014`) and, for an entry kept in a bibliography file, the `place` the writer corrects
it in (`refs.bib (line 12)`) and the correction `shown` there — and the words and records they
share: the notice named with its DOI, date and link, the work an index knows (`Ding et al., 2014`),
the record a finding's details carry; and the typed summary each source's row in the report
carries (`truth_summary`).
"""

from __future__ import annotations

from citedesk.core.findings import Kind
from citedesk.core.reports.summaries import FieldDifference, NoticeSummary, ReferenceTruth
from citedesk.sources.matching import Difference
from citedesk.sources.metadata import Notice, NoticeKind, Work
from citedesk.sources.mirror import MIRROR_NAMES
from citedesk.sources.refcheck import CheckStatus, ReferenceCheck

INDEX_NAMES = {"crossref": "Crossref", "openalex": "OpenAlex", "doi.org": "doi.org", **MIRROR_NAMES}


def index_name(check: ReferenceCheck) -> str:
    """The index whose record decided, as a writer knows it (`Crossref`)."""
    return INDEX_NAMES.get(check.source, check.source)


def _capital(name: str) -> str:
    """An index's name opening a sentence (`The local Crossref mirror knows …`)."""
    return name[:1].upper() + name[1:]


def notice_kind(notice: Notice) -> Kind | None:
    """The finding a standing notice makes: retracted (a retraction or withdrawal), expression of
    concern, correction; None for any other."""
    if notice.kind.withdraws:
        return Kind.RETRACTED
    if notice.kind is NoticeKind.EXPRESSION_OF_CONCERN:
        return Kind.EXPRESSION_OF_CONCERN
    if notice.kind is NoticeKind.CORRECTION:
        return Kind.CORRECTION
    return None


def standing_verb(notice: Notice) -> str:
    if notice.kind is NoticeKind.RETRACTION:
        return "is retracted"
    if notice.kind is NoticeKind.WITHDRAWAL:
        return "is withdrawn"
    if notice.kind is NoticeKind.EXPRESSION_OF_CONCERN:
        return "is under an expression of concern"
    return "has a published correction"


def notice_words(notice: Notice) -> str:
    """`retraction notice doi:10.…, 2010-02-06 (https://doi.org/10.…); reasons: …`."""
    what = summarise(notice).words + " notice"
    if notice.doi:
        said = f"{what} doi:{notice.doi}" + (f", {notice.date}" if notice.date else ", undated")
        said += f" ({notice.url})"
    elif notice.source == "openalex":
        said = "OpenAlex marks it so, without naming the notice or its date — check the publisher's page"
    elif notice.source == "title":
        said = "its title in the index says so" + (f" ({notice.date})" if notice.date else "")
    else:
        said = what + (f" of {notice.date}" if notice.date else "")
    if notice.reasons:
        said += "; reasons: " + ", ".join(notice.reasons[:4]) + ("…" if len(notice.reasons) > 4 else "")
    return said


def notice_details(check: ReferenceCheck, notice: Notice) -> dict[str, object]:
    return {
        "doi": check.doi or (check.work.doi if check.work else None),
        "notice": summarise(notice).to_json(),
    }


def byline(work: Work) -> str:
    first = work.authors[0].family if work.authors else "no author given"
    more = " et al." if len(work.authors) > 1 else ""
    return f"{first}{more}, {work.year}" if work.year else f"{first}{more}"


def offer(check: ReferenceCheck) -> str:
    return f"; the entry's title finds doi:{check.suggestion_doi}" if check.suggestion_doi else ""


def also(check: ReferenceCheck) -> str:
    if not check.differences:
        return ""
    return "; note that " + "; ".join(
        f"the entry's {d.label} “{d.cited}” is “{d.actual}” there" for d in check.differences
    )


def record(work: Work | None) -> dict[str, object] | None:
    if work is None:
        return None
    return {
        "doi": work.doi,
        "title": work.title,
        "first_author": work.authors[0].family if work.authors else None,
        "year": work.year,
        "venue": work.container,
    }


# the messages ---------------------------------------------------------------------------------------
def wrong_doi_words(name: str, check: ReferenceCheck, place: str | None, shown: str | None) -> str:
    """The DOI names another work (`different_work`) or none (`unregistered`)."""
    if check.status is CheckStatus.UNREGISTERED:
        what = "registered nowhere: neither Crossref nor doi.org knows it"
    else:
        work = f"“{check.work.title}” ({byline(check.work)})" if check.work else "another work"
        what = f"{work} in {index_name(check)}, not the work the entry describes"
    return f"The DOI of {name} (doi:{check.doi}) is {what}{offer(check)}.{_correct_doi(place, shown)}"


def _correct_doi(place: str | None, shown: str | None) -> str:
    if place is None:
        return ""
    return (
        f" Correct it in {place}: {shown}."
        if shown
        else f" Correct or remove the DOI of the entry in {place}."
    )


def found_by_title_words(
    name: str, check: ReferenceCheck, work: Work, place: str | None, shown: str | None
) -> str:
    add = (
        f"Add {shown} to the entry in {place} so that readers and checks find it."
        if place is not None
        else "Adding the DOI lets readers and checks find it."
    )
    return (
        f"{_capital(index_name(check))} knows {name} as doi:{check.suggestion_doi} — “{work.title}” "
        f"({byline(work)}){also(check)}. {add}"
    )


def possible_match_words(name: str, check: ReferenceCheck, work: Work, place: str | None) -> str:
    return (
        f"{_capital(index_name(check))} has a work with a similar title — “{work.title}” ({byline(work)}"
        f"{', doi:' + work.doi if work.doi else ''}) — but its authors or year do not "
        f"confirm that it is the work {name} describes; check the entry{_in(place)}."
    )


def not_found_words(name: str, check: ReferenceCheck, place: str | None) -> str:
    return (
        f"No index knows {name}: {check.message}. This does not mean it is fabricated: books, "
        "reports and very recent work are often missing."
        + (f" The entry is in {place}." if place is not None else "")
    )


def metadata_words(
    name: str, check: ReferenceCheck, difference: Difference, place: str | None, shown: str | None
) -> str:
    where = f"doi:{check.doi}" if check.doi else "the work"
    return (
        f"{name} gives the {difference.label} as “{difference.cited}”, but {index_name(check)}'s record of "
        f"{where} says “{difference.actual}”."
        + (f" Correct it in {place}: {shown}." if place is not None else "")
    )


def standing_words(name: str, notice: Notice) -> str:
    """On the entry: `[3] is retracted: retraction notice doi:…`."""
    return f"{name} {standing_verb(notice)}: {notice_words(notice)}."


def citing_words(name: str, notice: Notice) -> str:
    """On a citation: `This sentence cites [3], which is retracted: …`."""
    return f"This sentence cites {name}, which {standing_verb(notice)}: {notice_words(notice)}."


def _in(place: str | None) -> str:
    return f" in {place}" if place is not None else ""


# the summary the report carries -----------------------------------------------------------------------
def summarise(notice: Notice) -> NoticeSummary:
    return NoticeSummary(
        kind=notice.kind.value,
        doi=notice.doi,
        date=notice.date,
        source=notice.source,
        label=notice.label,
        reasons=notice.reasons,
    )


def truth_summary(check: ReferenceCheck) -> ReferenceTruth:
    standing = check.standing
    return ReferenceTruth(
        status=check.status.value,
        message=check.message,
        doi=check.doi,
        suggested_doi=check.suggestion_doi,
        index=check.source,
        checked_at=check.checked_at,
        cached=check.from_cache,
        standing=summarise(standing) if standing is not None else None,
        notices=tuple(summarise(n) for n in check.notices),
        differences=tuple(FieldDifference(d.field, d.label, d.cited, d.actual) for d in check.differences),
        unreachable=check.unreachable,
        offline=check.offline,
    )
