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
import shutil
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from platformdirs import user_data_dir

from citedesk.assets import sample_paths, sample_projects, sample_word_documents
from citedesk.assist import keys
from citedesk.desk.mirror_records import IndexImport, IndexStatus
from citedesk.desk.records import (
    CachedSource,
    CachedSourceDetail,
    RefreshOutcome,
    SnapshotImport,
    SnapshotStatus,
)
from citedesk.desk.session import DocumentSession
from citedesk.errors import OutputError, UsageError
from citedesk.files import why_not_written, write_atomic
from citedesk.pipeline import AuditOptions

if TYPE_CHECKING:
    from citedesk.core.reports.multi_file import FileAudit
    from citedesk.desk.jobs import Jobs
    from citedesk.store import Store

__all__ = [
    "CachedSource",
    "CachedSourceDetail",
    "Desk",
    "RefreshOutcome",
    "SnapshotImport",
    "SnapshotStatus",
    "warm_up",
]


def warm_up() -> None:
    """Import what the first document job needs (the store: sqlite-utils pulls in numpy, about half
    a second; the bibliography readers, which `@` completion reads) so that a window can do it on a
    thread while it shows, not on its GUI thread. Deferring is the point of this function."""
    import citedesk.sources.citeworks  # noqa: PLC0415
    import citedesk.store  # noqa: F401, PLC0415 - with its schema: the first store opened migrates


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
        return self.jobs().audit_files(paths, lambda path: self.open(path).audit(), done=done)

    @staticmethod
    def write_report(path: str | os.PathLike[str], text: str) -> None:
        """Write a report to `path` atomically (OutputError, saying why in words, when it cannot be)."""
        try:
            write_atomic(path, text)
        except (OSError, UnicodeEncodeError) as exc:
            raise OutputError(f"the report could not be written to {path}: {why_not_written(exc)}") from exc

    @staticmethod
    def samples() -> dict[str, Path]:
        return sample_paths()

    @staticmethod
    def folder_samples() -> dict[str, Path]:
        """The samples that are a folder (a LaTeX thesis, a Word paper with its sources): by name,
        each its main file. Opened as a copy of the whole folder (`copy_sample`)."""
        return {**sample_projects(), **sample_word_documents()}

    @staticmethod
    def copy_sample(main: Path, into: Path | None = None) -> Path:
        """A fresh copy of the folder of the sample whose main file is `main`, made under `into`
        (by default CiteDesk's data folder, `samples/`), and the copy's main file: the writer edits
        and fixes the copy, never the installed sample (whose folder may not even be writable).
        OutputError when it cannot be made."""
        root = into if into is not None else Path(user_data_dir("citedesk", appauthor=False)) / "samples"
        target = root / main.parent.name
        number = 1
        while target.exists():
            number += 1
            target = root / f"{main.parent.name}-{number}"
        try:
            shutil.copytree(main.parent, target, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
        except OSError as exc:
            raise OutputError(f"the sample could not be copied to {target}: {why_not_written(exc)}") from exc
        return target / main.name

    # the store, the source cache, the retraction snapshot: `desk.jobs` ------------------------------
    def jobs(self) -> Jobs:
        """The jobs that need the store or the sources, with this desk's options and notices."""
        from citedesk.desk.jobs import Jobs  # noqa: PLC0415 - the seam: sqlite-utils, httpx, YAML

        return Jobs(self.options, self.notice)

    def store(self) -> AbstractContextManager[Store]:
        """The store for one job, closed after it; what it has to say goes to `notice`."""
        return self.jobs().store()

    def cached_sources(self) -> list[CachedSource]:
        return self.jobs().cached_sources()

    def cached_source(self, locator: str) -> CachedSourceDetail:
        return self.jobs().cached_source(locator)

    def forget_source(self, locator: str) -> bool:
        return self.jobs().forget_source(locator)

    def refresh_source(self, locator: str) -> RefreshOutcome:
        """Fetch one cached source again, through the audit's path (a failure keeps the copy)."""
        return self.jobs().refresh_source(locator)

    def import_retractions(self, path: str | os.PathLike[str]) -> SnapshotImport:
        """Load a Retraction Watch CSV into the store, replacing the previous snapshot, in one
        transaction (an InputError says what is wrong with a bad file; the old snapshot stays)."""
        return self.jobs().import_retractions(path)

    def retraction_status(self) -> SnapshotStatus | None:
        """The snapshot in the store and how old it is; None when none was imported."""
        return self.jobs().retraction_status()

    def import_index(
        self,
        path: str | os.PathLike[str],
        *,
        source: str | None = None,
        max_works: int | None = None,
        max_seconds: float | None = None,
        progress: Callable[[int, int], None] = lambda done, total: None,
    ) -> IndexImport:
        """Load a JSON-lines file of Crossref or OpenAlex works into the index mirror, replacing that
        file's earlier rows in one transaction (`desk.jobs`)."""
        return self.jobs().import_index(
            path, source=source, max_works=max_works, max_seconds=max_seconds, progress=progress
        )

    def index_status(self) -> IndexStatus:
        """The index mirror's files and works."""
        return self.jobs().index_status()

    # Claude assistance: the key ---------------------------------------------------------------------------
    @staticmethod
    def assist_key_available() -> bool:
        return keys.api_key() is not None

    @staticmethod
    def require_assist_key() -> None:
        """Raise KeyMissing (with how to set one) when there is no Anthropic key."""
        keys.require_key()

    @staticmethod
    def store_assist_key(key: str) -> None:
        if not key.strip():
            raise UsageError("no key given (nothing stored)")
        keys.store_key(key)

    @staticmethod
    def how_to_set_assist_key() -> str:
        return keys.HOW_TO_SET
