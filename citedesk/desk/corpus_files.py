"""A corpus audit's files (`citedesk batch`, issue 31): which documents, what was done before, and
what is written.

- **Which documents**: every supported document under the paths given, recursively, in one stable
  order (by the name it has in the output: its path relative to the folder the paths share), hidden
  files and folders, `sources/` folders (cited works' texts) and the output folder left out; Word documents (`.docx`) as the desk opens them.
  A link found in a folder that leads outside the folders given, a link that cannot be followed,
  and what is not a regular file (a named pipe, a device, a socket named `*.md`) are not read:
  each is `LeftOut`, with why, and the run says so (nothing is opened that could block).
- **The manifest** (`DIR/manifest.json`): per document, the hash of its bytes and of the settings it
  was audited with (`settings_hash`: every audit option that can change a report, CiteDesk's
  version and the contents of the bibliographies given). A re-run audits only the documents whose
  hashes differ, so a corpus interrupted or grown is finished, not redone.
- **The outputs**: `reports/NAME.json` (the worker writes it), `corpus.csv`, `corpus.parquet`
  (pyarrow, the `corpus` extra: written only when it is installed) and `index.html`.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any
from urllib.parse import quote

from citedesk import __version__
from citedesk.core.formats import matches
from citedesk.core.reports import report_format
from citedesk.core.reports.corpus_html import render_overview
from citedesk.core.reports.corpus_table import COLUMNS, CorpusRow, DocumentOutcome, columns, to_csv
from citedesk.engine.state import AuditOptions
from citedesk.errors import OutputError, UsageError
from citedesk.files import hash_regular_file, not_a_file, why_not_written, write_atomic

MANIFEST = "manifest.json"
REPORT_FORMAT = "json"
"""The format of each document's report (`core.reports`): what `outcome_of` reads back."""
MANIFEST_VERSION = 1
JOURNAL = "manifest.journal"
REPORTS = "reports"
UNHASHED_OPTIONS = frozenset({"refresh", "refresh_keys", "provisions"})
"""Options that change how a run fetches, not what a report says."""


@dataclass(frozen=True)
class CorpusDocument:
    path: Path
    """As found under the paths given (relative paths stay relative: reports name it so)."""
    name: str
    """Its name in the outputs: the path relative to the folder the paths given share, with `/`."""


@dataclass(frozen=True)
class LeftOut:
    """A file under the paths given that is not read as a document, and why."""

    path: Path
    why: str


def report_path(out: Path, name: str) -> Path:
    """Where a document's report goes, in `REPORT_FORMAT`."""
    return out / REPORTS / f"{name}{report_format(REPORT_FORMAT).suffix}"


def discover(
    paths: Sequence[str | os.PathLike[str]], out: Path
) -> tuple[list[CorpusDocument], list[LeftOut]]:
    """The documents under `paths` in a stable order, and the files left out (see the module's
    docstring). A path that does not exist is a UsageError."""
    roots = [Path(p) for p in paths]
    for root in roots:
        if not root.exists():
            raise UsageError(f"no such file or folder: {root}")
    base = Path(os.path.commonpath([str(r.resolve() if r.is_dir() else r.resolve().parent) for r in roots]))
    skip = out.resolve()
    found: dict[str, CorpusDocument] = {}
    left_out: dict[Path, LeftOut] = {}
    for root in roots:
        for path in _walk(root) if root.is_dir() else [root]:
            if not matches(path):  # every document format (`core.formats.batch_suffixes`)
                continue
            try:
                resolved = path.resolve()
            except (OSError, RuntimeError):  # a loop of links (RuntimeError before Python 3.13)
                left_out.setdefault(path, LeftOut(path, "a link that cannot be followed"))
                continue
            if resolved.is_relative_to(skip):
                continue
            if not resolved.is_relative_to(base):
                left_out.setdefault(path, LeftOut(path, f"a link to a file outside the corpus ({resolved})"))
                continue
            kind = not_a_file(path)
            if kind is not None:
                left_out.setdefault(path, LeftOut(path, f"{kind}, not a file"))
                continue
            name = resolved.relative_to(base).as_posix()
            found.setdefault(name, CorpusDocument(path, name))
    return [found[name] for name in sorted(found)], sorted(left_out.values(), key=lambda o: str(o.path))


SOURCE_FOLDER = "sources"
"""A folder of this name below a path given holds cited works' texts (the convention of `--sources`
and of the samples: one file per citation key), not documents: a walk leaves it out. Given itself
(`citedesk batch corpus/sources`), it is walked like any folder."""


def _walk(root: Path) -> Iterable[Path]:
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != SOURCE_FOLDER)
        for name in sorted(files):
            if not name.startswith("."):
                yield Path(folder) / name


def content_hash(path: Path) -> str:
    """The SHA-256 of a regular file's bytes (a named pipe is refused, never opened to wait)."""
    return hash_regular_file(path)


def settings_hash(options: AuditOptions) -> str:
    """What the reports depend on besides the documents: the options (but how to fetch), CiteDesk's
    version, and the bibliographies' contents (an edited .bib re-audits the corpus)."""
    chosen = {f.name: getattr(options, f.name) for f in fields(options) if f.name not in UNHASHED_OPTIONS}
    described = json.dumps({"version": __version__, **chosen}, sort_keys=True, default=str)
    digest = hashlib.sha256(described.encode())
    for bibliography in options.bibliographies:
        try:
            digest.update(content_hash(Path(bibliography)).encode())
        except OSError:
            digest.update(b"unreadable")
    return digest.hexdigest()


@dataclass(frozen=True)
class Entry:
    """One document in the manifest."""

    content: str
    settings: str
    error: str | None = None
    retry: bool = False
    """Audit it again even when unchanged: its error was not the document's (a worker died)."""


def read_manifest(out: Path) -> dict[str, Entry]:
    """The manifest's entries, with the journal's laid over them (none when there is no readable
    manifest: every document is new)."""
    entries: dict[str, Entry] = {}
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        if data.get("version") == MANIFEST_VERSION:
            entries = {name: Entry(**entry) for name, entry in data["documents"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        entries = {}
    try:
        lines = (out / JOURNAL).read_text(encoding="utf-8").splitlines()
    except (OSError, ValueError):
        return entries
    for line in lines:  # a line cut short by a kill is not a record: that document is audited again
        try:
            record = json.loads(line)
            name = str(record.pop("name"))
            entries[name] = Entry(**record)
        except (ValueError, TypeError, KeyError, AttributeError):
            continue
    return entries


def write_manifest(out: Path, entries: dict[str, Entry]) -> None:
    """The whole manifest, moved into place; the journal it now holds is removed."""
    data = {
        "version": MANIFEST_VERSION,
        "documents": {name: asdict(entries[name]) for name in sorted(entries)},
    }
    _write(out / MANIFEST, json.dumps(data, indent=1) + "\n")
    try:
        (out / JOURNAL).unlink(missing_ok=True)
    except OSError as exc:
        raise OutputError(f"{out / JOURNAL} could not be removed: {why_not_written(exc)}") from exc


class Journal:
    """`DIR/manifest.journal`: one line per document as soon as its report is written (one
    `write` of a whole line, appended: a `kill -9` loses at most the line being written), so that a
    resumed run redoes only the documents that were in flight."""

    def __init__(self, out: Path) -> None:
        try:
            out.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(out / JOURNAL, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            raise OutputError(f"{out / JOURNAL} could not be written: {why_not_written(exc)}") from exc
        self.path = out / JOURNAL

    def record(self, name: str, entry: Entry) -> None:
        line = json.dumps({"name": name, **asdict(entry)}, ensure_ascii=False) + "\n"
        try:
            os.write(self._fd, line.encode("utf-8"))
        except OSError as exc:
            raise OutputError(f"{self.path} could not be written: {why_not_written(exc)}") from exc

    def close(self) -> None:
        os.close(self._fd)


def unchanged(entry: Entry | None, content: str, settings: str, out: Path, name: str) -> bool:
    """Whether a document need not be audited again: same bytes, same settings, and its report (or
    its error, when the document itself was at fault) kept."""
    if entry is None or entry.retry or entry.content != content or entry.settings != settings:
        return False
    return entry.error is not None or report_path(out, name).is_file()


def write_text(path: Path, text: str) -> None:
    """Write `path` atomically, its folders made (OutputError, in words, when it cannot be)."""
    _write(path, text)


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)
    except (OSError, UnicodeEncodeError) as exc:
        raise OutputError(f"{path} could not be written: {why_not_written(exc)}") from exc


def parquet_available() -> bool:
    return importlib.util.find_spec("pyarrow") is not None


def write_parquet(path: Path, rows: Sequence[CorpusRow]) -> bool:
    """`corpus.parquet`, typed columns, written beside and moved into place; False (nothing
    written) when pyarrow is not installed."""
    if not parquet_available():
        return False
    pa: Any = importlib.import_module("pyarrow")
    pq: Any = importlib.import_module("pyarrow.parquet")
    types = {"line": pa.int64(), "confidence": pa.float64()}
    schema = pa.schema([(name, types.get(name, pa.string())) for name in COLUMNS])
    table = pa.table(columns(rows), schema=schema)
    partial = path.with_name(path.name + ".partial")
    try:
        pq.write_table(table, partial)
        os.replace(partial, path)
    except OSError as exc:
        raise OutputError(f"{path} could not be written: {why_not_written(exc)}") from exc
    return True


def write_outputs(out: Path, outcomes: Sequence[DocumentOutcome]) -> bool:
    """The corpus table (CSV, and Parquet when pyarrow is there: whether it was) and the overview."""
    rows = [row for outcome in outcomes for row in outcome.rows]
    _write(out / "corpus.csv", to_csv(rows))
    parquet = write_parquet(out / "corpus.parquet", rows)
    links = {
        o.document: quote(report_path(out, o.document).relative_to(out).as_posix())
        for o in outcomes
        if o.error is None and report_path(out, o.document).is_file()
    }
    _write(out / "index.html", render_overview(outcomes, links, title=f"Corpus audit: {out.name}"))
    return parquet
