"""The offline index mirror: a subset of Crossref's or OpenAlex's works, imported, asked before the network.

Reference truth for a corpus of thousands of documents means hundreds of thousands of look-ups;
Crossref's polite pool answers 10 a second. Both indexes publish their whole catalogue instead:
Crossref's public data file (JSON of `/works` items, the REST API's `message` shape) and the
OpenAlex works snapshot (gzipped JSON lines of works: `id`, `doi`, `display_name`,
`publication_year`, `authorships[].author.display_name`, `is_retracted`, …). A subset of either, as
JSON lines (`.jsonl`, or gzipped), is imported here into the store (`store.works`), and the reference
checks ask it first (`StoredMirror`):

- a DOI the mirror holds is checked against its record — same comparison, same findings as against
  the API (a metadata error, a DOI naming another work) — and the network is not asked;
- a title is searched in it (its folded title or main title, exactly) before Crossref's and
  OpenAlex's searches;
- a DOI or title it does not hold goes to the network as before — offline, it is *not looked up*,
  never "not found": the mirror is a subset.

Reading (`read_works`) streams the file line by line (never the whole file in memory; a line over
`ImportCaps.max_line_bytes` is skipped without being held). A line that is not a JSON object is a bad
line, counted and skipped; a record without a DOI or title is skipped and counted by reason. The
source is told by the records' shape (`DOI` and `title` list: Crossref; `id` at openalex.org:
OpenAlex) unless given. Importing a file replaces that file's rows in one transaction; a damaged
file (a gzip stream cut short, binary data) raises MirrorError and leaves them as they were.
"""

from __future__ import annotations

import gzip
import json
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any, BinaryIO, Protocol, cast

from citedesk.errors import InputError
from citedesk.sources.indexes import AnswerStatus, IndexAnswer
from citedesk.sources.matching import fold, main_title
from citedesk.sources.metadata import Work, parse_crossref_work, parse_openalex_work
from citedesk.store import LookupTables, MirrorFile, MirrorHit, MirrorRow

SOURCES = ("crossref", "openalex")
MIRROR_NAMES = {
    "crossref-mirror": "the local Crossref mirror",
    "openalex-mirror": "the local OpenAlex mirror",
}
"""How a check decided by the mirror names its index (`ReferenceCheck.source`) to the writer."""
BATCH = 2000
PROGRESS_EVERY = 2000
_CHUNK = 1 << 16


class MirrorError(InputError):
    """The file is not a snapshot of works (or is damaged); the message says why, with the line."""


@dataclass(frozen=True)
class ImportCaps:
    """Limits on one import: a line longer than `max_line_bytes` is a bad line (an OpenAlex work with
    thousands of authors runs to a few hundred kB); `max_works` and `max_seconds` stop the import
    early, keeping what was read (the mirror is a subset anyway), and the summary says so."""

    max_line_bytes: int = 8 << 20
    max_works: int | None = None
    max_seconds: float | None = None


@dataclass
class ImportSummary:
    """What an import of one file read: lines, records kept, skipped (by reason), bad lines."""

    path: str
    source: str = ""
    lines: int = 0
    rows: int = 0
    kept: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    bad_lines: int = 0
    stopped: str = ""
    """Why the import stopped before the end of the file (a cap), or empty."""
    seconds: float = 0.0


def detect_source(record: dict[str, Any]) -> str | None:
    """`crossref` for a Crossref work (`DOI`, a `title` list), `openalex` for an OpenAlex work (`id`
    at openalex.org, or `authorships`), None for anything else."""
    if isinstance(record.get("DOI"), str) and isinstance(record.get("title", []), list):
        return "crossref"
    ident = record.get("id")
    if (isinstance(ident, str) and "openalex.org/" in ident) or "authorships" in record:
        return "openalex"
    return None


def _records(value: object) -> list[object]:
    """The works one line holds: a work, an API answer (`{"message": work}`), or a page of them
    (`{"items": [...]}`, `{"results": [...]}`: the data file's and the API's lists)."""
    if isinstance(value, dict):
        message = value.get("message")
        if isinstance(message, dict):
            return _records(message)
        for name in ("items", "results"):
            if isinstance(value.get(name), list) and "DOI" not in value and "id" not in value:
                return list(value[name])
    return [value]


def work_row(record: dict[str, Any], source: str) -> MirrorRow | str:
    """The row to store for one record, or why it is skipped."""
    work = parse_crossref_work(record) if source == "crossref" else parse_openalex_work(record)
    if work.doi is None:
        return "no DOI"
    if not work.title:
        return "no title"
    retracted = work.is_retracted
    if source == "crossref" and any(n.kind.withdraws for n in work.notices):
        retracted = True
    return MirrorRow(
        doi=work.doi,
        source=source,
        title=work.title,
        title_key=fold(work.title),
        main_key=fold(main_title(work.title)),
        authors=tuple(a.display for a in work.authors),
        year=work.year,
        container=work.container,
        kind=work.kind,
        is_retracted=retracted,
        work=work.to_json(),
    )


def _open(path: Path) -> tuple[IO[bytes], BinaryIO]:
    """(the lines' stream, the file under it: its position is the progress). Gzip is told by its
    magic number, not the name."""
    raw = path.open("rb")
    head = raw.read(2)
    raw.seek(0)
    if head == b"\x1f\x8b":
        return cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb")), raw
    return raw, raw


def _lines(stream: IO[bytes], caps: ImportCaps, summary: ImportSummary) -> Iterator[bytes | None]:
    """Each line's bytes, or None for a line over the cap (read past in chunks, never held)."""
    while True:
        line = stream.readline(caps.max_line_bytes + 1)
        if not line:
            return
        if len(line) > caps.max_line_bytes and not line.endswith(b"\n"):
            while (rest := stream.readline(_CHUNK)) and not rest.endswith(b"\n"):
                pass
            yield None
            continue
        yield line


def read_works(
    path: str | Path,
    *,
    source: str | None = None,
    caps: ImportCaps = ImportCaps(),
    summary: ImportSummary | None = None,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> Iterator[MirrorRow]:
    """Stream the rows of a JSON-lines file of works; bad lines and skipped records are counted in
    `summary`. Raises MirrorError for a file that cannot be read, is binary, or is damaged."""
    path = Path(path)
    summary = summary if summary is not None else ImportSummary(str(path))
    started = time.monotonic()
    try:
        total = path.stat().st_size
        stream, raw = _open(path)
    except OSError as exc:
        raise MirrorError(f"{path} cannot be read: {exc.strerror or exc}") from exc
    try:
        with stream, raw:
            for line in _lines(stream, caps, summary):
                summary.lines += 1
                if summary.lines % PROGRESS_EVERY == 0:
                    progress(raw.tell(), total)
                    if caps.max_seconds is not None and time.monotonic() - started > caps.max_seconds:
                        summary.stopped = f"stopped after {caps.max_seconds:g} s (--max-seconds)"
                        return
                if line is not None and b"\x00" in line:
                    raise MirrorError(
                        f"{path}, line {summary.lines}: binary data — not JSON lines, or damaged"
                    )
                for row in _rows(line, source, summary):
                    yield row
                    if caps.max_works is not None and summary.kept >= caps.max_works:
                        summary.stopped = f"stopped at {caps.max_works:,} works (--max-works)"
                        return
            progress(total, total)
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise MirrorError(f"{path}, line {summary.lines + 1}: the gzip stream is damaged ({exc})") from exc
    except OSError as exc:
        raise MirrorError(f"{path}, line {summary.lines + 1}: {exc.strerror or exc}") from exc
    finally:
        summary.seconds = time.monotonic() - started


def _rows(line: bytes | None, source: str | None, summary: ImportSummary) -> Iterator[MirrorRow]:
    if line is None:
        summary.bad_lines += 1
        return
    if not line.strip():
        summary.lines -= 1  # blank lines are not lines of the file's data
        return
    try:
        records = _records(json.loads(line))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        summary.bad_lines += 1
        return
    for record in records:
        if not isinstance(record, dict):
            summary.bad_lines += 1
            continue
        summary.rows += 1
        kind = detect_source(record)
        wanted = source or summary.source or kind
        if kind is None or kind != wanted:
            summary.skipped["not a work" if kind is None else f"an {kind} record, not {wanted}"] += 1
            continue
        row = work_row(record, kind)
        if isinstance(row, str):
            summary.skipped[row] += 1
            continue
        summary.source = kind
        summary.kept += 1
        yield row


def import_file(
    tables: LookupTables,
    path: str | Path,
    *,
    source: str | None = None,
    caps: ImportCaps = ImportCaps(),
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> ImportSummary:
    """Replace the mirror's rows from the file at `path` (by its resolved path) in one transaction;
    a file with no usable work, or damaged halfway, raises MirrorError and leaves them as they were."""
    if source is not None and source not in SOURCES:
        raise MirrorError(f"unknown source {source!r}: crossref or openalex")
    shown = str(Path(path).resolve())
    summary = ImportSummary(str(path), source or "")
    with tables.importing_works(shown) as job:
        pending: list[MirrorRow] = []
        for row in read_works(path, source=source, caps=caps, summary=summary, progress=progress):
            pending.append(row)
            if len(pending) >= BATCH:
                job.add(pending)
                pending = []
        if pending:
            job.add(pending)
        if summary.kept == 0:
            raise MirrorError(
                f"{path} has no usable work (read {summary.lines:,} lines: {summary.rows:,} records, "
                f"{summary.bad_lines:,} bad lines); the mirror was left as it was"
            )
        job.source, job.rows, job.skipped = summary.source, summary.rows, sum(summary.skipped.values())
        job.bad_lines = summary.bad_lines
    return summary


# the mirror the reference checks ask ------------------------------------------------------------
class WorkMirror(Protocol):
    """What the reference checks ask of a mirror (`StoredMirror` over the store)."""

    def work(self, doi: str) -> IndexAnswer | None:
        """The mirror's record of the DOI (normalised), or None when it does not hold it."""
        ...

    def search(self, title: str) -> IndexAnswer:
        """Works whose title is this one (FOUND), or none (MISSING)."""
        ...

    def describe(self) -> str:
        """`the local Crossref mirror (imported 2026-11-26)`."""
        ...


def _day(at: float) -> str:
    return datetime.fromtimestamp(at).strftime("%Y-%m-%d")


def describe_files(files: list[MirrorFile]) -> str:
    """The mirror as a writer should know it: whose snapshots, and when the latest was imported."""
    if not files:
        return "no local index mirror"
    sources = sorted({f.source for f in files if f.source}, key=SOURCES.index)
    names = " and ".join("Crossref" if s == "crossref" else "OpenAlex" for s in sources) or "index"
    return f"the local {names} mirror (imported {_day(max(f.imported_at for f in files))})"


class StoredMirror:
    """The `WorkMirror` over the works imported into the store."""

    def __init__(self, tables: LookupTables, files: list[MirrorFile]) -> None:
        self.tables = tables
        self.files = files

    @classmethod
    def of(cls, tables: LookupTables) -> StoredMirror | None:
        """The store's mirror, or None when no snapshot of works was ever imported."""
        files = tables.mirror_files()
        return cls(tables, files) if files else None

    def describe(self) -> str:
        return describe_files(self.files)

    def work(self, doi: str) -> IndexAnswer | None:
        hits = self.tables.mirror_works(doi)
        return _answer(hits) if hits else None

    def search(self, title: str) -> IndexAnswer:
        hits = self.tables.mirror_titles(fold(title), fold(main_title(title)))
        if not hits:
            return IndexAnswer(
                "crossref-mirror" if self._has("crossref") else "openalex-mirror", AnswerStatus.MISSING
            )
        return _answer(hits)

    def _has(self, source: str) -> bool:
        return any(f.source == source for f in self.files)


def _answer(hits: list[MirrorHit]) -> IndexAnswer:
    """FOUND, its works in the mirror's order (Crossref's first), named after the first one's source."""
    works = tuple(Work.from_json(h.work) for h in hits)
    first = hits[0]
    return IndexAnswer(f"{first.source}-mirror", AnswerStatus.FOUND, works, first.imported_at)
