"""Tiny models shared by the evidence tests (built once per run: training one takes a second or two)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from citedesk.evidence.catalogue import MINICHECK_FORMAT
from citedesk.evidence.models import VERIFY_PAIRS
from tests.conftest import SAMPLES
from tests.helpers.models import build_trained_nli


@pytest.fixture(scope="session")
def grounding_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A MiniCheck-style model: labels "0" / "1" (1 = supported), trained on the known pairs of
    `models verify` in MiniCheck's input format (evidence + eos + claim), evidence as the premise."""
    folder = tmp_path_factory.mktemp("grounding") / "tiny-grounding"
    return build_trained_nli(
        folder, VERIFY_PAIRS, id2label={0: "0", 1: "1"}, entail=1, input_format=MINICHECK_FORMAT
    )


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """The evidence sample and its sources, copied (an audit may attach or write beside it)."""
    shutil.copytree(SAMPLES / "sources", tmp_path / "sources")
    target = tmp_path / "evidence.md"
    shutil.copy(SAMPLES / "evidence.md", target)
    return target
