"""First use with no NLI model: the window offers a recommended model where the hub answers, once,
and downloads it with a progress bar and Cancel — against a real HTTP server on 127.0.0.1 standing
in for the Hugging Face Hub (huggingface_hub honours `HF_ENDPOINT`), serving a tiny trained model."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from citedesk.desk import models
from citedesk.gui.dialogs.download_dialog import OFFER_MADE, OfferDialog, offer_line
from citedesk.gui.dialogs.settings_dialog import SettingsDialog
from citedesk.gui.main_window import MainWindow
from tests.evidence.conftest import grounding_model  # noqa: F401 - the tiny model, a fixture
from tests.helpers.hub import HubRepo, LocalHub, serve_hub

pytestmark = [pytest.mark.gui, pytest.mark.slow]


@pytest.fixture
def online(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lift the test run's offline mode for this test only (huggingface_hub read it at import)."""
    from huggingface_hub import constants

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)


def first_offer() -> models.Offer:
    return models.download_offers()[0]


@pytest.fixture
def hub(grounding_model: Path, monkeypatch: pytest.MonkeyPatch, online: None) -> Iterator[LocalHub]:  # noqa: F811
    """The hub serves the tiny model as the first recommended one (it reads MiniCheck's format)."""
    with serve_hub({first_offer().hub_id: HubRepo.from_folder(grounding_model)}, chunk_delay=0.05) as local:
        monkeypatch.setenv("HF_ENDPOINT", local.url)
        yield local


def installed_names() -> list[str]:
    return [m.name for m in models.installed()]


def test_first_use_offers_a_model_once_and_downloads_it_with_progress(
    qtbot: QtBot, window: MainWindow, hub: LocalHub, settings: QSettings
) -> None:
    downloads = window.downloads
    with qtbot.waitSignal(downloads.offer_shown, timeout=30_000) as shown:
        assert downloads.check_first_use(offline=False)
    dialog = shown.args[0]
    assert isinstance(dialog, OfferDialog)
    offer = first_offer()
    assert dialog.choice.itemText(0) == offer_line(offer)
    assert (
        dialog.choice.itemText(0)
        == "minicheck-roberta-large — 1,430 MB — LLM-AggreFact balanced accuracy 73.5"
    )
    assert settings.value(OFFER_MADE, False, type=bool)
    assert not downloads.check_first_use(offline=False)  # offered once

    progress: list[tuple[int, int]] = []
    downloads.progress.connect(lambda done, total: progress.append((done, total)))
    with qtbot.waitSignal(downloads.finished, timeout=120_000):
        qtbot.mouseClick(dialog.download_button, Qt.MouseButton.LeftButton)
        assert downloads.progress_dialog is not None
        assert downloads.progress_dialog.isVisible()
    assert installed_names() == [offer.name]
    total = sum(len(data) for data in hub.repos[offer.hub_id].files.values())
    assert progress[-1] == (total, total)
    assert [d for d, _ in progress] == sorted(d for d, _ in progress)
    assert downloads.progress_dialog is None  # closed
    assert f"Installed {offer.name}" in window.stage.text()


def test_cancel_stops_the_download_and_installs_nothing(
    qtbot: QtBot, window: MainWindow, hub: LocalHub
) -> None:
    downloads = window.downloads
    dialog = SettingsDialog(window.settings, window)  # Settings ▸ Download a judge model…
    qtbot.addWidget(dialog)
    dialog.download_requested.connect(downloads.offer)
    with qtbot.waitSignal(downloads.offer_shown, timeout=10_000) as shown:
        qtbot.mouseClick(dialog.download_button, Qt.MouseButton.LeftButton)
    offer_dialog = shown.args[0]
    with qtbot.waitSignal(downloads.progress, timeout=60_000):
        qtbot.mouseClick(offer_dialog.download_button, Qt.MouseButton.LeftButton)
    cancel = downloads.cancel_button()
    assert cancel is not None
    with qtbot.waitSignal(downloads.cancelled, timeout=60_000):
        qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)
    assert installed_names() == []
    assert window.stage.text() == "Download cancelled; nothing was installed."
    assert downloads.progress_dialog is None
    assert len(hub.downloads()) < len(hub.repos[first_offer().hub_id].files)


def test_no_offer_when_the_hub_does_not_answer(
    qtbot: QtBot, window: MainWindow, settings: QSettings, monkeypatch: pytest.MonkeyPatch, online: None
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    with qtbot.waitSignal(window.downloads.hub_checked, timeout=30_000) as checked:
        assert window.downloads.check_first_use(offline=False)
    assert checked.args == [False]
    assert window.downloads.dialog is None
    assert not settings.value(OFFER_MADE, False, type=bool)  # offered later, when the hub answers
    assert not window.downloads.check_first_use(offline=True)  # offline: not even asked
