"""The desk: what CiteDesk does for its user, whichever front end asks.

One `Desk` per run of the CLI or per window: it holds the audit options (with the service
endpoints from the environment), opens the store when a job needs it (and passes on what the store
has to say: a lock being waited for, a damaged file rebuilt), opens documents as `DocumentSession`s,
and does the jobs that belong to no one document — the source cache, the NLI models, the Anthropic
key, the bundled samples.

The front ends never import the store, `assist`, `sources`, `evidence` or `core.repair`: they call
this layer, and read its typed results.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from citedesk.desk.session import DocumentSession
from citedesk.errors import InputError, UsageError
from citedesk.pipeline import AuditOptions

if TYPE_CHECKING:
    from citedesk.core.batch import FileAudit
    from citedesk.store import Store


def warm_up() -> None:
    """Import what the first document job needs (the store: sqlite-utils pulls in numpy, about half
    a second; the bibliography readers) so that a window can do it on a thread while it shows, not on its GUI thread."""
    import citedesk.sources.citeworks  # noqa: PLC0415  (what `@` completion reads: the bibliographies)
    import citedesk.store  # noqa: PLC0415
    import citedesk.store.schema  # noqa: F401, PLC0415


ENDPOINT_VARIABLES = {
    "doi_base": "CITEDESK_DOI_BASE",
    "crossref_base": "CITEDESK_CROSSREF_BASE",
    "arxiv_base": "CITEDESK_ARXIV_BASE",
    "openalex_base": "CITEDESK_OPENALEX_BASE",
}
"""Services whose address can be pointed elsewhere (a mirror, or the tests' local servers)."""
CONTACT_VARIABLE = "CITEDESK_CONTACT_EMAIL"
"""A contact address for Crossref's and OpenAlex's polite pools (a setting or `--contact-email` wins)."""


def _say_nothing(message: str) -> None:
    """Notices go nowhere."""


@dataclass(frozen=True)
class CachedSource:
    """A source in the store, as `citedesk sources list` shows it."""

    locator: str
    status: str
    title: str | None
    passages: int


@dataclass(frozen=True)
class CachedSourceDetail:
    locator: str
    status: str
    title: str | None
    final_url: str | None
    fetched_at: float
    passages: int
    text: str
    fetches: list[str] = field(default_factory=list)
    """The latest fetches, newest first, one line each."""


@dataclass(frozen=True)
class SnapshotImport:
    """What `citedesk retractions import` did: the rows the file had, those kept, those skipped
    (by reason), and its newest notice's date."""

    path: str
    rows: int
    imported: int
    skipped: dict[str, int]
    newest: str | None


@dataclass(frozen=True)
class SnapshotStatus:
    """The retraction snapshot in the store."""

    path: str
    imported_at: float
    rows: int
    imported: int
    newest: str | None
    age_days: float
    """How old its newest notice is, in days."""
    cached_answers: int
    """Answers of Crossref, OpenAlex and doi.org kept in the store."""


@dataclass(frozen=True)
class RefreshOutcome:
    locator: str
    ok: bool
    status: str
    message: str
    passages: int


class Desk:
    """The application's services (its sessions see them as a `desk.services.DeskServices`);
    `notice` receives what the writer should be told on the side (a store being waited for or
    rebuilt)."""

    def __init__(
        self, options: AuditOptions | None = None, *, notice: Callable[[str], None] | None = None
    ) -> None:
        self.options = options or AuditOptions()
        self.notice = notice or _say_nothing

    @classmethod
    def from_environment(
        cls, options: AuditOptions | None = None, *, notice: Callable[[str], None] | None = None
    ) -> Desk:
        """A desk whose service endpoints come from the environment (`CITEDESK_DOI_BASE`, …), and
        the contact address for the indexes' polite pools (`CITEDESK_CONTACT_EMAIL`) unless the
        options carry one."""
        options = options or AuditOptions()
        env = os.environ
        return cls(
            replace(
                options,
                doi_base=env.get(ENDPOINT_VARIABLES["doi_base"]) or options.doi_base,
                crossref_base=env.get(ENDPOINT_VARIABLES["crossref_base"]) or options.crossref_base,
                arxiv_base=env.get(ENDPOINT_VARIABLES["arxiv_base"]) or options.arxiv_base,
                openalex_base=env.get(ENDPOINT_VARIABLES["openalex_base"]) or options.openalex_base,
                contact_email=options.contact_email or (env.get(CONTACT_VARIABLE) or "").strip() or None,
            ),
            notice=notice,
        )

    def with_options(self, options: AuditOptions) -> Desk:
        return Desk(options, notice=self.notice)

    # documents -------------------------------------------------------------------------------------
    def open(self, path: str | os.PathLike[str]) -> DocumentSession:
        """Read a document from disk (a DocumentError says why it cannot be read)."""
        return DocumentSession.read(self, Path(path))

    def untitled(self, text: str = "", *, folder: Path | None = None) -> DocumentSession:
        """A document with no file yet; `folder` is where its relative names (a bibliography, source
        files) are found — the folder of the sample it is a copy of."""
        return DocumentSession(self, None, text, folder=folder)

    def audit_files(
        self, paths: Sequence[str | os.PathLike[str]], *, done: Callable[[FileAudit], None] | None = None
    ) -> list[FileAudit]:
        """Audit each document in turn (a thesis chapter by chapter). The bibliographies given in
        the options are read first (one that cannot be read stops everything: InputError) and
        parsed once for all the files; a file that cannot be audited gets a row saying why, and
        the others are still audited. `done` hears each file's result as it comes."""
        from citedesk.core.batch import FileAudit  # noqa: PLC0415
        from citedesk.sources.citeworks import read_bibliographies  # noqa: PLC0415

        read_bibliographies(self.options.bibliographies)
        audits = []
        for path in paths:
            try:
                audit = FileAudit(str(path), self.open(path).audit())
            except InputError as exc:  # the document, or a bibliography of its own, cannot be read
                audit = FileAudit(str(path), None, exc.message)
            audits.append(audit)
            if done is not None:
                done(audit)
        return audits

    @staticmethod
    def write_report(path: str | os.PathLike[str], text: str) -> None:
        """Write a report to `path` atomically (OutputError, saying why in words, when it cannot be)."""
        from citedesk.errors import OutputError  # noqa: PLC0415
        from citedesk.files import why_not_written, write_atomic  # noqa: PLC0415

        try:
            write_atomic(path, text)
        except (OSError, UnicodeEncodeError) as exc:
            raise OutputError(f"the report could not be written to {path}: {why_not_written(exc)}") from exc

    @staticmethod
    def samples() -> dict[str, Path]:
        from citedesk.assets import sample_paths  # noqa: PLC0415

        return sample_paths()

    # the store -------------------------------------------------------------------------------------
    @contextmanager
    def store(self) -> Iterator[Store]:
        """The store for one job, closed after it; what it has to say goes to `notice`."""
        from citedesk.pipeline import open_store  # noqa: PLC0415

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
        from citedesk.pipeline import source_options  # noqa: PLC0415
        from citedesk.sources.gather import refresh_source  # noqa: PLC0415

        with self.store() as store:
            source = refresh_source(locator, source_options(self.options), store)
        ok = source.status.value == "fetched"
        return RefreshOutcome(locator, ok, source.status.value, source.message, len(source.passages))

    # the retraction snapshot ---------------------------------------------------------------------------
    def import_retractions(self, path: str | os.PathLike[str]) -> SnapshotImport:
        """Load a Retraction Watch CSV into the store, replacing the previous snapshot, in one
        transaction (an InputError says what is wrong with a bad file; the old snapshot stays)."""
        from citedesk.sources.retractions import import_into  # noqa: PLC0415

        with self.store() as store, store.lookups() as tables:
            summary = import_into(tables, Path(path))
        return SnapshotImport(
            str(path), summary.rows, summary.imported, dict(summary.skipped), summary.newest
        )

    def retraction_status(self) -> SnapshotStatus | None:
        """The snapshot in the store and how old it is; None when none was imported."""
        import time  # noqa: PLC0415

        from citedesk.sources.retractions import snapshot_age_days  # noqa: PLC0415

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

    # Claude assistance: the key ---------------------------------------------------------------------------
    @staticmethod
    def assist_key_available() -> bool:
        from citedesk.assist.keys import api_key  # noqa: PLC0415

        return api_key() is not None

    @staticmethod
    def require_assist_key() -> None:
        """Raise KeyMissing (with how to set one) when there is no Anthropic key."""
        from citedesk.assist.keys import require_key  # noqa: PLC0415

        require_key()

    @staticmethod
    def store_assist_key(key: str) -> None:
        from citedesk.assist.keys import store_key  # noqa: PLC0415

        if not key.strip():
            raise UsageError("no key given (nothing stored)")
        store_key(key)

    @staticmethod
    def how_to_set_assist_key() -> str:
        from citedesk.assist.keys import HOW_TO_SET  # noqa: PLC0415

        return HOW_TO_SET
