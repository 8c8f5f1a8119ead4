"""A long document's report crosses from the audit process to the window without stalling it
(issue 26): unpickled by Python's own unpickler, its objects kept out of the cycle collector's
walks. That is safe only because a report holds no reference cycle: it is freed by reference
counting the moment the window lets go of it."""

from __future__ import annotations

import gc
import pickle
from pathlib import Path

from citedesk.desk.background import LOAD_AT_ONCE_BYTES, Finished, _loads
from citedesk.pipeline import AuditOptions, audit_text


def test_a_big_report_arrives_whole_and_holds_no_cycle(tmp_path: Path) -> None:
    (tmp_path / "sources").mkdir()
    topics = ("river", "forest", "bridge")
    for n, topic in enumerate(topics, start=1):
        lines = [f"The {topic} project employed {100 + j} people in year {j}." for j in range(40)]
        (tmp_path / "sources" / f"{n}.txt").write_text("\n\n".join(lines), encoding="utf-8")
    claims = [
        f"The {topics[i % 3]} project employed {100 + i % 40} people in year {i % 40} [{i % 3 + 1}]."
        for i in range(300)
    ]
    text = (
        "# A long chapter\n\n"
        + "\n\n".join(" ".join(claims[i : i + 4]) for i in range(0, len(claims), 4))
        + " A figure no reference gives [99].\n\n## References\n\n"
        + "\n".join(f"{n}. Source {n}. {n}.txt" for n in range(1, 4))
        + "\n"
    )
    options = AuditOptions(
        offline=True,
        judge="heuristic",
        dense=False,
        sources_dir=tmp_path / "sources",
        store_path=tmp_path / "s.db",
    )
    report = audit_text(text, str(tmp_path / "doc.md"), options)
    payload = pickle.dumps(Finished(7, report))
    assert len(payload) > LOAD_AT_ONCE_BYTES  # the path a book's report takes
    gc.collect()
    try:
        message = _loads(payload)
        assert isinstance(message, Finished)
        assert message.generation == 7
        assert message.report.findings == report.findings
        assert message.report.document.text == text
        assert message.report.verdicts == report.verdicts
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    del message
    assert gc.collect() == 0  # nothing of it was left to the cycle collector
