"""Local stand-ins for doi.org, the Crossref REST API and OpenAlex, serving real response shapes.

The JSON in `index_fixtures/` follows the real APIs' responses field for field (Crossref's
`{"status", "message-type", "message"}` envelope with `updated-by` entries as Crossref serves the
Retraction Watch data; OpenAlex works with `authorships`, `primary_location`, `biblio`,
`is_retracted`; doi.org CSL-JSON), trimmed to the fields that matter. Unknown DOIs get what the real
services answer: Crossref `404 Resource not found.` (text/plain), doi.org a 404 page, OpenAlex a
404 JSON error.

Each server has its own state (`IndexState`): every request is recorded with its time, and a
route can be made to answer 429 with a Retry-After a given number of times.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from citedesk.core.document.references import LabelStyle, Reference, extract_fields
from citedesk.sources.fetch import FetchPolicy
from citedesk.sources.indexes import LookupConfig
from tests.helpers.server import running

FIXTURES = Path(__file__).parent / "index_fixtures"
SNAPSHOT_SAMPLE = FIXTURES / "retraction_watch_sample.csv"

CROSSREF_WORKS = {
    "10.2337/dc13-1203": "crossref_ding2014.json",
    "10.1016/s0140-6736(97)11096-0": "crossref_wakefield1998.json",
    "10.1109/cvpr.2016.90": "crossref_he2016.json",
    "10.5555/openalex-flagged.2020": "crossref_flagged2020.json",
}
OPENALEX_WORKS = {
    "10.2337/dc13-1203": "openalex_ding2014.json",
    "10.1016/s0140-6736(97)11096-0": "openalex_wakefield1998.json",
    "10.1109/cvpr.2016.90": "openalex_he2016.json",
    "10.5555/openalex-flagged.2020": "openalex_flagged2020.json",
}
CSL_WORKS = {"10.80000/citedesk.dataset.1": "csl_dataset.json"}
CROSSREF_SEARCHES = {"pneumonia outbreak": "crossref_search_zhou2020.json"}
OPENALEX_SEARCHES = {"pneumonia outbreak": "openalex_search_zhou2020.json"}


DING = (
    "Ding, M., Bhupathiraju, S. N., Chen, M., van Dam, R. M., & Hu, F. B. ({year}). Caffeinated and decaffeinated "
    "coffee consumption and risk of type 2 diabetes: A systematic review and a dose-response meta-analysis. "
    "Diabetes Care, 37(2), 569–586. https://doi.org/{doi}"
)
WAKEFIELD = (
    "Wakefield, A. J., Murch, S. H., & Anthony, A. (1998). Ileal-lymphoid-nodular hyperplasia, non-specific colitis, "
    "and pervasive developmental disorder in children. The Lancet, 351(9103), 637–641. "
    "https://doi.org/10.1016/S0140-6736(97)11096-0"
)
ZHOU = (
    "Zhou, P., Yang, X.-L., & Wang, X.-G. (2020). A pneumonia outbreak associated with a new coronavirus of probable "
    "bat origin. Nature, 579, 270–273."
)
UNKNOWN = "Ramírez, Q. (2019). Luminous tardigrades of the northern ice shelves and their songs. Journal of Imaginary Biology, 4, 1–9."


def entry(text: str, key: str = "1", start: int = 0) -> Reference:
    """A Markdown reference entry for `text`, parsed as `core.document.references` does, starting at `start`."""
    f = extract_fields(text)
    return Reference(
        key,
        start,
        start + len(text),
        start,
        start,
        LabelStyle.BRACKET,
        " ".join(text.split()),
        title=f["title"],
        url=f["url"],
        doi=f["doi"],
        arxiv=f["arxiv"],
        path=f["path"],
        year=f["year"],
        authors=f["authors"],
    )


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


@dataclass
class IndexState:
    hits: list[tuple[str, float]] = field(default_factory=list)
    busy: dict[str, int] = field(default_factory=dict)
    """Path prefix → how many more requests under it answer 429."""
    retry_after: str = "1"
    delay: float = 0.0
    """Seconds each answer takes (network latency, for the benchmark)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def paths(self, prefix: str = "") -> list[str]:
        with self.lock:
            return [p for p, _ in self.hits if p.startswith(prefix)]


@dataclass
class IndexServer:
    base: str
    state: IndexState

    def config(self, **settings: Any) -> LookupConfig:
        """A LookupConfig whose endpoints are this server's."""
        return LookupConfig(
            doi_base=self.base + "/doi",
            crossref_base=self.base + "/crossref",
            openalex_base=self.base + "/openalex",
            **settings,
        )

    def serve_the_app(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Point the app's doi.org, Crossref and OpenAlex (`CITEDESK_*_BASE`) at this server."""
        monkeypatch.setenv("CITEDESK_DOI_BASE", self.base + "/doi")
        monkeypatch.setenv("CITEDESK_CROSSREF_BASE", self.base + "/crossref")
        monkeypatch.setenv("CITEDESK_OPENALEX_BASE", self.base + "/openalex")


POLICY = FetchPolicy(allow_private_network=True, read_timeout=5.0, deadline=20.0, max_retry_wait=5.0)
"""Loopback allowed (the servers are on 127.0.0.1); Retry-After up to 5 s is waited for."""


def _handler(state: IndexState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _send(self, code: int, body: bytes, content_type: str, **headers: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name.replace("_", "-"), value)
            self.end_headers()
            self.wfile.write(body)

        def _json(self, data: Any, content_type: str = "application/json;charset=utf-8") -> None:
            self._send(200, json.dumps(data).encode(), content_type)

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            path = unquote(parts.path)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            with state.lock:
                state.hits.append((self.path, time.monotonic()))
                prefix = next((p for p, n in state.busy.items() if n > 0 and path.startswith(p)), None)
                if prefix is not None:
                    state.busy[prefix] -= 1
            if state.delay:
                time.sleep(state.delay)
            if prefix is not None:
                self._send(
                    429,
                    b'{"message": "Too Many Requests"}',
                    "application/json",
                    Retry_After=state.retry_after,
                )
                return
            if path.startswith("/crossref/works/"):
                name = CROSSREF_WORKS.get(path.removeprefix("/crossref/works/").lower())
                if name is None:
                    self._send(404, b"Resource not found.", "text/plain")
                else:
                    self._json(fixture(name))
            elif path == "/crossref/works":
                wanted = query.get("query.bibliographic", "").lower()
                name = next((f for words, f in CROSSREF_SEARCHES.items() if words in wanted), None)
                self._json(fixture(name or "crossref_search_unrelated.json"))
            elif path.startswith("/openalex/works/doi:"):
                name = OPENALEX_WORKS.get(path.removeprefix("/openalex/works/doi:").lower())
                if name is None:
                    body = {"error": "Not Found", "message": "The requested URL was not found on the server."}
                    self._send(404, json.dumps(body).encode(), "application/json")
                else:
                    self._json(fixture(name))
            elif path == "/openalex/works":
                wanted = query.get("filter", "").lower()
                name = next((f for words, f in OPENALEX_SEARCHES.items() if words in wanted), None)
                self._json(fixture(name or "openalex_search_empty.json"))
            elif path.startswith("/doi/"):
                doi = path.removeprefix("/doi/").lower()
                if doi in CROSSREF_WORKS:  # doi.org answers Crossref DOIs with Crossref's CSL
                    message = fixture(CROSSREF_WORKS[doi])["message"]
                    message["title"] = message["title"][0]
                    self._json(message, "application/vnd.citationstyles.csl+json")
                elif doi in CSL_WORKS:
                    self._json(fixture(CSL_WORKS[doi]), "application/vnd.citationstyles.csl+json")
                else:
                    self._send(404, b"<html><body><h1>DOI Not Found</h1></body></html>", "text/html")
            else:
                self._send(404, b"no route", "text/plain")

    return Handler


@contextmanager
def serve_indexes() -> Iterator[IndexServer]:
    """One server on 127.0.0.1 answering for doi.org (`/doi`), Crossref (`/crossref`) and OpenAlex (`/openalex`)."""
    state = IndexState()
    with running(_handler(state)) as base:
        yield IndexServer(base, state)
