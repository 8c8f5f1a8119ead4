"""`citedesk batch` (issue 42): each distinct work the corpus cites is asked for once per corpus —
a source that could not be had too — and the workers get what was had as data, not the store's
path: a dead link cited by every document is one request, and the documents' findings about it
are those of auditing each alone."""

from __future__ import annotations

import json
from pathlib import Path

from citedesk.desk import Desk
from citedesk.desk.corpus_run import run_corpus
from citedesk.pipeline import audit_text
from tests.desk.test_batch import DOCUMENTS, _findings, _Sources, document, options, sources  # noqa: F401


def _corpus(folder: Path, base: str) -> Path:
    root = folder / "corpus"
    root.mkdir()
    for i in range(DOCUMENTS):
        text = (
            document(i, base).replace("before 2050.", "before 2050 [3].")
            + f"3. Oke T. (2017). Gone for good. {base}/gone/{i % 2}\n"
        )
        (root / f"doc{i:02}.md").write_text(text, encoding="utf-8")
    return root


def _hits() -> dict[str, int]:
    return {path: n for path, n in _Sources.hits.items() if path.startswith(("/src/", "/gone/"))}


def test_every_work_is_asked_for_once_per_corpus_a_dead_link_too(tmp_path: Path, sources: str) -> None:  # noqa: F811
    root = _corpus(tmp_path, sources)
    out = tmp_path / "out"
    result = run_corpus(Desk(options(tmp_path)), [root], out, workers=2)

    assert all(o.error is None for o in result.outcomes)
    # before: each dead link was asked for again by every document citing it (7 and 7 requests)
    assert _hits() == {**{f"/src/{n}": 1 for n in range(6)}, "/gone/0": 1, "/gone/1": 1}
    assert (result.distinct_sources, result.fetched, result.failed_sources) == (8, 6, 2)
    for name in ("doc00.md", "doc01.md"):
        report = (out / "reports" / f"{name}.json").read_text(encoding="utf-8")
        alone = audit_text((root / name).read_text(encoding="utf-8"), str(root / name), options(tmp_path))
        assert any(f.kind.value == "dead_link" for f in alone.findings)

        assert _findings(json.loads(report)) == [
            (f.kind.value, (f.start, f.end), f.reference, f.severity.value) for f in alone.findings
        ]
    assert not (out / ".workers").exists()  # the workers' private stores are gone with the run

    _Sources.hits.clear()
    again = run_corpus(Desk(options(tmp_path)), [root], out, workers=2)
    assert (again.audited, _hits()) == (0, {})  # nothing asked again on a re-run
