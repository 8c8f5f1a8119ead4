"""Reference truth for a pandoc document, end to end through the command: the bibliography entries
it cites checked against local stand-ins for doi.org, Crossref and OpenAlex (tests/helpers/indexes.py),
findings on the citations in the bibliography's terms, corrections shown and never applied."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.core.bibliographies.model import BibFormat
from citedesk.core.bibliographies.parse import parse_bibliography
from citedesk.core.document.works import BibReference
from citedesk.sources.refcheck import CheckStatus, ReferenceChecker, wants_check
from tests.helpers.indexes import POLICY, SNAPSHOT_SAMPLE, IndexServer, serve_indexes
from tests.helpers.truth_cli import audit, by_reference, flags

DING_TITLE = (
    "Caffeinated and decaffeinated coffee consumption and risk of type 2 diabetes: "
    "A systematic review and a dose-response meta-analysis"
)
DING_AUTHORS = "Ding, Ming and Bhupathiraju, Shilpa N. and Chen, Mu and van Dam, Rob M. and Hu, Frank B."


def ding(key: str, *, year: str = "2014", doi: str = "10.2337/dc13-1203") -> str:
    return f"""@article{{{key},
  author = {{{DING_AUTHORS}}},
  title = {{{DING_TITLE}}},
  journal = {{Diabetes Care}},
  year = {{{year}}},
  volume = {{37}},
  number = {{2}},
  pages = {{569--586}},
  doi = {{{doi}}}
}}
"""


WAKEFIELD = """@article{wakefield1998,
  author = {Wakefield, Andrew J. and Murch, Simon H. and Anthony, A.},
  title = {Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive developmental disorder in children},
  journal = {The Lancet},
  year = {1998},
  volume = {351},
  pages = {637--641},
  doi = {10.1016/S0140-6736(97)11096-0}
}
"""
MISMATCH = """@article{mismatch,
  author = {Greenberg, James A.},
  title = {Decaffeinated coffee and glucose metabolism in young men},
  journal = {Diabetes Care},
  year = {2010},
  doi = {10.1109/cvpr.2016.90}
}
"""
ZHOU = """@article{zhou2020,
  author = {Zhou, Peng and Yang, Xing-Lou and Wang, Xian-Guang},
  title = {A pneumonia outbreak associated with a new coronavirus of probable bat origin},
  journal = {Nature},
  year = {2020},
  volume = {579},
  pages = {270--273}
}
"""
UNKNOWN = """@article{ramirez2019,
  author = {Ram{\\'i}rez, Quintín},
  title = {Luminous tardigrades of the northern ice shelves and their songs},
  journal = {Journal of Imaginary Biology},
  year = {2019}
}
"""
UNCITED = """@article{flagged2020,
  author = {Nobody, Ann},
  title = {A work this document does not cite},
  year = {2020},
  doi = {10.5555/openalex-flagged.2020}
}
"""
BODY = """# Coffee, vaccines and bats

Coffee drinkers had a lower risk of type 2 diabetes [@ding2014; @wakefield1998].
@wakefield1998 claimed that the vaccine caused the disorder.
Decaffeinated coffee helped too [@mismatch].
The new coronavirus probably came from bats [@zhou2020].
Tardigrades of the ice shelves glow [see @ramirez2019, p. 3].
"""
CLAIMS = {
    "ding2014": "Coffee drinkers had a lower risk of type 2 diabetes",
    "wakefield1998": "The vaccine caused the disorder",
    "mismatch": "Decaffeinated coffee helped too",
    "zhou2020": "The new coronavirus probably came from bats",
    "ramirez2019": "Tardigrades of the ice shelves glow",
    "ding2016": "Coffee drinkers had a lower risk of type 2 diabetes",
}


@pytest.fixture(scope="module")
def indexes() -> Iterator[IndexServer]:
    with serve_indexes() as server:
        yield server


@pytest.fixture(autouse=True)
def _local_indexes(indexes: IndexServer, monkeypatch: pytest.MonkeyPatch) -> None:
    indexes.serve_the_app(monkeypatch)


def project(root: Path, bibliography: str, body: str, name: str = "refs.bib") -> tuple[Path, Path]:
    """A document whose front matter names `bibliography` (in refs/), with a local text for each
    key in `sources/` (so no page is fetched: what is tested is what the indexes say)."""
    (root / "refs").mkdir()
    bib = root / "refs" / name
    bib.write_text(bibliography, encoding="utf-8")
    (root / "sources").mkdir()
    for key, claim in CLAIMS.items():
        (root / "sources" / f"{key}.txt").write_text(f"{claim}, the study found. " * 4, encoding="utf-8")
    doc = root / "doc.md"
    doc.write_text(f"---\ntitle: Draft\nbibliography: refs/{name}\n---\n\n{body}", encoding="utf-8")
    return doc, bib


def test_each_cited_entry_gets_its_finding_on_its_citations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], indexes: IndexServer
) -> None:
    bibliography = ding("ding2014") + WAKEFIELD + MISMATCH + ZHOU
    doc, bib = project(tmp_path, bibliography + UNKNOWN + UNCITED, BODY)
    before = len(indexes.state.hits)
    report = audit(doc, capsys)
    text = doc.read_text(encoding="utf-8")
    found = by_reference(report)
    checks = {s["key"]: s["check"]["status"] for s in report["sources"]}
    assert checks == {
        "ding2014": "ok",
        "wakefield1998": "ok",
        "mismatch": "different_work",
        "zhou2020": "found_by_title",
        "ramirez2019": "not_found",
    }
    # an uncited entry is not the writer's problem: never looked up, never reported
    asked = [path for path, _ in indexes.state.hits[before:]]
    assert not any("openalex-flagged" in p for p in asked)
    assert "flagged2020" not in found

    # a correct entry: no finding at all
    assert "ding2014" not in found

    # retracted: an error on each of its citations (its item in a group citing two keys), naming the notice
    retracted = found["wakefield1998"]
    assert [(f["kind"], f["severity"]) for f in retracted] == [("retracted", "error")] * 2
    assert [text[f["span"][0] : f["span"][1]] for f in retracted] == ["@wakefield1998"] * 2
    first, second = (f["span"][0] for f in retracted)
    group = text.index("[@ding2014; @wakefield1998]")
    assert group < first < group + len("[@ding2014; @wakefield1998]")
    assert second == text.index("@wakefield1998 claimed")
    for finding in retracted:
        assert finding["claim"]
        assert finding["message"].startswith("This sentence cites @wakefield1998, which is retracted")
        assert "retraction notice doi:10.1016/s0140-6736(10)60175-4, 2010-02-06" in finding["message"]
        assert "(https://doi.org/10.1016/s0140-6736(10)60175-4)" in finding["message"]
        assert finding["details"]["bibliography"] == "refs/refs.bib"

    # the DOI of another work: on the citation, the entry's place named, nothing to apply
    [mismatch] = found["mismatch"]
    assert (mismatch["kind"], mismatch["severity"]) == ("doi_mismatch", "error")
    assert text[mismatch["span"][0] : mismatch["span"][1]] == "[@mismatch]"
    assert mismatch["message"].startswith("The DOI of @mismatch (doi:10.1109/cvpr.2016.90) is")
    assert "Deep Residual Learning for Image Recognition" in mismatch["message"]
    assert "the DOI of the entry in refs/refs.bib (line 20)" in mismatch["message"]
    assert mismatch["fixes"] == []

    # no identifiers, found by title: the DOI to add shown for the .bib, not applied
    by_kind = {f["kind"]: f for f in found["zhou2020"]}
    assert set(by_kind) == {"found_by_title", "correction"}
    offer = by_kind["found_by_title"]
    assert offer["severity"] == "info"
    assert text[offer["span"][0] : offer["span"][1]] == "[@zhou2020]"
    assert offer["message"].startswith("Crossref knows @zhou2020 as doi:10.1038/s41586-020-2012-7")
    assert "Add doi = {10.1038/s41586-020-2012-7} to the entry in refs/refs.bib (line 27)" in offer["message"]
    assert offer["fixes"] == []
    assert by_kind["correction"]["severity"] == "info"

    # an unknown title: a warning to check it exists, never "fabricated"
    [unknown] = found["ramirez2019"]
    assert (unknown["kind"], unknown["severity"]) == ("not_found", "warning")
    assert text[unknown["span"][0] : unknown["span"][1]] == "[see @ramirez2019, p. 3]"
    assert "No index knows @ramirez2019" in unknown["message"]
    assert "does not mean it is fabricated" in unknown["message"]
    assert "refs/refs.bib (line 35)" in unknown["message"]

    assert bib.read_text(encoding="utf-8") == bibliography + UNKNOWN + UNCITED


def test_the_right_work_with_a_wrong_year_is_shown_for_the_bibliography_and_nothing_is_applied(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "# Coffee\n\nCoffee drinkers had a lower risk of type 2 diabetes [@ding2016].\n"
    bibliography = "% exported by hand\n\n" + ding("ding2016", year="2016")
    doc, bib = project(tmp_path, bibliography, body)
    original, original_bib = doc.read_bytes(), bib.read_bytes()
    report = audit(doc, capsys)
    [finding] = report["findings"]
    assert (finding["kind"], finding["severity"]) == ("metadata_error", "warning")
    text = doc.read_text(encoding="utf-8")
    assert text[finding["span"][0] : finding["span"][1]] == "[@ding2016]"
    assert finding["message"] == (
        "@ding2016 gives the year as “2016”, but Crossref's record of doi:10.2337/dc13-1203 says “2014”. "
        "Correct it in refs/refs.bib (line 3): year = {2014}."
    )
    assert finding["fixes"] == []
    details = finding["details"]
    assert (details["field"], details["cited"], details["actual"]) == ("year", "2016", "2014")
    assert (details["bibliography"], details["line"]) == ("refs/refs.bib", 3)
    assert report["sources"][0]["check"]["status"] == "metadata_error"

    # `fix --kinds all` has nothing to apply: the document and the bibliography stay byte-identical
    assert main(["fix", str(doc), "--kinds", "all", *flags(tmp_path)]) == 1  # it remains
    assert "nothing to fix (any kind)" in capsys.readouterr().err
    assert doc.read_bytes() == original
    assert bib.read_bytes() == original_bib


def test_a_csl_json_bibliography_is_told_in_its_own_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = [
        {
            "id": "ding2016",
            "type": "article-journal",
            "title": DING_TITLE,
            "author": [{"family": "Ding", "given": "Ming"}, {"family": "Hu", "given": "Frank B."}],
            "container-title": "Diabetes Care",
            "volume": "73",
            "page": "569-586",
            "issued": {"date-parts": [[2016]]},
            "DOI": "10.2337/dc13-1203",
        }
    ]
    body = "# Coffee\n\nCoffee drinkers had a lower risk of type 2 diabetes [@ding2016].\n"
    doc, _ = project(tmp_path, json.dumps(items, indent=2), body, name="refs.json")
    report = audit(doc, capsys)
    messages = {f["details"]["field"]: f["message"] for f in report["findings"]}
    assert set(messages) == {"year", "volume"}  # the parsed fields compared, not text scraped
    assert messages["year"].endswith(
        'Correct it in refs/refs.json (line 3): "issued": {"date-parts": [[2014]]}.'
    )
    assert messages["volume"].endswith('Correct it in refs/refs.json (line 3): "volume": "37".')
    assert all(f["fixes"] == [] for f in report["findings"])


def test_an_imported_snapshot_flags_a_cited_key_offline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], indexes: IndexServer
) -> None:
    store = str(tmp_path / "store.sqlite3")
    assert main(["retractions", "import", str(SNAPSHOT_SAMPLE), "--store", store]) == 0
    capsys.readouterr()
    body = (
        "# Vaccines\n\nThe vaccine caused the disorder [@wakefield1998; @ramirez2019].\n\n"
        "As @wakefield1998 put it, the link was clear.\n"
    )
    doc, _ = project(tmp_path, WAKEFIELD + UNKNOWN + ding("other", doi="10.9999/never.registered"), body)
    before = len(indexes.state.hits)
    report = audit(doc, capsys, "--offline")
    assert len(indexes.state.hits) == before  # offline: nothing asked
    text = doc.read_text(encoding="utf-8")
    assert {(f["kind"], f["reference"]) for f in report["findings"]} == {("retracted", "wakefield1998")}
    spans = [text[f["span"][0] : f["span"][1]] for f in report["findings"]]
    assert spans == ["@wakefield1998", "@wakefield1998"]
    for finding in report["findings"]:
        assert "doi:10.1016/s0140-6736(10)60175-4, 2010-02-06" in finding["message"]
        assert "Falsification/Fabrication of Data" in finding["message"]
    checks = {s["key"]: s["check"] for s in report["sources"]}
    assert set(checks) == {"wakefield1998", "ramirez2019"}  # `other` is not cited
    assert checks["wakefield1998"]["standing"]["source"] == "retraction-watch-snapshot"
    assert checks["ramirez2019"]["status"] == "not_checked"
    assert report["retractions"]["offline"] is True
    assert report["retractions"]["snapshot"]["newest"] == "2024-02-14"


def test_a_doi_registered_nowhere_shows_the_right_one_and_only_citations_are_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ghost = ZHOU.replace("zhou2020", "ghost").replace(
        "  pages", "  doi = {10.1038/s41586-020-9999-x},\n  pages"
    )
    body = "# Bats\n\nThe new coronavirus probably came from bats [@ghost; @ramirez2019].\n"
    doc, bib = project(tmp_path, "\n" + ghost + UNKNOWN, body)
    original_bib = bib.read_bytes()
    report = audit(doc, capsys)
    [fabricated] = [f for f in report["findings"] if f["reference"] == "ghost"]
    assert (fabricated["kind"], fabricated["severity"]) == ("fabricated_reference", "error")
    text = doc.read_text(encoding="utf-8")
    assert text[fabricated["span"][0] : fabricated["span"][1]] == "@ghost"
    assert "the entry's title finds doi:10.1038/s41586-020-2012-7" in fabricated["message"]
    assert fabricated["message"].endswith(
        "Correct it in refs/refs.bib (line 2): doi = {10.1038/s41586-020-2012-7}."
    )
    assert [fx["title"] for fx in fabricated["fixes"]] == ["Remove every citation of @ghost"]

    assert main(["fix", str(doc), "--kinds", "fabricated_reference", *flags(tmp_path)]) == 1
    capsys.readouterr()
    assert doc.read_text(encoding="utf-8") == text.replace("[@ghost; @ramirez2019]", "[@ramirez2019]")
    assert bib.read_bytes() == original_bib


def test_entries_in_the_front_matter_are_placed_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "ding2016.txt").write_text(CLAIMS["ding2016"] + ". " * 4, encoding="utf-8")
    doc = tmp_path / "doc.md"
    doc.write_text(
        "---\ntitle: Draft\nreferences:\n"
        "- id: ding2016\n  type: article-journal\n"
        f"  title: '{DING_TITLE}'\n"
        "  author:\n  - family: Ding\n    given: Ming\n"
        "  issued: 2016\n  DOI: 10.2337/dc13-1203\n"
        "---\n\nCoffee drinkers had a lower risk of type 2 diabetes [@ding2016].\n",
        encoding="utf-8",
    )
    original = doc.read_bytes()
    report = audit(doc, capsys)
    [finding] = report["findings"]
    assert finding["kind"] == "metadata_error"
    assert finding["message"].endswith("Correct it in the document's front matter (line 4): issued: 2014.")
    assert finding["fixes"] == []
    assert main(["fix", str(doc), "--kinds", "all", *flags(tmp_path)]) == 1  # it remains
    assert doc.read_bytes() == original


def bib_work(text: str, *, path: str | None = None) -> BibReference:
    [parsed] = parse_bibliography(text, BibFormat.BIBTEX).entries
    return BibReference.from_entry(parsed, path=path, source="refs.bib")


def test_an_entry_is_compared_field_by_field_as_parsed(indexes: IndexServer) -> None:
    wrong = ding("ding2014").replace("{Diabetes Care}", "{Diabetes Research}").replace("569--586", "579--586")
    as_book = (
        ding("ding2014")
        .replace("@article", "@book")
        .replace("journal = {Diabetes Care}", "publisher = {American Diabetes Association}")
    )
    with ReferenceChecker(indexes.config(), fetch_policy=POLICY) as checker:
        check = checker.check(bib_work(wrong))
        book = checker.check(bib_work(as_book))
    assert check.status is CheckStatus.METADATA_ERROR
    assert {(d.field, d.cited, d.actual) for d in check.differences} == {
        ("venue", "Diabetes Research", "Diabetes Care"),
        ("pages", "579–586", "569-586"),
    }
    # a book's container is its publisher, which no index gives as the venue: not compared
    assert book.status is CheckStatus.OK, book.differences


def test_entries_with_a_local_copy_and_no_doi_are_read_not_looked_up() -> None:
    assert wants_check(bib_work(ZHOU))
    assert not wants_check(bib_work(ZHOU, path="papers/zhou.pdf"))
    assert wants_check(bib_work(ding("d"), path="papers/ding.pdf"))


def test_an_entry_listed_only_by_nocite_is_checked_and_told_on_its_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`nocite:` prints an entry in the bibliography without a citation: its truth is checked like a
    cited one's, and a retraction is told on its `@key` in the front matter (issue 43 #11)."""
    store = str(tmp_path / "store.sqlite3")
    assert main(["retractions", "import", str(SNAPSHOT_SAMPLE), "--store", store]) == 0
    capsys.readouterr()
    doc, _ = project(tmp_path, WAKEFIELD + UNKNOWN, "# Vaccines\n\nSome background [@ramirez2019].\n")
    doc.write_text(
        doc.read_text(encoding="utf-8").replace(
            "title: Draft\n", "title: Draft\nnocite: |\n  @wakefield1998\n"
        ),
        encoding="utf-8",
    )
    report = audit(doc, capsys, "--offline")
    text = doc.read_text(encoding="utf-8")
    [retracted] = [f for f in report["findings"] if f["kind"] == "retracted"]
    assert retracted["reference"] == "wakefield1998"
    assert text[retracted["span"][0] : retracted["span"][1]] == "@wakefield1998"
    assert text.index("nocite") < retracted["span"][0] < text.index("bibliography:")
    assert "is retracted" in retracted["message"]


def test_latex_nocite_entries_are_checked_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "store.sqlite3")
    assert main(["retractions", "import", str(SNAPSHOT_SAMPLE), "--store", store]) == 0
    capsys.readouterr()
    (tmp_path / "refs.bib").write_text(WAKEFIELD + UNKNOWN, encoding="utf-8")
    (tmp_path / "sources").mkdir()
    doc = tmp_path / "paper.tex"
    doc.write_text(
        "\\documentclass{article}\n\\begin{document}\nSome background \\cite{ramirez2019}.\n"
        "\\nocite{wakefield1998}\n\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8",
    )
    report = audit(doc, capsys, "--offline")
    text = doc.read_text(encoding="utf-8")
    [retracted] = [f for f in report["findings"] if f["kind"] == "retracted"]
    assert text[retracted["span"][0] : retracted["span"][1]] == "wakefield1998"
    assert text.index("\\nocite") < retracted["span"][0]
