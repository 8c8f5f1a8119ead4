"""The menu bar, built from the declared actions (`gui.actions`): the menus know the table, not the window.

`build_menus(window)` adds every action to the menu bar *and* to the window, so each shortcut works
wherever the keyboard is. Each action runs its spec's `handler`, looked up on the window by name;
nothing here decides anything. The window fills the File menu's submenus (recent files, samples)
and connects the actions with no handler (the Claude consent); a Help page (`HELP_PAGES`) shows its
text.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce

from citedesk.gui.actions import (
    BY_ID,
    MENU_BAR,
    SEPARATOR,
    SUBMENUS,
    ActionSpec,
    ActionState,
    always,
    button_text,
    fix_label,
)
from citedesk.gui.dialogs.settings_dialog import SERVER_JUDGE_HELP
from citedesk.gui.qt import QAction, QMainWindow, QMenu, QMessageBox

HELP_PAGES: dict[str, tuple[str, str]] = {
    "help_server_judge": ("Check with a local LLM server", SERVER_JUDGE_HELP),
}
"""Help entries that only explain something: (title, text) by action id."""


def handler_of(host: object, spec: ActionSpec) -> Callable[..., object] | None:
    """The callable `spec.handler` names on `host` (a dotted path), or None when it has none."""
    if spec.handler is None:
        return None
    found = reduce(getattr, spec.handler.split("."), host)
    if not callable(found):
        raise TypeError(f"{spec.id}: {spec.handler} is not callable")
    return found


class MenuBuilder:
    """The menu bar's menus, submenus and actions (by spec id), as built."""

    def __init__(self, window: QMainWindow) -> None:
        self.window = window
        self.menus: dict[str, QMenu] = {}
        self.submenus: dict[str, QMenu] = {}
        self.actions: dict[str, QAction] = {}

    def add(self, menu: QMenu, spec: ActionSpec) -> QAction:
        action = QAction(spec.label, self.window)
        keys = spec.key_sequences()
        if len(keys) > 1:
            action.setShortcuts(keys)
        elif keys:
            action.setShortcut(keys[0])
        action.setCheckable(spec.checkable)
        handler = handler_of(self.window, spec)
        if handler is not None:
            action.triggered.connect(_slot(handler, spec))
        elif spec.id in HELP_PAGES:
            title, text = HELP_PAGES[spec.id]
            action.triggered.connect(lambda: QMessageBox.information(self.window, title, text))
        menu.addAction(action)
        self.window.addAction(action)
        self.actions[spec.id] = action
        return action

    def find(self, text: str) -> QAction:
        """An action by its text as in the menu ("Re&number the reference list")."""
        for menu in self.menus.values():
            for action in menu.actions():
                if action.text() == text:
                    return action
        raise KeyError(text)

    def follow(self, state: ActionState) -> None:
        """Enable each action by its spec's `enabled_when` (those that always apply are left to their
        parts: the Claude consent enables its own); Apply fix names the fix it applies."""
        for spec_id, action in self.actions.items():
            spec = BY_ID[spec_id]
            if spec.enabled_when is not always:
                action.setEnabled(spec.enabled_when(state))
        apply_fix = self.actions.get("apply_fix")
        if apply_fix is not None:
            finding = state.finding
            title = fix_label(finding.fixes[0]) if finding is not None and finding.fixes else ""
            label = BY_ID["apply_fix"].label
            apply_fix.setText(f"{label}: {button_text(title)}" if title else label)


def _slot(handler: Callable[..., object], spec: ActionSpec) -> Callable[..., object]:
    if spec.checkable:
        return lambda checked: handler(*spec.args, checked)
    return lambda: handler(*spec.args)


def build_menus(window: QMainWindow) -> MenuBuilder:
    """The menu bar of `MENU_BAR`, each action running its handler on `window`."""
    m = MenuBuilder(window)
    for title, entries in MENU_BAR:
        menu = m.menus[title] = window.menuBar().addMenu(title)
        for entry in entries:
            if entry == SEPARATOR:
                menu.addSeparator()
            elif entry in SUBMENUS:
                m.submenus[entry] = menu.addMenu(SUBMENUS[entry])
            else:
                m.add(menu, BY_ID[entry])
    m.follow(ActionState())
    return m
