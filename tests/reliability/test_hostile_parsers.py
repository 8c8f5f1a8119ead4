"""Hostile input to the parsers (issue 32, items 5, 6 and 8): each case is read in full or refused
with a clear message naming the file, in bounded time and memory, and never as an internal error.

- Marker groups of any length are one marker citing every number (there was a 200-character cap,
  and `fix --kinds all` then deleted the references a long group cites).
- Lists and mappings nested 100,000 deep in a CSL-JSON or CSL-YAML bibliography, or in a document's
  front matter, are refused (exit 2) before the parsers recurse (they used to raise RecursionError:
  exit 3, "internal error").
- CSL fields of the wrong type are read where their intent is clear, else ignored, with a warning
  naming the entry, its line and the field; files with content but no entries are errors, empty
  files empty bibliographies.
"""

from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.core import safeload
from citedesk.core.bibliographies.model import BibFormat, BibliographyError
from citedesk.core.bibliographies.parse import parse_bibliography
from citedesk.core.reading import parse_document
from citedesk.core.safeload import MAX_NESTING, safe_json, safe_yaml

TOO_DEEP = f"nested more than {MAX_NESTING} levels deep"
BIG = 100_000

# --- long marker groups ------------------------------------------------------------------------------

LONG_LIST = "[" + ", ".join(str(n) for n in range(1, 121)) + "]"
LONG_RANGES = "[1-3, 5, 7, 9, " + ", ".join(str(n) for n in range(11, 240, 2)) + "]"


def _references(numbers: range) -> str:
    return "\n".join(f"[{n}] Work number {n}. https://w{n}.example/paper" for n in numbers)


@pytest.mark.parametrize(("group", "cited"), [(LONG_LIST, 120), (LONG_RANGES, 3 + 3 + 115)])
def test_a_long_group_is_one_marker_citing_every_number(group: str, cited: int) -> None:
    assert len(group) > 400
    text = f"Urban trees cool streets by several degrees {group}.\n"
    [marker] = parse_document(text).markers
    assert (marker.start, marker.end) == (text.index("["), text.index("]") + 1)
    assert len(marker.keys) == cited
    assert marker.keys[:5] == (("1", "2", "3", "4", "5") if group is LONG_LIST else ("1", "2", "3", "5", "7"))


def test_a_long_footnote_key_is_a_marker_and_its_definition_an_entry() -> None:
    key = "note-" + "x" * 300
    document = parse_document(f"Trees cool streets [^{key}].\n\n[^{key}]: A work. https://a.example\n")
    assert [m.keys for m in document.markers] == [(key,)]
    assert [e.key for e in document.entries] == [key]
    assert not document.malformed


def test_fix_all_keeps_every_reference_a_long_group_cites(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = tmp_path / "draft.md"
    text = (
        f"Urban trees cool streets {LONG_LIST}.\n\nPrices rose {LONG_RANGES}.\n\n"
        f"## References\n\n{_references(range(1, 242))}\n"
    )
    document.write_text(text, encoding="utf-8")
    assert main(["fix", str(document), "--kinds", "all", "--no-sources"]) == 0
    said = capsys.readouterr().err
    fixed = parse_document(document.read_text(encoding="utf-8"))
    cited = {k for m in parse_document(text).markers for k in m.keys}
    assert set(fixed.references.by_key()) == cited  # every cited reference kept
    assert len(cited) == 120 + 60  # 1–120, and the odd numbers 121–239
    assert "Remove reference [241]" in said  # the uncited ones alone are removed
    assert [m.keys for m in fixed.markers] == [m.keys for m in parse_document(text).markers]  # untouched


def test_long_lines_of_brackets_parse_in_linear_time() -> None:
    hostile = [
        "[1, " * BIG,  # a group that never closes: every `[` starts a new try
        "[" + ", ".join(["1"] * BIG) + ",]",  # one malformed group of 300,000 characters
        "[^a " * BIG,  # footnote markers that never close
        "[^" * BIG,
        "[" + "1-2, " * BIG + "3]",  # one well-formed group of 500,000 characters
    ]
    for body in hostile:
        started = time.monotonic()
        parse_document(body + "\n\n## References\n\n[1] A. https://a.example\n")
        assert time.monotonic() - started < 10, body[:20]


# --- deep nesting ------------------------------------------------------------------------------------


def _bounded(text: str, fmt: BibFormat) -> BibliographyError:
    """Parse `text`, which must be refused: in well under a second (bounded here at 60 s, a hang
    guard: it once took 5.5 s on a loaded CI machine) and a few MiB."""
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(BibliographyError) as caught:
            parse_bibliography(text, fmt, source="deep")
        elapsed = time.monotonic() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert elapsed < 60
    assert peak < 16 * 1024 * 1024
    assert caught.value.source == "deep"
    return caught.value


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ("[" * BIG + "]" * BIG, BibFormat.CSL_JSON),
        ('{"items": ' + '{"a": ' * BIG + "1" + "}" * BIG + "}", BibFormat.CSL_JSON),
        ("[" * (BIG // 2) + "]" * (BIG // 2), BibFormat.CSL_YAML),
        ("references:\n" + "- " * (BIG // 2) + "x\n", BibFormat.CSL_YAML),
        # block style by indentation: 1,000 levels is already 1 MB (30,000 would be 900 MB)
        ("references:\n" + "".join("  " * depth + "- \n" for depth in range(1, 1000)), BibFormat.CSL_YAML),
        (
            "references:\n" + "".join("  " * depth + f"k{depth}:\n" for depth in range(1000)),
            BibFormat.CSL_YAML,
        ),
    ],
    ids=["json-lists", "json-objects", "yaml-flow", "yaml-dashes", "yaml-indented-lists", "yaml-mappings"],
)
def test_deep_nesting_is_refused_before_the_parser_recurses(text: str, fmt: BibFormat) -> None:
    error = _bounded(text, fmt)
    assert TOO_DEEP in str(error)
    assert error.line is not None
    assert error.line <= MAX_NESTING + 2  # where it got too deep


def test_nesting_up_to_the_limit_is_read() -> None:
    item = {"id": "a", "title": "T", "note": json.loads("[" * (MAX_NESTING - 3) + "]" * (MAX_NESTING - 3))}
    assert [e.key for e in parse_bibliography(json.dumps({"items": [item]}), BibFormat.CSL_JSON).entries] == [
        "a"
    ]
    assert safe_yaml("x: " + "[" * (MAX_NESTING - 1) + "]" * (MAX_NESTING - 1)) is not None
    with pytest.raises(BibliographyError, match=TOO_DEEP):
        safe_yaml("x: " + "[" * MAX_NESTING + "]" * MAX_NESTING)
    with pytest.raises(BibliographyError, match=TOO_DEEP):
        safe_json('{"x": ' + "[" * MAX_NESTING + "]" * MAX_NESTING + "}")
    assert safe_json('["[[[[' + "[" * BIG + '"]') == ["[[[[" + "[" * BIG]  # brackets in strings


def test_the_guarded_loaders_refuse_what_would_crash_the_plain_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    # a RecursionError the depth checks did not foresee is still a clear error, not a crash
    def recurse(*_: object) -> object:
        raise RecursionError("maximum recursion depth exceeded")

    with monkeypatch.context() as patched:
        patched.setattr(json, "loads", recurse)  # the module safeload reads JSON with
        with pytest.raises(BibliographyError, match=TOO_DEEP):
            safe_json("[]", source="refs.json")
    with monkeypatch.context() as patched:
        patched.setattr(safeload._GuardedLoader, "construct_document", recurse)
        with pytest.raises(BibliographyError, match=TOO_DEEP):
            safe_yaml("[]", source="refs.yaml")
    # a number of thousands of digits: Python's int conversion refuses it with a ValueError
    for load in (safe_json, safe_yaml):
        with pytest.raises(BibliographyError, match="thousands of digits"):
            load("[" + "7" * 5000 + "]", source="n")
    # YAML that does not parse: the line is the file's (`first_line`: front matter after `---`)
    with pytest.raises(BibliographyError, match="not valid YAML") as caught:
        safe_yaml("title: a\nbibliography: [unclosed\n", source="draft.md", first_line=2)
    assert (caught.value.source, caught.value.line) == ("draft.md", 4)


def _refused(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main([*args, "--no-sources"]) == 2  # a known condition, never 3 ("internal error")
    err = capsys.readouterr().err
    assert "internal error" not in err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize(
    ("name", "content", "line"),
    [
        ("deep.json", "[" * BIG + "]" * BIG, 1),
        ("deep.yaml", "[" * (BIG // 2) + "]" * (BIG // 2), 1),
        ("dashes.yaml", "references:\n" + "- " * (BIG // 2) + "x\n", 2),
    ],
)
def test_a_deep_bibliography_exits_2_with_a_clear_message(
    name: str, content: str, line: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bibliography = tmp_path / name
    bibliography.write_text(content, encoding="utf-8")
    document = tmp_path / "draft.md"
    document.write_text("Trees cool streets [@smith2020].\n", encoding="utf-8")
    err = _refused(["audit", str(document), "--bibliography", str(bibliography)], capsys)
    assert f"{bibliography}, line {line}: the data is {TOO_DEEP}" in err


DEEP_FRONT_MATTER = ["- " * 30_000 + "x", "  " + "[" * 30_000 + "]" * 30_000]


@pytest.mark.parametrize("lists", DEEP_FRONT_MATTER, ids=["dashes", "brackets"])
def test_deep_front_matter_references_exit_2(
    lists: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = tmp_path / "draft.md"
    document.write_text(f"---\nreferences:\n{lists}\n---\nTrees cool streets [@a].\n", encoding="utf-8")
    assert TOO_DEEP in _refused(["audit", str(document)], capsys)


def test_deep_front_matter_beside_a_bibliography_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "refs.json").write_text("[]", encoding="utf-8")
    document = tmp_path / "draft.md"
    lists = DEEP_FRONT_MATTER[0]
    document.write_text(f"---\nbibliography: refs.json\nx:\n{lists}\n---\nTrees [@a].\n", encoding="utf-8")
    assert TOO_DEEP in _refused(["audit", str(document)], capsys)


# --- wrong types and junk ----------------------------------------------------------------------------

WRONG_TYPES = """[
  {"id": "smith2020", "title": ["Urban heat islands"], "author": "Smith, Jane", "issued": "2020",
   "volume": 12, "page": {"first": 3}, "DOI": ["10.1000/a", "10.1000/b"]},
  {"id": "lee2021", "title": 123, "issued": 2021, "author": {"family": "Lee", "given": "Kim"}},
  {"id": "kim2022", "title": "Fine", "author": [{"family": "Kim"}, 42, [1]], "issued": true}
]
"""


def test_wrong_typed_csl_fields_are_read_or_warned_about() -> None:
    bibliography = parse_bibliography(WRONG_TYPES, BibFormat.CSL_JSON, source="refs.json")
    smith, lee, kim = bibliography.entries
    assert (smith.title, smith.authors, smith.year, smith.volume) == (
        "Urban heat islands",
        ("Smith, Jane",),
        "2020",
        "12",
    )
    assert (smith.pages, smith.doi) == (None, "10.1000/a")
    assert (lee.title, lee.authors, lee.year) == ("123", ("Lee, Kim",), "2021")
    assert (kim.authors, kim.year) == (("Kim",), None)
    assert bibliography.warnings == (
        "entry 'smith2020' (line 2): 'title' is a list, not text; read as 'Urban heat islands'",
        "entry 'smith2020' (line 2): 'page' is a mapping, not text; ignored",
        "entry 'smith2020' (line 2): 'doi' is a list, not text; read as '10.1000/a'",
        "entry 'smith2020' (line 2): 'author' is text, not a list of names; read as one name, 'Smith, Jane'",
        "entry 'lee2021' (line 4): 'author' is one name, not a list of names; read as 'Lee, Kim'",
        "entry 'kim2022' (line 5): 'author' holds 2 name(s) that are neither text nor a name mapping "
        "(`family`, `given`); ignored",
        "entry 'kim2022' (line 5): 'issued' is true/false, not a date; ignored",
    )


def test_cyclic_yaml_aliases_are_read_without_looping() -> None:
    text = "references:\n- id: a\n  title: &t [*t]\n  author: &p [*p]\n  issued: &d [*d]\n"
    [entry] = parse_bibliography(text, BibFormat.CSL_YAML).entries
    assert (entry.title, entry.authors, entry.year) == (None, (), None)


def test_wrong_typed_csl_yaml_fields_are_warned_about_with_their_line() -> None:
    text = "references:\n- id: a\n  title: yes\n- id: b\n  title: [A, title]\n  issued: [[2020]]\n"
    bibliography = parse_bibliography(text, BibFormat.CSL_YAML)
    assert [e.title for e in bibliography.entries] == [None, "A title"]
    assert bibliography.warnings == (
        "entry 'a' (line 2): 'title' is true/false, not text; ignored",
        "entry 'b' (line 4): 'title' is a list, not text; read as 'A title'",
        "entry 'b' (line 4): 'issued' is a list, not a date; ignored",
    )


def test_wrong_typed_fields_reach_the_writer_as_notices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bibliography = tmp_path / "refs.json"
    bibliography.write_text(WRONG_TYPES, encoding="utf-8")
    document = tmp_path / "draft.md"
    document.write_text("Trees cool streets [@smith2020].\n", encoding="utf-8")
    capsys.readouterr()
    code = main(
        ["audit", str(document), "--bibliography", str(bibliography), "--no-sources", "--format", "json"]
    )
    assert code in (0, 1)
    notices = json.loads(capsys.readouterr().out)["notices"]
    assert (
        f"{bibliography}: entry 'smith2020' (line 2): 'title' is a list, not text; read as 'Urban heat islands'"
        in notices
    )


@pytest.mark.parametrize(
    ("fmt", "junk", "says"),
    [
        (BibFormat.CSL_JSON, '{"a": 1}', "is it a CSL-JSON file?"),
        (BibFormat.CSL_JSON, "42", "is it a CSL-JSON file?"),
        (
            BibFormat.BIBTEX,
            "These are my notes on heat islands.\nNothing here is BibTeX.\n",
            "is it a BibTeX file?",
        ),
        (BibFormat.BIBTEX, "\x01\x02\x7f binary-ish \x03 text", "is it a BibTeX file?"),
        (BibFormat.RIS, "Author: Smith\nTitle: Heat\n", "is it a RIS file?"),
        (BibFormat.CSL_YAML, "just a sentence\n", "is it a CSL-YAML file?"),
        (BibFormat.CSL_YAML, "title: My references\n", "is it a CSL-YAML file?"),
    ],
)
def test_a_junk_file_is_an_error_naming_it(fmt: BibFormat, junk: str, says: str) -> None:
    with pytest.raises(BibliographyError, match=r"no entries|no RIS record") as caught:
        parse_bibliography(junk, fmt, source="refs.file")
    assert says in str(caught.value)
    assert str(caught.value).startswith("refs.file")


@pytest.mark.parametrize(
    ("fmt", "empty"),
    [
        (BibFormat.CSL_JSON, ""),
        (BibFormat.CSL_JSON, "\ufeff \n"),
        (BibFormat.CSL_JSON, "[]"),
        (BibFormat.BIBTEX, "\n\n"),
        (BibFormat.BIBTEX, "% exported by hand\n% nothing yet\n@comment{to do}\n"),
        (BibFormat.RIS, "  \n"),
        (BibFormat.CSL_YAML, "# no references yet\n"),
        (BibFormat.CSL_YAML, "references:\n"),
        (BibFormat.CSL_YAML, "references: []\n"),
    ],
)
def test_an_empty_file_is_an_empty_bibliography_without_warnings(fmt: BibFormat, empty: str) -> None:
    bibliography = parse_bibliography(empty, fmt, source="refs.file")
    assert (bibliography.entries, bibliography.warnings) == ((), ())


def test_a_junk_bibliography_on_the_command_line_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "refs.bib"
    junk.write_text("Shopping list: eggs, milk, bread.\n", encoding="utf-8")
    document = tmp_path / "draft.md"
    document.write_text("Trees cool streets [@smith2020].\n", encoding="utf-8")
    err = _refused(["audit", str(document), "--bibliography", str(junk)], capsys)
    assert f"{junk}, line 1: no entries" in err


def test_a_bibtex_error_points_at_the_broken_line() -> None:
    text = "@article{ok, title = {Fine}}\n\n@article{broken,\n  title = {Heat},\n  author {Smith},\n}\n"
    with pytest.raises(BibliographyError) as caught:
        parse_bibliography(text, BibFormat.BIBTEX, source="refs.bib")
    assert (caught.value.line, caught.value.column) == (5, 10)  # `{` where `=` belongs, not line 3
    assert "after the field name `author`" in caught.value.reason
    unclosed = "@article{open,\n  title = {Heat,\n}\n\n@book{next, title = {Cool}}\n"
    with pytest.raises(BibliographyError) as caught:
        parse_bibliography(unclosed, BibFormat.BIBTEX, source="refs.bib")
    assert (caught.value.line, caught.value.column) == (5, 1)  # where pandoc stops: the next entry
    assert "still open where the next one starts" in caught.value.reason
