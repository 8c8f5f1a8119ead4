"""Downloading a model, against a real HTTP server on 127.0.0.1 standing in for the Hugging Face Hub.

huggingface_hub is pointed at it with `HF_ENDPOINT`, and offline mode (which the test run sets for
everything else) is lifted only inside these tests. The served model is a tiny one the tests train,
so `models verify` accepts it only if the download arrived whole and is read the right way.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from citedesk.cli import main
from citedesk.evidence import local_models
from citedesk.evidence.catalogue import CatalogueEntry
from citedesk.evidence.download import (
    DiskFull,
    DownloadCancelled,
    ModelNotFound,
    NoNetwork,
    hub_reachable,
    progress_text,
    pull,
)
from citedesk.evidence.judges.nli import FORMAT_FILE, InputFormat, ModelError, read_format
from tests.helpers.hub import HubRepo, LocalHub, serve_hub

REPO = "citedesk-test/tiny-grounding"
TINY_FORMAT = InputFormat(kind="joined", entail=1, max_length=512, chunk_tokens=400)
ENTRY = CatalogueEntry(
    "tiny-grounding",
    REPO,
    1,
    "MIT",
    "2-way",
    "fast",
    "a test model",
    benchmark="none",
    source="this test",
    input_format=TINY_FORMAT,
)


@pytest.fixture
def online(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lift the test run's offline mode for this test only (huggingface_hub read it at import)."""
    from huggingface_hub import constants

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)


@pytest.fixture
def hub(grounding_model: Path, monkeypatch: pytest.MonkeyPatch, online: None) -> Iterator[LocalHub]:
    with serve_hub({REPO: HubRepo.from_folder(grounding_model)}) as local:
        monkeypatch.setenv("HF_ENDPOINT", local.url)
        yield local


def left_in_models() -> list[str]:
    root = local_models.models_dir()
    return sorted(p.name for p in root.iterdir()) if root.exists() else []


def test_pull_installs_a_checked_model_reporting_progress_to_the_total(
    hub: LocalHub, capsys: pytest.CaptureFixture[str]
) -> None:
    reports: list[tuple[int, int]] = []
    seen_installed: list[list[Path]] = []

    def report(done: int, total: int) -> None:
        reports.append((done, total))
        seen_installed.append(local_models.installed())

    root = local_models.models_dir()
    root.mkdir(parents=True)
    stale, fresh = root / ".old.download-1234abcd", root / ".other.download-5678abcd"
    for folder in (stale, fresh):
        folder.mkdir()
        (folder / "config.json").write_text("{}", encoding="utf-8")
    day_and_more = time.time() - 25 * 3600
    os.utime(stale / "config.json", (day_and_more, day_and_more))

    result = pull(ENTRY, progress=report)

    assert result.path == root / "tiny-grounding"
    # its own staging folder is gone, one a dead process left a day ago too; a recent one is kept
    assert left_in_models() == [fresh.name, "tiny-grounding"]
    assert seen_installed == [[]] * len(reports)  # a download in progress is never an installed model
    served = hub.repos[REPO].files
    assert sorted(p.name for p in result.path.iterdir()) == sorted([*served, FORMAT_FILE])
    for name, data in served.items():
        assert (result.path / name).read_bytes() == data
    assert read_format(result.path) == TINY_FORMAT
    assert (result.commit, result.right, result.pairs) == (hub.repos[REPO].sha, 6, 6)

    total = sum(len(data) for data in served.values())
    assert result.downloaded == total
    assert len(reports) >= len(served)
    assert all(t == total for _, t in reports)
    assert [d for d, _ in reports] == sorted(d for d, _ in reports)
    assert reports[-1] == (total, total)
    # the weights came through the Hub's LFS redirect, each file once
    assert sorted(hub.downloads()) == sorted(
        f"/lfs/{REPO}/{n}" if n.endswith(".safetensors") else f"/{REPO}/resolve/{result.commit}/{n}"
        for n in served
    )

    assert main(["models", "verify", "tiny-grounding"]) == 0
    assert "6/6 known pairs right" in capsys.readouterr().out
    with pytest.raises(ModelError, match="already installed"):
        pull(ENTRY)


def test_cancel_mid_download_installs_nothing(hub: LocalHub) -> None:
    reports: list[int] = []
    with pytest.raises(DownloadCancelled, match="nothing was installed"):
        pull(ENTRY, progress=lambda done, _total: reports.append(done), cancelled=lambda: bool(reports))
    assert len(reports) == 1
    assert left_in_models() == []
    assert len(hub.downloads()) < len(hub.repos[REPO].files)


def test_a_model_whose_labels_read_backwards_is_not_installed(hub: LocalHub) -> None:
    backwards = CatalogueEntry(
        "backwards", REPO, 1, "MIT", "", "", "", input_format=InputFormat(kind="joined", entail=0)
    )
    with pytest.raises(ModelError, match="only 0 of 6 known pairs"):
        pull(backwards)
    assert left_in_models() == []


def test_a_missing_repo_is_not_found(hub: LocalHub) -> None:
    with pytest.raises(ModelNotFound, match="nobody/nothing was not found"):
        pull("nobody/nothing")
    assert left_in_models() == []
    with pytest.raises(ModelNotFound, match="no model 'no-such-model' in the registry"):
        pull("no-such-model")


def test_not_enough_disk_space_stops_before_downloading(
    grounding_model: Path, monkeypatch: pytest.MonkeyPatch, online: None
) -> None:
    repo = HubRepo.from_folder(grounding_model)
    repo.advertised_sizes["model.safetensors"] = 10**18  # the Hub announces an exabyte
    with serve_hub({REPO: repo}) as local:
        monkeypatch.setenv("HF_ENDPOINT", local.url)
        with pytest.raises(DiskFull, match="not enough disk space"):
            pull(ENTRY)
        assert local.downloads() == []
    assert left_in_models() == []


def test_models_that_would_run_their_own_code_are_refused(
    grounding_model: Path, monkeypatch: pytest.MonkeyPatch, online: None
) -> None:
    repo = HubRepo.from_folder(grounding_model)
    repo.files["modeling_custom.py"] = b"import os\n"
    with serve_hub({REPO: repo}) as local:
        monkeypatch.setenv("HF_ENDPOINT", local.url)
        with pytest.raises(ModelError, match="never runs"):
            pull(ENTRY)
        assert local.downloads() == []
    with pytest.raises(ModelError, match="trust_remote_code"):
        pull("hhem-2.1-open")  # listed in the registry, never offered
    assert left_in_models() == []


def test_an_unreachable_hub_is_no_network_quickly(monkeypatch: pytest.MonkeyPatch, online: None) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    started = time.monotonic()
    with pytest.raises(NoNetwork, match=r"no network: .* `citedesk models import FOLDER`"):
        pull(ENTRY)
    assert not hub_reachable(timeout=3)
    assert time.monotonic() - started < 60  # a refused connection answers at once; 10x margin and more
    assert left_in_models() == []


def test_hub_reachable_is_true_for_an_answering_hub(hub: LocalHub) -> None:
    assert hub_reachable(timeout=5)
    assert hub.requests == ["HEAD /api/models"]


def test_offline_mode_is_no_network_without_contacting_anyone(
    grounding_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the test run's HF_HUB_OFFLINE=1 is in force here
    with serve_hub({REPO: HubRepo.from_folder(grounding_model)}) as local:
        monkeypatch.setenv("HF_ENDPOINT", local.url)
        with pytest.raises(NoNetwork, match="HF_HUB_OFFLINE"):
            pull(ENTRY)
        assert not hub_reachable()
        assert local.requests == []
    assert left_in_models() == []


def test_pull_returns_the_installed_folder(hub: LocalHub, monkeypatch: pytest.MonkeyPatch) -> None:
    from citedesk.evidence import catalogue

    monkeypatch.setattr(catalogue, "CATALOGUE", (*catalogue.CATALOGUE, ENTRY))
    assert pull("tiny-grounding").path == local_models.models_dir() / "tiny-grounding"
    assert (
        local_models.default_model() == local_models.models_dir() / "tiny-grounding"
    )  # the only one: `auto` uses it


def test_progress_in_words() -> None:
    assert progress_text(312_000_000, 1_430_000_000) == "312 MB of 1,430 MB (21%)"
    assert progress_text(5_000_000, 0) == "5 MB"
