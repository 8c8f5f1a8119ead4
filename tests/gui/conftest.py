"""GUI tests never block on a modal dialog: any that opens fails the test at once instead of hanging."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox


@pytest.fixture(autouse=True)
def _no_modal_dialogs(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError(f"a modal dialog opened during a test: {args[1:3]!r}")

    for owner, names in (
        (QMessageBox, ("question", "information", "warning", "critical", "about")),
        (QInputDialog, ("getText", "getItem", "getInt")),
        (QFileDialog, ("getOpenFileName", "getSaveFileName", "getExistingDirectory")),
    ):
        for name in names:
            monkeypatch.setattr(owner, name, staticmethod(refuse))
