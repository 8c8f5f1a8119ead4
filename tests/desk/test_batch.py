"""`citedesk batch` (issue 31): a generated corpus of Markdown documents sharing their sources,
served by a real local HTTP server that counts its requests, audited in worker processes.

What matters to a research-integrity desk: every document's findings are exactly those of auditing
it alone; each source the corpus shares is fetched once, not once per document; a document that
cannot be read is a row with its error while the others finish; a re-run after one edit audits
that document only; and the table (CSV, Parquet) and the overview are there and readable.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import ClassVar

import pytest

from citedesk.cli import main
from citedesk.desk import AuditOptions, Desk
from citedesk.desk.corpus_files import MANIFEST
from citedesk.desk.corpus_ray import ray_installed
from citedesk.desk.corpus_run import run_corpus
from citedesk.errors import UsageError
from citedesk.pipeline import audit_text
from tests.helpers.server import running

TOPICS = [
    ("Tree canopy cools cities", "Neighbourhoods with more than 30% tree canopy were 1.5 degrees cooler."),
    ("Parks and afternoon heat", "Large parks lowered afternoon air temperature by 0.9 degrees nearby."),
    ("Street tree survival", "About one in five newly planted street trees dies within five years."),
    ("Green roofs and runoff", "Green roofs retained 60% of the rain that fell on them in summer."),
    ("Urban rivers and heat", "Air above urban rivers was 2 degrees cooler than streets a block away."),
    ("Cool pavements", "Reflective pavement coatings cut surface temperature by 10 degrees at noon."),
]
DOCUMENTS = 12


class _Sources(BaseHTTPRequestHandler):
    """One article per topic at /src/N; every request counted by path."""

    hits: ClassVar[dict[str, int]] = {}

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.hits[self.path] = self.hits.get(self.path, 0) + 1
        number = self.path.rsplit("/", 1)[-1]
        if not self.path.startswith("/src/") or not number.isdigit() or int(number) >= len(TOPICS):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        title, finding = TOPICS[int(number)]
        body = (
            f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
            f"<p>{finding} The survey covered 112 mid-sized cities over three summers.</p>"
            "<p>The effect was strongest in hot, dry cities and weakest in humid coastal ones.</p>"
            "</article></body></html>"
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def sources() -> Iterator[str]:
    _Sources.hits = {}
    with running(_Sources) as base:
        yield base


def document(i: int, base: str) -> str:
    """Document i: two claims, each citing one of the shared sources (a third sentence uncited)."""
    a, b = i % len(TOPICS), (i + 1) % len(TOPICS)
    return (
        f"# Notes on city heat, part {i}\n\n"
        f"{TOPICS[a][1]} [1] In study {i}, {TOPICS[b][1].lower()} [2]\n\n"
        f"Most cities in the sample of {100 + i} will warm by 3 degrees before 2050.\n\n"
        "## References\n\n"
        f"1. Moreau L. (2021). {TOPICS[a][0]}. {base}/src/{a}\n"
        f"2. Lindqvist K. (2019). {TOPICS[b][0]}. {base}/src/{b}\n"
    )


def corpus(folder: Path, base: str) -> Path:
    root = folder / "corpus"
    for i in range(DOCUMENTS):
        path = root / ("part-a" if i % 2 else "part-b") / f"doc{i:02}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(document(i, base), encoding="utf-8")
    (root / "part-a" / "broken.md").write_bytes(bytes(range(256)) * 8)  # binary: not a document
    (root / "part-a" / "notes.json").write_text("{}", encoding="utf-8")  # not a supported document
    return root


def options(folder: Path) -> AuditOptions:
    return AuditOptions(
        judge="heuristic",
        dense=False,
        allow_private_network=True,
        store_path=folder / "store.sqlite3",
        doi_base="http://doi.invalid",
        crossref_base="http://crossref.invalid",
        openalex_base="http://openalex.invalid",
    )


def _findings(report: dict[str, object]) -> list[tuple[object, ...]]:
    found = report["findings"]
    assert isinstance(found, list)
    return [(f["kind"], tuple(f["span"]), f["reference"], f["severity"]) for f in found]


def test_a_corpus_audited_in_workers_is_each_document_audited_alone(tmp_path: Path, sources: str) -> None:
    root = corpus(tmp_path, sources)
    out = tmp_path / "out"
    result = run_corpus(Desk(options(tmp_path)), [root], out, workers=2)

    names = [o.document for o in result.outcomes]
    assert names == sorted(names)
    assert len(names) == DOCUMENTS + 1
    # each source the corpus shares is fetched once, not once per document citing it
    assert result.distinct_sources == len(TOPICS)
    assert {path: n for path, n in _Sources.hits.items() if path.startswith("/src/")} == {
        f"/src/{n}": 1 for n in range(len(TOPICS))
    }
    # the corrupt document is a row with its error; every other one has its report
    (broken,) = [o for o in result.outcomes if o.error is not None]
    assert broken.document == "part-a/broken.md"
    assert "binary" in (broken.error or "")
    for i in range(DOCUMENTS):
        name = f"{'part-a' if i % 2 else 'part-b'}/doc{i:02}.md"
        report = json.loads((out / "reports" / f"{name}.json").read_text(encoding="utf-8"))
        path = root / name
        alone = audit_text(path.read_text(encoding="utf-8"), str(path), options(tmp_path))
        assert _findings(report) == [
            (f.kind.value, (f.start, f.end), f.reference, f.severity.value) for f in alone.findings
        ]
        assert report["document"] == str(path)  # as `citedesk audit PATH --format json` names it
    # the table: one row per finding and per citation not checked, and one for the broken document
    with (out / "corpus.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    findings = sum(len(o.findings) for o in result.outcomes)
    unchecked = sum(1 for o in result.outcomes for r in o.rows if r.kind == "not_checked")
    assert len(rows) == findings + unchecked + 1
    assert any(r["kind"] == "uncited" and r["document"] == "part-b/doc00.md" for r in rows)
    assert findings >= DOCUMENTS
    assert sum(o.checked for o in result.outcomes) == 2 * DOCUMENTS
    assert {r["judge"] for r in rows if r["confidence"]} == {"heuristic:words"}  # judged, with its score
    assert [r["error"] for r in rows if r["document"] == "part-a/broken.md"] == [broken.error]
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(out / "corpus.parquet")
    assert table.num_rows == len(rows)
    assert table.column("document").to_pylist() == [r["document"] for r in rows]
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "<svg" in page
    assert "<script" not in page
    assert 'href="reports/part-b/doc00.md.json"' in page
    assert "part-a/broken.md" in page


def test_a_re_run_audits_only_what_changed(
    tmp_path: Path, sources: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = corpus(tmp_path, sources)
    (root / "part-a" / "broken.md").unlink()
    out = tmp_path / "out"
    desk = Desk(options(tmp_path))
    first = run_corpus(desk, [root], out, workers=1)
    assert (first.audited, first.skipped) == (DOCUMENTS, 0)
    kept = (out / "reports" / "part-b" / "doc02.md.json").stat().st_mtime_ns
    edited = root / "part-a" / "doc03.md"
    text = edited.read_text(encoding="utf-8").replace(
        "## References", "All cities are hotter now.\n\n## References"
    )
    edited.write_text(text, encoding="utf-8")

    again = run_corpus(desk, [root], out, workers=1)

    assert (again.audited, again.skipped) == (1, DOCUMENTS - 1)
    assert (out / "reports" / "part-b" / "doc02.md.json").stat().st_mtime_ns == kept
    report = json.loads((out / "reports" / "part-a" / "doc03.md.json").read_text(encoding="utf-8"))
    assert any("All cities are hotter now." in c["text"] for c in report["claims"])
    # the table still holds every document, those left alone too, as the first run wrote them
    assert [o.rows for o in again.outcomes if o.document != "part-a/doc03.md"] == [
        o.rows for o in first.outcomes if o.document != "part-a/doc03.md"
    ]
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    assert sorted(manifest["documents"]) == [o.document for o in again.outcomes]

    assert run_corpus(desk, [root], out, workers=1, force=True).audited == DOCUMENTS

    # the command (its settings are its own: a new folder); run again, nothing is audited; exit 1
    flags = ["--store", str(tmp_path / "store.sqlite3"), "--judge", "heuristic", "--no-dense"]
    flags += ["--allow-private-network", "--workers", "1"]
    assert main(["batch", str(root), "--out", str(tmp_path / "cli"), *flags]) == 1
    assert f"{DOCUMENTS} audited" in capsys.readouterr().err
    assert main(["batch", str(root), "--out", str(tmp_path / "cli"), *flags]) == 1
    assert "0 audited" in capsys.readouterr().err


def test_an_interrupted_corpus_resumes_where_it_stopped(tmp_path: Path, sources: str) -> None:
    root = corpus(tmp_path, sources)
    (root / "part-a" / "broken.md").unlink()
    out = tmp_path / "out"
    desk = Desk(options(tmp_path))

    def interrupt(label: str, done: int, total: int, note: str) -> None:
        if label == "documents audited" and done == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_corpus(desk, [root], out, workers=1, progress=interrupt)
    resumed = run_corpus(desk, [root], out, workers=1)

    assert (resumed.audited, resumed.skipped) == (DOCUMENTS - 5, 5)
    assert all(o.error is None for o in resumed.outcomes)


def test_a_word_document_in_the_corpus_is_audited_as_the_desk_opens_it(tmp_path: Path) -> None:
    """A `.docx` in the folder is a document of the corpus (its view, its citation fields' items as
    its bibliography), its report what the desk's own audit of it says."""
    word = Path(__file__).parents[2] / "resources" / "samples" / "word"
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "paper.docx").write_bytes((word / "paper.docx").read_bytes())
    audited = replace(options(tmp_path), offline=True, sources_dir=word / "sources")
    result = run_corpus(Desk(audited), [folder], tmp_path / "out", workers=1)
    (outcome,) = result.outcomes
    assert outcome.document == "paper.docx"
    assert outcome.error is None
    report = json.loads((tmp_path / "out" / "reports" / "paper.docx.json").read_text(encoding="utf-8"))
    alone = Desk(audited).open(folder / "paper.docx").audit()
    assert alone.findings
    assert _findings(report) == [
        (f.kind.value, (f.start, f.end), f.reference, f.severity.value) for f in alone.findings
    ]


def test_a_sources_folder_below_the_corpus_is_not_audited(tmp_path: Path) -> None:
    """`sources/` holds the cited works' texts (one per key), not documents: a walk leaves it out,
    unless it is the folder given."""
    folder = tmp_path / "corpus"
    (folder / "chapter" / "sources").mkdir(parents=True)
    (folder / "chapter" / "one.md").write_text(
        "Trees cool streets [1].\n\n## References\n\n1. Moreau. 2021.\n"
    )
    (folder / "chapter" / "sources" / "moreau2021.txt").write_text("Trees cool streets by 2 degrees.\n")
    result = run_corpus(Desk(options(tmp_path)), [folder], tmp_path / "out", workers=1)
    assert [o.document for o in result.outcomes] == ["chapter/one.md"]
    alone = run_corpus(
        Desk(options(tmp_path)), [folder / "chapter" / "sources"], tmp_path / "out2", workers=1
    )
    assert [o.document for o in alone.outcomes] == ["moreau2021.txt"]


@pytest.mark.skipif(ray_installed(), reason="checks the message given where Ray is absent")
def test_the_ray_engine_without_ray_says_so_and_writes_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "one.md").write_text("Trees cool streets.\n")
    with pytest.raises(UsageError, match="needs Ray"):
        run_corpus(Desk(options(tmp_path)), [folder], tmp_path / "out", engine="ray")
    assert not (tmp_path / "out").exists()
