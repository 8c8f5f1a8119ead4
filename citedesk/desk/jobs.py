"""The desk's jobs that need the store or the sources: the store for one job, the source cache,
the retraction snapshot, reading bibliographies.

This is the desk's one seam towards what is slow to import (sqlite-utils pulls in numpy; the
sources, httpx; the bibliography readers, YAML and BibTeX): `Desk.jobs()` imports this module when
the first such job runs, and `warm_up` imports it on a thread while the window shows. Everything
below it is imported here at top level.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from citedesk.core.dialects.pandoc.checks import project_duplicates
from citedesk.core.reports.multi_file import FileAudit
from citedesk.core.reports.report import Report
from citedesk.desk.mirror_records import IndexFile, IndexImport, IndexStatus
from citedesk.desk.records import (
    CachedSource,
    CachedSourceDetail,
    RefreshOutcome,
    SnapshotImport,
    SnapshotStatus,
)
from citedesk.engine.sourcing import open_store, source_options
from citedesk.engine.state import AuditOptions
from citedesk.errors import InputError, UsageError
from citedesk.sources.citeworks import cited_works, read_bibliographies
from citedesk.sources.gather import refresh_source
from citedesk.sources.mirror import ImportCaps, describe_files, import_file
from citedesk.sources.retractions import import_into, snapshot_age_days
from citedesk.store import Store


class Jobs:
    """A desk's jobs on the store and the sources: `options` say where the store is and how to
    fetch; `notice` hears what the store has to say (a lock waited for, a damaged file rebuilt)."""

    def __init__(self, options: AuditOptions, notice: Callable[[str], None]) -> None:
        self.options = options
        self.notice = notice

    # the store -------------------------------------------------------------------------------------
    @contextmanager
    def store(self) -> Iterator[Store]:
        """The store for one job, closed after it; what it has to say goes to `notice`."""
        store = open_store(self.options, on_wait=self.notice)
        try:
            for message in store.notices:
                self.notice(message)
            yield store
        finally:
            store.close()

    # the source cache ---------------------------------------------------------------------------------
    def cached_sources(self) -> list[CachedSource]:
        with self.store() as store:
            return [
                CachedSource(r.locator, r.status, r.title, len(store.passages(r.locator)))
                for r in store.sources()
            ]

    def cached_source(self, locator: str) -> CachedSourceDetail:
        with self.store() as store:
            record = store.source(locator)
            if record is None:
                raise UsageError(f"no cached source {locator}; `citedesk sources list` shows them")
            fetches = [
                f"{e['status']} HTTP {e['http_status']} in {e['elapsed']:.2f}s {e['message']}"
                for e in store.fetch_log(locator, limit=5)
            ]
            return CachedSourceDetail(
                record.locator,
                record.status,
                record.title,
                record.final_url,
                record.fetched_at,
                len(store.passages(locator)),
                record.text,
                fetches,
            )

    def forget_source(self, locator: str) -> bool:
        with self.store() as store:
            return store.forget(locator)

    def refresh_source(self, locator: str) -> RefreshOutcome:
        """Fetch one cached source again, through the audit's path (a failure keeps the copy)."""
        with self.store() as store:
            source = refresh_source(locator, source_options(self.options), store)
        ok = source.status.value == "fetched"
        return RefreshOutcome(locator, ok, source.status.value, source.message, len(source.passages))

    # the retraction snapshot ---------------------------------------------------------------------------
    def import_retractions(self, path: str | os.PathLike[str]) -> SnapshotImport:
        """Load a Retraction Watch CSV into the store, replacing the previous snapshot, in one
        transaction (an InputError says what is wrong with a bad file; the old snapshot stays)."""
        with self.store() as store, store.lookups() as tables:
            summary = import_into(tables, Path(path))
        return SnapshotImport(
            str(path), summary.rows, summary.imported, dict(summary.skipped), summary.newest
        )

    def retraction_status(self) -> SnapshotStatus | None:
        """The snapshot in the store and how old it is; None when none was imported."""
        with self.store() as store, store.lookups() as tables:
            info = tables.snapshot()
            answers = tables.cached_answers()
        if info is None:
            return None
        return SnapshotStatus(
            info.path,
            info.imported_at,
            info.rows,
            info.imported,
            info.newest,
            snapshot_age_days(info, time.time()),
            answers,
        )

    # the index mirror (Crossref / OpenAlex works) -------------------------------------------------------
    def import_index(
        self,
        path: str | os.PathLike[str],
        *,
        source: str | None = None,
        max_works: int | None = None,
        max_seconds: float | None = None,
        progress: Callable[[int, int], None] = lambda done, total: None,
    ) -> IndexImport:
        """Load a JSON-lines file of Crossref or OpenAlex works into the mirror, replacing that file's
        rows in one transaction (an InputError says what is wrong with a bad file; its rows stay)."""
        caps = ImportCaps(max_works=max_works, max_seconds=max_seconds)
        with self.store() as store, store.lookups() as tables:
            s = import_file(tables, Path(path), source=source, caps=caps, progress=progress)
        return IndexImport(
            str(path), s.source, s.lines, s.rows, s.kept, dict(s.skipped), s.bad_lines, s.stopped, s.seconds
        )

    def index_status(self) -> IndexStatus:
        """The files in the mirror and the works it holds (none: an empty status)."""
        with self.store() as store, store.lookups() as tables:
            files = tables.mirror_files()
            works = tables.mirror_count()
        return IndexStatus(
            tuple(
                IndexFile(f.path, f.source, f.imported_at, f.rows, f.kept, f.skipped, f.bad_lines)
                for f in files
            ),
            works,
            describe_files(files),
        )

    # many documents ---------------------------------------------------------------------------------------
    def audit_files(
        self,
        paths: Sequence[str | os.PathLike[str]],
        audit: Callable[[str | os.PathLike[str]], Report],
        *,
        done: Callable[[FileAudit], None] | None = None,
    ) -> list[FileAudit]:
        """`Desk.audit_files`: the options' bibliographies read first (one that cannot be read
        stops everything: InputError), then `audit` on each file in turn; a file that cannot be
        audited gets a row saying why, and the others are still audited."""
        read_bibliographies(self.options.bibliographies)
        audits = []
        for path in paths:
            try:
                row = FileAudit(str(path), audit(path))
            except InputError as exc:  # the document, or a bibliography of its own, cannot be read
                row = FileAudit(str(path), None, exc.message)
            audits.append(row)
            if done is not None:
                done(row)
        reports = [audit.report for audit in audits if audit.report is not None]
        said_once = project_duplicates([(report.document, report.findings) for report in reports])
        for report, findings in zip(reports, said_once, strict=True):  # a duplicate work: once per project
            report.findings = findings
        return audits

    # bibliographies ---------------------------------------------------------------------------------------
    read_bibliographies = staticmethod(read_bibliographies)
    """Read (or reuse) each bibliography: BibliographyError for the first that cannot be read."""
    cited_works = staticmethod(cited_works)
    """The works a document cites, from the bibliographies it names or is given (None: it names none)."""
