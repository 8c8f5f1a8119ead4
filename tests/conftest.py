"""Test-wide set-up: no display, no real home directory, no network but loopback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "resources" / "samples"
SHARED_EVAL = REPO.parent / "shared" / "eval"


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Config, data and cache go to a temporary folder, never the real home directory."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


@pytest.fixture
def samples() -> Path:
    return SAMPLES


@pytest.fixture(autouse=True)
def _no_real_indexes(monkeypatch: pytest.MonkeyPatch) -> None:
    """doi.org, Crossref and OpenAlex are never asked for real: their addresses default to names
    that cannot resolve (RFC 2606 `.invalid`), so an online audit in a test that sets up no local
    server sees them unreachable, whatever network the machine has. A test points them at its own
    server with `monkeypatch.setenv` (which wins, being set later)."""
    monkeypatch.setenv("CITEDESK_DOI_BASE", "http://doi.invalid")
    monkeypatch.setenv("CITEDESK_CROSSREF_BASE", "http://crossref.invalid")
    monkeypatch.setenv("CITEDESK_OPENALEX_BASE", "http://openalex.invalid")
    monkeypatch.delenv("CITEDESK_CONTACT_EMAIL", raising=False)
    monkeypatch.delenv("CITEDESK_OPENALEX_API_KEY", raising=False)
