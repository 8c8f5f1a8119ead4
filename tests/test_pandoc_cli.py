"""Issue 19, end to end through the command: a pandoc document and its bibliography (BibTeX with
`file` fields, or CSL-JSON with `--sources DIR`) audited and fixed; many chapters at once; Zotero."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from citedesk.cli import main
from citedesk.core.dialects.pandoc.repair import citation_prose
from citedesk.core.document.citekeys import find_citations
from tests.conftest import SAMPLES
from tests.sources.test_zotero import Library, zotero  # noqa: F401 - the fixture

TEXTS = {
    "moreau2021": "Street trees and summer heat in Lyon.\n\nWe measured air temperature on streets with and "
    "without tree cover during three summers. Streets shaded by mature trees were on average 2.1 degrees "
    "cooler in the afternoon than comparable streets with little shade. The cooling was strongest on "
    "narrow streets.\n",
    "forestry2019": "Canopy cover survey 2019.\n\nThe city's tree canopy covered 27 percent of the municipal "
    "area in 2019, up from 22 percent in 2009. Most new canopy was planted in parks rather than along "
    "streets. Tree planting budgets doubled over the decade.\n",
    "smith2004": "Pollen counts in spring.\n\nBirch pollen counts peaked in April in every year of the "
    "study. On page two we report that pollen seasons started eleven days earlier in 2003 than in 1990.\n",
}
BODY = """# Trees in the city

Streets shaded by mature trees were on average 2.1 degrees cooler in the afternoon [see @moreau2021, p. 3; @ghost2020].
The city's tree canopy covered 27 percent of the municipal area in 2019 [@moreau2021].
@smith2004 [p. 2] reports that pollen seasons started eleven days earlier in 2003 than in 1990.

Questions go to jane@example.com.

```
[@notakey] is code, not a citation
```
"""
FIXED = BODY.replace("[see @moreau2021, p. 3; @ghost2020]", "[see @moreau2021, p. 3]").replace(
    "2019 [@moreau2021]", "2019 [@forestry2019]"
)
BIBTEX = r"""@article{moreau2021,
  author = {Moreau, Anne and Petit, Jean},
  title = {Street Trees and Summer Heat in {Lyon}},
  journal = {Urban Climate},
  year = {2021},
  file = {papers/moreau2021.txt}
}
@report{forestry2019,
  author = {{City Forestry Office}},
  title = {Canopy Cover Survey 2019},
  year = {2019},
  file = {:papers/forestry2019.txt:Text}
}
@article{smith2004,
  author = {Smith, J{\"o}rg},
  title = {Pollen Counts in Spring},
  year = {2004},
  file = {Full Text:papers/smith2004.txt:text/plain}
}
@book{unused2000,
  author = {Nobody, Ann},
  title = {A Book Nobody Cites},
  year = {2000}
}
"""
CSL = [
    {
        "id": "moreau2021",
        "type": "article-journal",
        "title": "Street trees and summer heat in Lyon",
        "author": [{"family": "Moreau", "given": "Anne"}, {"family": "Petit", "given": "Jean"}],
        "issued": {"date-parts": [[2021]]},
    },
    {
        "id": "forestry2019",
        "type": "report",
        "title": "Canopy cover survey 2019",
        "author": [{"literal": "City Forestry Office"}],
        "issued": {"date-parts": [[2019]]},
    },
    {
        "id": "smith2004",
        "type": "article-journal",
        "title": "Pollen counts in spring",
        "author": [{"family": "Smith", "given": "John"}],
    },
    {"id": "unused2000", "type": "book", "title": "A book nobody cites"},
]
JUDGE = ["--offline", "--judge", "heuristic", "--no-dense"]


@dataclass
class Project:
    document: Path
    bibliography: Path
    flags: list[str]


def bibtex_project(root: Path) -> Project:
    """YAML `bibliography:` naming a .bib in a subfolder, its `file` fields relative to it."""
    for key, text in TEXTS.items():
        (root / "refs" / "papers").mkdir(parents=True, exist_ok=True)
        (root / "refs" / "papers" / f"{key}.txt").write_text(text, encoding="utf-8")
    bib = root / "refs" / "refs.bib"
    bib.write_text(BIBTEX, encoding="utf-8")
    document = root / "doc.md"
    document.write_text("---\ntitle: Trees\nbibliography: refs/refs.bib\n---\n\n" + BODY, encoding="utf-8")
    return Project(document, bib, [])


def csl_project(root: Path) -> Project:
    """A CSL-JSON bibliography given on the command line, sources named by key in a folder."""
    (root / "sources").mkdir()
    for key, text in TEXTS.items():
        suffix = ".md" if key == "forestry2019" else ".txt"
        (root / "sources" / f"{key}{suffix}").write_text(text, encoding="utf-8")
    bib = root / "refs.json"
    bib.write_text(json.dumps(CSL, indent=2), encoding="utf-8")
    document = root / "doc.md"
    document.write_text(BODY, encoding="utf-8")
    return Project(document, bib, ["--bibliography", str(bib), "--sources", str(root / "sources")])


def audit_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["audit", *args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("make", [bibtex_project, csl_project], ids=["bibtex-files", "csl-json-sources"])
def test_a_pandoc_document_is_audited_and_fixed_in_its_bibliographys_terms(
    make: Callable[[Path], Project], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project: Project = make(tmp_path)
    text = project.document.read_text(encoding="utf-8")
    bib_bytes = project.bibliography.read_bytes()
    code, report = audit_json(capsys, str(project.document), *project.flags, *JUDGE)
    assert code == 1

    # every bibliography entry read, as plain text
    references = {r["key"]: r for r in report["references"]}
    assert list(references) == ["moreau2021", "forestry2019", "smith2004", "unused2000"]
    assert references["moreau2021"]["title"].lower() == "street trees and summer heat in lyon"
    assert references["moreau2021"]["authors"] == "Moreau, Anne; Petit, Jean"
    assert [k for k, r in references.items() if r["cited"]] == ["moreau2021", "smith2004"]

    findings = report["findings"]
    kinds = [f["kind"] for f in findings]
    # the missing key is the only fabricated citation: not the code block, not the e-mail address
    fabricated = [f for f in findings if f["kind"] == "unknown_key"]
    assert [f["reference"] for f in fabricated] == ["ghost2020"]
    start, end = fabricated[0]["span"]
    assert text[start:end] == "@ghost2020"
    assert [fix["title"] for fix in fabricated[0]["fixes"]] == ["Remove @ghost2020"]
    email = next(c for c in report["claims"] if "jane@example.com" in c["text"])
    assert email["markers"] == []
    # an uncited bibliography entry is no orphan
    assert "orphan_reference" not in kinds
    # a misattribution, with a fix that swaps the key
    (wrong,) = [f for f in findings if f["kind"] == "misattributed"]
    assert wrong["reference"] == "moreau2021"
    assert wrong["details"]["suggested"] == "forestry2019"
    assert [fix["title"] for fix in wrong["fixes"]] == ["Cite @forestry2019 instead of @moreau2021"]
    # the in-text citation with a locator is judged against its own file, as a sentence with a subject
    in_text = next(c for c in report["claims"] if c["markers"] == ["smith2004"])
    assert in_text["text"].startswith("Smith reports that pollen seasons")
    (verdict,) = in_text["verdicts"]
    assert verdict["label"] == "supported"
    assert "eleven days earlier" in verdict["evidence"]["passage"]
    sources = {s["key"]: s for s in report["sources"]}
    assert set(sources) == {"moreau2021", "smith2004"}  # the cited keys
    assert sources["smith2004"]["status"] == "local"
    assert report["summary"]["citations"] == 4
    assert report["summary"]["unchecked_reasons"] == {"key not in the bibliography": 1}

    # fix everything: the missing key leaves its group, the wrong key is swapped (the word-level
    # judge's swap is a suggestion to verify: applied when asked), nothing else moves
    unsafe = "--unsafe-fixes"
    assert main(["fix", str(project.document), "--kinds", "all", unsafe, *project.flags, *JUDGE]) == 0
    fixed = project.document.read_text(encoding="utf-8")
    assert fixed == text.replace(BODY, FIXED)
    assert citation_prose(fixed, find_citations(fixed)) == citation_prose(text, find_citations(text))
    assert project.bibliography.read_bytes() == bib_bytes
    # and a second run has nothing left to fix
    assert main(["fix", str(project.document), "--kinds", "all", unsafe, *project.flags, *JUDGE]) == 0
    assert project.document.read_text(encoding="utf-8") == fixed


def test_chapters_are_audited_against_one_bibliography_with_a_summary_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = csl_project(tmp_path)
    chapters = tmp_path / "chapters"
    chapters.mkdir()
    one = chapters / "01-trees.md"
    one.write_text(BODY, encoding="utf-8")
    two = chapters / "02-pollen.md"
    two.write_text(
        "# Pollen\n\n@smith2004 found that pollen seasons started eleven days earlier in 2003 than in 1990. "
        "Birch pollen peaked in April [@nobody1999].\n",
        encoding="utf-8",
    )
    args = [str(one), str(two), *project.flags, *JUDGE]
    code, combined = audit_json(capsys, *args)
    assert code == 1
    assert [r["document"] for r in combined["files"]] == [str(one), str(two)]
    rows = combined["summary"]["files"]
    assert [(r["citations"], r["checked"]) for r in rows] == [(4, 3), (2, 1)]
    assert rows[0]["by_kind"] == {"unknown_key": 1, "misattributed": 1}
    assert rows[1]["by_kind"] == {"unknown_key": 1}
    assert combined["summary"]["total"] == {
        "document": "total",
        "citations": 6,
        "checked": 4,
        "unchecked": 2,
        "unchecked_reasons": {"key not in the bibliography": 2},
        "nothing_checked": False,
        "findings": 3,
        "by_kind": {"unknown_key": 2, "misattributed": 1},
        "by_severity": {"error": 2, "warning": 1, "info": 0},
    }

    assert main(["audit", *args]) == 1
    out = capsys.readouterr().out
    table = out[out.index("\nSummary\n") :].splitlines()[2:]
    assert table[0].split() == ["file", "citations", "checked", "findings", "misattributed", "unknown_key"]
    assert table[1].split() == [str(one), "4", "3", "2", "1", "1"]
    assert table[2].split() == [str(two), "2", "1", "1", "1"]
    assert table[3].split() == ["total", "6", "4", "3", "1", "2"]
    assert out.count("Not in the bibliography (1)") == 2  # each file's own report comes first

    # a file that cannot be read: said, the others still audited, exit 2
    code, combined = audit_json(capsys, str(one), str(chapters / "03-missing.md"), *project.flags, *JUDGE)
    assert code == 2
    assert combined["files"][0]["summary"]["total"] == 2
    assert "does not exist" in combined["files"][1]["error"]
    # a shared bibliography that cannot be read stops everything at once
    assert main(["audit", str(one), str(two), "--bibliography", str(tmp_path / "none.bib"), *JUDGE]) == 2
    assert "none.bib: the file does not exist" in capsys.readouterr().err
    assert main(["audit", str(one), str(two), "--format", "html", *project.flags]) == 2


def test_a_key_without_a_file_is_read_from_zotero_by_doi_and_zotero_is_not_written(
    zotero: Library,  # noqa: F811 - the fixture
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    item = zotero.item("AAAA1111", title="Pollen counts in spring", DOI="10.1000/POLLEN.4")
    stored = zotero.attach(item, "TXTSMITH", "storage:Smith - 2004 - Pollen.txt", "text/plain")
    assert stored is not None
    stored.write_text(TEXTS["smith2004"], encoding="utf-8")
    zotero.db.commit()
    database = zotero.data / "zotero.sqlite"
    before = database.read_bytes()
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{smith2004, title = {Pollen Counts in Spring}, doi = {10.1000/pollen.4}}\n")
    document = tmp_path / "doc.md"
    document.write_text(
        "@smith2004 reports that pollen seasons started eleven days earlier in 2003 than in 1990.\n",
        encoding="utf-8",
    )
    flags = [str(document), "--bibliography", str(bib), *JUDGE]
    code, report = audit_json(capsys, *flags, "--zotero-dir", str(zotero.data))
    assert code == 0
    (source,) = report["sources"]
    assert (source["status"], source["location"]) == ("local", str(stored))
    assert report["claims"][0]["verdicts"][0]["label"] == "supported"
    assert database.read_bytes() == before
    # without Zotero, the DOI is all there is, and offline it is not checked (with why)
    code, report = audit_json(capsys, *flags, "--zotero-dir", str(zotero.data), "--no-zotero")
    assert report["summary"]["unchecked_reasons"] == {"offline": 1}


def test_the_bundled_pandoc_sample(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["samples"]) == 0
    assert f"pandoc\t{SAMPLES / 'pandoc.md'}" in capsys.readouterr().out
    code, report = audit_json(capsys, str(SAMPLES / "pandoc.md"), *JUDGE)
    assert code == 1
    assert [(f["kind"], f["reference"], [x["title"] for x in f["fixes"]]) for f in report["findings"]] == [
        ("unknown_key", "lindqvist2018", ["Remove @lindqvist2018"]),
        ("misattributed", "moreau2021", ["Cite @forestry2019 instead of @moreau2021"]),
    ]
    # every local copy read through the .bib's `file` fields (Zotero, Better BibTeX, JabRef forms)
    assert {s["key"]: s["status"] for s in report["sources"]} == {
        "climateoffice": "local",
        "moreau2021": "local",
    }
    assert (report["summary"]["citations"], report["summary"]["checked"]) == (6, 5)
    # the duplicate entries of one book are not reported: neither is cited
    assert len(report["references"]) == 5


# --- cross-references and a missing bibliography ------------------------------------------------------
CROSS_REFERENCES = """---
bibliography: refs.bib
---
# Results {#sec:results}

Streets shaded by mature trees were cooler [@moreau2021], as @fig-map shows and [@sec:intro] explains.
The canopy grew [@tbl:canopy; @forestry2019], unlike @ghost2020 claims.

![Map](map.png){#fig-map}
"""


def test_cross_references_are_not_citations_and_no_fix_touches_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pandoc-crossref's `[@sec:intro]` and Quarto's `@fig-map` point into the document: they are
    neither counted nor called fabricated, and fixing everything leaves them as they are."""
    (tmp_path / "refs.bib").write_text(BIBTEX, encoding="utf-8")
    document = tmp_path / "chapter.md"
    document.write_text(CROSS_REFERENCES, encoding="utf-8")
    main(["audit", str(document), "--format", "json", "--offline", "--judge", "none"])
    report = json.loads(capsys.readouterr().out)
    fabricated = [f["reference"] for f in report["findings"] if f["kind"] == "unknown_key"]
    assert fabricated == ["ghost2020"]
    assert not {f["reference"] for f in report["findings"]} & {"fig-map", "sec:intro", "tbl:canopy"}
    cited = [v["reference"] for claim in report["claims"] for v in claim["verdicts"]]
    assert sorted(cited) == ["forestry2019", "ghost2020", "moreau2021"]
    assert report["summary"]["citations"] == 3
    main(["fix", str(document), "--kinds", "all", "--offline", "--judge", "none"])
    capsys.readouterr()
    after = document.read_text(encoding="utf-8")
    for label in ("@fig-map", "[@sec:intro]", "[@tbl:canopy; @forestry2019]", "{#fig-map}"):
        assert label in after


def test_pandoc_citations_with_no_bibliography_are_reported_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A document that cites keys but names no bibliography is not "clean": every citation is listed
    as not checked, the report says what to do, and no key is called fabricated."""
    document = tmp_path / "draft.md"
    document.write_text(
        "# Heat\n\nTrees cool cities [@moreau2021], as [@lee2019, p. 4] found.\n", encoding="utf-8"
    )
    main(["audit", str(document), "--format", "json", "--offline"])
    report = json.loads(capsys.readouterr().out)
    assert report["findings"] == []
    summary = report["summary"]
    assert (summary["citations"], summary["checked"], summary["unchecked"]) == (2, 0, 2)
    assert summary["unchecked_reasons"] == {"no bibliography to look the key up in": 2}
    assert any("names no bibliography" in notice for notice in report["notices"])
    assert main(["audit", str(document), "--offline"]) == 0
    text = capsys.readouterr().out
    assert "0 of 2 citations checked" in text
    assert "--bibliography FILE" in text


def test_a_broken_bibliography_is_reported_once_by_file_and_line(tmp_path: Path) -> None:
    """In a process of its own (pytest's log capture would hide the parser's own log lines)."""
    import subprocess
    import sys

    (tmp_path / "refs.bib").write_text("@article{broken,\n  title = {Street trees\n", encoding="utf-8")
    document = tmp_path / "draft.md"
    document.write_text("---\nbibliography: refs.bib\n---\nTrees cool cities [@broken].\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "citedesk", "audit", str(document), "--offline"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith(
        f"citedesk: {tmp_path / 'refs.bib'}, line 3, column 1:"
    )  # where pandoc stops
    assert done.stderr.count("\n") == 1  # one line: not the parser's own log lines as well
