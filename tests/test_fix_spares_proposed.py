"""A safe fix never removes what a pending suggestion needs (issue 38): with [2] misattributed and
[3] (cited nowhere) the source that supports the sentence, `fix --kinds all` used to remove [3] as
an orphan, so the suggested swap to [3] could no longer be applied, even with `--unsafe-fixes`."""

from __future__ import annotations

from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.core.reading import parse_document
from tests.test_trust import LOCAL, SWAP_AND_ORPHAN, report_of, write


def test_safe_fixes_keep_the_orphan_a_swap_proposes_and_the_swap_still_applies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = write(tmp_path, SWAP_AND_ORPHAN)
    findings = {(f["kind"], f["reference"]): f for f in report_of(document, capsys)["findings"]}
    assert findings[("misattributed", "2")]["fixes"][0]["title"] == "Cite [3] instead of [2]"
    assert ("orphan_reference", "3") in findings

    main(["fix", str(document), "--kinds", "all", *LOCAL])  # safe fixes only
    capsys.readouterr()
    kept = parse_document(document.read_text(encoding="utf-8"))
    assert "3" in {e.key for e in kept.entries}  # [3] is still there for the swap

    assert main(["fix", str(document), "--kinds", "all", "--unsafe-fixes", *LOCAL]) == 0
    assert "Cite [3] instead of [2]" in capsys.readouterr().err
    fixed = parse_document(document.read_text(encoding="utf-8"))
    assert {key for marker in fixed.markers for key in marker.keys} == {"1", "3"}  # the swap applied
    assert "Moreau" in fixed.text
    assert "Rainfall in the Sahel" not in fixed.text  # [2], cited by nothing after the swap, goes
