"""How the writer likes to see the text — kept in the settings and applied at start.

Line numbers, soft wrap, a proportional or monospaced font, the zoom, and whether the findings are
grouped by kind. The View menu's actions and the Settings dialog both come here, so a choice made
in either is the same choice, and a new window starts the way the last one was left.
"""

from __future__ import annotations

from citedesk.gui.editor.editor import Editor
from citedesk.gui.panels.findings_panel import FindingsPanel
from citedesk.gui.qt import QAction, QSettings

LINE_NUMBERS = "line_numbers"
SOFT_WRAP = "soft_wrap"
EDITOR_FONT = "editor_font"
"""`proportional` (the default: prose reads better) or `monospace`."""
ZOOM = "zoom"
GROUPED = "group_findings"


class ViewSettings:
    def __init__(self, editor: Editor, findings: FindingsPanel, settings: QSettings) -> None:
        self.editor = editor
        self.findings = findings
        self.settings = settings
        self._actions: dict[str, QAction] = {}
        editor.zoomed.connect(lambda steps: self.settings.setValue(ZOOM, steps))
        findings.group_box.toggled.connect(self._grouped_changed)

    def restore(self, **actions: QAction) -> None:
        """Apply what the settings say, and show it on the View menu's actions (keyed as the settings)."""
        self._actions = actions
        self.set_line_numbers(self._flag(LINE_NUMBERS, True))
        self.set_soft_wrap(self._flag(SOFT_WRAP, True))
        self.set_monospace(str(self.settings.value(EDITOR_FONT, "proportional")) == "monospace")
        zoom = self.settings.value(ZOOM, 0, type=int)
        self.set_zoom(zoom if isinstance(zoom, int) else 0)
        self.set_grouped(self._flag(GROUPED, False))

    def _flag(self, key: str, default: bool) -> bool:
        return bool(self.settings.value(key, default, type=bool))

    def _check(self, key: str, checked: bool) -> None:
        action = self._actions.get(key)
        if action is not None and action.isChecked() != checked:
            action.setChecked(checked)

    def set_line_numbers(self, shown: bool) -> None:
        self.editor.line_numbers.set_shown(shown)
        self.settings.setValue(LINE_NUMBERS, shown)
        self._check(LINE_NUMBERS, shown)

    def set_soft_wrap(self, wrap: bool) -> None:
        self.editor.set_soft_wrap(wrap)
        self.settings.setValue(SOFT_WRAP, wrap)
        self._check(SOFT_WRAP, wrap)

    def set_monospace(self, monospace: bool) -> None:
        self.editor.set_font(monospace=monospace)
        self.settings.setValue(EDITOR_FONT, "monospace" if monospace else "proportional")
        self._check(EDITOR_FONT, monospace)

    def set_zoom(self, steps: int) -> None:
        self.editor.set_font(zoom=steps)
        self.settings.setValue(ZOOM, self.editor.zoom)

    def set_grouped(self, grouped: bool) -> None:
        self.findings.set_grouped(grouped)
        self._grouped_changed(grouped)

    def _grouped_changed(self, grouped: bool) -> None:
        self.settings.setValue(GROUPED, grouped)
        self._check(GROUPED, grouped)
