"""The Qt binding itself: a long session must not wear out Python's reference to None.

PySide6 6.12.0 with Python 3.11 (where None is not yet immortal) dropped one reference to None on
every call of a method that returns nothing, so a window that made enough such calls — the
highlighter painting a long document does thousands per pass — aborted with "Fatal Python error:
none_dealloc: deallocating None". The pin is 6.11.2; this test fails on a binding with that bug.
"""

from __future__ import annotations

import sys

import pytest
from PySide6.QtGui import QColor, QTextCharFormat
from pytestqt.qtbot import QtBot

pytestmark = pytest.mark.gui

CALLS = 1_000
"""Few enough that a broken binding fails this test rather than aborting the run."""


def test_calls_that_return_nothing_keep_the_reference_to_none(qtbot: QtBot) -> None:
    colour = QColor("#8c9499")
    fmt = QTextCharFormat()
    before = sys.getrefcount(None)
    for _ in range(CALLS // 2):
        colour.setAlpha(40)
        fmt.setUnderlineColor(colour)
    lost = before - sys.getrefcount(None)
    assert lost < CALLS // 20, f"{lost} references to None lost in {CALLS} calls"
