"""`citedesk models bench NAME` on a tiny model: a figure measured here, which `models list` shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.evidence import speed
from citedesk.evidence.local_models import models_dir
from tests.helpers.t5 import build_tiny_t5


def test_bench_records_a_figure_that_list_shows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = build_tiny_t5(tmp_path / "t5", seed=1)
    assert main(["models", "import", str(folder), "--name", "quick", "--as", "minicheck-flan-t5-large"]) == 0
    main(["models", "list"])
    assert "not measured here — run citedesk models bench quick" in capsys.readouterr().out
    assert main(["models", "bench", "quick"]) == 0
    said = capsys.readouterr().out
    assert "pairs/s at 128 tokens" in said
    assert "pairs/s at 512 tokens" in said
    record = json.loads((models_dir() / "quick" / speed.SPEED_FILE).read_text(encoding="utf-8"))
    assert set(record["pairs_s"]) == {"128", "512"}
    assert all(rate > 0 for rate in record["pairs_s"].values())
    # (which length is faster is not asserted: on a tiny model under a shared machine's load the
    # two rates are noise; tests/bench/model_speed.py measures real shapes)
    main(["models", "list"])
    listing = capsys.readouterr().out
    assert "measured here: " in listing
    assert "run citedesk models bench quick" not in listing
    assert "speed here (quick): measured here" in listing  # beside its catalogue entry too
    assert main(["models", "bench", "nothing-here"]) == 2


def test_bench_pairs_have_the_asked_length() -> None:
    def words(text: str) -> int:
        return len(text.split())

    for size in speed.LENGTHS:
        pairs = speed.bench_pairs(words, size, 3)
        assert len({p.evidence for p in pairs}) == 3  # distinct: nothing is read twice
        for pair in pairs:
            total = words(pair.claim) + words(pair.evidence)
            assert size <= total < size + 20
