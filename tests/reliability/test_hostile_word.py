"""Hostile Word documents (.docx) through `citedesk`, each in a child under a memory limit: a
clear outcome (exit 2 with the reader's words, or the work done), bounded in time and memory,
never exit 3, and nothing written but what `fix` was asked to write.

A citation field whose JSON nests 100,000 deep (the JSON reader ran out of stack: exit 3); one
field of 20,000 works by one author in one year (their keys took quadratic time: hours); `fix`
on 2,400 cited paragraphs it rewrites (each paragraph was compared with every other: hours) and
`fix`'s time budget (it had none); a package with two `word/document.xml` members (one was read,
both were written back).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest

from citedesk.core.containers.word_align import MAX_LINE_PAIRINGS, align_lines, opcodes
from citedesk.errors import RepairError
from citedesk.files import BACKUP_SUFFIX
from tests.conftest import REPO
from tests.helpers.docx_build import DocxBuilder, Field, csl_item, zotero
from tests.reliability.limited_child import run_limited

MEMORY_LIMIT_MIB = 1024
FLAGS = ["--offline", "--no-sources"]
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _citedesk(args: list[str], timeout: float) -> tuple[int, str, float]:
    """`citedesk ARGS` in a child under the memory limit: its exit code, its messages, its time."""
    outcome, said, elapsed = run_limited(args, timeout, MEMORY_LIMIT_MIB)
    return outcome["code"], said, elapsed


def _work(n: int, uri: str, title: str = "Street trees cool cities") -> dict[str, Any]:
    return csl_item(
        ident=n, family="Smith", year=2020, title=title, uri=f"http://zotero.org/users/1/items/{uri}"
    )


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        return {info.filename: package.read(info) for info in package.infolist()}


def _refused_untouched(doc: Path, said: str) -> None:
    """`audit` and `fix` both stop with exit 2 and `said`; the file is as it was, nothing beside it."""
    before = doc.read_bytes()
    for command in (["audit"], ["fix", "--kinds", "all"]):
        code, message, _ = _citedesk([*command, str(doc), *FLAGS], timeout=120)
        assert code == 2, message
        assert said in message
    assert doc.read_bytes() == before
    assert sorted(p.name for p in doc.parent.iterdir()) == [doc.name]


# --- 7: a field nested 100,000 deep ------------------------------------------------------------------


def test_a_field_nested_100000_deep_is_refused_as_damaged(tmp_path: Path) -> None:
    deep = '{"citationItems": ' + "[" * 100_000 + "]" * 100_000 + "}"
    field = Field(" ADDIN ZOTERO_ITEM CSL_CITATION " + deep + " ", "(Smith, 2020)")
    doc = tmp_path / "deep.docx"
    doc.write_bytes(DocxBuilder().paragraph("Trees cool streets ", field, ".").build())
    _refused_untouched(
        doc, "deep.docx is damaged: a citation field's data is nested more than 100 levels deep"
    )


# --- 8: 20,000 works of one author and year -----------------------------------------------------------

_READ_KEYS = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from citedesk.core.word import read_docx
from tests.reliability.limited_child import peak_rss_mib
view = read_docx(open(sys.argv[1], "rb").read(), "same.docx")
print(json.dumps({{"keys": view.fields[0].keys, "mib": peak_rss_mib()}}))
"""


def test_twenty_thousand_works_of_one_author_and_year_get_their_keys_in_linear_time(tmp_path: Path) -> None:
    count = 20_000
    works = [_work(n, f"W{n:07d}", f"Work {n}") for n in range(count)]
    doc = tmp_path / "same.docx"
    doc.write_bytes(
        DocxBuilder().paragraph("Trees cool ", zotero(works, "(Smith, 2020a-z)", "c1"), ".").build()
    )
    child = subprocess.run(  # about 2 s here; its keys took an hour, quadratic in the works
        [sys.executable, "-c", _READ_KEYS.format(limit=MEMORY_LIMIT_MIB * 1024 * 1024), str(doc)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=True,
    )
    read = json.loads(child.stdout)
    keys = read["keys"]
    assert len(set(keys)) == count
    assert keys[:3] == ["smith2020", "smith2020a", "smith2020b"]
    assert "smith2020zz" in keys  # after z: aa … zz, then aaa
    assert "smith2020aaa" in keys
    assert read["mib"] < MEMORY_LIMIT_MIB


# --- 12: `fix` on thousands of paragraphs, and its time budget ---------------------------------------


def _repeated(count: int) -> bytes:
    """`count` alike paragraphs citing a work that duplicates one cited last (same DOI and title):
    `fix` makes all of them cite the kept one, a change in every paragraph."""
    kept = {**_work(1, "AAAA1111"), "itemData": {**_work(1, "AAAA1111")["itemData"], "DOI": "10.1/trees"}}
    twin = {**_work(2, "BBBB2222"), "itemData": {**_work(2, "BBBB2222")["itemData"], "DOI": "10.1/trees"}}
    builder = DocxBuilder()
    for n in range(count):
        builder.paragraph("Street trees cool streets ", zotero([twin], "(Smith, 2020)", f"c{n}"), ".")
    return builder.paragraph("Parks cool too ", zotero([kept], "(Smith, 2020)", "k"), ".").build()


def test_fix_rewrites_2400_alike_paragraphs_in_bounded_time(tmp_path: Path) -> None:
    doc = tmp_path / "repeated.docx"
    doc.write_bytes(_repeated(2400))
    before = doc.read_bytes()
    # about 25 s on a loaded 2-core machine; the alignment alone took hours (every paragraph by every other)
    code, message, _ = _citedesk(["fix", str(doc), "--kinds", "duplicate_reference", *FLAGS], timeout=300)
    assert code == 0, message
    assert "Cite @smith2020 instead of @smith2020a everywhere" in message
    assert doc.with_name(doc.name + BACKUP_SUFFIX).read_bytes() == before
    old, new = _members(before), _members(doc.read_bytes())
    assert list(old) == list(new)
    assert {name for name in old if old[name] != new[name]} == {"word/document.xml"}
    document = new["word/document.xml"].decode()
    assert document.count("BBBB2222") == 0
    assert document.count("AAAA1111") == 2 * 2401  # each field's `uris` and `uri`


def test_fix_past_its_time_budget_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    doc = tmp_path / "repeated.docx"
    doc.write_bytes(_repeated(40))
    before = doc.read_bytes()
    code, message, _ = _citedesk(
        ["fix", str(doc), "--kinds", "all", *FLAGS, "--timeout", "0.01"], timeout=120
    )
    assert code == 2, message
    assert "repeated.docx: fix ran past its time budget (0.01 s, --timeout)" in message
    assert "nothing was written" in message
    assert doc.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repeated.docx"]


def test_alignment_past_its_cap_is_refused_not_ground_through() -> None:
    old = [f"line {n} [@a]" for n in range(3000)]
    new = [f"line {n} [@b]" for n in range(0, 3000, 2)]  # half the paragraphs removed, all changed
    placed = list(enumerate(new))
    assert MAX_LINE_PAIRINGS < 1501 * 1500
    with pytest.raises(RepairError, match="too wide to match up safely"):
        align_lines(old, new, placed)
    with pytest.raises(RepairError, match="too wide to match with its runs"):
        opcodes(list("a" * 5000), list("b" * 5000))


def test_alignment_compares_only_what_changed() -> None:
    old = ["same [@a]"] * 5000
    new = [*old[:2500], "same [@b]", *old[2501:]]
    assert align_lines(old, new, list(enumerate(new))) == [(2500, (2500, "same [@b]"))]
    removed = [*old[:2500], *old[2501:]]
    assert len(align_lines(old, removed, list(enumerate(removed)))) == 1
    assert opcodes(list("x" * 50_000 + "a"), list("x" * 50_000 + "b")) == [
        ("replace", 50_000, 50_001, 50_000, 50_001)
    ]


# --- 16: two parts of one name ---------------------------------------------------------------------------


def _with_duplicate(data: bytes, member: str, payload: bytes) -> bytes:
    """The package with a second member named `member` appended (zipfile warns, and writes it)."""
    out = io.BytesIO(data)
    with warnings.catch_warnings(), zipfile.ZipFile(out, "a") as package:
        warnings.simplefilter("ignore")  # "Duplicate name": what this package is for
        package.writestr(member, payload)
    return out.getvalue()


@pytest.mark.parametrize("member", ["word/document.xml", "Word/Document.XML", "word/styles.xml"])
def test_a_package_with_two_parts_of_one_name_is_refused_before_reading(tmp_path: Path, member: str) -> None:
    first = DocxBuilder().paragraph("Trees cool ", zotero([_work(1, "AAAA1111")], "(Smith, 2020)", "c1"), ".")
    second = DocxBuilder().paragraph(
        "Rain falls ", zotero([_work(2, "BBBB2222")], "(Smith, 2020)", "c2"), "."
    )
    data = first.build()
    part = "word/styles.xml" if "styles" in member else "word/document.xml"
    doc = tmp_path / "twice.docx"
    doc.write_bytes(_with_duplicate(data, member, _members(second.build())[part]))
    with zipfile.ZipFile(doc) as package:
        assert [n.casefold() for n in package.namelist()].count(part) == 2
    _refused_untouched(doc, f"twice.docx is damaged: its package holds two parts named {member}")
