"""Network outcomes named truthfully, through a real audit (issue 32, items 7 and 9).

Only a page that is gone is a `dead_link`: 404/410, a soft 404, or a host name that does not exist
while other hosts answer. A server error, a refusal, a timeout, a connection reset or a connection
that could not be opened say nothing about whether the page exists: each is its own "not checked"
reason, with its figure (`server error (HTTP 500)`, `timed out after 1 s`), in the text report, the
JSON report and the window's Sources tab. "Offline" only when no host answered anything at all.
Claude's endpoint answering a gateway's HTML error page is said once, in one short line.

Every server is a real one on 127.0.0.1 that stops by itself.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import socket
import struct
import time
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import pytest

from citedesk.cli import main
from citedesk.core.reports.json_format import render_json
from citedesk.core.reports.text_format import render_text
from citedesk.engine import stages
from citedesk.engine.sourcing import source_options
from citedesk.pipeline import AuditOptions, audit_text
from citedesk.sources.resolved import SourceOptions
from tests.conftest import SAMPLES
from tests.helpers.server import ARTICLE, running

READ_TIMEOUT = 1.0
"""The fetches' read timeout in these tests; the deadline per source stays 60 s."""
STALL_S = 4.0
"""How long the stalling route holds its connection before giving up by itself."""


class _Outcomes(BaseHTTPRequestHandler):
    hits: ClassVar[dict[str, int]] = {}

    def log_message(self, *args: object) -> None:
        pass

    def handle(self) -> None:
        with contextlib.suppress(OSError):  # the client gave up, or we hung up on it: the point
            super().handle()

    def _head(self, code: int, length: int, content_type: str = "text/html; charset=utf-8") -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(length))
        self.end_headers()

    def _send(self, code: int, body: bytes) -> None:
        self._head(code, len(body))
        self.wfile.write(body)

    def do_GET(self) -> None:
        hits = self.hits[self.path] = self.hits.get(self.path, 0) + 1
        if self.path == "/article" or (self.path == "/flaky" and hits == 1):
            self._send(200, ARTICLE.encode())
        elif self.path in ("/boom", "/flaky"):
            self._send(500, b"<html><body><h1>Internal Server Error</h1></body></html>")
        elif self.path == "/forbidden":
            self._send(403, b"<html><body><h1>Forbidden</h1></body></html>")
        elif self.path == "/missing":
            self._send(404, b"<html><body><h1>Not found</h1></body></html>")
        elif self.path == "/gone":
            self._send(410, b"<html><body><h1>Gone</h1></body></html>")
        elif self.path == "/stall":  # headers and a little of the page, then nothing
            self._head(200, 100_000)
            self.wfile.write(b"<html><body><p>Shaded streets were cooler")
            self.wfile.flush()
            time.sleep(STALL_S)
        elif self.path == "/cut":  # says 100 KB, sends a little, hangs up
            self._head(200, 100_000)
            self.wfile.write(b"<html><body><p>Shaded streets were cooler")
            self.wfile.flush()
            time.sleep(0.2)
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif self.path == "/reset":  # the same, with a TCP reset (RST) instead of a clean close
            self._head(200, 100_000)
            self.wfile.write(b"<html><body><p>Shaded streets were cooler")
            self.wfile.flush()
            time.sleep(0.2)
            self.close_connection = True
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        else:
            self._send(404, b"no route")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    _Outcomes.hits = {}
    with running(_Outcomes) as base:
        yield base


@pytest.fixture(autouse=True)
def _short_read_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 1 s read timeout for every fetch of the audit; the 60 s deadline per source stays, so a
    message that names the wrong limit shows."""
    real = source_options  # as the sources stage calls it

    def short(options: AuditOptions, *args: Any, **kwargs: Any) -> SourceOptions:
        made = real(options, *args, **kwargs)
        assert made.fetch.deadline == 60.0
        return replace(made, fetch=replace(made.fetch, read_timeout=READ_TIMEOUT))

    monkeypatch.setattr(stages, "source_options", short)


def _closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (a connection to it is refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _doc(folder: Path, *links: str) -> Path:
    claims = " ".join(f"Claim {n} is about shaded streets [{n}]." for n in range(1, len(links) + 1))
    entries = "\n".join(f"{n}. Source {n}. {link}" for n, link in enumerate(links, start=1))
    doc = folder / "doc.md"
    doc.write_text(f"{claims}\n\n## References\n\n{entries}\n", encoding="utf-8")
    return doc


def _audit(
    doc: Path, capsys: pytest.CaptureFixture[str], *extra: str, shared_store: bool = False
) -> tuple[str, dict[str, Any]]:
    """(the text report, the JSON report) of one audit each: on one store when `shared_store`, else
    each on its own (so the second fetches what the first did, rather than reusing its copies)."""
    args = ["audit", str(doc), "--judge", "none", "--no-dense", "--allow-private-network", *extra]
    capsys.readouterr()
    reports: list[str] = []
    for form in ("text", "json"):
        store = doc.parent / ("s.sqlite3" if shared_store else f"s-{form}.sqlite3")
        code = main([*args, "--store", str(store), "--format", form])
        captured = capsys.readouterr()
        assert code in (0, 1), captured.err
        assert "Traceback" not in captured.err
        reports.append(captured.out)
    return reports[0], json.loads(reports[1])


def _sources(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["key"]: s for s in report["sources"]}


def _findings(report: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {f["reference"]: f for f in report["findings"] if f["kind"] == kind}


def _reasons(report: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    """Reference → (reason, detail) of its unchecked verdict, as the JSON gives them."""
    found = {}
    for claim in report["claims"]:
        for verdict in claim["verdicts"]:
            if verdict["label"] == "unchecked":
                evidence = verdict["evidence"]
                found[verdict["reference"]] = (evidence["reason"], evidence.get("detail"))
    return found


def _not_checked_lines(text: str) -> dict[str, str]:
    """Reference → its reason in the text report's "Not checked" list (`[1] server error (HTTP 500)
    — cited on line 1`)."""
    section = text.split("Not checked (", 1)[1]
    return dict(re.findall(r"^  \[(\d+)\] (.+?) — cited on", section, re.MULTILINE))


# --- 1. HTTP 500: a server error, not a dead link, not offline ----------------------------------------


def test_a_server_error_is_not_checked_for_that_reason_never_dead_nor_offline(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, report = _audit(_doc(tmp_path, f"{server}/boom", f"{server}/forbidden"), capsys)
    assert not _findings(report, "dead_link")
    assert report["summary"]["offline"] is False  # a 500 is an answer: the machine is online
    assert "offline" not in text
    sources = _sources(report)
    assert (sources["1"]["status"], sources["1"]["detail"]) == ("server_error", "HTTP 500")
    assert (sources["2"]["status"], sources["2"]["detail"]) == ("refused", "HTTP 403")
    assert _reasons(report) == {"1": ("server error", "HTTP 500"), "2": ("refused by the server", "HTTP 403")}
    assert report["summary"]["unchecked_reasons"] == {"refused by the server": 1, "server error": 1}
    assert _not_checked_lines(text) == {
        "1": "server error (HTTP 500)",
        "2": "refused by the server (HTTP 403)",
    }
    unchecked = _findings(report, "unchecked_source")
    assert unchecked["1"]["severity"] == "info"
    assert unchecked["1"]["message"].startswith("The source of [1] was not checked: server error (HTTP 500).")
    assert "says nothing about whether the page exists" in unchecked["1"]["message"]
    assert "<html" not in text


def test_a_server_error_keeps_the_last_good_copy_and_says_so(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _doc(tmp_path, f"{server}/flaky")
    _text, first = _audit(doc, capsys, shared_store=True)  # the first hit is the page, the rest fail
    assert _sources(first)["1"]["status"] in ("fetched", "cached")
    text, again = _audit(doc, capsys, "--refresh", shared_store=True)
    source = _sources(again)["1"]
    assert (source["status"], source["detail"], source["cached"]) == ("server_error", "HTTP 500", True)
    assert source["passages"] > 0  # the saved copy is what the citation is checked against
    finding = _findings(again, "unchecked_source")["1"]
    assert finding["message"].startswith(
        "The source of [1] could not be fetched again: server error (HTTP 500)."
    )
    assert "CiteDesk is using the copy it saved on " in finding["message"]
    assert not _findings(again, "dead_link")
    assert _not_checked_lines(text) == {"1": "not judged"}  # its text is the saved copy's (no judge here)


# --- 2. a server that stalls after its headers: the read timeout, with its own number ------------------


def test_a_stall_after_the_headers_names_the_read_timeout_that_fired(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    text, report = _audit(_doc(tmp_path, f"{server}/stall", f"{server}/article"), capsys)
    assert time.monotonic() - started < 2 * STALL_S + 6  # two audits, each ended by the 1 s limit
    source = _sources(report)["1"]
    assert source["status"] == "timed_out"
    assert source["detail"] == "after 1 s"
    assert source["message"] == "timed out after 1 s: the server sent nothing more of the page (read timeout)"
    assert "60" not in source["message"]
    assert _reasons(report)["1"] == ("timed out", "after 1 s")
    assert _not_checked_lines(text)["1"] == "timed out after 1 s"
    assert not _findings(report, "dead_link")
    assert report["summary"]["offline"] is False  # it answered (HTTP 200) before it stalled
    assert _sources(report)["2"]["status"] in ("fetched", "cached")


# --- 3. a connection reset in the middle of the page ---------------------------------------------------


def test_a_connection_cut_or_reset_mid_page_is_its_own_reason(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, report = _audit(_doc(tmp_path, f"{server}/cut", f"{server}/reset", f"{server}/article"), capsys)
    sources = _sources(report)
    for key in ("1", "2"):
        assert sources[key]["status"] == "reset", sources[key]
        assert sources[key]["message"].startswith("connection reset: the server closed the connection")
        assert _reasons(report)[key] == ("connection reset", None)
        assert _not_checked_lines(text)[key] == "connection reset"
    assert report["summary"]["unchecked_reasons"] == {"connection reset": 2, "not judged": 1}
    assert not _findings(report, "dead_link")
    assert set(_findings(report, "unchecked_source")) == {"1", "2"}


# --- 4. gone is still dead ------------------------------------------------------------------------------


def test_404_and_410_are_still_dead_links(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, report = _audit(_doc(tmp_path, f"{server}/missing", f"{server}/gone"), capsys)
    assert set(_findings(report, "dead_link")) == {"1", "2"}
    sources = _sources(report)
    assert [(sources[k]["status"], sources[k]["detail"]) for k in ("1", "2")] == [
        ("dead", "HTTP 404"),
        ("dead", "HTTP 410"),
    ]
    assert _not_checked_lines(text) == {"1": "source gone (HTTP 404)", "2": "source gone (HTTP 410)"}
    assert report["summary"]["offline"] is False


# --- 5. offline only when nothing answers; one host down among others is not gone ----------------------


def test_with_no_host_answering_everything_is_offline_and_nothing_dead(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    refused = f"http://127.0.0.1:{_closed_port()}/study"
    text, report = _audit(_doc(tmp_path, "http://canopy.invalid/report", refused), capsys)
    assert not _findings(report, "dead_link")
    assert not _findings(report, "unchecked_source")  # said once for the report, not per source
    assert {s["status"] for s in report["sources"]} == {"offline"}
    assert report["summary"]["offline"] is True
    assert report["summary"]["unchecked_reasons"] == {"offline": 2}
    assert text.count("this machine seems to be offline") == 1


def test_one_host_down_while_others_answer(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a host name that does not exist, while others answer: gone (a dead link); a host that exists
    # but refuses the connection: not gone, only unreachable now (not checked, no dead link)
    refused = f"http://127.0.0.1:{_closed_port()}/study"
    text, report = _audit(
        _doc(tmp_path, "http://canopy.invalid/report", refused, f"{server}/article"), capsys
    )
    assert report["summary"]["offline"] is False
    sources = _sources(report)
    assert (sources["1"]["status"], sources["1"]["detail"]) == ("dead", "host not found")
    assert sources["2"]["status"] == "unreachable"
    assert sources["2"]["message"].startswith("could not connect")
    assert sources["3"]["status"] in ("fetched", "cached")
    assert set(_findings(report, "dead_link")) == {"1"}
    assert set(_findings(report, "unchecked_source")) == {"2"}
    assert _not_checked_lines(text) == {
        "1": "source gone (host not found)",
        "2": "source unreachable",
        "3": "not judged",  # its text was had (no judge in these audits)
    }


# --- the window's Sources tab says the same ---------------------------------------------------------------


@pytest.mark.gui
def test_the_sources_tab_shows_each_outcome_with_its_figure(server: str, tmp_path: Path, qtbot: Any) -> None:
    from citedesk.gui.panels.sources_panel import SourcesPanel

    links = [f"{server}/{route}" for route in ("boom", "stall", "reset", "missing", "forbidden")]
    document = _doc(tmp_path, *links)
    options = AuditOptions(
        judge="none", dense=False, allow_private_network=True, store_path=tmp_path / "s.db"
    )
    report = audit_text(document.read_text(encoding="utf-8"), str(document), options)
    panel = SourcesPanel()
    qtbot.addWidget(panel)
    panel.set_sources(report.sources)  # what the window shows: the report's own summaries
    assert {key: row[0] for key, row in panel.rows().items()} == {
        "1": "server error (HTTP 500)",
        "2": "timed out after 1 s",
        "3": "connection reset",
        "4": "dead link (HTTP 404)",
        "5": "refused by the server (HTTP 403)",
    }


# --- 6. Claude's endpoint behind a failing gateway ---------------------------------------------------------

GATEWAY_PAGE = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1>"
    "</center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n" + "<!-- padding -->\r\n" * 6
).encode()


class _Gateway(BaseHTTPRequestHandler):
    """A proxy in front of the Messages API whose upstream is down: a 502 HTML page for every request."""

    requests: ClassVar[int] = 0

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        type(self).requests += 1
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(502)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(GATEWAY_PAGE)))
        self.end_headers()
        self.wfile.write(GATEWAY_PAGE)


def test_an_html_error_page_from_claude_is_said_once_in_one_short_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    shutil.copy(SAMPLES / "evidence.md", tmp_path / "evidence.md")
    document = tmp_path / "evidence.md"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret")
    options = AuditOptions(
        offline=True, judge="claude", assist="claude", dense=False, store_path=tmp_path / "s.sqlite3"
    )
    _Gateway.requests = 0
    with running(_Gateway) as base:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", base)
        report = audit_text(document.read_text(encoding="utf-8"), str(document), options)
    text, raw = render_text(report), render_json(report)
    said = "Claude answered HTTP 502 (Bad Gateway): an HTML error page, not the API's answer"
    for out in (text, raw):
        assert out.count(said) == 1, out
        assert "<html" not in out
        assert "nginx" not in out
        assert "sk-ant-test-secret" not in out
    assert report.assist is not None
    rejected = [r for r in report.assist.rejected if "HTTP 502" in r]
    assert len(rejected) == 1, report.assist.rejected
    assert len(rejected[0]) < 300
    assert "\n" not in rejected[0]
    assert "no further requests were sent in this audit" in rejected[0]
    # the first request (and the SDK's retries of it) met the outage; nothing was sent after it
    assert 1 <= _Gateway.requests <= 4
    # the pairs Claude could not judge were judged locally, under the local judge's name
    judges = {v.judge for verdicts in report.verdicts.values() for v in verdicts if v.judge}
    assert judges
    assert not any(judge.startswith("claude") for judge in judges)
