"""Each reference's source is isolated: a bad link, a file outside the allowed folders, a server that
never finishes or the time budget running out is a status on that reference, and the rest go on."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from citedesk.core.findings import Kind, Severity
from citedesk.core.reading import parse_document
from citedesk.sources.checks import source_findings
from citedesk.sources.fetch import FetchPolicy
from citedesk.sources.gather import gather_sources
from citedesk.sources.local import is_within
from citedesk.sources.resolved import ResolvedSource, SourceOptions, SourceStatus
from citedesk.store import Store
from tests.helpers.server import ARTICLE, running

SECRET = "The launch code is 0000 and nobody may read it. " * 5


class _Sources(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def _send(self, body: bytes, content_type: str = "text/html") -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path.startswith("/article"):
            self._send(ARTICLE.encode())
        elif self.path.startswith("/slow"):  # no length, a paragraph every 0.2 s for a minute
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Connection", "close")
            self.end_headers()
            for _ in range(300):
                try:
                    self.wfile.write(b"<p>Shaded streets were cooler in the afternoon.</p>\n")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.2)
        elif self.path == "/doi/10.1234/slow-page":  # a real work whose landing page is slow
            work = {
                "type": "article-journal",
                "title": "Tree canopy cools cities",
                "author": [{"family": "Moreau", "given": "L."}],
                "issued": {"date-parts": [[2021]]},
                "URL": f"http://{self.headers['Host']}/slow-page",
            }
            self._send(json.dumps(work).encode(), "application/vnd.citationstyles.csl+json")
        else:
            self.send_error(404)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running(_Sources) as base:
        yield base


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "store.sqlite3")
    yield opened
    opened.close()


def _gather(text: str, options: SourceOptions, store: Store) -> tuple[dict[str, ResolvedSource], list[Kind]]:
    document = parse_document(text)
    sources = gather_sources(list(document.entries), options, store)
    return sources, [f.kind for f in source_findings(document, sources)]


def _options(folder: Path | None = None, **changes: object) -> SourceOptions:
    policy = FetchPolicy(allow_private_network=True, deadline=30.0, read_timeout=10.0)
    return replace(SourceOptions(document_dir=folder, fetch=policy), **changes)  # type: ignore[arg-type]


# --- malformed links -------------------------------------------------------------------------------


def test_malformed_links_are_findings_on_their_own_references(server: str, store: Store) -> None:
    text = (
        "A [1]. B [2]. C [3]. D [4].\n\n## References\n\n"
        "1. Broken. http://[2001:db8::1/paper\n"
        "2. Two ports. http://127.0.0.1:80:90/x\n"
        "3. Full-width. http://ｅｘａｍｐｌｅ.com/x\n"
        f"4. Fine. {server}/article\n"
    )
    document = parse_document(text)
    sources = gather_sources(list(document.entries), _options(), store)
    assert {k: s.status for k, s in sources.items()} == {
        "1": SourceStatus.INVALID_LINK,
        "2": SourceStatus.INVALID_LINK,
        "3": SourceStatus.INVALID_LINK,
        "4": SourceStatus.FETCHED,  # the audit went on
    }
    findings = source_findings(document, sources)
    assert [(f.kind, f.reference, f.severity) for f in findings] == [
        (Kind.UNCHECKED_SOURCE, key, Severity.WARNING) for key in ("1", "2", "3")
    ]
    assert findings[0].message == (
        "The link of [1] is not a valid web address: its IPv6 address is not closed with ']'. "
        "Its source could not be checked; correct the link."
    )
    assert "127.0.0.1:80:90" in findings[1].message
    assert "ｅｘａｍｐｌｅ.com" in findings[2].message


# --- local files -------------------------------------------------------------------------------------


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """A document folder with a note in it, and a secret beside it."""
    docs, secret = tmp_path / "docs", tmp_path / "secret"
    docs.mkdir()
    secret.mkdir()
    (docs / "notes.txt").write_text("Shaded streets were cooler in the afternoon. " * 5, encoding="utf-8")
    (secret / "private.txt").write_text(SECRET, encoding="utf-8")
    return docs, secret


def _local_text(docs: Path, secret: Path) -> str:
    return (
        "Cooler [1]. Secret [2]. Absolute [3]. Linked [4].\n\n## References\n\n"
        "1. My notes. notes.txt\n"
        "2. Relative escape. ../secret/private.txt\n"
        f"3. Absolute. {secret / 'private.txt'}\n"
        "4. A link that leads out. shortcut.txt\n"
    )


def test_files_outside_the_document_folder_are_not_read(folders: tuple[Path, Path], store: Store) -> None:
    docs, secret = folders
    (docs / "shortcut.txt").symlink_to(secret / "private.txt")  # inside by name, outside in fact
    sources, kinds = _gather(_local_text(docs, secret), _options(docs), store)
    assert sources["1"].status is SourceStatus.LOCAL
    for key in ("2", "3", "4"):
        assert sources[key].status is SourceStatus.OUTSIDE, key
        assert sources[key].text == ""
        assert "is outside the folders CiteDesk may read" in sources[key].message
        assert sources[key].message.endswith(f"{secret} (or every path with --allow-local-path)")
    assert kinds == [Kind.UNCHECKED_SOURCE] * 3
    assert all(SECRET not in (record.text or "") for record in store.sources())  # nothing of it stored


def test_allowed_paths_and_extra_roots_are_read(folders: tuple[Path, Path], store: Store) -> None:
    docs, secret = folders
    text = _local_text(docs, secret).replace("4. A link that leads out. shortcut.txt\n", "")
    everywhere, _ = _gather(text, _options(docs, allow_local_paths=True), store)
    assert {k: s.status for k, s in everywhere.items()} == dict.fromkeys("123", SourceStatus.LOCAL)
    assert SECRET.strip() in everywhere["3"].text
    rooted, _ = _gather(text, _options(docs, local_roots=(secret,)), store)
    assert rooted["2"].status is rooted["3"].status is SourceStatus.LOCAL


def test_an_attached_file_is_read_wherever_it_is(folders: tuple[Path, Path], store: Store) -> None:
    docs, secret = folders
    text = "Secret [1].\n\n## References\n\n1. Attached by hand. https://example.invalid/x\n"
    sources, _ = _gather(text, _options(docs, attached=(("1", secret / "private.txt"),), offline=True), store)
    assert sources["1"].status is SourceStatus.LOCAL


def test_a_named_pipe_or_odd_name_in_the_folder_is_unreadable_not_a_hang(
    folders: tuple[Path, Path], store: Store
) -> None:
    docs, _ = folders
    os.mkfifo(docs / "pipe.txt")
    (docs / "loop.txt").symlink_to(docs / "loop.txt")
    long_name = "a" * 300 + ".txt"
    text = f"Pipe [1]. Loop [2]. Long [3].\n\n## References\n\n1. P. pipe.txt\n2. L. loop.txt\n3. N. {long_name}\n"
    started = time.monotonic()
    sources, _ = _gather(text, _options(docs), store)
    assert time.monotonic() - started < 30
    assert sources["1"].status is SourceStatus.UNREADABLE  # never opened: it would wait for a writer
    assert sources["1"].message == "it is a named pipe, not a file"
    assert sources["2"].status is SourceStatus.DEAD  # a loop of links: no file there
    assert sources["3"].status is SourceStatus.DEAD


def test_within_compares_whole_components(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs-private").mkdir()
    root = (tmp_path / "docs").resolve()
    assert is_within(tmp_path / "docs" / "a.txt", [root])
    assert is_within(tmp_path / "docs" / "sub" / ".." / "a.txt", [root])
    assert not is_within(tmp_path / "docs-private" / "a.txt", [root])
    assert not is_within(tmp_path / "docs" / ".." / "x.txt", [root])


# --- time: a body cut short, a budget for all sources ------------------------------------------------


def test_a_timed_out_refresh_keeps_the_good_copy(server: str, store: Store) -> None:
    text = f"Cooler [1].\n\n## References\n\n1. Canopy. {server}/slow\n"
    # a good copy of this link from an earlier day
    first, _ = _gather(text.replace("/slow", "/article"), _options(), store)
    assert first["1"].status is SourceStatus.FETCHED
    good = store.source(f"url:{server}/article")
    assert good is not None
    locator = f"url:{server}/slow"
    store.save_source(replace(good, locator=locator), store.passages(good.locator))
    fetched_at = store.source(locator).fetched_at  # type: ignore[union-attr]

    options = _options(refresh=True, fetch=FetchPolicy(allow_private_network=True, deadline=1.5))
    sources, kinds = _gather(text, options, store)
    source = sources["1"]
    assert source.status is SourceStatus.TIMED_OUT  # not gone: a timeout says nothing about the page
    assert source.message.startswith("timed out after 1.5 s: the server took too long to send the page")
    assert source.detail == "after 1.5 s"
    assert "paywall" not in source.message
    assert source.from_cache
    assert "1.5 degrees cooler" in source.text
    record = store.source(locator)
    assert record is not None
    assert record.fetched_at == fetched_at
    assert record.status == "ok"
    assert kinds == [Kind.UNCHECKED_SOURCE]  # that it timed out, and which copy is used


def test_a_doi_whose_page_times_out_is_not_called_a_paywall(
    server: str, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = '1. Moreau (2021). "Tree canopy cools cities". doi:10.1234/slow-page\n'
    text = "Cooler [1].\n\n## References\n\n" + text
    options = _options(doi_base=server + "/doi", fetch=FetchPolicy(allow_private_network=True, deadline=1.5))
    sources, kinds = _gather(text, options, store)
    assert sources["1"].status is SourceStatus.TIMED_OUT
    assert "timed out after 1.5 s" in sources["1"].message
    assert "paywall" not in sources["1"].message
    assert kinds == [Kind.UNCHECKED_SOURCE]
    assert store.source("doi:10.1234/slow-page") is None  # nothing stored as the work's text


def test_the_budget_ends_every_source_with_not_checked(server: str, store: Store) -> None:
    refs = "".join(f"{n}. Slow {n}. {server}/slow?{n}\n" for n in range(1, 9))
    text = "".join(f"Claim {n} [{n}]. " for n in range(1, 10)) + "\n\n## References\n\n" + refs
    text += f"9. Quick. {server}/article\n"
    policy = FetchPolicy(
        allow_private_network=True, deadline=60.0, read_timeout=30.0, concurrency=2, per_host=2
    )
    started = time.monotonic()
    sources, kinds = _gather(text, _options(fetch=policy, budget=2.0), store)
    elapsed = time.monotonic() - started
    assert elapsed < 30  # 8 slow sources of 60 s each, two at a time: the budget ended them all
    statuses = {k: s.status for k, s in sources.items()}
    assert all(statuses[str(n)] is SourceStatus.NOT_CHECKED for n in range(1, 9)), statuses
    assert statuses["9"] in (SourceStatus.FETCHED, SourceStatus.NOT_CHECKED)  # queued behind them
    assert all(
        s.message == "not checked: the time budget for sources ran out"
        for s in sources.values()
        if s.status is SourceStatus.NOT_CHECKED
    )
    assert kinds.count(Kind.UNCHECKED_SOURCE) == list(statuses.values()).count(SourceStatus.NOT_CHECKED)
    assert Kind.DEAD_LINK not in kinds
    assert Kind.FABRICATED_REFERENCE not in kinds
    assert not any(record.locator.startswith(f"url:{server}/slow") for record in store.sources())
