"""Hostile PDFs, end to end through `citedesk audit`: a decompression bomb, a PDF that takes
minutes to read and a damaged one each end as that source's "not checked" (or are read), the other
sources are still checked, pypdf's warnings are never printed, and no PDF worker is left running.

Every PDF here is real, built by hand in the test (pypdf reads it, nothing of pypdf is mocked).
"""

from __future__ import annotations

import functools
import io
import json
import logging
import multiprocessing
import os
import subprocess
import sys
import time
import uuid
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citedesk.cli import main
from citedesk.sources import pdfworker
from citedesk.sources.extract import extract, extract_pdf
from tests.conftest import REPO, SAMPLES

GOOD = SAMPLES / "sources" / "heat-islands.txt"
TEXT = b"BT /F1 12 Tf 72 700 Td (Street trees cool the streets around them on summer afternoons.) Tj ET\n"


PAGE = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>"


def _pdf(
    pages: int,
    content: bytes,
    *,
    flate: bool = False,
    deflated: bytes | None = None,
    broken_xref: bool = False,
) -> bytes:
    """A PDF whose `pages` pages all draw one content stream: `content`, deflated when `flate`, or
    `deflated` as it is; with `broken_xref`, every offset in its cross-reference table is wrong
    (pypdf warns, and finds the objects)."""
    if deflated is None:
        deflated = zlib.compress(content, 9) if flate else content
    else:
        flate = True
    kids = " ".join(f"{5 + n} 0 R" for n in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        f"<< /Length {len(deflated)}{' /Filter /FlateDecode' if flate else ''} >>\nstream\n".encode()
        + deflated
        + b"\nendstream",
    ]
    return _build(objects + [PAGE] * pages, broken_xref=broken_xref)


def _build(objects: list[bytes], *, broken_xref: bool = False) -> bytes:
    """A PDF of these objects (1 0 obj is its catalog), with its cross-reference table."""
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, obj in enumerate(objects, start=1):
        offsets.append(out.tell() + (7 if broken_xref else 0))
        out.write(f"{number} 0 obj\n".encode() + obj + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    out.write(b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets))
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


@functools.cache
def _bomb() -> bytes:
    """One page drawing 300 MB of spaces, deflated to about 300 kB."""
    squeeze = zlib.compressobj(9)
    chunk = b" " * (20 * 1024 * 1024)
    deflated = b"".join(squeeze.compress(chunk) for _ in range(15)) + squeeze.flush()
    return _pdf(1, b"", deflated=deflated)


SLOW_PAGES = 500
"""Pages drawing one stream of 2,000 text operators: pypdf needs some 40 ms a page, 20 s in all."""


def _slow() -> bytes:
    ops = b"BT /F1 12 Tf 72 700 Td " + b"(word) Tj 1 0 Td " * 2000 + b"ET\n"
    return _pdf(SLOW_PAGES, ops, flate=True)


def _document(folder: Path, pdf: bytes) -> Path:
    """A draft citing a good text source [1] and the PDF [2], both beside it."""
    (folder / "heat-islands.txt").write_bytes(GOOD.read_bytes())
    (folder / "paper.pdf").write_bytes(pdf)
    doc = folder / "draft.md"
    doc.write_text(
        "# Heat\n\nAn urban heat island is a city area that is significantly warmer than the rural "
        "land around it [1]. Street trees cool the streets around them on summer afternoons [2].\n\n"
        "## References\n\n"
        "1. Regional Climate Office. *Urban heat islands: a fact sheet*. heat-islands.txt\n"
        "2. Okafor, T. (2020). *Street trees and heat*. paper.pdf\n",
        encoding="utf-8",
    )
    return doc


def _audit(doc: Path, capfd: pytest.CaptureFixture[str], *extra: str) -> tuple[dict[str, Any], str]:
    """`citedesk audit DOC --offline --format json` in this process: its report, and what reached
    standard error (the process's and its workers': file descriptor 2)."""
    capfd.readouterr()
    code = main(
        [
            "audit",
            str(doc),
            "--offline",
            "--format",
            "json",
            "--store",
            str(doc.parent / "store.sqlite3"),
            "--judge",
            "heuristic",
            "--no-dense",
            *extra,
        ]
    )
    captured = capfd.readouterr()
    assert code in (0, 1), captured.err  # never 3: an internal error
    report: dict[str, Any] = json.loads(captured.out)
    return report, captured.err


def _sources(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {source["key"]: source for source in report["sources"]}


def _verdicts(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {v["reference"]: v for claim in report["claims"] for v in claim["verdicts"]}


def _assert_good_source_checked(report: dict[str, Any]) -> None:
    assert _sources(report)["1"]["status"] == "local"
    assert _verdicts(report)["1"]["label"] not in ("unchecked", "not_checked")


def _workers() -> list[multiprocessing.process.BaseProcess]:
    return [p for p in multiprocessing.active_children() if p.name == "citedesk-pdf"]


@pytest.fixture(autouse=True)
def _fresh_workers() -> Iterator[None]:
    """Each test starts and ends with no idle PDF worker (one may carry a test's limits)."""
    pdfworker.close_workers()
    yield
    pdfworker.close_workers()


def test_a_decompression_bomb_is_not_checked_and_the_audit_goes_on(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    bomb = _bomb()
    assert len(bomb) < 1_000_000  # 300 MB when inflated
    report, err = _audit(_document(tmp_path, bomb), capfd)
    _assert_good_source_checked(report)
    pdf = _sources(report)["2"]
    assert pdf["status"] == "unreadable"
    assert pdf["message"].startswith("unreadable PDF: ")
    assert "decompression bomb" in pdf["message"]
    assert _verdicts(report)["2"]["label"] == "unchecked"
    assert report["summary"]["unchecked_reasons"] == {"unreadable source": 1}
    finding = next(f for f in report["findings"] if f["kind"] == "unreadable_source")
    assert "unreadable PDF: " in finding["message"]
    assert "Traceback" not in err


def test_a_pdf_that_takes_too_long_is_stopped_at_its_time_limit(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    limit = 1.0
    monkeypatch.setenv(pdfworker.TIME_LIMIT_ENV, str(limit))
    doc = _document(tmp_path, _slow())
    started = time.monotonic()
    report, _ = _audit(doc, capfd)
    elapsed = time.monotonic() - started
    assert elapsed < 10 * limit  # uncut, pypdf reads it for some 20 s
    _assert_good_source_checked(report)
    assert _sources(report)["2"]["message"] == "the PDF took longer than 1 s to read"
    assert _verdicts(report)["2"]["label"] == "unchecked"
    assert _workers() == []  # the worker that ran out of time was killed, and not kept


def test_the_audit_time_budget_bounds_a_pdf_too(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """`--timeout` is the whole audit's budget: a PDF read past what is left of it is stopped (the
    issue: 50,000 pages ran for 100 s under `--timeout 10`)."""
    started = time.monotonic()
    report, _ = _audit(_document(tmp_path, _slow()), capfd, "--timeout", "2")
    assert time.monotonic() - started < 30  # a hang guard (15x the budget; uncut, some 100 s)
    assert _sources(report)["2"]["message"].startswith("the PDF took longer than ")
    assert _sources(report)["1"]["status"] == "local"


def test_a_deadline_bounds_a_pdf_and_its_worker_is_replaced() -> None:
    """With no per-PDF override, the caller's deadline stops the reading, and a worker killed for
    it is replaced for the next PDF."""
    started = time.monotonic()
    read = extract(_slow(), None, "paper.pdf", deadline=time.monotonic() + 1.5)
    assert time.monotonic() - started < 30  # a hang guard (20x the deadline; uncut, some 100 s)
    assert read.problem == "the PDF took longer than 1.5 s to read"
    assert read.text == ""
    assert "Street trees" in extract_pdf(_pdf(2, TEXT)).text
    assert extract_pdf(_pdf(2, TEXT), deadline=time.monotonic() - 1).problem == pdfworker.OUT_OF_TIME


def test_a_pdf_needing_more_memory_than_the_cap_is_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdfworker, "PDF_MEMORY_LIMIT_MIB", 200)
    big = _pdf(1, b" " * (70 * 1024 * 1024), flate=True)  # within pypdf's own 75 MB limit
    assert extract_pdf(big).problem == "the PDF needs more than 200 MiB to read"
    monkeypatch.setattr(pdfworker, "PDF_MEMORY_LIMIT_MIB", 1024)
    pdfworker.close_workers()
    assert extract_pdf(big).problem == "the PDF has no text layer (a scan?)"  # read, under 1 GiB


def test_pypdf_warnings_are_logged_never_printed(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="citedesk.sources.pdfworker")
    broken = _pdf(2, TEXT * 5, broken_xref=True)
    report, err = _audit(_document(tmp_path, broken), capfd)
    assert _sources(report)["2"]["status"] == "local"  # pypdf repaired it
    assert err == ""
    relayed = [r for r in caplog.records if r.name == "citedesk.sources.pdfworker"]
    assert any("wrong pointing object" in r.getMessage() for r in relayed)
    assert all(r.levelno <= logging.INFO for r in relayed)


def _stream(content: bytes) -> bytes:
    return f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream"


def test_every_kind_of_damage_is_an_unreadable_pdf_not_an_exception() -> None:
    good = _pdf(2, TEXT)
    # a /ToUnicode map of 2^32 codes: pypdf raises LimitReachedError, which stopped the audit
    huge_map = _build(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
            _stream(TEXT),
            PAGE,
            _stream(b"begincmap\n1 beginbfrange\n<00> <FFFFFFFF> <0041>\nendbfrange\nendcmap"),
        ]
    )
    assert extract_pdf(huge_map).problem.startswith("unreadable PDF: it goes past a safety limit (")
    for damaged in (good[: len(good) // 2], b"%PDF-1.7\n" + os.urandom(4000), b"%PDF"):
        assert extract_pdf(damaged).problem == "unreadable PDF: it is damaged and could not be read"


@pytest.mark.parametrize(
    ("error", "problem"),
    [
        (RecursionError("maximum recursion depth exceeded"), "unreadable PDF: its objects nest too deeply"),
        (
            ZeroDivisionError("float division by zero"),
            "unreadable PDF: the reader failed on it (ZeroDivisionError: float division by zero)",
        ),
        (AssertionError(), "unreadable PDF: the reader failed on it (AssertionError: AssertionError)"),
    ],
)
def test_what_pypdf_raises_besides_its_own_errors_is_said_in_words(error: Exception, problem: str) -> None:
    assert pdfworker._why_unreadable(error) == problem


def _extract_in_daemon(data: bytes, results: Any) -> None:
    read = extract_pdf(data)
    results.put((multiprocessing.current_process().daemon, read.text, read.problem))


def test_a_daemonic_audit_process_reads_pdfs_in_its_own_worker() -> None:
    """The window audits in a daemonic process (desk.background), which multiprocessing does not
    let start children of its own; the PDF worker starts there all the same, and ends with it."""
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    child = context.Process(target=_extract_in_daemon, args=(_pdf(2, TEXT), results), daemon=True)
    child.start()
    try:
        daemonic, text, problem = results.get(timeout=60)
    finally:
        child.join(30)
        results.close()
        results.join_thread()
    assert daemonic
    assert "Street trees" in text
    assert problem == ""
    assert child.exitcode == 0


def test_the_command_leaves_no_worker_and_prints_nothing_of_pypdf(tmp_path: Path) -> None:
    """`citedesk audit` as a command: pypdf's warnings never reach its standard error, and once it
    has exited, no process it started (a PDF worker) is still running."""
    mark = uuid.uuid4().hex
    doc = _document(tmp_path, _pdf(2, TEXT * 5, broken_xref=True))
    (tmp_path / "bomb.pdf").write_bytes(_bomb())
    text = doc.read_text(encoding="utf-8").replace("[2].", "[2] [3].") + "3. A. Bomber. *Heat*. bomb.pdf\n"
    doc.write_text(text, encoding="utf-8")
    store = ["--store", str(tmp_path / "store.sqlite3"), "--judge", "heuristic", "--no-dense"]
    started = time.monotonic()
    child = subprocess.run(
        [sys.executable, "-m", "citedesk.main", "audit", str(doc), "--offline", "--format", "json", *store],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "CITEDESK_TEST_MARK": mark},
        check=False,
    )
    assert time.monotonic() - started < 60  # it does not wait for an idle worker to go
    assert child.returncode in (0, 1), child.stderr
    assert child.stderr == ""
    sources = _sources(json.loads(child.stdout))
    assert sources["2"]["status"] == "local"
    assert sources["3"]["message"].startswith("unreadable PDF: ")
    assert _marked(mark) == []


def _marked(mark: str) -> list[int]:
    """The processes still running with `mark` in their environment."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if f"CITEDESK_TEST_MARK={mark}".encode() in environ and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def test_a_worker_does_not_outlive_a_killed_command(tmp_path: Path) -> None:
    """`citedesk audit` killed (SIGKILL) while its worker reads a slow PDF: the worker goes too."""
    mark = uuid.uuid4().hex
    doc = _document(tmp_path, _slow())
    child = subprocess.Popen(
        [sys.executable, "-m", "citedesk.main", "audit", str(doc), "--offline", "--no-dense"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "CITEDESK_TEST_MARK": mark, pdfworker.TIME_LIMIT_ENV: "60"},
    )
    try:
        deadline = time.monotonic() + 60
        while len(_marked(mark)) < 2 and time.monotonic() < deadline:  # the command and its worker
            time.sleep(0.1)
        assert len(_marked(mark)) >= 2
    finally:
        child.kill()
        child.wait()
    deadline = time.monotonic() + 10
    while _marked(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _marked(mark) == []


def test_a_damaged_pdf_with_no_text_is_damaged_not_a_scan() -> None:
    """60 bytes zeroed inside the page object: pypdf repairs what it can, finds no text and warns;
    that is a damaged file, not a scan without a text layer (the newcomer's run-through)."""
    good = _pdf(1, TEXT)
    assert extract_pdf(good).problem == ""
    at = good.find(b"/Type /Page ")
    damaged = good[:at] + b"\0" * 60 + good[at + 60 :]
    assert extract_pdf(damaged).problem == "unreadable PDF: it is damaged and could not be read"
    scan = _pdf(1, b"")  # a page that draws nothing, read without a complaint
    assert extract_pdf(scan).problem == "the PDF has no text layer (a scan?)"


def test_the_not_checked_list_says_which_pdf_problem(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    doc = _document(tmp_path, _bomb())
    capfd.readouterr()
    main(
        [
            "audit",
            str(doc),
            "--offline",
            "--no-dense",
            "--judge",
            "heuristic",
            "--store",
            str(tmp_path / "s.db"),
        ]
    )
    out = capfd.readouterr().out
    assert "[2] unreadable source (PDF: it expands past a safe size when decompressed" in out
