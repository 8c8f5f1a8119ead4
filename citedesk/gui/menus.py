"""The window's menus and their shortcuts, in one place (the README's table of keys comes from here).

`build_menus(window)` adds every action to the menu bar *and* to the window, so each shortcut works
wherever the keyboard is. The actions call the window's parts; nothing here decides anything.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from citedesk.assets import sample_paths
from citedesk.core.review import Decision
from citedesk.gui.consent import AssistConsent
from citedesk.gui.qt import QAction, QKeySequence, QMenu

if TYPE_CHECKING:
    from citedesk.gui.main_window import MainWindow

Shortcut = QKeySequence | QKeySequence.StandardKey | str | None
ZOOM_IN = ("Ctrl+=", "Ctrl++")
ZOOM_OUT = "Ctrl+-"
ZOOM_RESET = "Ctrl+Alt+0"
"""Ctrl+0 clears a review decision, so the zoom goes back to its base size with Ctrl+Alt+0."""
CARD_KEY = "Alt+Return"


class MenuBuilder:
    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.menus: dict[str, QMenu] = {}

    def action(
        self,
        menu_name: str,
        text: str,
        slot: Callable[..., object],
        shortcut: Shortcut | tuple[str, ...] = None,
        *,
        checkable: bool = False,
    ) -> QAction:
        if menu_name not in self.menus:
            self.menus[menu_name] = self.window.menuBar().addMenu(menu_name)
        action = QAction(text, self.window)
        if isinstance(shortcut, tuple):
            action.setShortcuts([QKeySequence(s) for s in shortcut])
        elif shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.setCheckable(checkable)
        action.triggered.connect(slot)
        self.menus[menu_name].addAction(action)
        self.window.addAction(action)
        return action

    def find(self, text: str) -> QAction:
        """An action by its text as in the menu ("Re&number the reference list")."""
        for menu in self.menus.values():
            for action in menu.actions():
                if action.text() == text:
                    return action
        raise KeyError(text)

    def separator(self, menu_name: str) -> None:
        self.menus[menu_name].addSeparator()


def build_menus(w: MainWindow) -> MenuBuilder:
    m = MenuBuilder(w)
    doc = w.document
    m.action("&File", "&Open…", doc.open_dialog, QKeySequence.StandardKey.Open)
    m.action("&File", "&Save", doc.save, QKeySequence.StandardKey.Save)
    m.action("&File", "Save &as…", doc.save_as_dialog, QKeySequence.StandardKey.SaveAs)
    w.recent_menu = m.menus["&File"].addMenu("Open &recent")
    w.recent_menu.aboutToShow.connect(w.fill_recent)
    samples_menu = m.menus["&File"].addMenu("Open a &sample (as a copy)")
    for name, sample in sample_paths().items():
        samples_menu.addAction(name, functools.partial(w.open_sample, sample))
    m.separator("&File")
    m.action("&File", "Attach a &folder of sources…", w.sources_panel.ask_folder)
    m.action("&File", "&Bibliography…", w.choose_bibliography)
    m.action("&File", "&Export report…", lambda: doc.export_dialog(w.report), "Ctrl+E")
    m.separator("&File")
    m.action("&File", "Se&ttings…", w.settings_dialog, "Ctrl+,")
    m.action("&File", "Download a &judge model…", w.downloads.offer)
    m.action("&File", "&Quit", w.close, QKeySequence.StandardKey.Quit)

    m.action("&Edit", "&Undo", w.editor.undo_in_place, QKeySequence.StandardKey.Undo)
    m.action("&Edit", "&Redo", w.editor.redo_in_place, QKeySequence.StandardKey.Redo)
    m.action("&Edit", "&Find…", w.find_bar.open_bar, QKeySequence.StandardKey.Find)
    m.action("&Edit", "Find and &replace…", lambda: w.find_bar.open_bar(replacing=True), "Ctrl+H")
    m.action("&Edit", "Find &next", w.find_bar.find_next, QKeySequence.StandardKey.FindNext)
    m.action("&Edit", "Filter &findings…", w.focus_filter, "Ctrl+Shift+F")

    m.action("&Audit", "&Audit now", w.audits.start, "F5")
    m.action("&Audit", "&Cancel audit", w.escape, "Escape")
    w.offline_action = m.action("&Audit", "&Offline (fetch nothing)", w.toggle_offline, checkable=True)
    w.offline_action.setChecked(w.options.offline)
    w.assist_action = m.action(
        "&Audit", "Claude &assistance for this document…", lambda: None, "Ctrl+Shift+A"
    )
    w.claude_judge_action = m.action(
        "&Audit", "Claude &judges the citations too…", lambda: None, "Ctrl+Shift+J"
    )
    w.assist = AssistConsent(
        w.assist_action,
        w.claude_judge_action,
        w.settings,
        lambda: w.document.session,
        w.editor.toPlainText,
        w,
    )

    review = w.review
    m.action("&Review", "&Next finding", lambda: w.findings.step(1), "F8")
    m.action("&Review", "&Previous finding", lambda: w.findings.step(-1), "Shift+F8")
    m.action("&Review", "Show the &card at the cursor", w.open_card_at_cursor, CARD_KEY)
    w.apply_action = m.action("&Review", "&Apply fix", w.apply_selected_fix, "Ctrl+.")
    m.action("&Review", "Fix &all of this kind", w.apply_fix_all_of_kind, "Ctrl+Shift+.")
    m.action("&Review", "Re&number the reference list", w.renumber)
    m.separator("&Review")
    m.action("&Review", "&Start review (first undecided)", review.start, "F7")
    m.action("&Review", "&Confirmed", lambda: review.decide(Decision.CONFIRMED), "Ctrl+1")
    m.action("&Review", "&False alarm (hide)", lambda: review.decide(Decision.FALSE_ALARM), "Ctrl+2")
    m.action("&Review", "&Needs a source", lambda: review.decide(Decision.NEEDS_SOURCE), "Ctrl+3")
    m.action("&Review", "Add a &note…", review.note_dialog, "Ctrl+Shift+N")
    m.action("&Review", "C&lear the decision", review.clear, "Ctrl+0")
    m.action("&Review", "Show &false alarms", review.toggle_dismissed, "Ctrl+Shift+H", checkable=True)

    view = w.view_settings
    w.line_numbers_action = m.action("&View", "&Line numbers", view.set_line_numbers, checkable=True)
    w.wrap_action = m.action("&View", "Soft &wrap", view.set_soft_wrap, checkable=True)
    w.monospace_action = m.action("&View", "&Monospaced font", view.set_monospace, checkable=True)
    m.action("&View", "Zoom &in", lambda: w.editor.zoom_by(1), ZOOM_IN)
    m.action("&View", "Zoom &out", lambda: w.editor.zoom_by(-1), ZOOM_OUT)
    m.action("&View", "&Actual size", lambda: view.set_zoom(0), ZOOM_RESET)
    m.separator("&View")
    w.group_action = m.action(
        "&View", "&Group findings by kind", view.set_grouped, "Ctrl+Shift+G", checkable=True
    )
    m.action("&View", "L&egend", w.show_legend)
    m.action("&Help", "&Legend", w.show_legend)
    m.action("&Help", "&About CiteDesk", w.show_about)
    return m
