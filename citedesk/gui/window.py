"""The main window: the editor, findings inline and in a panel, evidence, one-click fixes.

Qt code only: audits run in a child process (`ProcessAuditRunner`) and come back through signals;
every decision (findings, fixes, the prose check) is the core's. Fixes are applied as one
`QTextCursor` edit block, so Ctrl+Z undoes a fix — or a whole "fix all" — in one step.
"""

from __future__ import annotations

import hashlib
import html
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSettings, Qt, QTimer, QUrl
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDropEvent,
    QFont,
    QHelpEvent,
    QIcon,
    QKeySequence,
    QMouseEvent,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QToolTip,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from citedesk import __version__
from citedesk.assets import icon_path, sample_paths
from citedesk.core.findings import Evidence, Finding, Fix
from citedesk.core.repair import apply_checked, merge_fixes
from citedesk.core.report import Report, render_html, render_json, render_markdown
from citedesk.core.review import Decision, Review, document_key
from citedesk.core.text import LineIndex
from citedesk.errors import DocumentError, RepairError
from citedesk.gui.find_bar import FindBar
from citedesk.gui.findings_model import FindingsModel
from citedesk.gui.highlight import STYLES, FindingHighlighter
from citedesk.gui.line_numbers import NumberedEditor
from citedesk.gui.offsets import Utf16Map
from citedesk.gui.settings_dialog import SettingsDialog, apply_theme, options_from_settings
from citedesk.gui.sources_panel import SourcesPanel
from citedesk.gui.worker import ProcessAuditRunner
from citedesk.pipeline import AuditOptions

if TYPE_CHECKING:
    from citedesk.store import Store

DOCUMENT_SUFFIXES = (".md", ".markdown", ".txt")
AUDIT_DELAY_MS = 1000
AUTOSAVE_MS = 20_000


def recovery_dir() -> Path:
    from platformdirs import user_data_dir  # noqa: PLC0415

    return Path(user_data_dir("citedesk", appauthor=False)) / "recovery"


class MainWindow(QMainWindow):
    def __init__(self, options: AuditOptions | None = None, settings: QSettings | None = None) -> None:
        super().__init__()
        self.setWindowIcon(QIcon(str(icon_path())))
        self.settings = settings or QSettings("CiteDesk", "CiteDesk")
        self.options = options or options_from_settings(self.settings)
        self.attachments: dict[str, str] = {}
        self.path: Path | None = None
        self.encoding = "utf-8"
        self.crlf = False
        self.report: Report | None = None
        self._audited_text: str | None = None
        self._generation = 0
        self._job: int | None = None
        """The generation of the audit whose results the window is waiting for."""
        self.runner = ProcessAuditRunner(self)
        self.runner.progress.connect(self._on_progress)
        self.runner.finished.connect(self._on_finished)
        self.runner.failed.connect(self._on_failed)
        self.runner.cancelled.connect(self._on_cancelled)
        self.confirm_discard = self._ask_discard
        self.confirm_assist = self._ask_assist
        self.confirm_claude_judge = self._ask_claude_judge

        self.setWindowTitle("CiteDesk")
        self.resize(1200, 800)
        self.editor = NumberedEditor()
        self.editor.setAcceptDrops(False)  # files dropped anywhere open in the window
        self.editor.setFont(QFont("Monospace", 11))
        self.editor.setTabChangesFocus(False)
        self.highlighter = FindingHighlighter(self.editor.document())
        self.model = FindingsModel(self)
        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setSortingEnabled(True)
        self.tree.sortByColumn(1, Qt.SortOrder.AscendingOrder)  # by line within each kind
        self.filter_box = QLineEdit()
        self.filter_box.setPlaceholderText("Filter findings: kind, [reference], words…")
        self.filter_box.setClearButtonEnabled(True)
        self.filter_box.textChanged.connect(self._filter_findings)
        self.evidence = QTextBrowser()
        self.evidence.setOpenLinks(False)
        self.evidence.anchorClicked.connect(self._open_link)
        self.fix_button = QPushButton("Apply fix")
        self.fix_all_button = QPushButton("Fix all of this kind")
        self.fix_button.setEnabled(False)
        self.fix_all_button.setEnabled(False)
        self.fix_button.clicked.connect(self.apply_selected_fix)
        self.fix_all_button.clicked.connect(self.apply_fix_all_of_kind)

        findings_tab = QWidget()
        findings_layout = QVBoxLayout(findings_tab)
        findings_layout.setContentsMargins(0, 0, 0, 0)
        findings_layout.addWidget(self.filter_box)
        findings_layout.addWidget(self.tree)
        buttons = QHBoxLayout()
        buttons.addWidget(self.fix_button)
        buttons.addWidget(self.fix_all_button)
        findings_layout.addLayout(buttons)
        self.sources_panel = SourcesPanel()
        self.sources_panel.refresh_requested.connect(self.refresh_source)
        self.sources_panel.open_requested.connect(self.open_source)
        self.sources_panel.attach_requested.connect(self.attach_source)
        self.tabs = QTabWidget()
        self.tabs.addTab(findings_tab, "Findings")
        self.tabs.addTab(self.sources_panel, "Sources")
        side = QSplitter(Qt.Orientation.Vertical)
        side.addWidget(self.tabs)
        side.addWidget(self.evidence)
        side.setStretchFactor(0, 3)
        side.setStretchFactor(1, 2)
        self.find_bar = FindBar(self.editor)
        editor_column = QWidget()
        editor_layout = QVBoxLayout(editor_column)
        editor_layout.setContentsMargins(0, 0, 0, 0)
        editor_layout.setSpacing(0)
        editor_layout.addWidget(self.editor)
        editor_layout.addWidget(self.find_bar)
        splitter = QSplitter()
        splitter.addWidget(editor_column)
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        self.setCentralWidget(splitter)

        self.stage = QLabel("Ready")
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(160)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.cancel_audit)
        self.judge_label = QLabel("")
        self.review_label = QLabel("")
        self.show_dismissed = False
        self.statusBar().addWidget(self.stage, 1)
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.cancel_button)
        self.assist_label = QLabel("")
        self.assist_label.setVisible(False)
        self.statusBar().addPermanentWidget(self.review_label)
        self.statusBar().addPermanentWidget(self.assist_label)
        self.statusBar().addPermanentWidget(self.judge_label)

        self.debounce = QTimer(self)
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(AUDIT_DELAY_MS)
        self.debounce.timeout.connect(self.start_audit)
        self.autosave = QTimer(self)
        self.autosave.setInterval(AUTOSAVE_MS)
        self.autosave.timeout.connect(self.write_recovery)
        self.autosave.start()
        self.editor.textChanged.connect(self._text_changed)
        self.editor.document().modificationChanged.connect(self._update_title)
        self.tree.selectionModel().currentChanged.connect(lambda current, _previous: self._select(current))
        self.editor.viewport().installEventFilter(self)
        self.setAcceptDrops(True)
        self._build_menus()
        self._update_title()

    # --- menus -------------------------------------------------------------------------------------
    def _action(
        self,
        menu_name: str,
        text: str,
        slot: Callable[..., object],
        shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
    ) -> QAction:
        menus = getattr(self, "_menus", {})
        self._menus = menus
        if menu_name not in menus:
            menus[menu_name] = self.menuBar().addMenu(menu_name)
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        menus[menu_name].addAction(action)
        self.addAction(action)
        return action

    def _build_menus(self) -> None:
        self._action("&File", "&Open…", self.open_dialog, QKeySequence.StandardKey.Open)
        self._action("&File", "&Save", self.save, QKeySequence.StandardKey.Save)
        self._action("&File", "Save &as…", self.save_as_dialog, QKeySequence.StandardKey.SaveAs)
        self.recent_menu = self._menus["&File"].addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        samples_menu = self._menus["&File"].addMenu("Open a &sample")
        for name, sample in sample_paths().items():
            samples_menu.addAction(name, lambda sample=sample: self._open_sample(sample))
        self._action("&File", "&Export report…", self.export_dialog, "Ctrl+E")
        self._action("&File", "Se&ttings…", self.settings_dialog, "Ctrl+,")
        self._action("&File", "&Quit", self.close, QKeySequence.StandardKey.Quit)
        self._action("&Edit", "&Undo", self.editor.undo, QKeySequence.StandardKey.Undo)
        self._action("&Edit", "&Redo", self.editor.redo, QKeySequence.StandardKey.Redo)
        self._action("&Edit", "&Find…", self.find_bar.open_bar, QKeySequence.StandardKey.Find)
        self._action("&Edit", "Find and &replace…", lambda: self.find_bar.open_bar(replacing=True), "Ctrl+H")
        self._action("&Edit", "Find &next", self.find_bar.find_next, QKeySequence.StandardKey.FindNext)
        self._action("&Edit", "Filter &findings…", self._focus_filter, "Ctrl+Shift+F")
        self._action("&Audit", "&Audit now", self.start_audit, "F5")
        self._action("&Audit", "&Cancel audit", self._escape, "Escape")
        self.offline_action = self._action("&Audit", "&Offline (fetch nothing)", self._toggle_offline)
        self.offline_action.setCheckable(True)
        self.offline_action.setChecked(self.options.offline)
        self.assist_action = self._action(
            "&Audit", "Claude &assistance for this document…", self._toggle_assist, "Ctrl+Shift+A"
        )
        self.assist_action.setCheckable(True)
        self.claude_judge_action = self._action(
            "&Audit", "Claude &judges the citations too…", self._toggle_claude_judge, "Ctrl+Shift+J"
        )
        self.claude_judge_action.setCheckable(True)
        self.claude_judge_action.setEnabled(False)
        self._action("&Review", "&Next finding", lambda: self.step(1), "F8")
        self._action("&Review", "&Previous finding", lambda: self.step(-1), "Shift+F8")
        self._action("&Review", "&Apply fix", self.apply_selected_fix, "Ctrl+.")
        self._action("&Review", "Fix &all of this kind", self.apply_fix_all_of_kind, "Ctrl+Shift+.")
        self._menus["&Review"].addSeparator()
        self._action("&Review", "&Start review (first undecided)", self.start_review, "F7")
        self._action("&Review", "&Confirmed", lambda: self.decide(Decision.CONFIRMED), "Ctrl+1")
        self._action("&Review", "&False alarm (hide)", lambda: self.decide(Decision.FALSE_ALARM), "Ctrl+2")
        self._action("&Review", "&Needs a source", lambda: self.decide(Decision.NEEDS_SOURCE), "Ctrl+3")
        self._action("&Review", "Add a &note…", self.note_dialog, "Ctrl+Shift+N")
        self._action("&Review", "C&lear the decision", self.clear_decision, "Ctrl+0")
        dismissed = self._action("&Review", "Show &false alarms", self._toggle_dismissed, "Ctrl+Shift+H")
        dismissed.setCheckable(True)
        self.line_numbers_action = self._action("&View", "&Line numbers", self._toggle_line_numbers)
        self.line_numbers_action.setCheckable(True)
        shown = bool(self.settings.value("line_numbers", True, type=bool))
        self.line_numbers_action.setChecked(shown)
        self.editor.line_numbers.set_shown(shown)
        self._action("&Help", "&Legend", self.show_legend)
        self._action("&Help", "&About CiteDesk", self.show_about)

    # --- files -------------------------------------------------------------------------------------
    def load_file(self, path: str | Path) -> bool:
        from citedesk.files import read_document  # noqa: PLC0415

        try:
            decoded = read_document(path)
        except (DocumentError, OSError) as exc:
            self.show_message(f"Could not open {path}: {exc}")
            return False
        self.path = Path(path).resolve()
        self._load_attachments()
        self._load_assist_choice()
        self.encoding = decoded.encoding
        self.crlf = "\r\n" in decoded.text
        self.editor.setPlainText(decoded.text.replace("\r\n", "\n"))
        self.editor.document().setModified(False)
        self._remember_recent(self.path)
        self._update_title()
        self.start_audit()
        return True

    def open_dialog(self) -> None:
        if not self.confirm_discard():
            return
        name, _ = QFileDialog.getOpenFileName(
            self, "Open a document", "", "Markdown or text (*.md *.markdown *.txt)"
        )
        if name:
            self.load_file(name)

    def save(self) -> bool:
        if self.path is None:
            return self.save_as_dialog()
        return self.save_to(self.path)

    def save_as_dialog(self) -> bool:
        name, _ = QFileDialog.getSaveFileName(self, "Save as", str(self.path or ""), "Markdown (*.md)")
        return self.save_to(Path(name)) if name else False

    def save_to(self, path: Path) -> bool:
        from citedesk.files import write_atomic  # noqa: PLC0415

        text = self.editor.toPlainText()
        if self.crlf:
            text = text.replace("\n", "\r\n")
        try:
            write_atomic(path, text, self.encoding)
        except (OSError, UnicodeEncodeError) as exc:
            self.show_message(
                f"Could not save {path}: {exc}. Your text is still here and in the recovery copy."
            )
            self.write_recovery()
            return False
        if self.path != path.resolve():
            old_key, new_key = self.document_key, document_key(str(path))
            self._with_store(lambda store: store.move_reviews(old_key, new_key))
        self.path = path.resolve()
        self.editor.document().setModified(False)
        self._recovery_path().unlink(missing_ok=True)
        self._update_title()
        self.stage.setText(f"Saved {path.name}")
        return True

    def export_dialog(self) -> None:
        if self.report is None:
            self.show_message("Nothing to export yet: the audit has not finished.")
            return
        name, _filter = QFileDialog.getSaveFileName(
            self, "Export the report", "", "HTML (*.html);;Markdown (*.md);;JSON (*.json)"
        )
        if name:
            self.export_report(Path(name))

    def export_report(self, path: Path) -> None:
        from citedesk.files import write_atomic  # noqa: PLC0415

        assert self.report is not None
        render = {".md": render_markdown, ".json": render_json}.get(path.suffix.lower(), render_html)
        write_atomic(path, render(self.report))

    def _recovery_path(self) -> Path:
        key = str(self.path) if self.path else f"untitled-{id(self)}"
        return recovery_dir() / (hashlib.sha1(key.encode()).hexdigest()[:16] + ".md")

    def write_recovery(self) -> None:
        """Keep a copy of unsaved text outside the document (never over it)."""
        if not self.editor.document().isModified():
            return
        from citedesk.files import write_atomic  # noqa: PLC0415

        target = self._recovery_path()
        target.parent.mkdir(parents=True, exist_ok=True)
        header = f"<!-- citedesk recovery of {self.path or 'an untitled document'} at {time.ctime()} -->\n"
        write_atomic(target, header + self.editor.toPlainText())

    def _remember_recent(self, path: Path) -> None:
        stored = self.settings.value("recent", []) or []
        recent = [str(p) for p in (stored if isinstance(stored, list) else [stored]) if str(p) != str(path)]
        self.settings.setValue("recent", [str(path), *recent][:10])

    def _update_title(self, *_: object) -> None:
        name = self.path.name if self.path else "Untitled"
        star = "*" if self.editor.document().isModified() else ""
        self.setWindowTitle(f"{star}{name} — CiteDesk")

    def _ask_discard(self) -> bool:
        if not self.editor.document().isModified():
            return True
        answer = QMessageBox.question(
            self,
            "Unsaved changes",
            "Save your changes first?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        if not self.confirm_discard():
            event.ignore()
            return
        self.cancel_audit()
        self.autosave.stop()
        self.runner.shutdown()
        event.accept()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt's name
        if any(url.toLocalFile().lower().endswith(DOCUMENT_SUFFIXES) for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt's name
        for url in event.mimeData().urls():
            local = url.toLocalFile()
            if local.lower().endswith(DOCUMENT_SUFFIXES) and self.confirm_discard():
                self.load_file(local)
                event.acceptProposedAction()
                return

    # --- auditing ----------------------------------------------------------------------------------
    def _text_changed(self) -> None:
        if self.editor.toPlainText() != self._audited_text:
            self.debounce.start()

    def _toggle_offline(self, checked: bool) -> None:
        from dataclasses import replace  # noqa: PLC0415

        self.options = replace(self.options, offline=checked)
        self.settings.setValue("offline", checked)
        self.start_audit()

    def _escape(self) -> None:
        if self.find_bar.isVisible():
            self.find_bar.close_bar()
        else:
            self.cancel_audit()

    def audit_options(self, refresh: frozenset[str] = frozenset()) -> AuditOptions:
        """The window's options plus this document's attached files (and a one-off refresh)."""
        from dataclasses import replace  # noqa: PLC0415

        attached = tuple((key, Path(path)) for key, path in sorted(self.attachments.items()))
        assist = "claude" if self.assist_enabled else "none"
        judge = self.options.judge
        if self.assist_enabled and self.claude_judge_action.isChecked():
            judge = "claude"
        elif judge == "claude":
            judge = "auto"  # a Claude judge chosen elsewhere never sends while assistance is off
        return replace(self.options, attached=attached, refresh_keys=refresh, assist=assist, judge=judge)

    # --- Claude assistance: off unless the writer turns it on for this document --------------------
    @property
    def assist_enabled(self) -> bool:
        return self.assist_action.isChecked()

    def _toggle_assist(self, checked: bool) -> None:
        if checked and not self._consent_to_assist():
            self.assist_action.setChecked(False)
            return
        self.settings.setValue(self._document_setting("assist"), checked)
        self._show_assist_state(checked)
        self.show_message(
            "Claude assistance is on for this document"
            if checked
            else "Claude assistance is off: nothing is sent"
        )
        self.start_audit()  # a running audit (which may be sending) is cancelled first

    def _consent_to_assist(self) -> bool:
        from citedesk.assist.insert import what_would_be_sent  # noqa: PLC0415
        from citedesk.assist.keys import HOW_TO_SET, api_key  # noqa: PLC0415

        if not api_key():
            self.show_message(f"Claude assistance needs your Anthropic API key: {HOW_TO_SET}.")
            return False
        count, preview = what_would_be_sent(self.editor.toPlainText(), str(self.path) if self.path else None)
        return self.confirm_assist(count, preview)

    def _ask_assist(self, count: int, preview: str) -> bool:
        return self._ask_to_send(
            "Turn on Claude assistance?",
            f"For this document, CiteDesk will send up to {count} request(s) to Anthropic with your key: "
            "each long cited sentence, to split it into facts that are checked one by one, and each "
            "uncited sentence with the titles of your references. Claude may only add citations; "
            "every answer is checked here before it is used. Show details to see exactly what is sent.",
            preview or "(nothing to send now: no long cited or uncited sentence)",
        )

    def _ask_to_send(self, title: str, text: str, details: str) -> bool:
        """Ask before anything leaves the machine, with the requests under Show details."""
        box = QMessageBox(self)
        box.setWindowTitle(title)
        box.setText(text)
        box.setDetailedText(details)
        box.setStandardButtons(QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel)
        return box.exec() == QMessageBox.StandardButton.Ok

    def _load_assist_choice(self) -> None:
        from citedesk.assist.keys import api_key  # noqa: PLC0415

        chosen = bool(self.settings.value(self._document_setting("assist"), False, type=bool))
        self._show_assist_state(chosen and api_key() is not None)

    def _show_assist_state(self, enabled: bool) -> None:
        self.assist_action.setChecked(enabled)
        self.assist_label.setVisible(enabled)
        self.assist_label.setText("Claude: on" if enabled else "")
        judging = enabled and bool(
            self.settings.value(self._document_setting("claude_judge"), False, type=bool)
        )
        self.claude_judge_action.setEnabled(enabled)
        self.claude_judge_action.setChecked(judging)

    def _toggle_claude_judge(self, checked: bool) -> None:
        """Claude as the judge for this document (needs assistance on): every cited sentence and the
        passages retrieved from its sources are sent; its quotes are checked against the sources."""
        from citedesk.assist.judge import what_would_be_judged  # noqa: PLC0415

        if checked:
            count, preview = what_would_be_judged(
                self.editor.toPlainText(), str(self.path) if self.path else None
            )
            if not self.confirm_claude_judge(count, preview):
                self.claude_judge_action.setChecked(False)
                return
        self.settings.setValue(self._document_setting("claude_judge"), checked)
        self.show_message(
            "Claude judges this document's citations (its quotes are checked against the sources)"
            if checked
            else "The local judge decides again; nothing is sent for judging"
        )
        self.start_audit()

    def _ask_claude_judge(self, count: int, preview: str) -> bool:
        return self._ask_to_send(
            "Let Claude judge the citations?",
            f"For this document, CiteDesk will send {count} cited (sentence, reference) pair(s) to "
            "Anthropic with your key: each sentence with the best passages of the source it cites (the "
            "passages the evidence pane shows). Claude answers supported / neutral / contradicted "
            "with a quote; a quote that is not word for word in the source downgrades its verdict. "
            "Show details for the requests.",
            preview or "(nothing to send now: no cited sentence)",
        )

    def start_audit(self, *, refresh: frozenset[str] = frozenset()) -> None:
        """Audit the editor's text now, in the background; a running audit is cancelled first."""
        self.debounce.stop()
        self.cancel_audit()
        self._generation += 1
        text = self.editor.toPlainText()
        options = self.audit_options(refresh)
        self._job = self._generation
        self._pending_text = text
        self.stage.setText("Checking…")
        self.progress.setRange(0, 0)
        self.progress.setVisible(True)
        self.cancel_button.setVisible(True)
        self.runner.start(self._generation, text, str(self.path) if self.path else None, options)

    def cancel_audit(self) -> None:
        if self._job is not None:
            self.runner.cancel(self._job)
            self._job = None
            self.progress.setVisible(False)
            self.cancel_button.setVisible(False)
            self.stage.setText("Cancelled")

    def _current(self, generation: int) -> bool:
        return self._job is not None and generation == self._generation

    def _on_progress(self, generation: int, stage: str, done: int, total: int) -> None:
        if not self._current(generation):
            return
        self.stage.setText(f"{stage} {done}/{total}" if total else stage)
        if total:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
        else:
            self.progress.setRange(0, 0)

    def _on_finished(self, generation: int, report: Report) -> None:
        if not self._current(generation):
            return  # superseded or cancelled: never paint stale findings
        self._job = None
        self.progress.setVisible(False)
        self.cancel_button.setVisible(False)
        self.report = report
        self._audited_text = self._pending_text
        self._show_report(report)

    def _on_failed(self, generation: int, message: str) -> None:
        if not self._current(generation):
            return
        self._job = None
        self.progress.setVisible(False)
        self.cancel_button.setVisible(False)
        self.stage.setText(f"The audit failed: {message}")

    def _on_cancelled(self, generation: int) -> None:
        if self._current(generation):  # cancelled from elsewhere (the runner shut down)
            self._job = None
            self.progress.setVisible(False)
            self.cancel_button.setVisible(False)
            self.stage.setText("Cancelled")

    def _show_report(self, report: Report) -> None:
        if report.assist and report.assist.usage:
            self.assist_label.setText(f"Claude: {report.assist.usage}")
            self.assist_label.setToolTip(
                "\n".join(["Sent for this document with your key.", *report.assist.rejected])
            )
        text = report.document.text
        mapping = Utf16Map(text)
        lines = LineIndex(text)
        spans = [(mapping.to_qt(f.start), mapping.to_qt(max(f.end, f.start + 1)), f) for f in report.findings]
        self.highlighter.set_spans(spans)
        listed = [*report.findings, *(report.dismissed if self.show_dismissed else [])]
        decided = {id(f): r.decision.label for f in listed if (r := report.review_of(f))}
        self.model.set_findings(listed, {f.start: lines.line_col(f.start)[0] for f in listed}, decided)
        reviewed, total = report.review_progress()
        self.review_label.setText(f"{reviewed} of {total} reviewed" if total else "")
        self.sources_panel.set_sources(report.sources, self.attachments)
        self.tree.expandAll()
        for column in range(2):
            self.tree.resizeColumnToContents(column)
        count = len(report.findings)
        hidden = f" ({len(report.dismissed)} false alarms hidden)" if report.dismissed else ""
        self.stage.setText(
            (f"{count} finding{'s' if count != 1 else ''}" if count else "No problems found") + hidden
        )
        self.judge_label.setText(f"judge: {report.judge}" if report.judge else "")
        self._select(self.tree.currentIndex())

    # --- hovering and clicking in the editor ------------------------------------------------------------
    def findings_at(self, position: int) -> list[Finding]:
        """Findings painted at, or ending at, a Qt document position (most severe first).

        The end is included: a mouse position maps to the nearest character boundary, and a
        one-character highlight (a single wrong number in `[2, 7]`) must still be hoverable.
        """
        hits = [f for start, end, f in self.highlighter.spans() if start <= position <= end]
        return sorted(hits, key=lambda f: -f.severity.rank)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if watched is self.editor.viewport():
            if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
                hits = self.findings_at(self.editor.cursorForPosition(event.pos()).position())
                if hits:
                    QToolTip.showText(event.globalPos(), hover_html(hits), self.editor)
                else:
                    QToolTip.hideText()
                return True
            if (
                event.type() == QEvent.Type.MouseButtonRelease
                and isinstance(event, QMouseEvent)
                and event.button() == Qt.MouseButton.LeftButton
                and not self.editor.textCursor().hasSelection()
            ):
                self.select_finding_at(self.editor.cursorForPosition(event.position().toPoint()).position())
        return super().eventFilter(watched, event)

    def select_finding_at(self, position: int) -> Finding | None:
        """Clicking a highlight selects its finding in the panel (and shows its evidence)."""
        hits = self.findings_at(position)
        if not hits:
            return None
        index = self.model.index_of(hits[0])
        if index.isValid():
            self.tabs.setCurrentIndex(0)
            self.tree.setCurrentIndex(index)
        return hits[0]

    # --- findings, evidence, fixes -------------------------------------------------------------------
    def selected_finding(self) -> Finding | None:
        return self.model.finding_at(self.tree.currentIndex())

    def step(self, delta: int) -> None:
        findings = sorted(self.model.findings(), key=lambda f: f.start)
        if not findings:
            return
        current = self.selected_finding()
        position = findings.index(current) if current in findings else -1
        chosen = (
            findings[(position + delta) % len(findings)]
            if position >= 0
            else findings[0 if delta > 0 else -1]
        )
        self.tree.setCurrentIndex(self.model.index_of(chosen))

    # --- sources -----------------------------------------------------------------------------------
    def refresh_source(self, key: str) -> None:
        """Fetch one reference again (the cached copy stays if the fetch fails), then re-audit."""
        self.show_message(f"Fetching [{key}] again…")
        self.start_audit(refresh=frozenset({key}))

    def open_source(self, key: str) -> None:
        source = self.sources_panel.source(key)
        location = self.attachments.get(key) or (source.location if source and source.location else "")
        url = source_url(location, self.path.parent if self.path else None)
        if url is None:
            self.show_message(f"Reference [{key}] has nothing to open.")
            return
        QDesktopServices.openUrl(url)

    def attach_source(self, key: str, path: str) -> None:
        """Use a local file as reference [key]'s content (for this document, kept in settings)."""
        if not Path(path).is_file():
            self.show_message(f"Not attached: {path} is not a file.")
            return
        self.attachments[key] = str(Path(path).resolve())
        self._save_attachments()
        self.show_message(f"Attached {Path(path).name} as reference [{key}]")
        self.start_audit()

    def _document_setting(self, name: str) -> str:
        """The settings key of `name` for the open document (attached files, Claude assistance)."""
        digest = hashlib.sha1(self.document_key.encode()).hexdigest()
        return f"{name}/{digest[:16]}"

    def _save_attachments(self) -> None:
        import json  # noqa: PLC0415

        self.settings.setValue(self._document_setting("attachments"), json.dumps(self.attachments))

    def _load_attachments(self) -> None:
        import json  # noqa: PLC0415

        try:
            stored = json.loads(str(self.settings.value(self._document_setting("attachments"), "{}")))
        except ValueError:
            stored = {}
        self.attachments = {str(k): str(v) for k, v in stored.items()} if isinstance(stored, dict) else {}

    # --- settings ----------------------------------------------------------------------------------
    def settings_dialog(self) -> None:
        dialog = SettingsDialog(self.settings, self)
        if dialog.exec():
            dialog.save()
            self.apply_settings()

    def apply_settings(self) -> None:
        self.options = options_from_settings(self.settings, self.options)
        self.offline_action.setChecked(self.options.offline)
        apply_theme(str(self.settings.value("theme", "system")))
        self.start_audit()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        stored = self.settings.value("recent", []) or []
        for name in stored if isinstance(stored, list) else [stored]:
            action = self.recent_menu.addAction(str(name))
            action.triggered.connect(lambda _=False, n=str(name): self._open_recent(n))
        if self.recent_menu.isEmpty():
            self.recent_menu.addAction("(none yet)").setEnabled(False)

    def _toggle_line_numbers(self, checked: bool) -> None:
        self.editor.line_numbers.set_shown(checked)
        self.settings.setValue("line_numbers", checked)

    def _focus_filter(self) -> None:
        self.tabs.setCurrentIndex(0)
        self.filter_box.setFocus()
        self.filter_box.selectAll()

    def _filter_findings(self, text: str) -> None:
        self.model.set_filter(text)
        self.tree.expandAll()

    def _open_sample(self, path: Path) -> None:
        if self.confirm_discard():
            self.load_file(path)

    def _open_recent(self, name: str) -> None:
        if self.confirm_discard():
            self.load_file(name)

    # --- review ------------------------------------------------------------------------------------
    def start_review(self) -> None:
        """Select the first finding with no decision yet (review mode: decide, and move on)."""
        self._select_undecided(after=-1)

    def _select_undecided(self, after: int) -> None:
        if self.report is None:
            return
        findings = sorted(self.model.findings(), key=lambda f: (f.start, f.kind.value))
        undecided = [f for f in findings if self.report.review_of(f) is None]
        if not undecided:
            self.show_message("Every finding has a decision.")
            return
        following = [f for f in undecided if f.start > after]
        self.tree.setCurrentIndex(self.model.index_of((following or undecided)[0]))

    def decide(self, decision: Decision, note: str | None = None) -> None:
        """Record the writer's decision on the selected finding, then move to the next undecided one."""
        finding = self.selected_finding()
        report = self.report
        if finding is None or report is None:
            self.show_message("Select a finding first (F7 starts the review).")
            return
        previous = report.review_of(finding)
        note = note if note is not None else (previous.note if previous else "")
        key, excerpt = report.key_of(finding), report.document.text[finding.start : finding.end]
        if not self._with_store(
            lambda store: store.put_review(
                self.document_key, key, decision.value, note=note, kind=finding.kind.value, excerpt=excerpt
            )
        ):
            return
        report.record_review(finding, Review(decision, note, time.time()))
        self._show_report(report)
        self.show_message(f"{finding.kind.label}: {decision.label}")
        self._select_undecided(after=finding.start)

    def clear_decision(self) -> None:
        finding = self.selected_finding()
        report = self.report
        if finding is None or report is None:
            return
        key = report.key_of(finding)
        if not self._with_store(lambda store: store.clear_review(self.document_key, key)):
            return
        report.record_review(finding, None)
        self._show_report(report)
        self.tree.setCurrentIndex(self.model.index_of(finding))

    def note_dialog(self) -> None:
        finding = self.selected_finding()
        if finding is None or self.report is None:
            return
        previous = self.report.review_of(finding)
        note, accepted = QInputDialog.getText(
            self, "Note", "A note to keep with your decision:", text=previous.note if previous else ""
        )
        if accepted:
            self.decide(previous.decision if previous else Decision.NEEDS_SOURCE, note)

    def _toggle_dismissed(self, checked: bool) -> None:
        self.show_dismissed = checked
        if self.report is not None:
            self._show_report(self.report)

    @property
    def document_key(self) -> str:
        return document_key(str(self.path) if self.path else None)

    def _with_store(self, action: Callable[[Store], object]) -> bool:
        """Run one write against the store; a store that cannot be opened or written is a message."""
        from citedesk.pipeline import open_store  # noqa: PLC0415

        try:
            store = open_store(self.options)
        except (OSError, sqlite3.Error) as exc:
            self.show_message(f"Decisions cannot be kept: the store is unavailable ({exc}).")
            return False
        try:
            action(store)
        except sqlite3.Error as exc:
            self.show_message(f"The decision was not kept: {exc}")
            return False
        finally:
            store.close()
        return True

    def _select(self, index: object) -> None:
        finding = self.selected_finding()
        self.fix_button.setEnabled(bool(finding and finding.fixes))
        self.fix_all_button.setEnabled(bool(finding and finding.fixes))
        if finding is None or self.report is None:
            self.evidence.setHtml("<p>Select a finding to see why, and its evidence.</p>")
            return
        mapping = Utf16Map(self.report.document.text)
        cursor = self.editor.textCursor()
        cursor.setPosition(mapping.to_qt(finding.start))
        cursor.setPosition(mapping.to_qt(finding.end), QTextCursor.MoveMode.KeepAnchor)
        self.editor.setTextCursor(cursor)
        self.editor.centerCursor()
        review = self.report.review_of(finding)
        decided = ""
        if review is not None:
            note = f": {html.escape(review.note)}" if review.note else ""
            decided = f"<p><i>Your review: {review.decision.label}{note}</i></p>"
        self.evidence.setHtml(evidence_html(finding) + decided)

    def _open_link(self, url: QUrl) -> None:
        QDesktopServices.openUrl(url)

    def _editable(self) -> bool:
        if self.report is None or self.editor.toPlainText() != self._audited_text:
            self.stage.setText("The text changed since the last check; checking again before fixing…")
            self.start_audit()
            return False
        return True

    def apply_selected_fix(self) -> None:
        finding = self.selected_finding()
        if finding is None or not finding.fixes or not self._editable():
            return
        self.apply_fixes([finding.fixes[0]], f"Applied: {finding.fixes[0].title}")

    def apply_fix_all_of_kind(self) -> None:
        finding = self.selected_finding()
        if finding is None or not self._editable():
            return
        fixes = [f.fixes[0] for f in self.model.all_findings() if f.kind is finding.kind and f.fixes]
        self.apply_fixes(fixes, f"Applied {len(fixes)} fixes ({finding.kind.label})")

    def apply_fixes(self, fixes: list[Fix], message: str) -> bool:
        """Apply fixes as ONE undo step, after the core proves the prose is unchanged."""
        assert self.report is not None
        text = self.report.document.text
        try:
            edits = merge_fixes(self.report.document, fixes)
            expected = apply_checked(text, edits, allow_prose_change=any(f.changes_prose for f in fixes))
        except RepairError as exc:
            self.show_message(f"Not applied: {exc}")
            return False
        mapping = Utf16Map(text)
        cursor = QTextCursor(self.editor.document())
        cursor.beginEditBlock()
        for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
            cursor.setPosition(mapping.to_qt(edit.start))
            cursor.setPosition(mapping.to_qt(edit.end), QTextCursor.MoveMode.KeepAnchor)
            cursor.insertText(edit.replacement)
        cursor.endEditBlock()
        if self.editor.toPlainText() != expected:  # cannot happen unless Qt and Python disagree
            self.editor.undo()
            self.show_message("Not applied: the editor and CiteDesk disagree on the text; nothing changed.")
            return False
        self.stage.setText(message)
        self.start_audit()
        return True

    # --- messages ----------------------------------------------------------------------------------
    def show_message(self, text: str) -> None:
        self.stage.setText(text)
        self.statusBar().showMessage(text, 8000)

    def show_legend(self) -> None:
        rows = "".join(
            f"<tr><td style='color:{s.colour}'>■</td><td>{kind.label}</td><td>{s.name}</td></tr>"
            for kind, s in STYLES.items()
        )
        QMessageBox.information(self, "Legend", f"<table>{rows}</table>")

    def show_about(self) -> None:
        QMessageBox.about(
            self, "CiteDesk", f"CiteDesk {__version__}: is every citation real, and does it say that?"
        )


def source_url(location: str, document_dir: Path | None) -> QUrl | None:
    """What "Open" opens for a reference: its link, its DOI or arXiv page, or its local file."""
    if location.startswith(("http://", "https://")):
        return QUrl(location)
    if location.lower().startswith("doi:"):
        return QUrl("https://doi.org/" + location[4:])
    if location.lower().startswith("arxiv:"):
        return QUrl("https://arxiv.org/abs/" + location[6:])
    if location:
        path = Path(location)
        if not path.is_absolute() and document_dir is not None:
            path = document_dir / path
        if path.is_file():
            return QUrl.fromLocalFile(str(path.resolve()))
    return None


def hover_html(findings: list[Finding]) -> str:
    """The tooltip over a highlight: each finding's message, its score and a piece of its evidence."""
    parts = []
    for finding in findings[:3]:
        line = f"<b>{html.escape(finding.kind.label)}</b>: {html.escape(finding.message)}"
        if finding.verdict is not None:
            judge = html.escape(finding.verdict.judge or "")
            line += f"<br><i>support {finding.verdict.score:.2f} ({judge})</i>"
        passage = finding.evidence.passage if finding.evidence else ""
        if passage:
            shown = passage if len(passage) <= 280 else passage[:277] + "…"
            line += f"<br>Evidence: “{html.escape(shown)}”"
        parts.append(line)
    return "<hr>".join(parts)


def evidence_html(finding: Finding) -> str:
    parts = [f"<h3>{html.escape(finding.kind.label)}</h3><p>{html.escape(finding.message)}</p>"]
    if finding.evidence:
        parts.append(_evidence_block("Evidence", finding.evidence))
    offered = finding.suggestion
    if offered is not None and offered.evidence is not None and finding.verdict is not None:
        parts.append(_evidence_block(f"Reference [{offered.key}] says", offered.evidence))
    if finding.verdict is not None:
        judge = html.escape(finding.verdict.judge or "")
        parts.append(f"<p>Support score {finding.verdict.score:.2f} {f'({judge})' if judge else ''}.</p>")
    elif offered is not None:
        parts.append(f"<p>Support score {offered.score:.2f}.</p>")
    if finding.fixes:
        parts.append("<p><b>Fixes</b>: " + "; ".join(html.escape(f.title) for f in finding.fixes) + "</p>")
    return "".join(parts)


def _evidence_block(heading: str, evidence: Evidence) -> str:
    passage = html.escape(evidence.passage)
    window = html.escape(evidence.window)
    marked = f"<span style='background-color:#fff1a8'>{passage}</span>"
    shown = window.replace(passage, marked) if passage and passage in window else marked
    title = html.escape(evidence.title or f"[{evidence.source}]")
    location = evidence.location or ""
    if location.startswith(("http://", "https://")):
        link = f" — <a href='{html.escape(location)}'>{html.escape(location)}</a>"
    else:
        link = f" — {html.escape(location)}" if location else ""
    page = f", page {evidence.page}" if evidence.page else ""
    return f"<p><b>{html.escape(heading)}</b> ({title}{link}{page}):</p><blockquote>{shown}</blockquote>"
