from __future__ import annotations

import contextlib
import gzip
import ipaddress
import re
import socket
import ssl
import threading
import time
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import pytest

from citedesk.sources.extract import extract
from citedesk.sources.fetch import (
    PDF_ACCEPT,
    Fetcher,
    FetchPolicy,
    FetchStatus,
)
from citedesk.sources.guard import InvalidLink, is_private, parse_link
from citedesk.sources.identifiers import expects_pdf
from tests.helpers.server import ARTICLE, running, serve


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serve() as url:
        yield url


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    policy = FetchPolicy(allow_private_network=True, read_timeout=1.0, deadline=4.0, max_bytes=1024 * 1024)
    with Fetcher(policy) as f:
        yield f


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/article", FetchStatus.OK),
        ("/paper.pdf", FetchStatus.OK),
        ("/missing", FetchStatus.NOT_FOUND),
        ("/boom", FetchStatus.SERVER_ERROR),
        ("/r1", FetchStatus.OK),
        ("/loop1", FetchStatus.TOO_MANY_REDIRECTS),
        ("/huge", FetchStatus.TOO_LARGE),
        ("/image", FetchStatus.UNSUPPORTED_TYPE),
        ("/slow", FetchStatus.TIMEOUT),
    ],
)
def test_typed_outcomes(base: str, fetcher: Fetcher, path: str, status: FetchStatus) -> None:
    result = fetcher.fetch(base + path)
    assert result.status is status, result.message
    if status is not FetchStatus.OK:
        assert result.message


def test_redirect_chain_is_followed_and_recorded(base: str, fetcher: Fetcher) -> None:
    result = fetcher.fetch(base + "/r1")
    assert result.final_url == base + "/article"
    assert result.redirects == [base + "/r2", base + "/r3", base + "/article"]


def test_too_many_redirects() -> None:
    with serve() as url, Fetcher(FetchPolicy(allow_private_network=True, max_redirects=2)) as f:
        assert f.fetch(url + "/r1").status is FetchStatus.TOO_MANY_REDIRECTS


def test_retry_after_on_503(base: str, fetcher: Fetcher) -> None:
    result = fetcher.fetch(base + "/busy")
    assert result.ok


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)"])
def test_only_http_is_fetched(url: str) -> None:
    with Fetcher(FetchPolicy(allow_private_network=True)) as f:
        result = f.fetch(url)
    assert result.status is FetchStatus.BLOCKED
    assert "http" in result.message


def test_private_network_is_refused_unless_allowed(base: str) -> None:
    with Fetcher() as f:
        result = f.fetch(base + "/article")
    assert result.status is FetchStatus.BLOCKED
    assert "private or local network" in result.message


def test_html_extraction_drops_boilerplate(base: str, fetcher: Fetcher) -> None:
    result = fetcher.fetch(base + "/article")
    page = extract(result.body, result.content_type)
    assert "1.5 degrees cooler" in page.text
    assert "cookies" not in page.text
    assert "All rights reserved" not in page.text
    assert page.title == "Tree canopy cools cities"
    assert not page.soft_404


def test_soft_404_and_pdf(base: str, fetcher: Fetcher) -> None:
    soft = fetcher.fetch(base + "/soft")
    assert soft.ok
    assert extract(soft.body, soft.content_type).soft_404
    pdf = fetcher.fetch(base + "/paper.pdf")
    doc = extract(pdf.body, pdf.content_type)
    assert doc.kind == "pdf"
    assert "About 20% of newly planted trees died" in doc.text
    assert doc.pages == [(0, 1)]


def test_fetch_many_is_bounded_and_complete(base: str, fetcher: Fetcher) -> None:
    urls = [base + p for p in ("/article", "/missing", "/paper.pdf", "/article")]
    results = fetcher.fetch_many(urls)
    assert set(results) == set(urls)
    assert results[base + "/missing"].status is FetchStatus.NOT_FOUND


def test_pdf_hosts_are_read_as_pdf_even_as_a_download(base: str, fetcher: Fetcher) -> None:
    plain = fetcher.fetch(base + "/octet.pdf")
    assert plain.status is FetchStatus.UNSUPPORTED_TYPE  # unknown binary is never read blindly
    asked = fetcher.fetch(base + "/octet.pdf", accept=PDF_ACCEPT)
    assert asked.ok
    extracted = extract(asked.body, asked.content_type, "octet.pdf")
    assert extracted.kind == "pdf"
    assert "newly planted trees" in extracted.text


@pytest.mark.parametrize(
    ("url", "pdf"),
    [
        ("https://arxiv.org/pdf/2101.00001", True),
        ("https://arxiv.org/abs/2101.00001", False),
        ("https://openreview.net/pdf?id=abc", True),
        ("https://www.biorxiv.org/content/10.1101/2020.01.01.123456v1.full.pdf", True),
        ("https://example.org/report.PDF", True),
        ("https://example.org/pdf-guide.html", False),
        ("https://link.springer.com/content/pdf/10.1007/s1.pdf", True),
        ("https://link.springer.com/article/10.1007/s1", False),
    ],
)
def test_known_pdf_links(url: str, pdf: bool) -> None:
    assert expects_pdf(url) is pdf


# --- the network guard: checked before any byte is sent ---------------------------------------------


class _Counting(BaseHTTPRequestHandler):
    """Counts connections (not only requests): a refused fetch must not even connect."""

    connections: ClassVar[int] = 0
    requests: ClassVar[int] = 0
    hosts: ClassVar[list[str]] = []

    def log_message(self, *args: object) -> None:
        pass

    def setup(self) -> None:
        type(self).connections += 1
        super().setup()

    def do_GET(self) -> None:
        type(self).requests += 1
        type(self).hosts.append(self.headers["Host"])
        body = ARTICLE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def counting() -> Iterator[str]:
    _Counting.connections = _Counting.requests = 0
    _Counting.hosts = []
    with running(_Counting) as base:
        yield base


def test_a_name_for_a_private_address_is_refused_before_connecting(counting: str) -> None:
    # `localhost` resolves (through the system's resolver, /etc/hosts) to a loopback address
    url = counting.replace("127.0.0.1", "localhost") + "/article"
    with Fetcher() as guarded:
        result = guarded.fetch(url)
    assert result.status is FetchStatus.BLOCKED
    assert "localhost is on a private or local network" in result.message
    assert _Counting.connections == 0  # refused before the socket connected: no byte was sent
    with Fetcher(FetchPolicy(allow_private_network=True)) as allowed:
        assert allowed.fetch(url).ok
    assert _Counting.requests == 1
    assert _Counting.hosts == [url.split("/")[2]]  # connected by address, asked by name


def test_https_names_the_host_though_it_connects_to_the_checked_address(tmp_path: Path) -> None:
    """TLS keeps the host name (SNI, and so the certificate check) when the socket is opened to the
    address the guard resolved: a real TLS server on 127.0.0.1 records the name it was asked for."""
    cert, key = _self_signed(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    names: list[str | None] = []
    context.sni_callback = lambda _sock, name, _ctx: names.append(name)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve_one() -> None:
        connection, _ = listener.accept()
        with contextlib.suppress(OSError), context.wrap_socket(connection, server_side=True):
            pass  # the handshake runs (and fails: the client does not trust this certificate)
        connection.close()

    thread = threading.Thread(target=serve_one)
    thread.start()
    try:
        with Fetcher(FetchPolicy(allow_private_network=True, deadline=10.0)) as f:
            result = f.fetch(f"https://localhost:{port}/article")
    finally:
        thread.join(timeout=10)
        listener.close()
    assert names == ["localhost"]
    assert result.status is FetchStatus.CONNECTION_ERROR  # a self-signed certificate is not trusted
    assert "CERTIFICATE_VERIFY_FAILED" in result.message


def _self_signed(folder: Path) -> tuple[Path, Path]:
    # cryptography comes with keyring (SecretStorage) on Linux, pinned in constraints.txt
    x509 = pytest.importorskip("cryptography.x509")
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.now(UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


def test_a_rebinding_name_never_reaches_the_private_address(
    counting: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DNS rebinding: the name answers a public address when checked, then a private one.

    The resolver is patched at the socket level only: `rebind.test` answers a public address the
    first time and 127.0.0.1 after that. A guard that checks one answer and lets the connection
    look the name up again sends its GET to 127.0.0.1; this one resolves once and connects to
    the address it checked, so the local server never sees a connection.
    """
    real = socket.getaddrinfo
    asked: list[str] = []

    def rebinding(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "rebind.test":
            return real(host, port, *args, **kwargs)
        asked.append(host)
        address = "192.88.99.1" if len(asked) == 1 else "127.0.0.1"  # public, then loopback
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(port)))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    url = counting.replace("127.0.0.1", "rebind.test") + "/article"
    with Fetcher(FetchPolicy(connect_timeout=0.5, deadline=5.0)) as guarded:
        first = guarded.fetch(url)  # connects to the public address (unreachable here), or fails
        second = guarded.fetch(url)  # now the name answers 127.0.0.1: refused before connecting
    assert not first.ok
    assert second.status is FetchStatus.BLOCKED
    assert "127.0.0.1" in second.message
    assert len(asked) == 2  # one lookup per connection, none behind the guard's back
    assert _Counting.connections == 0


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "100.64.0.1",
        "169.254.169.254",
        "::1",
        "::ffff:10.0.0.1",
        "2002:7f00:1::",
        "fe80::1",
    ],
)
def test_private_addresses(address: str) -> None:
    assert is_private(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses(address: str) -> None:
    assert not is_private(ipaddress.ip_address(address))


# --- malformed links: an outcome, never an exception ------------------------------------------------


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://[2001:db8::1/paper", "IPv6 address is not closed"),
        ("http://127.0.0.1:80:90/x", "the port in 127.0.0.1:80:90 is not a number"),
        ("http://[::1]:99999/x", "the port in [::1]:99999 is not a number"),
        ("http://ｅｘａｍｐｌｅ.com/x", "not a valid internet name"),
        ("http://exa mple.com/x", "not a valid internet name"),
        ("http://a..b/x", "not a valid internet name"),
        ("http://xn--zz.com/x", "not a valid internet name"),
        ("http://-bad-.example/x", "not a valid internet name"),
        ("http://:80/x", "no host name"),
    ],
)
@pytest.mark.parametrize("allow_private_network", [False, True])
def test_malformed_links_are_an_outcome(url: str, why: str, allow_private_network: bool) -> None:
    with pytest.raises(InvalidLink, match=re.escape(why)):
        parse_link(url)
    with Fetcher(FetchPolicy(allow_private_network=allow_private_network)) as f:
        result = f.fetch(url)
    assert result.status is FetchStatus.INVALID_URL
    assert why in result.message
    assert result.message.startswith("not a valid web address")


def test_international_names_are_valid() -> None:
    assert parse_link("https://bücher.example/x").raw_host == b"xn--bcher-kva.example"


# --- bodies: any chain of encodings stays bounded; a body cut short is never a page ------------------

TEXT = b"<html><body><p>" + b"Tree canopy cools cities. " * 2000 + b"</p></body></html>"


def _bomb() -> bytes:
    """gzip of gzip of 256 MiB of zeros (about 1 KB), built in 1 MiB steps."""
    inner = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b"\0" * (1024 * 1024)
    layers = b"".join([*(inner.compress(block) for _ in range(256)), inner.flush()])
    return gzip.compress(layers, 9)


class _Encoded(BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, tuple[bytes, str]]] = {}
    """Bodies made once, before the server starts (a read timeout of 1 s leaves no time for it)."""

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, body: bytes, encoding: str | None = None, length: int | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        routes = self.routes
        if self.path in routes:
            self._send(*routes[self.path])
        elif self.path == "/short":  # says 100 KB, sends 1 KB and closes
            self._send(TEXT[:1000], length=100_000)
        elif self.path.startswith("/trickle"):  # no length: the body ends when the connection does
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Connection", "close")
            self.end_headers()
            for _ in range(100):
                try:
                    self.wfile.write(b"<p>Tree canopy cools cities.</p>")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.1)
        else:
            self.send_error(404)


@pytest.fixture(scope="module")
def encoded() -> Iterator[str]:
    _Encoded.routes = {
        "/gzip": (gzip.compress(TEXT), "gzip"),
        "/deflate": (zlib.compress(TEXT), "deflate"),
        "/raw-deflate": (zlib.compress(TEXT)[2:-4], "deflate"),
        "/gzip-gzip": (gzip.compress(gzip.compress(TEXT)), "gzip, gzip"),
        "/bomb": (_bomb(), "gzip, gzip"),
        "/triple": (gzip.compress(gzip.compress(gzip.compress(TEXT))), "gzip, gzip, gzip"),
        "/br": (b"\x0b\x02\x80hello\x03", "br"),
        "/damaged": (b"\x1f\x8b" + b"not gzip at all" * 10, "gzip"),
    }
    with running(_Encoded) as base:
        yield base


@pytest.mark.parametrize("route", ["/gzip", "/deflate", "/raw-deflate", "/gzip-gzip"])
def test_compressed_pages_are_decoded(encoded: str, fetcher: Fetcher, route: str) -> None:
    result = fetcher.fetch(encoded + route)
    assert result.ok, result.message
    assert result.body == TEXT


def test_a_nested_compression_bomb_is_too_large_at_once(encoded: str, fetcher: Fetcher) -> None:
    started = time.monotonic()
    result = fetcher.fetch(encoded + "/bomb")
    assert result.status is FetchStatus.TOO_LARGE
    assert result.message == "the page is larger than the 1 MB size limit"
    assert result.body == b""
    assert time.monotonic() - started < 30  # the size is counted as it is produced


@pytest.mark.parametrize(
    ("route", "status", "message"),
    [
        ("/triple", FetchStatus.UNSUPPORTED_TYPE, "compressed 3 times over"),
        ("/br", FetchStatus.UNSUPPORTED_TYPE, "compressed with br"),
        ("/damaged", FetchStatus.CONNECTION_ERROR, "gzip data is damaged"),
        ("/short", FetchStatus.RESET, "connection reset: the server closed the connection before"),
    ],
)
def test_bodies_that_cannot_be_read_say_why(
    encoded: str, fetcher: Fetcher, route: str, status: FetchStatus, message: str
) -> None:
    result = fetcher.fetch(encoded + route)
    assert result.status is status
    assert message in result.message
    assert result.body == b""


def test_a_body_cut_by_the_deadline_is_a_timeout_not_a_page(encoded: str) -> None:
    # no Content-Length: when the watchdog shuts the socket, the body reads as ended; it is not
    policy = FetchPolicy(allow_private_network=True, deadline=1.5, read_timeout=5.0)
    with Fetcher(policy) as f:
        result = f.fetch(encoded + "/trickle")
    assert result.status is FetchStatus.TIMEOUT
    assert result.message.startswith("timed out after 1.5 s: the server took too long to send the page")
    assert result.limit == 1.5
    assert result.body == b""


def test_a_shared_stop_time_ends_every_fetch(encoded: str) -> None:
    policy = FetchPolicy(allow_private_network=True, deadline=60.0, read_timeout=30.0, per_host=3)
    started = time.monotonic()
    with Fetcher(policy, stop_at=started + 1.0) as f:
        results = f.fetch_many([encoded + "/trickle", encoded + "/trickle?2", encoded + "/gzip"])
    assert time.monotonic() - started < 20  # nowhere near the 60 s of each fetch's own deadline
    assert [r.status for r in results.values()] == [FetchStatus.TIMEOUT, FetchStatus.TIMEOUT, FetchStatus.OK]
    with Fetcher(policy, stop_at=time.monotonic() - 1) as late:
        assert late.fetch(encoded + "/gzip").status is FetchStatus.TIMEOUT  # nothing starts after it


def test_a_redirect_to_a_malformed_link_is_an_outcome() -> None:
    class _BadRedirect(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(302)
            self.send_header("Location", "http://[2001:db8::1/elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()

    with running(_BadRedirect) as base, Fetcher(FetchPolicy(allow_private_network=True)) as f:
        result = f.fetch(base + "/x")
    assert result.status is FetchStatus.INVALID_URL
    assert "redirected to an address that is not valid" in result.message


def test_no_thread_is_left_behind(encoded: str) -> None:
    before = threading.active_count()
    with Fetcher(FetchPolicy(allow_private_network=True)) as f:
        f.fetch_many([encoded + "/gzip", encoded + "/br"])
    deadline = time.monotonic() + 10
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() <= before


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Street tree survival\n\nOf 4,000 trees planted, 20% died.", "Street tree survival"),
        ("# Heat and health\nBody.", "Heat and health"),
        (
            "Allotment gardening and health: a survey. " + "Gardeners reported less stress. " * 20,
            "Allotment gardening and health: a survey",
        ),
        ("Dr. Smith's report on street trees. " + "word " * 60, "Dr. Smith's report on street trees"),
        ("word " * 100, None),  # no sentence end within reach: no title, rather than one cut mid-word
    ],
)
def test_a_plain_text_title_is_its_short_first_line_or_first_sentence(text: str, title: str | None) -> None:
    assert extract(text.encode(), None, "source.txt").title == title
