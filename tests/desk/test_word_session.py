"""A Word document in the desk (issue 30): a plan is admitted only when the .docx can say it, so a
fix its fields cannot express (adding a citation where no field is) is left out with why, and the
others are still written; after a write, the session's text is the package read again."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import docx
import pytest

from citedesk.core.findings import Fix
from citedesk.core.operations import AddCitation, RemoveCitation, RetargetCitation
from citedesk.core.repair import make_fix
from citedesk.core.word import read_docx
from citedesk.desk import AuditOptions, Desk
from citedesk.errors import RepairError, UsageError
from citedesk.files import BACKUP_SUFFIX
from tests.conftest import MAKE_SAMPLE

MAKER: dict[str, Any] = runpy.run_path(str(MAKE_SAMPLE))
SENTENCE = "Neighbourhoods with more tree canopy were cooler in the afternoon "
UNCITED = "Parks cool whole districts."


@pytest.fixture
def paper(tmp_path: Path) -> Path:
    """One paragraph: a cited sentence (one Zotero field), then a sentence with no citation."""
    document = docx.Document()
    paragraph = document.add_paragraph()
    paragraph.add_run(SENTENCE)
    MAKER["add_citation"](paragraph, "c1", [MAKER["MOREAU"]], "(Moreau & Okafor, 2021)")
    paragraph.add_run(". " + UNCITED)
    path = tmp_path / "paper.docx"
    document.save(str(path))
    return path


@pytest.fixture
def desk(tmp_path: Path) -> Desk:
    return Desk(AuditOptions(offline=True, judge="none", store_path=tmp_path / "store.sqlite3"))


def _fix(title: str, report: Any, operation: AddCitation | RemoveCitation | RetargetCitation) -> Fix:
    made = make_fix(title, report.document, [operation])
    assert made is not None
    return made


def test_a_fix_the_docx_cannot_say_is_left_out_and_the_rest_is_written(desk: Desk, paper: Path) -> None:
    session = desk.open(paper)
    assert session.read_only
    assert session.text == read_docx(paper.read_bytes(), "paper.docx").text
    report = session.structure_report()
    end = session.text.index(UNCITED) + len(UNCITED) - 1
    add = _fix("Cite @moreau2021 here", report, AddCitation(end, "moreau2021"))
    remove = _fix("Remove @moreau2021", report, RemoveCitation(0, "moreau2021"))
    with pytest.raises(RepairError, match="Word"):
        session.plan(report, [add])  # the view could say it; the .docx cannot
    plan, refused = session.plan_most(report, [add, remove])
    assert [(fix.title, "Word" in why) for fix, why in refused] == [("Cite @moreau2021 here", True)]
    assert plan.fixes == (remove,)
    before = paper.read_bytes()
    backup = session.write(plan.result, backup=True)
    assert backup == paper.with_name(paper.name + BACKUP_SUFFIX)
    assert backup.read_bytes() == before
    again = read_docx(paper.read_bytes(), "paper.docx")
    assert session.text == again.text
    assert "@moreau2021" not in again.text.split("---")[-1]
    assert f"afternoon. {UNCITED}" in again.text
    assert docx.Document(str(paper)).paragraphs[0].text == f"{SENTENCE.rstrip()}. {UNCITED}"


def test_a_word_document_is_not_saved_as_text_but_its_text_exports(
    desk: Desk, paper: Path, tmp_path: Path
) -> None:
    session = desk.open(paper)
    with pytest.raises(UsageError, match="Word document"):
        session.save_as(session.text, tmp_path / "copy.docx")
    session.export_text(tmp_path / "paper.md")
    assert (tmp_path / "paper.md").read_text(encoding="utf-8") == session.text
    assert not (tmp_path / "copy.docx").exists()


def test_a_swapped_in_work_is_shown_in_the_documents_own_style(desk: Desk, tmp_path: Path) -> None:
    """A work the document shows alone nowhere is displayed as the document shows other works alone
    (`(Hartley 2022)` beside `(Moreau & Okafor 2021)`), not in another style's `(Hartley, 2022)`
    (issue 43 #5)."""
    document = docx.Document()
    first = document.add_paragraph()
    first.add_run(SENTENCE)
    MAKER["add_citation"](first, "c1", [MAKER["MOREAU"]], "(Moreau & Okafor 2021)")
    first.add_run(".")
    second = document.add_paragraph()
    second.add_run("Street trees halve the stormwater that runs off city streets ")
    MAKER["add_citation"](
        second,
        "c2",
        [MAKER["HARTLEY"], MAKER["CLIMATE"]],
        "(Hartley & Venn 2022; Regional Climate Office 2020)",
    )
    second.add_run(".")
    path = tmp_path / "styled.docx"
    document.save(str(path))
    session = desk.open(path)
    report = session.structure_report()
    swap = _fix("Cite Hartley instead", report, RetargetCitation(0, "moreau2021", "hartley2022"))
    session.write(session.plan(report, [swap]).result, backup=False)
    shown = docx.Document(str(path)).paragraphs[0].text
    assert shown == f"{SENTENCE}(Hartley 2022)."
