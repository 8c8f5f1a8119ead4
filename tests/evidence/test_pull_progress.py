"""`citedesk models pull` shows its download's progress (issue 28): plain lines with the megabytes
and a last "done" line when standard error is no terminal, and no carriage returns in a log. The
download is real, from the local stand-in for the Hub (tests/evidence/test_model_download.py)."""

from __future__ import annotations

import pytest

from citedesk.cli import main, progress
from citedesk.evidence import catalogue
from tests.evidence.test_model_download import ENTRY, hub, online  # noqa: F401 - fixtures
from tests.helpers.hub import LocalHub


def test_models_pull_shows_plain_progress_lines_when_not_a_terminal(
    hub: LocalHub,  # noqa: F811 - the fixture
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(catalogue, "CATALOGUE", (*catalogue.CATALOGUE, ENTRY))
    monkeypatch.setattr(progress, "PLAIN_AFTER_S", 0.0)  # the tiny model downloads at once
    assert main(["models", "pull", ENTRY.name]) == 0
    captured = capsys.readouterr()
    assert f"installed {ENTRY.name}" in captured.out
    lines = [line for line in captured.err.splitlines() if "downloading" in line]
    assert lines, captured.err
    assert lines[-1].startswith(f"citedesk: downloading {ENTRY.name} ")
    assert "(100%), done in" in lines[-1]
    assert " kB (100%)" in lines[-1]  # a tiny model
    assert "\r" not in captured.err
