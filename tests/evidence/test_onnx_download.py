"""A downloaded model is exported to ONNX right after its download, once, and judged from the file;
a model that cannot be exported is installed all the same and judges with torch, saying why.

The "Hub" is the tests' local server (`HF_ENDPOINT`) serving the tiny trained grounding model; the
export is the real one (torch's exporter, onnxruntime's check and int8 quantisation), into this
test's own cache folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.evidence import local_models
from citedesk.evidence.download import onnx_state, pull
from citedesk.evidence.judges.nli import NliJudge
from citedesk.evidence.onnx_embed import ONNX_ENV
from citedesk.evidence.onnx_judge import best_file, judge_failure_file
from tests.conftest import REPO
from tests.evidence.test_model_download import ENTRY
from tests.evidence.test_model_download import REPO as HUB_REPO
from tests.evidence.test_onnx_judge import pairs
from tests.helpers.hub import HubRepo, serve_hub

pytestmark = pytest.mark.slow


@pytest.fixture
def onnx_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """ONNX allowed (the suite turns it off); the cache folder is already this test's own."""
    monkeypatch.delenv(ONNX_ENV)


@pytest.fixture
def online(monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)


def served(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with serve_hub({HUB_REPO: HubRepo.from_folder(folder)}) as local:
        monkeypatch.setenv("HF_ENDPOINT", local.url)
        yield


def test_a_download_is_exported_at_once_and_judged_without_torch(
    grounding_model: Path, monkeypatch: pytest.MonkeyPatch, online: None, onnx_on: None
) -> None:
    for _ in served(grounding_model, monkeypatch):
        result = pull(ENTRY)
    assert result.onnx is not None
    assert result.onnx.engine in {"onnx", "onnx-int8"}
    assert result.onnx.path == best_file(result.path)
    assert result.onnx.describe().startswith("judges on ONNX Runtime")
    assert onnx_state(result.path) == result.onnx  # found again, not made again

    # a fresh process judges from the file: neither torch nor transformers is imported
    script = (
        "import sys, json\n"
        "from pathlib import Path\n"
        "from citedesk.evidence.judges.nli import NliJudge\n"
        "from citedesk.evidence.judges.base import Pair\n"
        f"judge = NliJudge(Path({str(result.path)!r}))\n"
        "out = judge.judge([Pair('Trees were cooler.', 'Street trees were cooler.', ())])\n"
        "print(json.dumps([judge.engine, 'torch' in sys.modules, 'transformers' in sys.modules]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != ONNX_ENV}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == [result.onnx.engine, False, False]
    assert not list(result.path.parent.glob(".*"))  # no download folder left behind


def test_a_download_that_cannot_be_exported_is_installed_on_torch_and_says_why(
    grounding_model: Path, monkeypatch: pytest.MonkeyPatch, online: None, onnx_on: None
) -> None:
    from citedesk.evidence import onnx_judge

    monkeypatch.setattr(onnx_judge, "MAX_DIFFERENCE", -1.0)  # no export can pass: the check refuses it
    for _ in served(grounding_model, monkeypatch):
        result = pull(ENTRY)
    assert result.onnx is not None
    assert result.onnx.engine == "torch"
    assert "differ from torch" in result.onnx.describe()
    assert best_file(result.path) is None  # nothing unchecked is published
    assert local_models.installed() == [result.path]  # nothing lost: installed, and it judges
    assert "differ from torch" in judge_failure_file(result.path).read_text(encoding="utf-8")
    judge = NliJudge(result.path, shared=False)
    assert judge.judge(pairs())
    assert judge.engine == "torch"
    assert "judges with torch" in judge.notice


def test_models_prepare_name_exports_an_imported_model_once(
    grounding_model: Path, onnx_on: None, capsys: pytest.CaptureFixture[str]
) -> None:
    installed = local_models.models_dir() / "tiny"  # installed by hand (or by `models import`): not exported
    shutil.copytree(grounding_model, installed)
    assert best_file(installed) is None  # an import exports nothing by itself
    capsys.readouterr()

    assert main(["models", "prepare", "tiny"]) == 0
    first = capsys.readouterr().out
    assert first.startswith("tiny judges on ONNX Runtime (")
    made = best_file(installed)
    assert made is not None
    stamp = made.stat().st_mtime_ns

    assert main(["models", "prepare", "tiny"]) == 0  # already made: the same file, untouched
    assert capsys.readouterr().out.startswith("tiny judges on ONNX Runtime (")
    assert made.stat().st_mtime_ns == stamp
    assert main(["models", "prepare", "tiny", "--again"]) == 0  # made anew
    assert best_file(installed) == made
    assert made.stat().st_mtime_ns != stamp

    assert main(["models", "prepare", "no-such-model"]) != 0
    assert "no-such-model" in capsys.readouterr().err
