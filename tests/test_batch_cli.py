"""`citedesk batch`'s closing line counts each document once: the total says how many could not be
audited, and "audited now" and "unchanged" split the total, on the first run and on a re-run (a
document that could not be audited was counted among the audited and again as "not audited")."""

from __future__ import annotations

from pathlib import Path

import pytest

from citedesk.cli import main


def test_the_closing_line_counts_a_document_that_could_not_be_audited_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "note.md").write_text("Trees cool streets.\n", encoding="utf-8")
    (corpus / "broken.txt").write_bytes(bytes(range(256)) * 8)
    flags = ["--out", str(tmp_path / "out"), "--store", str(tmp_path / "store.sqlite3"), "--offline"]
    flags += ["--judge", "heuristic", "--no-dense", "--workers", "1"]
    assert main(["batch", str(corpus), *flags]) == 2
    err = capsys.readouterr().err
    assert "2 documents (1 could not be audited): 2 audited now" in err
    assert "0 unchanged (reports kept);" in err
    assert "broken.txt: This looks like a binary file" in err
    assert main(["batch", str(corpus), *flags]) == 2
    assert "2 documents (1 could not be audited): 0 audited now, 2 unchanged" in capsys.readouterr().err
