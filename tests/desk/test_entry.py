"""One audit entry (`desk.entry.audit_document`) for every front end: the window's child and the
language server's (the same `desk.background` child), the CLI, `citedesk batch`; and one place
(`desk.background.AuditChannel`) that says what happens to their audits when the child dies."""

from __future__ import annotations

import ast
import functools
import os
import queue
import signal
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.desk.background import AuditChannel, AuditMessage, AuditProcess, Failed, Finished
from citedesk.desk.entry import Entered, observe, observing
from citedesk.pipeline import AuditOptions
from tests.conftest import SAMPLES

PACKAGE = Path(__file__).resolve().parents[2] / "citedesk"
LOWER = {"citedesk.pipeline": {"audit_text", "audit"}, "citedesk.engine.stages": {"run_stages"}}
"""The engine's doors below the entry: only the entry (and the pipeline, for the stages) opens them."""
MAY_OPEN = {"citedesk.pipeline": {"desk/entry.py"}, "citedesk.engine.stages": {"pipeline.py"}}
ALL_STAGES = ["structure", "sources", "reference truth", "retrieval", "judging", "findings"]


def _openings(tree: ast.AST) -> set[str]:
    """The lower doors a module opens: `from M import name`, or `M.name` after `import M`."""
    found: set[str] = set()
    modules: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in LOWER:
            found |= {f"{node.module}.{a.name}" for a in node.names if a.name in LOWER[node.module]}
        elif isinstance(node, ast.ImportFrom) and node.module in {m.rsplit(".", 1)[0] for m in LOWER}:
            modules |= {a.asname or a.name: f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            modules |= {a.asname or a.name: a.name for a in node.names if a.name in LOWER}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name | ast.Attribute):
            owner = ast.unparse(node.value)
            module = modules.get(owner, owner)
            if node.attr in LOWER.get(module, ()):
                found.add(f"{module}.{node.attr}")
    return found


def test_no_module_but_the_entry_calls_the_engines_front_door() -> None:
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        for door in sorted(_openings(ast.parse(path.read_text(encoding="utf-8")))):
            module = door.rsplit(".", 1)[0]
            if where not in MAY_OPEN[module]:
                wrong.append(f"{where} opens {door}")
    assert not wrong, "audits go through desk.entry.audit_document:\n" + "\n".join(wrong)


def test_the_check_sees_each_way_of_opening_the_door() -> None:
    for source in (
        "from citedesk.pipeline import audit_text",
        "import citedesk.pipeline\ncitedesk.pipeline.audit(d, o, s)",
        "from citedesk import pipeline\npipeline.audit_text(t)",
        "from citedesk.engine import stages as s\ns.run_stages(d, o, s)",
    ):
        assert _openings(ast.parse(source)), source


def _flags(tmp_path: Path) -> list[str]:
    return ["--offline", "--judge", "heuristic", "--no-dense", "--store", str(tmp_path / "store.sqlite3")]


def test_the_cli_and_batch_audit_through_the_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    heard: list[Entered] = []
    sample = SAMPLES / "problems.md"
    with observing(heard.append):
        assert main(["audit", str(sample), "--format", "json", *_flags(tmp_path)]) == 1
        corpus = tmp_path / "corpus"
        corpus.mkdir()
        (corpus / "note.md").write_text(sample.read_text(encoding="utf-8"), encoding="utf-8")
        main(["batch", str(corpus), "--out", str(tmp_path / "out"), "--workers", "1", *_flags(tmp_path)])
    capsys.readouterr()
    assert [(Path(str(e.document.path)).name, e.stages, e.finished) for e in heard] == [
        ("problems.md", tuple(ALL_STAGES), True),
        ("note.md", tuple(ALL_STAGES), True),
    ]
    heard.clear()
    main(["audit", str(sample), "--format", "json", *_flags(tmp_path)])
    capsys.readouterr()
    assert not heard  # observing ended with its block


def record_into(path: Path) -> None:
    """The audit child's setup (a fresh interpreter): each audit through the entry, one line."""

    def heard(entered: Entered) -> None:
        with path.open("a", encoding="utf-8") as out:
            out.write(f"{entered.document.path}\t{','.join(entered.stages)}\t{entered.finished}\n")

    observe(heard)


def test_the_window_and_language_servers_child_audits_through_the_entry(tmp_path: Path) -> None:
    """The window's `ProcessAuditRunner` and the language server's `AuditRunner` both hand their
    requests to this channel's child (`desk.background`)."""
    messages: queue.Queue[AuditMessage] = queue.Queue()
    channel = AuditChannel(messages.put)
    heard = tmp_path / "heard.tsv"
    channel.use_process(AuditProcess(setup=functools.partial(record_into, heard)))
    options = AuditOptions(offline=True, judge="heuristic", dense=False, store_path=tmp_path / "s.sqlite3")
    try:
        channel.submit(1, "A claim [1].\n\n## References\n\n1. Doe (1999).\n", "/docs/draft.md", options)
        while not isinstance(message := messages.get(timeout=120), Finished):
            assert not isinstance(message, Failed), message
        assert channel.wait_idle(10)
    finally:
        channel.close()
    assert heard.read_text(encoding="utf-8") == f"/docs/draft.md\t{','.join(ALL_STAGES)}\tTrue\n"


def test_a_child_that_dies_fails_each_audit_it_owed_once(tmp_path: Path) -> None:
    """The window and the language server share this bookkeeping (each had a copy)."""
    messages: queue.Queue[AuditMessage] = queue.Queue()
    channel = AuditChannel(messages.put, restarted_by="edit")
    options = AuditOptions(offline=True, judge="heuristic", dense=False, store_path=tmp_path / "s.sqlite3")
    try:
        channel.warm()
        pid = channel.process.pid
        assert pid is not None
        channel.submit(1, "A claim [1].\n", None, options)
        channel.submit(2, "Another claim [2].\n", None, options)
        os.kill(pid, signal.SIGKILL)  # before the spawned child has even imported the stages
        failed: list[Failed] = []
        while len(failed) < 2:
            message = messages.get(timeout=60)
            if isinstance(message, Failed):
                failed.append(message)
        assert sorted(m.generation for m in failed) == [1, 2]
        assert {(m.failure.kind, m.failure.message) for m in failed} == {
            ("process", "the audit process stopped unexpectedly; the next edit restarts it")
        }
        assert channel.wait_idle(0)
        channel.submit(3, "A claim [1].\n", None, options)  # a new child answers
        while not isinstance(message := messages.get(timeout=120), Finished):
            assert not isinstance(message, Failed), message
        assert message.generation == 3
        assert channel.process.pid != pid
        assert channel.wait_idle(10)
    finally:
        channel.close()
