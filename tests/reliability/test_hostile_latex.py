"""Hostile LaTeX documents and projects (issue 37, items 9, 10, 11 and 17): each is read, or
refused with a clear message naming the file (exit 2), in bounded time and memory; never exit 3.

- Braces, environments or citation braces nested hundreds deep, or never closed, are refused by a
  linear scan before pylatexenc's recursive parser sees them (they raised RecursionError: exit 3);
  nesting the scan does not count (options inside options) is the same error, not a crash.
- `\\cite{k0,…,k19999}` with no key in the bibliography: one finding per key, in linear time (each
  missing key's fix was a pass over the whole command: quadratic, a hang at 50,000 keys).
- Every `.tex` file, main or included, is held to one limit (`files.MAX_LATEX_BYTES`) before it
  is parsed, and its parse to `MAX_LATEX_NODES` parts (its memory); a main file over the old 1 MB
  project-file limit is read; a parse that cannot finish within `--timeout` stops the audit with why.
- `\\bibliography{fifo}` naming a pipe says it is a pipe, not that it does not exist.

Slow cases run in a child process under a time limit (a hang fails the test instead of stalling the
run) and an address-space limit (`limited_child`).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from citedesk.cli import main
from citedesk.core.dialects.latex.bounds import MAX_LATEX_DEPTH, MAX_LATEX_NODES, LatexTooDeepError
from citedesk.core.dialects.latex.reading import read_latex
from citedesk.core.formats import MAX_LATEX_BYTES
from citedesk.core.projects.latex import includes
from tests.reliability.limited_child import run_limited

DEEP = 400  # the depth: RecursionError from pylatexenc
TOO_DEEP = f"nested more than {MAX_LATEX_DEPTH} levels deep"
MEMORY_LIMIT_MIB = 1024
BIB = "@article{doe99, author = {Doe, Jane}, title = {Trees}, journal = {J}, year = {1999}}\n"


def _tex(body: str, *, bibliography: bool = True) -> str:
    end = "\\bibliography{refs}\n" if bibliography else ""
    return f"\\documentclass{{article}}\n\\begin{{document}}\n{body}\n{end}\\end{{document}}\n"


def _child(args: list[str], timeout: float) -> tuple[dict[str, Any], str, float]:
    """`citedesk ARGS` under the memory limit and a watchdog (`limited_child.run_limited`)."""
    outcome, said, elapsed = run_limited(args, timeout, MEMORY_LIMIT_MIB)
    assert "internal error" not in said, said[-3000:]
    return outcome, said, elapsed


def _refused(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    started = time.monotonic()
    code = main([*args, "--no-sources", "--offline"])
    err = capsys.readouterr().err
    assert code == 2, err  # a known condition, never 3 ("internal error")
    assert "internal error" not in err
    assert time.monotonic() - started < 60
    return err


# --- 9. deep nesting ---------------------------------------------------------------------------------

NESTED = {
    "braces": "Trees cool streets " + "{" * DEEP + "x" + "}" * DEEP + " \\cite{doe99}.",
    "environments": "\\begin{itemize}\n" * DEEP + "\\item x\n" + "\\end{itemize}\n" * DEEP,
    "cite-braces": "Trees cool streets \\cite{" + "{" * DEEP + "doe99" + "}" * DEEP + "}.",
    "unclosed": "Trees cool streets \\cite{" + "{" * DEEP + "doe99.",
    "commands": "\\emph{" * DEEP + "x" + "}" * DEEP,
}


@pytest.mark.parametrize("body", NESTED.values(), ids=NESTED.keys())
def test_deep_nesting_exits_2_naming_the_file_and_line(
    body: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    document = tmp_path / "deep.tex"
    document.write_text(_tex(body), encoding="utf-8")
    err = _refused(["audit", str(document)], capsys)
    assert f"{document}, line " in err
    assert TOO_DEEP in err


def test_an_included_file_nested_too_deep_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    main_file = tmp_path / "thesis.tex"
    main_file.write_text(_tex("Intro \\cite{doe99}.\n\\input{chapter}"), encoding="utf-8")
    chapter = tmp_path / "chapter.tex"
    chapter.write_text("Body.\n" + NESTED["unclosed"] + "\n", encoding="utf-8")
    err = _refused(["audit", str(main_file)], capsys)
    assert f"{chapter}, line 2: " in err
    assert TOO_DEEP in err


def test_nesting_the_scan_does_not_count_is_the_same_error() -> None:
    # optional arguments inside optional arguments: pylatexenc recurses, the brace scan sees one level
    text = _tex("\\section[" * DEEP + "x" + "]{t}" * DEEP)
    for read in (read_latex, includes):
        with pytest.raises(LatexTooDeepError, match=TOO_DEEP):
            read(text)


def test_nesting_up_to_the_limit_is_read() -> None:
    depth = MAX_LATEX_DEPTH - 2  # the document environment and one group around the citation
    text = _tex("\\emph{" * depth + "Trees cool streets \\cite{doe99}." + "}" * depth + "\n\\input{ch}")
    assert [c.keys[0].key for c in read_latex(text).cites] == ["doe99"]
    assert [n.name for n in includes(text)] == ["ch.tex"]
    # braces in comments, \verb and verbatim, and escaped ones, are not nesting
    hidden = "% " + "{" * DEEP + "\n\\verb|" + "{" * DEEP + "|\n\\{" * DEEP + "\n"
    hidden += "\\begin{verbatim}\n" + "{" * DEEP + "\n\\end{verbatim}\n"
    assert [c.keys[0].key for c in read_latex(_tex(hidden + "Trees \\cite{doe99}.")).cites] == ["doe99"]


# --- 10. one citation of many keys --------------------------------------------------------------------


def test_a_citation_of_twenty_thousand_missing_keys_is_checked_in_linear_time(tmp_path: Path) -> None:
    keys = 20_000
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    document = tmp_path / "many.tex"
    cite = "\\cite{" + ",".join(f"k{i}" for i in range(keys)) + "}"
    document.write_text(_tex(f"Trees cool streets {cite}."), encoding="utf-8")
    report = tmp_path / "report.json"
    args = ["audit", str(document), "--no-sources", "--offline", "--format", "json", "--out", str(report)]
    # about 15 s here; quadratic before (4,000 keys took 48 s, 20,000 would take twenty minutes)
    outcome, _, elapsed = _child(args, timeout=300)
    assert outcome["code"] == 1
    assert elapsed < 200
    findings = json.loads(report.read_text(encoding="utf-8"))["findings"]
    flagged = [f["reference"] for f in findings if f["kind"] == "unknown_key"]
    assert flagged == [f"k{i}" for i in range(keys)]
    assert all(f["fixes"] for f in findings if f["kind"] == "unknown_key")  # each with its removal


# --- 11. one size limit, checked before parsing; the parse within --timeout -------------------------


def _prose(size: int) -> str:
    paragraph = "Street trees cool the air by several degrees \\citep[p.~4]{doe99}. Shade matters.\n\n"
    return (paragraph * (size // len(paragraph) + 1))[:size]


def test_a_latex_file_over_the_limit_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    document = tmp_path / "huge.tex"
    document.write_text(_tex(_prose(MAX_LATEX_BYTES + 1000)), encoding="utf-8")
    outcome, said, elapsed = _child(["audit", str(document), "--no-sources"], timeout=120)
    assert outcome["code"] == 2
    assert f"{document} is 8.0 MB; CiteDesk reads LaTeX files up to 8 MB each" in said
    assert elapsed < 60  # parsing it took minutes (and it was refused only after)


def test_an_included_file_over_the_limit_is_left_out_with_why(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    main_file = tmp_path / "thesis.tex"
    main_file.write_text(_tex("Trees cool streets \\cite{doe99}.\n\\input{huge}"), encoding="utf-8")
    (tmp_path / "huge.tex").write_text(_prose(MAX_LATEX_BYTES + 1000), encoding="utf-8")
    args = ["audit", str(main_file), "--no-sources", "--offline", "--format", "json"]
    outcome, said, elapsed = _child(args, timeout=120)
    assert outcome["code"] in (0, 1)  # the main file is audited
    assert "huge.tex is 8.0 MB; CiteDesk reads LaTeX files up to 8 MB each" in said
    assert "it is not audited" in said
    assert elapsed < 60


def test_a_main_file_over_a_megabyte_is_read_as_its_includes_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # it was held to the 1 MB of a project file (`_quarto.yml`) while included files had 16 MB
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    main_file = tmp_path / "thesis.tex"
    notes = "% " + "an old note kept in the source " * 40_000 + "\n"  # a comment parses at once
    main_file.write_text(
        notes + _tex("Trees cool streets \\cite{doe99}.\n\\input{chapter}"), encoding="utf-8"
    )
    (tmp_path / "chapter.tex").write_text("Shade matters \\cite{doe99}.\n", encoding="utf-8")
    assert main_file.stat().st_size > 1024 * 1024
    code = main(["audit", str(main_file), "--no-sources", "--offline", "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert [r["document"] for r in json.loads(captured.out)["files"]] == [
        str(main_file),
        str(tmp_path / "chapter.tex"),
    ]


def test_a_file_of_too_many_parts_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    # under the size limit, but every character a node of the parse (about 500 bytes each)
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    document = tmp_path / "ties.tex"
    document.write_text(_tex("~" * (MAX_LATEX_NODES + 100_000)), encoding="utf-8")
    outcome, said, elapsed = _child(["audit", str(document), "--no-sources", "--offline"], timeout=400)
    assert outcome["code"] == 2
    assert f"{document}: the LaTeX has more than {MAX_LATEX_NODES:,} parts" in said
    assert outcome["max_rss_mib"] < 1024
    assert elapsed < 300  # about 25 s here


@pytest.mark.parametrize("where", ["main", "included"])
def test_a_parse_that_cannot_finish_within_the_timeout_stops_the_audit(where: str, tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    big = _prose(3_000_000)  # under the limit; minutes to parse (twice) on a slow machine
    main_file = tmp_path / "thesis.tex"
    slow = main_file if where == "main" else tmp_path / "chapter.tex"
    if where == "main":
        main_file.write_text(_tex(big), encoding="utf-8")
    else:
        main_file.write_text(_tex("Trees \\cite{doe99}.\n\\input{chapter}"), encoding="utf-8")
        slow.write_text(big, encoding="utf-8")
    args = ["audit", str(main_file), "--no-sources", "--offline", "--timeout", "3"]
    outcome, said, elapsed = _child(args, timeout=300)
    assert outcome["code"] == 2
    assert f"{slow}: reading the LaTeX did not finish within the audit's time budget (--timeout)" in said
    assert elapsed < 100  # 3 s of parsing, and the start of Python


# --- 17. a bibliography that is a pipe ---------------------------------------------------------------


def test_a_bibliography_that_is_a_pipe_is_said_to_be_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(tmp_path / "fifo.bib")
    main_file = tmp_path / "thesis.tex"
    main_file.write_text(_tex("Trees cool streets \\cite{doe99}.\n\\bibliography{fifo}", bibliography=False))
    err = _refused(["audit", str(main_file)], capsys)
    assert (
        f"{main_file}, line 4: \\bibliography{{fifo}} names fifo.bib, which is a named pipe, not a file"
        in err
    )
