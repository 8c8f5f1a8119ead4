"""Why a reference's source gives no text to check against, in the words coverage reports use."""

from __future__ import annotations

from citedesk.core.coverage import NotChecked
from citedesk.sources.gather import ResolvedSource, SourceStatus

_BY_STATUS = {
    SourceStatus.OFFLINE: NotChecked.OFFLINE,
    SourceStatus.DEAD: NotChecked.UNREACHABLE,
    SourceStatus.NOT_FOUND: NotChecked.NO_SUCH_WORK,
    SourceStatus.BLOCKED: NotChecked.BLOCKED,
    SourceStatus.UNLOCATED: NotChecked.NO_SOURCE,
    SourceStatus.INVALID_LINK: NotChecked.INVALID_LINK,
    SourceStatus.OUTSIDE: NotChecked.NOT_ALLOWED,
    SourceStatus.NOT_CHECKED: NotChecked.OUT_OF_TIME,
}


def why_not_checked(source: ResolvedSource) -> NotChecked:
    """The reason a citation of this (unusable) source is not checked."""
    if source.status is SourceStatus.UNREADABLE:
        message = source.message.lower()
        if "no text layer" in message or ("scan" in message and "pdf" in message):
            return NotChecked.SCANNED
        if any(word in message for word in ("paywall", "login", "log in", "sign in", "web page")):
            return NotChecked.PAYWALL
        return NotChecked.UNREADABLE
    if source.status is SourceStatus.DEAD and (
        "took too long" in source.message or "timed out" in source.message
    ):
        return NotChecked.TIMED_OUT
    return _BY_STATUS.get(source.status, NotChecked.UNREADABLE)
