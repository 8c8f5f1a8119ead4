"""Hostile documents and files, end to end through `citedesk`: each ends with a clear outcome,
bounded in time and memory, and a fix keeps everything about the file but the edit.

Devices, pipes and endless files are refused before they are read (a child process under an
address-space limit shows the memory stays bounded); classic-Mac and mixed line endings read as
CommonMark reads them and are written back as they were; fixes keep the byte order, hard links,
owner, group and mode.
"""

from __future__ import annotations

import codecs
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citedesk.cli import main
from tests.conftest import REPO

MEMORY_LIMIT_MIB = 768


def _refused(args: list[str], timeout: float = 120) -> tuple[str, float]:
    """Run `citedesk` in a child under the memory limit; it must refuse (exit code 2) with a message."""
    started = time.monotonic()
    child = subprocess.run(
        [sys.executable, "-m", "tests.reliability.limited_child", str(MEMORY_LIMIT_MIB), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "MALLOC_ARENA_MAX": "2"},
        check=False,
    )
    elapsed = time.monotonic() - started
    assert "Traceback" not in child.stderr, child.stderr[-3000:]
    lines = child.stderr.strip().splitlines()
    outcome = json.loads(lines[-1])
    assert outcome["code"] == 2
    assert outcome["max_rss_mib"] < 300
    return "\n".join(lines[:-1]), elapsed


def test_a_device_is_refused_before_a_byte_is_read() -> None:
    message, elapsed = _refused(["audit", "/dev/zero", "--no-sources"])
    assert "/dev/zero is a device, not a document." in message
    assert elapsed < 60  # the issue: it read until memory ran out


def test_a_named_pipe_is_refused_without_waiting(tmp_path: Path) -> None:
    pipe = tmp_path / "draft.md"
    os.mkfifo(pipe)
    message, elapsed = _refused(["audit", str(pipe), "--no-sources"], timeout=60)  # it blocked forever
    assert f"{pipe} is a named pipe, not a document." in message
    assert elapsed < 60


def test_a_link_to_an_endless_file_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "draft.md"
    link.symlink_to("/dev/urandom")
    message, _ = _refused(["audit", str(link), "--no-sources"])
    assert "is a device, not a document" in message


# --- line endings -------------------------------------------------------------------------------------

CLASSIC = (
    "# Notes\r\rCoffee lowers the risk of diabetes [1]. Trees cool cities [2] [7].\r\r"
    "## References\r\r1. Ding M. Coffee and diabetes. https://example.org/coffee\r"
    "2. Moreau L. Tree canopy. https://example.org/trees\r"
)


def test_a_classic_mac_document_is_read_line_by_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "classic.md"
    doc.write_bytes(CLASSIC.encode())
    capsys.readouterr()
    assert main(["audit", str(doc), "--no-sources", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [r["key"] for r in report["references"]] == ["1", "2"]
    assert [(f["kind"], f["reference"], f["line"]) for f in report["findings"]] == [("fabricated", "7", 3)]


def test_fix_on_mixed_endings_keeps_valid_citations_and_every_ending(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the case: a lone CR between the heading and the list hid the references, and `fix`
    # removed valid citations as fabricated
    text = (
        "Intro line.\rCoffee lowers risk [1].\r\nTrees cool cities [2] [9].\n\n"
        "## References\r\r1. Smith. Coffee. https://example.org/a\r\n2. Jones. Trees. https://example.org/b\r"
        "3. Unused. https://example.org/c\r\n"
    )
    doc = tmp_path / "mixed.md"
    doc.write_bytes(text.encode())
    capsys.readouterr()
    code = main(["fix", str(doc), "--kinds", "fabricated,orphan_reference", "--no-sources"])
    assert code in (0, 1)
    fixed = doc.read_bytes().decode()
    assert fixed == text.replace(" [9]", "").replace("3. Unused. https://example.org/c\r\n", "")


# --- writes keep what the file is ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("codec", "bom"),
    [
        ("utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-32-be", codecs.BOM_UTF32_BE),
        ("utf-16-le", codecs.BOM_UTF16_LE),
    ],
)
def test_fix_keeps_the_byte_order(
    tmp_path: Path, codec: str, bom: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "Größe matters [1] [4].\r\n\r\n## References\r\n\r\n1. A source. https://example.org/a\r\n"
    doc = tmp_path / "draft.md"
    doc.write_bytes(bom + text.encode(codec))
    capsys.readouterr()
    assert main(["fix", str(doc), "--kinds", "fabricated", "--no-sources"]) in (0, 1)
    assert doc.read_bytes() == bom + text.replace(" [4]", "").encode(codec)


def test_fix_keeps_hard_links_owner_and_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "A claim [1] [4].\n\n## References\n\n1. A source. https://example.org/a\n"
    doc = tmp_path / "draft.md"
    doc.write_text(text, encoding="utf-8")
    twin = tmp_path / "twin.md"
    os.link(doc, twin)
    doc.chmod(0o640)
    owner = (4321, 8765) if os.geteuid() == 0 else (os.getuid(), os.getgid())
    os.chown(doc, *owner)  # as root: a user's file, fixed by root (the case)
    inode = doc.stat().st_ino
    capsys.readouterr()
    assert main(["fix", str(doc), "--kinds", "fabricated", "--no-sources"]) in (0, 1)
    info = doc.stat()
    assert info.st_ino == inode
    assert info.st_nlink == 2
    assert twin.read_text(encoding="utf-8") == text.replace(" [4]", "")
    assert (info.st_uid, info.st_gid) == owner
    assert stat.S_IMODE(info.st_mode) == 0o640
