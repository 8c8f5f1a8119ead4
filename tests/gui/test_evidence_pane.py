"""The evidence pane as a writer reads it (a real QTextBrowser)."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from citedesk.core.findings import Evidence, Finding, Kind, Severity
from citedesk.gui.panels.evidence_view import EvidenceView

pytestmark = pytest.mark.gui


def test_a_title_above_the_passage_is_its_own_line_in_the_pane(qtbot: QtBot) -> None:
    """The window's line break between a source's title and its first sentence is shown: the pane
    no longer reads "…material-flow analysis Using a global…" (issue 43)."""
    title = "Urban tree canopy in a material-flow analysis"
    passage = "Using a global dataset, we found that street trees cool streets by 7 degrees."
    evidence = Evidence(
        source="1", passage=passage, start=47, end=47 + len(passage), window=f"{title}\n{passage}"
    )
    finding = Finding(
        Kind.NUMBER_MISMATCH, 0, 10, "It says 7, not 12.", Severity.ERROR, "1", evidence=evidence
    )
    view = EvidenceView()
    qtbot.addWidget(view)
    view.show_finding(finding)
    shown = view.browser.toPlainText()
    assert f"{title}\n{passage}" in shown
    assert "analysis Using" not in shown
