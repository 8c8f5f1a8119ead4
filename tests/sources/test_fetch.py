from __future__ import annotations

from collections.abc import Iterator

import pytest

from citedesk.sources import fetch as fetch_module
from citedesk.sources.extract import extract
from citedesk.sources.fetch import PDF_ACCEPT, Fetcher, FetchPolicy, FetchStatus
from citedesk.sources.identifiers import expects_pdf
from tests.helpers.server import serve


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


def test_a_rebound_host_is_refused_on_the_open_connection(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # DNS rebinding: the name looked public when checked, then the connection went to 127.0.0.1.
    monkeypatch.setattr(fetch_module, "check_url", lambda url, *, allow_private_network: None)
    with Fetcher(FetchPolicy(allow_private_network=False)) as guarded:
        result = guarded.fetch(base + "/article")
    assert result.status is FetchStatus.BLOCKED
    assert "127.0.0.1" in result.message
    assert result.body == b""


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
