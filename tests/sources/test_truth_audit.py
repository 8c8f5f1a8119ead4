"""Reference truth end to end: `citedesk audit`, `fix` and `retractions` against local stand-ins
for doi.org, Crossref and OpenAlex (real response shapes, tests/helpers/indexes.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.core.reading import parse_structure
from citedesk.core.repair import prose_of
from tests.helpers.indexes import DING, SNAPSHOT_SAMPLE, UNKNOWN, WAKEFIELD, ZHOU, IndexServer, serve_indexes
from tests.helpers.truth_cli import audit, by_reference, flags

CORRECT = DING.format(year="2014", doi="10.2337/dc13-1203")
WRONG_YEAR = DING.format(year="2016", doi="10.2337/dc13-1203")
OTHER_WORK = DING.format(year="2014", doi="10.1109/cvpr.2016.90")
UNREGISTERED = "Smith, J. (2021). A study of coffee that never was. Journal of Nothing, 1, 1–2. doi:10.9999/never.registered"
CLAIMS = [
    "Coffee drinkers had a lower risk of type 2 diabetes",
    "The vaccine scare began with one paper",
    "Decaffeinated coffee helped too",
    "One more study agreed",
    "The new coronavirus probably came from bats",
    "Tardigrades of the ice shelves glow",
    "The outbreak was traced early",
]


@pytest.fixture(scope="module")
def indexes() -> Iterator[IndexServer]:
    with serve_indexes() as server:
        yield server


@pytest.fixture(autouse=True)
def _local_indexes(indexes: IndexServer, monkeypatch: pytest.MonkeyPatch) -> None:
    indexes.serve_the_app(monkeypatch)


def write(folder: Path, entries: list[str], name: str = "draft.md") -> Path:
    """A document citing each entry once, with a local text for each (so no page is fetched: what
    is tested is what the indexes say)."""
    sources = folder / "sources"
    sources.mkdir(exist_ok=True)
    for key in range(1, len(entries) + 1):
        (sources / f"{key}.txt").write_text(f"{CLAIMS[key - 1]}, the study found. " * 4, encoding="utf-8")
    body = " ".join(f"{CLAIMS[i]} [{i + 1}]." for i in range(len(entries)))
    refs = "\n".join(f"[{i + 1}] {text}" for i, text in enumerate(entries))
    doc = folder / name
    doc.write_text(f"# Draft\n\n{body}\n\n## References\n\n{refs}\n", encoding="utf-8")
    return doc


def test_each_kind_of_reference_gets_its_finding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wrong_doi = ZHOU + " doi:10.1038/s41586-020-9999-x"
    doc = write(tmp_path, [CORRECT, WAKEFIELD, OTHER_WORK, UNREGISTERED, ZHOU, UNKNOWN, wrong_doi])
    report = audit(doc, capsys)
    found = by_reference(report)
    text = doc.read_text(encoding="utf-8")
    checks = {s["key"]: s["check"]["status"] for s in report["sources"]}
    assert checks == {
        "1": "ok",
        "2": "ok",
        "3": "different_work",
        "4": "unregistered",
        "5": "found_by_title",
        "6": "not_found",
        "7": "unregistered",
    }

    # a correct reference: no finding at all
    assert "1" not in found

    # a retracted one: an error on its entry and on the marker citing it, naming the notice and its date
    retracted = [f for f in found["2"] if f["kind"] == "retracted"]
    assert [f["severity"] for f in retracted] == ["error", "error"]
    assert {text[f["span"][0] : f["span"][1]] for f in retracted} == {"[2]", "[2] " + WAKEFIELD}
    assert {f["kind"] for f in found["2"]} == {"retracted"}  # the standing notice only, not its correction
    for finding in retracted:
        assert "doi:10.1016/s0140-6736(10)60175-4" in finding["message"]
        assert "2010-02-06" in finding["message"]
        assert "https://doi.org/10.1016/s0140-6736(10)60175-4" in finding["message"]
    marker = next(f for f in retracted if f["claim"])
    assert marker["message"].startswith("This sentence cites [2], which is retracted")
    standing = next(s for s in report["sources"] if s["key"] == "2")["check"]["standing"]
    assert (standing["kind"], standing["date"]) == ("retraction", "2010-02-06")

    # the DOI of another work
    assert [(f["kind"], f["severity"]) for f in found["3"]] == [("doi_mismatch", "error")]
    assert "Deep Residual Learning for Image Recognition" in found["3"][0]["message"]

    # a DOI registered nowhere: fabricated, with a fix that removes it and its citation
    assert [(f["kind"], f["severity"]) for f in found["4"]] == [("fabricated_reference", "error")]
    assert found["4"][0]["fixes"][0]["title"] == "Remove reference [4] and every citation of it"

    # no identifiers: found by its title, offered its DOI (and its published addendum is mentioned)
    by_kind = {f["kind"]: f for f in found["5"]}
    assert set(by_kind) == {"found_by_title", "correction"}
    offer = by_kind["found_by_title"]
    assert offer["severity"] == "info"
    assert [fx["title"] for fx in offer["fixes"]] == ["Add doi:10.1038/s41586-020-2012-7"]
    assert by_kind["correction"]["severity"] == "info"

    # an unknown title: a warning to check it exists, never "fabricated"
    assert [(f["kind"], f["severity"]) for f in found["6"]] == [("not_found", "warning")]
    assert "check that it exists" in found["6"][0]["message"]
    assert "does not mean it is fabricated" in found["6"][0]["message"]

    # a DOI that resolves nowhere on an entry whose title finds the work: the right DOI is offered first
    [fabricated] = [f for f in found["7"] if f["kind"] == "fabricated_reference"]
    assert "the entry's title finds doi:10.1038/s41586-020-2012-7" in fabricated["message"]
    swap, remove = fabricated["fixes"]
    assert swap["title"] == "Use doi:10.1038/s41586-020-2012-7 (found by the entry's title)"
    [edit] = swap["edits"]
    assert text[edit["start"] : edit["end"]] == "10.1038/s41586-020-9999-x"
    assert edit["replacement"] == "10.1038/s41586-020-2012-7"
    assert remove["title"] == "Remove reference [7] and every citation of it"


def test_the_right_work_with_a_wrong_year_is_corrected_in_the_entry_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = write(tmp_path, [WRONG_YEAR])
    report = audit(doc, capsys)
    [finding] = report["findings"]
    assert (finding["kind"], finding["severity"]) == ("metadata_error", "warning")
    assert (
        "gives the year as “2016”, but Crossref's record of doi:10.2337/dc13-1203 says “2014”"
        in finding["message"]
    )
    original = doc.read_text(encoding="utf-8")
    assert original[finding["span"][0] : finding["span"][1]] == "2016"  # underlined where it is wrong
    assert [fx["title"] for fx in finding["fixes"]] == ["Correct the year: 2016 → 2014"]

    assert main(["fix", str(doc), "--kinds", "metadata_error", *flags(tmp_path)]) == 0
    assert "Correct the year: 2016 → 2014" in capsys.readouterr().err
    fixed = doc.read_text(encoding="utf-8")
    assert fixed == original.replace("(2016)", "(2014)")
    assert prose_of(parse_structure(fixed)) == prose_of(parse_structure(original))
    again = audit(doc, capsys)
    assert again["findings"] == []
    assert again["sources"][0]["check"]["status"] == "ok"


def test_the_answers_are_kept_so_a_second_audit_asks_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], indexes: IndexServer
) -> None:
    doc = write(tmp_path, [CORRECT, ZHOU, UNKNOWN])
    first = audit(doc, capsys)
    asked = len(indexes.state.hits)
    second = audit(doc, capsys)
    assert len(indexes.state.hits) == asked
    assert [s["check"]["status"] for s in second["sources"]] == [
        s["check"]["status"] for s in first["sources"]
    ]
    assert all(s["check"]["cached"] for s in second["sources"])


def test_the_contact_address_goes_to_the_polite_pools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], indexes: IndexServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEDESK_CONTACT_EMAIL", "env@example.org")
    doc = write(tmp_path, [CORRECT])
    before = len(indexes.state.hits)
    audit(doc, capsys, "--contact-email", "editor@example.org")
    asked = [path for path, _ in indexes.state.hits[before:]]
    assert any(p.startswith("/crossref/works/") for p in asked)
    assert all("mailto=editor%40example.org" in p for p in asked if not p.startswith("/doi/"))


def test_an_imported_snapshot_flags_retractions_offline_and_nothing_else_is_called_false(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], indexes: IndexServer
) -> None:
    store = str(tmp_path / "store.sqlite3")
    assert main(["retractions", "status", "--store", store]) == 1
    assert "no retraction snapshot" in capsys.readouterr().out
    assert main(["retractions", "import", str(SNAPSHOT_SAMPLE), "--store", store]) == 0
    out = capsys.readouterr().out
    assert "8 rows, 6 imported, 2 skipped (1 no original DOI, 1 unknown nature)" in out
    assert "newest notice 2024-02-14" in out
    assert main(["retractions", "status", "--store", store]) == 0
    assert "newest notice: 2024-02-14" in capsys.readouterr().out

    doc = write(
        tmp_path,
        [
            WAKEFIELD,
            UNREGISTERED,
            UNKNOWN,
            "Moreau, L. (2021). Tree canopy. https://unreachable.invalid/canopy",
        ],
    )
    (tmp_path / "sources" / "4.txt").unlink()  # its link would be dead online: offline it is not
    before = len(indexes.state.hits)
    report = audit(doc, capsys, "--offline")
    assert len(indexes.state.hits) == before  # offline: nothing asked
    kinds = {(f["kind"], f["reference"]) for f in report["findings"]}
    assert kinds == {("retracted", "1")}
    entry = next(f for f in report["findings"] if not f["claim"])
    assert "doi:10.1016/s0140-6736(10)60175-4, 2010-02-06" in entry["message"]
    assert "Falsification/Fabrication of Data" in entry["message"]
    retractions = report["retractions"]
    assert retractions["offline"] is True
    assert retractions["snapshot"]["newest"] == "2024-02-14"
    assert retractions["snapshot"]["age_days"] > 300  # said in days, from its newest notice
    assert "days old (newest notice 2024-02-14)" in retractions["note"]
    assert "not known to this offline audit" in retractions["note"]
    checks = {s["key"]: s["check"] for s in report["sources"]}
    assert checks["1"]["standing"]["source"] == "retraction-watch-snapshot"
    assert {checks[k]["status"] for k in ("1", "2", "3")} == {"not_checked"}
    assert checks["4"] is None  # a link is checked by fetching it


def test_a_bad_snapshot_is_refused_and_the_loaded_one_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "store.sqlite3")
    assert main(["retractions", "import", str(SNAPSHOT_SAMPLE), "--store", store]) == 0
    bad = tmp_path / "notes.csv"
    bad.write_text("name,email\nPat,pat@example.org\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["retractions", "import", str(bad), "--store", store]) == 2
    assert "is not a Retraction Watch CSV" in capsys.readouterr().err
    assert main(["retractions", "import", "--store", store]) == 2
    assert main(["retractions", "status", "--store", store]) == 0
    assert "6 of 8 rows" in capsys.readouterr().out
