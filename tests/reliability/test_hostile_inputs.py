"""Hostile input, end to end: each case ends with a clear message, nothing is lost, nothing hangs.

Documents go through `citedesk audit` (in process); sources come from a real HTTP server on
127.0.0.1 that misbehaves on purpose. The window's side — a hostile document or source never
blocks the editor — is in tests/gui/test_window.py (audits run in a child process).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import pytest

from citedesk.cli import main
from citedesk.core.findings import Kind
from citedesk.core.reading import parse_document
from citedesk.core.repair import apply_checked
from tests.helpers.server import running

NESTED_DIVS = 200_000
BOMB_BYTES = 200 * 1024 * 1024  # what the gzip bomb expands to


class _Hostile(BaseHTTPRequestHandler):
    bomb: ClassVar[bytes] = b""
    """Made once, before the server starts: compressing 200 MB on each request took longer than
    the 3 s the audit gives a source on a loaded machine, and the bomb then read as a timeout."""

    def log_message(self, *args: object) -> None:
        pass

    def _head(self, code: int, content_type: str, **headers: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()

    def handle(self) -> None:
        with contextlib.suppress(OSError):  # the client gave up on us: the point of most routes
            super().handle()

    def do_GET(self) -> None:
        self._route()

    def _route(self) -> None:
        if self.path == "/bomb":  # a small gzip body that expands to 200 MB
            body = self.bomb
            self._head(200, "text/html", Content_Encoding="gzip", Content_Length=str(len(body)))
            self.wfile.write(body)
        elif self.path == "/nested":  # 200,000 nested elements
            body = (
                b"<html><body>"
                + b"<div>" * NESTED_DIVS
                + b"deep"
                + b"</div>" * NESTED_DIVS
                + b"</body></html>"
            )
            self._head(200, "text/html", Content_Length=str(len(body)))
            self.wfile.write(body)
        elif self.path in ("/loop-a", "/loop-b"):
            self._head(302, "text/html", Location="/loop-b" if self.path == "/loop-a" else "/loop-a")
        elif self.path == "/loris-headers":  # trickles its headers forever, a byte at a time
            self.wfile.write(b"HTTP/1.1 200 OK\r\n")
            for _ in range(600):
                self.wfile.write(b"X")
                self.wfile.flush()
                time.sleep(0.1)
        elif self.path == "/loris-body":  # headers at once, then a body that never ends
            self._head(200, "text/html", Content_Length="10000000")
            for _ in range(600):
                self.wfile.write(b"<p>a</p>")
                self.wfile.flush()
                time.sleep(0.1)
        elif self.path == "/fake.pdf":  # says PDF, is not one
            body = b"<html><body>Access denied</body></html>"
            self._head(200, "application/pdf", Content_Length=str(len(body)))
            self.wfile.write(body)
        elif self.path == "/garbage.pdf":
            body = b"%PDF-1.7\n" + bytes(range(256)) * 200
            self._head(200, "application/pdf", Content_Length=str(len(body)))
            self.wfile.write(body)
        else:
            self._head(404, "text/plain", Content_Length="0")


@pytest.fixture(scope="module")
def hostile() -> Iterator[str]:
    _Hostile.bomb = gzip.compress(b"<p>" + b"a" * BOMB_BYTES + b"</p>", compresslevel=9)
    with running(_Hostile) as base:
        yield base


def _audit_json(doc: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    code = main(
        [
            "audit",
            str(doc),
            "--format",
            "json",
            "--store",
            str(tmp_path / "store.sqlite3"),
            "--no-dense",
            *extra,
        ]
    )
    assert code in (0, 1)
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


# --- documents --------------------------------------------------------------------------------------


def _refused(doc: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["audit", str(doc), "--no-sources"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "Traceback" not in captured.err
    return captured.err


def test_a_huge_file_is_refused_with_its_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "huge.md"
    with doc.open("wb") as handle:
        handle.truncate(65 * 1024 * 1024)  # sparse: 65 MB without writing it
    before = doc.stat().st_size
    err = _refused(doc, capsys)
    assert "68.2 MB" in err
    assert "up to 67 MB" in err
    assert doc.stat().st_size == before  # untouched


def test_binary_and_undecodable_files_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    binary = tmp_path / "photo.md"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 40)
    assert "binary file" in _refused(binary, capsys)
    # a UTF-16 mark on bytes that are not UTF-16
    marked = tmp_path / "marked.md"
    marked.write_bytes(b"\xff\xfe" + b"\x00\xd8")
    assert "not utf-16" in _refused(marked, capsys)


def test_invalid_utf8_is_read_in_its_real_encoding_or_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "latin.md"
    doc.write_bytes(
        "Café prices rose 12% in Zürich [1].\n\n## References\n\n1. Prix du café. 1.txt\n".encode("cp1252")
    )
    (tmp_path / "1.txt").write_text("Café prices rose 12% in Zürich in 2024.", encoding="utf-8")
    report = _audit_json(doc, tmp_path, capsys, "--offline", "--judge", "heuristic")
    assert report["claims"][0]["text"] == "Café prices rose 12% in Zürich."  # decoded, not mojibake
    assert report["references"][0]["title"] == "Prix du café"
    assert not [f for f in report["findings"] if f["kind"] in ("fabricated", "misattributed")]
    # broken UTF-8 mixed into otherwise UTF-8 text: read, never a traceback
    mixed = tmp_path / "mixed.md"
    mixed.write_bytes("Ünïcödé text [1].\n".encode() + b"\xc3\x28 \xa0\xa1 more text.\n")
    capsys.readouterr()
    assert main(["audit", str(mixed), "--no-sources"]) in (0, 1, 2)
    assert "Traceback" not in capsys.readouterr().err


def test_ten_thousand_markers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sentences = [f"Claim number {i} is stated here [{i % 50 + 1}][{i % 7 + 60}]." for i in range(5000)]
    refs = "\n".join(f"{n}. Reference {n}. https://example.org/{n}" for n in range(1, 51))
    text = " ".join(sentences) + "\n\n## References\n\n" + refs + "\n"
    document = parse_document(text, None)
    assert len(document.markers) == 10_000
    doc = tmp_path / "markers.md"
    doc.write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["audit", str(doc), "--no-sources", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    fabricated = [f for f in report["findings"] if f["kind"] == Kind.FABRICATED.value]
    assert len(fabricated) == 5000  # [60]…[66] do not exist; [1]…[50] do
    # and the fix for them all is still exact: the prose is untouched
    document = parse_document(text, None)
    findings = [f for f in _findings(document) if f.kind is Kind.FABRICATED]
    fixed = apply_checked(text, [edit for f in findings for edit in f.fixes[0].edits], like=document)
    assert fixed.count("[") == text.count("[") - 5000
    assert fixed.replace("[", "").count("Claim number") == 5000


def _findings(document: Any) -> list[Any]:
    from citedesk.core.checks import structural_findings

    return structural_findings(document)


@pytest.mark.parametrize(
    "body",
    [
        ">" * 20_000 + " a quoted claim [1].",
        "".join("  " * depth + "- item\n" for depth in range(3_000)) + "A claim [1].",
        "[" * 50_000 + "1" + "]" * 50_000,
        "*" * 100_000 + "emphasis" + "_" * 100_000,
        "```\n" * 10_001 + "A claim [1].",
        "<div>" * 20_000 + "A claim [1]." + "</div>" * 20_000,
        "[^1]: " * 20_000,
    ],
    ids=["quotes", "lists", "brackets", "emphasis", "fences", "html", "footnotes"],
)
def test_deeply_nested_or_degenerate_markdown(
    body: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "nested.md"
    doc.write_text(body + "\n\n## References\n\n1. A source. https://example.org/a\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["audit", str(doc), "--no-sources", "--format", "json"]) in (0, 1)
    report = json.loads(capsys.readouterr().out)
    text = doc.read_text(encoding="utf-8")
    for finding in report["findings"]:  # offsets stay inside the document
        start, end = finding["span"]
        assert 0 <= start <= end <= len(text)


# --- sources ----------------------------------------------------------------------------------------


def test_hostile_sources_end_with_a_message_each(
    hostile: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    routes = ["bomb", "nested", "loop-a", "loris-headers", "loris-body", "fake.pdf", "garbage.pdf"]
    (tmp_path / "fake-local.pdf").write_bytes(b"PK\x03\x04 this is a zip, not a PDF" * 10)
    refs = [f"{n}. Source {n}. {hostile}/{route}" for n, route in enumerate(routes, start=1)]
    refs.append(f"{len(routes) + 1}. A local file that says it is a PDF. fake-local.pdf")
    claims = " ".join(f"Claim {n} is a fact about cities [{n}]." for n in range(1, len(refs) + 1))
    doc = tmp_path / "hostile.md"
    doc.write_text(f"{claims}\n\n## References\n\n" + "\n".join(refs) + "\n", encoding="utf-8")
    started = time.monotonic()
    report = _audit_json(
        doc, tmp_path, capsys, "--allow-private-network", "--timeout", "3", "--judge", "heuristic"
    )
    elapsed = time.monotonic() - started
    sources = {s["key"]: s for s in report["sources"]}
    assert set(sources) == {str(n) for n in range(1, len(refs) + 1)}
    for source in sources.values():
        # --timeout 3 is the whole audit's budget too: a source the budget cut is "not checked"
        assert source["status"] in ("dead", "unreadable", "fetched", "not_checked", "timed_out"), source
        if source["status"] != "fetched":
            assert source["message"], source
    message = {int(k): s["message"].lower() for k, s in sources.items()}
    assert "size limit" in message[1] or "over the limit" in message[1]  # the bomb is cut off
    assert "redirect loop" in message[3]
    assert "too long" in message[4] or "time budget" in message[4]  # slow-loris headers: ended
    assert "too long" in message[5] or "time budget" in message[5]  # slow-loris body: ended
    assert message[6] == "it is not a pdf (it is a web page, perhaps a login or an error page)"
    assert message[7] == "unreadable pdf: it is damaged and could not be read"
    assert message[8] == "it is not a pdf (it is a zip archive or an office document)"
    # two slow-loris servers with a 3 s limit, fetched side by side: nowhere near their 60 s
    assert elapsed < 30
