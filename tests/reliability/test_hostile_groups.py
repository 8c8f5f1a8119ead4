"""One citation group of tens of thousands of keys: read, checked, offered a fix per key and fixed
all at once in linear time. `[1, 2, …, 30000]` hung (each key's fix rewrote the whole group, and
the plan re-filtered the group per key); `[@k0; …; @k19999]` took 34 s (a bracket that long is
read as 20,000 in-text citations, and each one's fix scanned every group).

The end-to-end runs are the real command in a child process with a watchdog (a hang fails the test
instead of hanging the suite); the shape of each fix — a local edit of one item, not a rewrite of
the group — is checked in process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from citedesk.core.bibliographies.model import BibFormat
from citedesk.core.bibliographies.parse import parse_bibliography
from citedesk.core.checks import structural_findings
from citedesk.core.dialects.pandoc.dialect import PANDOC
from citedesk.core.document.works import BibReference
from citedesk.core.findings import Kind
from citedesk.core.plan import plan_repairs
from citedesk.core.reading import parse_document
from citedesk.core.repair import apply_edits
from tests.conftest import REPO

WATCHDOG_S = 300
"""Each run takes some 10-20 s here; before, the numbered one did not finish in an hour."""
REFERENCES = 50


def _numbered(keys: int) -> str:
    references = "\n".join(f"{n}. Reference {n}. A study {n}." for n in range(1, REFERENCES + 1))
    group = ", ".join(str(n) for n in range(1, keys + 1))
    return f"A claim [{group}].\n\n## References\n\n{references}\n"


def _pandoc(keys: int) -> str:
    return "A claim [" + "; ".join(f"@k{n}" for n in range(keys)) + "].\n"


def _bibliography(path: Path) -> Path:
    path.write_text(
        "".join(
            f"@article{{k{n},title={{T{n}}},author={{A, B}},year={{2000}}}}\n" for n in range(REFERENCES)
        ),
        encoding="utf-8",
    )
    return path


def _audit(doc: Path, *flags: str) -> dict[str, object]:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "citedesk",
            "audit",
            str(doc),
            "--offline",
            "--no-sources",
            "--format",
            "json",
            *flags,
        ],
        capture_output=True,
        text=True,
        timeout=WATCHDOG_S,
        cwd=REPO,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
    )
    assert result.returncode == 1, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    report: dict[str, object] = json.loads(result.stdout)
    return report


def _kinds(report: dict[str, object]) -> list[str]:
    findings = report["findings"]
    assert isinstance(findings, list)
    return [f["kind"] for f in findings]


def test_a_numbered_group_of_thirty_thousand_is_audited(tmp_path: Path) -> None:
    doc = tmp_path / "group.md"
    doc.write_text(_numbered(30_000), encoding="utf-8")
    kinds = _kinds(_audit(doc))
    assert kinds.count(Kind.FABRICATED.value) == 30_000 - REFERENCES


def test_a_pandoc_group_of_twenty_thousand_is_audited(tmp_path: Path) -> None:
    doc = tmp_path / "group.md"
    doc.write_text(_pandoc(20_000), encoding="utf-8")
    report = _audit(doc, "--bibliography", str(_bibliography(tmp_path / "refs.bib")))
    assert len(_kinds(report)) >= 20_000 - REFERENCES  # each key the bibliography lacks, said once


def test_each_key_of_a_large_numbered_group_is_fixed_in_place_and_all_together() -> None:
    text = _numbered(3_000)
    document = parse_document(text, None)
    fabricated = [f for f in structural_findings(document) if f.kind is Kind.FABRICATED]
    assert len(fabricated) == 3_000 - REFERENCES
    for finding in fabricated:  # one item and its separator, not the group rewritten per key
        (edit,) = finding.fixes[0].edits
        assert not edit.replacement, edit
        assert edit.end - edit.start <= len(", 3000"), edit
    one = apply_edits(text, fabricated[0].fixes[0].edits)
    assert one.startswith("A claim [1, 2, ")
    assert ", 51, " not in one
    assert ", 52, " in one
    plan = plan_repairs(document, [f.fixes[0] for f in fabricated])
    assert plan.result.startswith("A claim [" + ", ".join(map(str, range(1, REFERENCES + 1))) + "].\n")


def test_each_key_of_a_large_pandoc_group_is_fixed_in_place(tmp_path: Path) -> None:
    bib = parse_bibliography(_bibliography(tmp_path / "refs.bib").read_text("utf-8"), BibFormat.BIBTEX)
    works = [BibReference.from_entry(entry) for entry in bib.entries]
    text = _pandoc(280)  # a bracket is searched for a group up to citekeys.MAX_GROUP characters
    document = parse_document(text, None, works, dialect=PANDOC)
    assert len(document.markers) == 1
    findings = [f for f in structural_findings(document) if f.fixes]
    assert len(findings) == 280 - REFERENCES
    for finding in findings:
        for fix in finding.fixes:
            (edit,) = fix.edits
            assert edit.end - edit.start <= len("@k279; "), edit
