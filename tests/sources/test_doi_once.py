"""Each DOI asked about once per audit, and shown as the writer wrote it (issue 28, P2).

DOIs are case-insensitive: `10.2337/DC13-1203` and `10.2337/dc13-1203` name one work. An audit
whose list names it twice (a duplicate entry, written in two cases, as a link and as `doi:`) sends
one request to each service for it — doi.org for its text, Crossref and OpenAlex for its record —
and every message shows the DOI as the entry wrote it. Local stand-ins for the three services
(tests/helpers/indexes.py) count the requests.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from citedesk.cli import main
from tests.helpers.indexes import DING, IndexServer, serve_indexes

DOC_FLAGS = ["--format", "json", "--judge", "none", "--allow-private-network"]


def audit(doc: Path, capsys: pytest.CaptureFixture[str], server: IndexServer) -> dict[str, object]:
    main(["audit", str(doc), "--store", str(doc.parent / "store.sqlite3"), *DOC_FLAGS])
    report: dict[str, object] = json.loads(capsys.readouterr().out)
    return report


def services(server: IndexServer) -> Counter[str]:
    """Requests by service and DOI, case folded: `crossref 10.2337/dc13-1203`."""
    counted: Counter[str] = Counter()
    for path in server.state.paths():
        service, _, rest = path.lstrip("/").partition("/")
        doi = rest.split("?")[0].removeprefix("works/").removeprefix("doi:").lower()
        counted[f"{service} {doi}"] += 1
    return counted


def test_a_doi_named_three_ways_is_fetched_once_by_each_service(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    upper = DING.format(year="2014", doi="10.2337/DC13-1203")
    lower = DING.format(year="2014", doi="10.2337/dc13-1203")
    prefixed = DING.format(year="2014", doi="10.2337/Dc13-1203").replace("https://doi.org/", "doi:")
    doc = tmp_path / "draft.md"
    doc.write_text(
        "# Draft\n\nCoffee lowers the risk [1]. It does again [2]. And once more [3].\n\n"
        f"## References\n\n[1] {upper}\n[2] {lower}\n[3] {prefixed}\n",
        encoding="utf-8",
    )
    with serve_indexes() as server:
        server.serve_the_app(monkeypatch)
        report = audit(doc, capsys, server)
        asked = services(server)
    assert asked == {
        "doi 10.2337/dc13-1203": 1,
        "crossref 10.2337/dc13-1203": 1,
        "openalex 10.2337/dc13-1203": 1,
    }
    sources = {s["key"]: s for s in report["sources"]}  # type: ignore[attr-defined]
    # every entry still has its own source and check, the DOI as each wrote it
    assert [sources[k]["check"]["doi"] for k in "123"] == [
        "10.2337/DC13-1203",
        "10.2337/dc13-1203",
        "10.2337/Dc13-1203",
    ]
    assert [sources[k]["check"]["status"] for k in "123"] == ["ok", "ok", "ok"]
    assert sources["2"]["status"] == sources["1"]["status"]
    assert sources["3"]["location"] == "doi:10.2337/Dc13-1203"


def test_a_doi_in_a_message_is_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = tmp_path / "draft.md"
    doc.write_text(
        "# Draft\n\nCoffee was never studied [1].\n\n## References\n\n"
        "[1] Smith, J. (2021). A study of coffee that never was. Journal of Nothing, 1, 1–2. "
        "doi:10.9999/Never.Registered\n",
        encoding="utf-8",
    )
    with serve_indexes() as server:
        server.serve_the_app(monkeypatch)
        report = audit(doc, capsys, server)
    fabricated = [f for f in report["findings"] if f["kind"] == "fabricated_reference"]  # type: ignore[attr-defined]
    assert fabricated, report["findings"]
    assert "10.9999/Never.Registered" in fabricated[0]["message"]
    assert "10.9999/never.registered" not in fabricated[0]["message"]
    check = report["sources"][0]["check"]  # type: ignore[index]
    assert check["doi"] == "10.9999/Never.Registered"
    assert "10.9999/Never.Registered" in check["message"]
