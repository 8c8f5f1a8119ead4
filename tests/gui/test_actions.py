"""Actions declared once (`gui.actions`): the menu bar, the editor's context menu, the hover card and
the evidence pane show the same action with the same label and shortcut, and each honours the
action's `enabled_when`."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from citedesk.gui import actions
from citedesk.gui.actions import ACTIONS, AT_A_FINDING, MENU_BAR, SUBMENUS, ActionState
from citedesk.gui.main_window import MainWindow
from citedesk.gui.menus import handler_of
from tests.gui.helpers import audited, hover, point_of
from tests.gui.test_inline import evidence_document, misattributed

pytestmark = pytest.mark.gui


def test_every_action_is_declared_once_and_runs_something_of_the_window(window: MainWindow) -> None:
    ids = [spec.id for spec in ACTIONS]
    assert len(ids) == len(set(ids))
    labels = [(title, actions.BY_ID[e].label) for title, entries in MENU_BAR for e in entries if e in ids]
    assert len(labels) == len(set(labels))  # no label twice in one menu
    for spec in ACTIONS:
        assert spec.handler is None or callable(handler_of(window, spec)), spec.id
    in_menus = {e for _, entries in MENU_BAR for e in entries if e in ids}
    assert set(window.menus.actions) == in_menus
    assert {e for _, entries in MENU_BAR for e in entries} - in_menus <= {actions.SEPARATOR, *SUBMENUS}


def test_the_menu_the_context_menu_and_the_card_show_one_label_and_one_shortcut(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    audited(qtbot, window, lambda: window.load_file(evidence_document(tmp_path)))
    wrong = misattributed(window)
    point = point_of(window, wrong.start, wrong.end)
    position = window.editor.cursorForPosition(point).position()
    context = {a.text(): a for a in window.editor.context_menu_at(position).actions()}
    hover(window, point)
    card = window.editor.card.labels()
    pane = [b.text() for b in window.evidence.findChildren(QPushButton)]
    for spec in AT_A_FINDING:
        assert spec.text in card
        assert spec.text in context
        assert context[spec.text].shortcuts() == spec.key_sequences()
        menu_action = window.menus.actions.get(spec.id)
        if menu_action is not None:  # Show evidence is the card's and the context menu's alone
            assert menu_action.text().replace("&", "") == spec.text
            assert menu_action.shortcuts() == spec.key_sequences()
    window.findings.select(wrong)
    for spec in actions.IN_THE_PANE:
        assert spec.text in pane
    # a fix is named as the fix; the word-level judge's says it is a suggestion to verify
    assert card[0] == f"{wrong.fixes[0].title} (verify first)"
    assert window.menus.actions["apply_fix"].text() == f"&Apply fix: {wrong.fixes[0].title} (verify first)"
    assert window.findings.fix_button.text().startswith("Apply: ")


def test_enabled_when_is_honoured(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    apply_fix = window.menus.actions["apply_fix"]
    assert not apply_fix.isEnabled()  # nothing selected: nothing to apply
    assert apply_fix.text() == actions.APPLY_FIX.label
    audited(qtbot, window, lambda: window.load_file(evidence_document(tmp_path)))
    wrong = misattributed(window)
    window.findings.select(wrong)
    assert apply_fix.isEnabled()
    assert window.findings.fix_button.isEnabled()
    no_fix = dataclasses.replace(wrong, fixes=())
    window.menus.follow(ActionState(no_fix))
    assert not apply_fix.isEnabled()
    assert apply_fix.text() == actions.APPLY_FIX.label
    assert window.menus.actions["confirmed"].isEnabled()  # without a fix, a decision still applies
    assert not actions.SHOW_EVIDENCE.enabled_when(ActionState())
    assert actions.SHOW_EVIDENCE.enabled_when(ActionState(no_fix))
