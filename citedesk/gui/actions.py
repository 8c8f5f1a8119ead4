"""Every action of the window, declared once: its label, its shortcut, when it applies and what runs it.

The menu bar (`gui.menus`), the editor's context menu, the hover card and the evidence pane build
their actions from these specs, so a label or a shortcut is written here and nowhere else (the
README's table of keys follows this table).

- `label` is as the menu shows it, with its mnemonic (`&`); `text` is the same without it, as a
  button, the card and the context menu show it.
- `enabled_when` is a predicate over an `ActionState` (the finding the action would act on: the
  selected one for the menu bar, the one at hand for the card and the context menu). The menu bar
  enables the action by it; the card, the pane and the context menu offer only what applies.
- `handler` names what runs it on the window, as a dotted path (`"review.decide"`), called with
  `args` (and, for a checkable action, whether it is now checked); `None` when another part
  connects it (the Claude consent). The card and the context menu do not call the window: they
  emit what was asked for (`decision` names the review decision an action records).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from citedesk.core.findings import Finding, Fix
from citedesk.core.review import Decision
from citedesk.gui.qt import QKeySequence

Shortcut = QKeySequence.StandardKey | str | tuple[str, ...] | None


@dataclass(frozen=True)
class ActionState:
    """What an action's `enabled_when` looks at: the finding it would act on."""

    finding: Finding | None = None


Predicate = Callable[[ActionState], bool]


def always(_: ActionState) -> bool:
    return True


def has_finding(state: ActionState) -> bool:
    return state.finding is not None


def has_fix(state: ActionState) -> bool:
    return state.finding is not None and bool(state.finding.fixes)


def button_text(label: str) -> str:
    """A label shown as is on a button or in a menu (an `&` is not a keyboard mnemonic)."""
    return label.replace("&", "&&")


VERIFY_FIRST = (
    "A suggestion to verify: the judge that proposed it may only suggest (or its evidence was not "
    "strong enough to act on). Read the evidence before applying it; Fix all and `citedesk fix` leave it."
)


def fix_label(fix: Fix) -> str:
    """What a fix's button says: its title, and for an unsafe fix (a suggestion to verify) that
    it is one, so a writer never applies a judge's guess thinking it was checked."""
    return fix.title if fix.safe else f"{fix.title} (verify first)"


@dataclass(frozen=True)
class ActionSpec:
    id: str
    label: str
    handler: str | None
    shortcut: Shortcut = None
    enabled_when: Predicate = always
    args: tuple[object, ...] = ()
    checkable: bool = False
    decision: Decision | None = None

    @property
    def text(self) -> str:
        """The label without its mnemonic, as a button or the context menu shows it."""
        return self.label.replace("&&", "\0").replace("&", "").replace("\0", "&")

    def key_sequences(self) -> list[QKeySequence]:
        if self.shortcut is None:
            return []
        if isinstance(self.shortcut, tuple):
            return [QKeySequence(s) for s in self.shortcut]
        return [QKeySequence(self.shortcut)]

    def tooltip(self) -> str:
        """The plain label, with its shortcut when it has one ("Needs a source (Ctrl+3)")."""
        keys = self.key_sequences()
        return (
            f"{self.text} ({keys[0].toString(QKeySequence.SequenceFormat.NativeText)})" if keys else self.text
        )


ZOOM_RESET_KEY = "Ctrl+Alt+0"
"""Ctrl+0 clears a review decision, so the zoom goes back to its base size with Ctrl+Alt+0."""
StandardKey = QKeySequence.StandardKey

ACTIONS: tuple[ActionSpec, ...] = (
    # File
    ActionSpec("open", "&Open…", "document.open_dialog", StandardKey.Open),
    ActionSpec("save", "&Save", "document.save", StandardKey.Save),
    ActionSpec("save_as", "Save &as…", "document.save_as_dialog", StandardKey.SaveAs),
    ActionSpec("attach_folder", "Attach a &folder of sources…", "sources_panel.ask_folder"),
    ActionSpec("bibliography", "&Bibliography…", "choose_bibliography"),
    ActionSpec("export", "&Export report…", "export_report", "Ctrl+E"),
    ActionSpec("settings", "Se&ttings…", "settings_dialog", "Ctrl+,"),
    ActionSpec("download_judge", "Download a &judge model…", "downloads.offer"),
    ActionSpec("quit", "&Quit", "close", StandardKey.Quit),
    # Edit
    ActionSpec("undo", "&Undo", "editor.undo_in_place", StandardKey.Undo),
    ActionSpec("redo", "&Redo", "editor.redo_in_place", StandardKey.Redo),
    ActionSpec("find", "&Find…", "find_bar.open_bar", StandardKey.Find),
    ActionSpec("replace", "Find and &replace…", "find_bar.open_bar", "Ctrl+H", args=(True,)),
    ActionSpec("find_next", "Find &next", "find_bar.find_next", StandardKey.FindNext),
    ActionSpec("filter", "Filter &findings…", "focus_filter", "Ctrl+Shift+F"),
    # Audit
    ActionSpec("audit", "&Audit now", "audits.start", "F5"),
    ActionSpec("cancel", "&Cancel audit", "escape", "Escape"),
    ActionSpec("offline", "&Offline (fetch nothing)", "toggle_offline", checkable=True),
    ActionSpec("assist", "Claude &assistance for this document…", None, "Ctrl+Shift+A"),
    ActionSpec("claude_judge", "Claude &judges the citations too…", None, "Ctrl+Shift+J"),
    # Review
    ActionSpec("next", "&Next finding", "findings.step", "F8", args=(1,)),
    ActionSpec("previous", "&Previous finding", "findings.step", "Shift+F8", args=(-1,)),
    ActionSpec("card", "Show the &card at the cursor", "open_card_at_cursor", "Alt+Return"),
    ActionSpec("apply_fix", "&Apply fix", "apply_selected_fix", "Ctrl+.", enabled_when=has_fix),
    ActionSpec("fix_all", "Fix &all of this kind", "apply_fix_all_of_kind", "Ctrl+Shift+."),
    ActionSpec("renumber", "Re&number the reference list", "renumber"),
    ActionSpec("review", "&Start review (first undecided)", "review.start", "F7"),
    ActionSpec(
        "confirmed",
        "&Confirmed",
        "review.decide",
        "Ctrl+1",
        args=(Decision.CONFIRMED,),
        decision=Decision.CONFIRMED,
    ),
    ActionSpec(
        "false_alarm",
        "&Dismiss (false alarm)",
        "review.decide",
        "Ctrl+2",
        args=(Decision.FALSE_ALARM,),
        decision=Decision.FALSE_ALARM,
    ),
    ActionSpec(
        "needs_source",
        "&Needs a source",
        "review.decide",
        "Ctrl+3",
        args=(Decision.NEEDS_SOURCE,),
        decision=Decision.NEEDS_SOURCE,
    ),
    ActionSpec("note", "Add a &note…", "review.note_dialog", "Ctrl+Shift+N"),
    ActionSpec("clear_decision", "C&lear the decision", "review.clear", "Ctrl+0"),
    ActionSpec(
        "show_dismissed", "Show &false alarms", "review.toggle_dismissed", "Ctrl+Shift+H", checkable=True
    ),
    ActionSpec("show_evidence", "Show &evidence", "show_evidence", enabled_when=has_finding),
    # View
    ActionSpec("line_numbers", "&Line numbers", "view_settings.set_line_numbers", checkable=True),
    ActionSpec("soft_wrap", "Soft &wrap", "view_settings.set_soft_wrap", checkable=True),
    ActionSpec("monospace", "&Monospaced font", "view_settings.set_monospace", checkable=True),
    ActionSpec("zoom_in", "Zoom &in", "editor.zoom_by", ("Ctrl+=", "Ctrl++"), args=(1,)),
    ActionSpec("zoom_out", "Zoom &out", "editor.zoom_by", "Ctrl+-", args=(-1,)),
    ActionSpec("zoom_reset", "&Actual size", "view_settings.set_zoom", ZOOM_RESET_KEY, args=(0,)),
    ActionSpec(
        "group", "&Group findings by kind", "view_settings.set_grouped", "Ctrl+Shift+G", checkable=True
    ),
    ActionSpec("legend", "L&egend", "show_legend"),
    # Help
    ActionSpec("help_legend", "&Legend", "show_legend"),
    ActionSpec("help_server_judge", "Check with a local LLM &server…", None),
    ActionSpec("about", "&About CiteDesk", "show_about"),
)

BY_ID = {spec.id: spec for spec in ACTIONS}
APPLY_FIX = BY_ID["apply_fix"]
FIX_ALL = BY_ID["fix_all"]
CONFIRMED = BY_ID["confirmed"]
FALSE_ALARM = BY_ID["false_alarm"]
NEEDS_SOURCE = BY_ID["needs_source"]
SHOW_EVIDENCE = BY_ID["show_evidence"]
CARD_KEY = BY_ID["card"].shortcut

AT_A_FINDING = (FALSE_ALARM, NEEDS_SOURCE, SHOW_EVIDENCE)
"""What the card and the context menu offer about a finding, after its fixes (one `APPLY_FIX` per
fix, named as the fix). Confirmed is the Review menu's alone."""
IN_THE_PANE = (FALSE_ALARM, NEEDS_SOURCE)
"""What the evidence pane offers under a finding's fixes."""

SEPARATOR = "-"
RECENT = "@recent"
SAMPLES = "@samples"
MENU_BAR: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("&File", ("open", "save", "save_as", RECENT, SAMPLES, SEPARATOR, "attach_folder", "bibliography",
               "export", SEPARATOR, "settings", "download_judge", "quit")),
    ("&Edit", ("undo", "redo", "find", "replace", "find_next", "filter")),
    ("&Audit", ("audit", "cancel", "offline", "assist", "claude_judge")),
    ("&Review", ("next", "previous", "card", "apply_fix", "fix_all", "renumber", SEPARATOR, "review",
                 "confirmed", "false_alarm", "needs_source", "note", "clear_decision", "show_dismissed")),
    ("&View", ("line_numbers", "soft_wrap", "monospace", "zoom_in", "zoom_out", "zoom_reset", SEPARATOR,
               "group", "legend")),
    ("&Help", ("help_legend", "help_server_judge", "about")),
)  # fmt: skip
"""The menu bar: each menu's actions by id, `SEPARATOR` between groups, and where the File menu's
submenus (`RECENT`, `SAMPLES`: filled by the window) go."""
SUBMENUS = {RECENT: "Open &recent", SAMPLES: "Open a &sample (as a copy)"}
