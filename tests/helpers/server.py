"""A real HTTP server on 127.0.0.1 for fetch tests: articles, PDFs, errors, redirects, slow bodies."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

ARTICLE = """<!doctype html><html><head><title>Tree canopy cools cities</title>
<meta name="author" content="L. Moreau"><meta name="date" content="2021-06-01"></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li><a href="/about">About</a></li></ul></nav>
<div class="cookie-banner">We use cookies to improve your experience. Accept all cookies?</div>
<article><h1>Tree canopy cools cities</h1>
<p>Neighbourhoods with more than 30% tree canopy were on average 1.5 degrees cooler in the afternoon than
neighbourhoods with less than 10% canopy, according to a survey of 112 mid-sized cities.</p>
<p>The cooling effect was strongest in cities with hot, dry summers, where the difference reached 2.4 degrees,
and weakest in humid coastal cities. Shade alone explained about two thirds of the measured difference.</p>
<p>Young street trees need regular watering during their first three summers, and about one in five newly
planted trees dies within five years, most often from drought.</p>
</article><footer>Copyright 2021 Example News. All rights reserved. Privacy policy. Terms of use.</footer>
</body></html>"""

SOFT_404 = "<html><head><title>Page not found</title></head><body><h1>Sorry, this page does not exist.</h1></body></html>"


def make_pdf(lines: list[str]) -> bytes:
    """A minimal, valid one-page PDF with a text layer (Helvetica), built by hand."""
    stream = "BT /F1 12 Tf 72 720 Td 14 TL " + " ".join(f"({ln}) '" for ln in lines) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


PDF = make_pdf(
    [
        "Street tree survival after planting.",
        "About 20% of newly planted trees died within five years of planting.",
        "Drought was the most common cause of death, followed by vandalism.",
        "Young trees need regular watering during their first three summers after planting.",
        "Trees watered weekly during dry spells were half as likely to die as other trees.",
    ]
)


def csl(title: str, family: str, year: int) -> bytes:
    return json.dumps(
        {
            "type": "article-journal",
            "title": title,
            "author": [{"family": family, "given": "A."}],
            "issued": {"date-parts": [[year, 3]]},
            "URL": "",
            "abstract": "<jats:p>"
            + ("Coffee drinkers had a lower risk of type 2 diabetes in 28 cohorts. " * 5)
            + "</jats:p>",
        }
    ).encode()


class _Handler(BaseHTTPRequestHandler):
    hits: ClassVar[dict[str, int]] = {}

    def log_message(self, *args: object) -> None:  # keep test output clean
        pass

    def _send(
        self, code: int, body: bytes, content_type: str = "text/html; charset=utf-8", **headers: str
    ) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]  # a query tells requests apart; the route is the path
        self.hits[path] = self.hits.get(path, 0) + 1
        if path == "/article":
            self._send(200, ARTICLE.encode())
        elif path == "/paper.pdf":
            self._send(200, PDF, "application/pdf")
        elif path == "/missing":
            self._send(404, b"<h1>Not found</h1>")
        elif path == "/boom":
            self._send(500, b"oops")
        elif path == "/soft":
            self._send(200, SOFT_404.encode())
        elif path == "/paywall":
            self._send(
                200, b"<html><head><title>Subscribe</title></head><body><p>Log in to read.</p></body></html>"
            )
        elif path.startswith("/r") and path[2:].isdigit():
            n = int(path[2:])
            self.send_response(302)
            self.send_header("Location", "/article" if n >= 3 else f"/r{n + 1}")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path in ("/loop1", "/loop2"):
            self.send_response(301)
            self.send_header("Location", "/loop2" if path == "/loop1" else "/loop1")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/slow":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            for _ in range(20):
                try:
                    self.wfile.write(b"<p>x</p>")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.3)
        elif path == "/huge":
            self._send(200, b"a" * (3 * 1024 * 1024))
        elif path == "/image":
            self._send(200, b"\x89PNG....", "image/png")
        elif path == "/busy":
            if self.hits[path] == 1:
                self._send(503, b"busy", Retry_After="0")
            else:
                self._send(200, ARTICLE.encode())
        elif path == "/doi/10.1234/good":
            self._send(
                200,
                csl(
                    "Caffeinated and decaffeinated coffee consumption and risk of type 2 diabetes",
                    "Ding",
                    2014,
                ),
                "application/vnd.citationstyles.csl+json",
            )
        elif path == "/doi/10.1234/other":
            self._send(
                200,
                csl("Deep residual learning for image recognition", "He", 2016),
                "application/vnd.citationstyles.csl+json",
            )
        elif path == "/doi/10.1234/cn-broken":  # a registrar that fails content negotiation
            self._send(500, b"content negotiation is down", "text/plain")
        elif path == "/crossref/works/10.1234/cn-broken":
            work = json.loads(csl("Urban tree canopy and afternoon heat", "Moreau", 2021))
            work["title"] = [work["title"]]
            self._send(200, json.dumps({"status": "ok", "message": work}).encode(), "application/json")
        elif path == "/octet.pdf":  # a PDF host that sends PDFs as a download
            self._send(200, PDF, "application/octet-stream")
        elif path.startswith("/doi/"):
            self._send(404, b"DOI not found", "text/plain")
        elif path.startswith("/crossref/"):
            self._send(404, b"Resource not found.", "text/plain")
        elif path.startswith("/abs/"):
            self._send(404 if "9999" in path else 200, ARTICLE.encode())
        else:
            self._send(404, b"no route")


@contextmanager
def serve() -> Iterator[str]:
    _Handler.hits = {}
    with running(_Handler) as base:
        yield base


@contextmanager
def running(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 (any free port) in a thread; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
