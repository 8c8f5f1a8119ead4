"""What a multi-file audit says once for all its files, and the JSON summary of each file.

A thesis audited chapter by chapter runs under one machine, one network and one retraction
snapshot: "no index could be reached" or "the Retraction Watch snapshot is 40 days old" is true of
every chapter, and said in each chapter's report it buries what differs between them. So a notice
that more than one file's report gives is *corpus-wide*: the multi-file text and Markdown output
say it once, before the files, and leave it out of each file's report (`said_once`, `for_corpus`).
The JSON output keeps each file's report whole (its contract: exactly what `--format json` gives
for that file alone) and adds the corpus-wide notices once, in `summary.notices`.

`file_summary` is the multi-file JSON summary's row: the same counts the single-file report's
`summary` has (`unchecked`, `unchecked_reasons`, `by_severity`, `nothing_checked`), so a script
reads both alike; `total_summary` adds the rows up.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from citedesk.core.findings import Severity
from citedesk.core.reports.report import Report, summary_json


@dataclass(frozen=True)
class SaidOnce:
    """The notices (and the retraction note) that more than one file's report gives."""

    notices: tuple[str, ...] = ()
    retractions: str | None = None
    """The retraction note, when the files that have one all say the same."""

    def lines(self) -> list[str]:
        """Each as the text report writes it (`note: …`, `retractions: …`)."""
        said = [f"note: {notice}" for notice in self.notices]
        return said + ([f"retractions: {self.retractions}"] if self.retractions else [])

    def to_json(self) -> list[str]:
        return list(self.notices) + ([f"retractions: {self.retractions}"] if self.retractions else [])


def said_once(reports: Sequence[Report]) -> SaidOnce:
    """The notices given by two or more of `reports`, in the order they are first given; and the
    retraction note, when two or more reports give one and all of those say the same."""
    counted = Counter(notice for report in reports for notice in dict.fromkeys(report.notices))
    order = dict.fromkeys(notice for report in reports for notice in report.notices)
    notices = tuple(notice for notice in order if counted[notice] > 1)
    notes = [report.retractions.note for report in reports if report.retractions is not None]
    retractions = notes[0] if len(notes) > 1 and len(set(notes)) == 1 else None
    return SaidOnce(notices, retractions)


def for_corpus(report: Report, shared: SaidOnce) -> Report:
    """`report` as one file of a multi-file audit shows it: without what is said once for all."""
    notices = [notice for notice in report.notices if notice not in shared.notices]
    retractions = None if shared.retractions is not None else report.retractions
    return replace(report, notices=notices, retractions=retractions)


def file_summary(document: str, report: Report | None, error: str | None = None) -> dict[str, Any]:
    """One file's row of the multi-file JSON summary: the single-file `summary`'s counts, named as
    there, with its `findings` total; a file that could not be audited has zeros and its `error`."""
    if report is None:
        return {
            "document": document,
            "citations": 0,
            "checked": 0,
            "unchecked": 0,
            "unchecked_reasons": {},
            "nothing_checked": False,
            "findings": 0,
            "by_kind": {},
            "by_severity": {s.value: 0 for s in Severity},
            "error": error or "not audited",
        }
    counts = summary_json(report)
    return {
        "document": document,
        "citations": counts["citations"],
        "checked": counts["checked"],
        "unchecked": counts["unchecked"],
        "unchecked_reasons": counts["unchecked_reasons"],
        "nothing_checked": counts["nothing_checked"],
        "findings": counts["total"],
        "by_kind": counts["by_kind"],
        "by_severity": counts["by_severity"],
    }


def total_summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The rows added up (the files not audited count nothing), reasons most frequent first."""
    reasons: Counter[str] = Counter()
    by_kind: Counter[str] = Counter()
    by_severity = {s.value: 0 for s in Severity}
    for row in rows:
        reasons.update(row["unchecked_reasons"])
        by_kind.update(row["by_kind"])
        for severity, count in row["by_severity"].items():
            by_severity[severity] += count
    citations = sum(row["citations"] for row in rows)
    checked = sum(row["checked"] for row in rows)
    return {
        "document": "total",
        "citations": citations,
        "checked": checked,
        "unchecked": sum(row["unchecked"] for row in rows),
        "unchecked_reasons": dict(sorted(reasons.items(), key=lambda item: (-item[1], item[0]))),
        "nothing_checked": citations > 0 and checked == 0,
        "findings": sum(row["findings"] for row in rows),
        "by_kind": dict(by_kind),
        "by_severity": by_severity,
    }


def render_said_once(shared: SaidOnce, *, markdown: bool = False) -> str:
    """The corpus-wide notices, said once before the files' reports ("" when there are none)."""
    lines = shared.lines()
    if not lines:
        return ""
    if markdown:
        return "## For every file\n\n" + "".join(f"- {line}\n" for line in lines)
    return "For every file\n" + "".join(f"  {line}\n" for line in lines)
