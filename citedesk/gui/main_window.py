"""The main window: it assembles the parts and wires them; the parts do the work.

- `Editor` — the text with findings marked where they are; the hover card and the context menu
  act there (fix by name, dismiss, needs a source, show evidence, attach a file).
- `DocumentController` — open, save, export, recovery copies.
- `AuditController` — background audits with public signals.
- `FindingsPanel`, `EvidenceView`, `SourcesPanel` — the list (following the cursor), the evidence
  with its fixes as buttons, the sources (a file, several dropped at once, or a folder).
- `FixController`, `ReviewController`, `AssistConsent` — fixes, decisions, Claude consent.
- `StatusBar`, `Legend`, `ModelDownloads`, `ViewSettings`, `menus` (built from the
  declared `actions`) — the rest of the frame.
- `OpRunner` — the store work, look-ups and exports the parts ask for, off the GUI thread.

Every decision about findings, fixes and sources is the desk's; this module only connects.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from citedesk import __version__
from citedesk.assets import icon_path, sample_paths
from citedesk.core.document.works import BibReference
from citedesk.core.findings import Finding, Fix
from citedesk.core.formats import matches
from citedesk.core.reports.report import Report
from citedesk.core.review import Decision
from citedesk.core.text import LineIndex
from citedesk.desk import AuditOptions, Desk, DocumentSession
from citedesk.desk.background import AuditFailure
from citedesk.desk.state import DocumentState
from citedesk.gui.actions import RECENT, SAMPLES, ActionState
from citedesk.gui.controllers.audit_controller import AuditController, Job
from citedesk.gui.controllers.document_session import DocumentController
from citedesk.gui.controllers.outside_folders import OutsideFolders
from citedesk.gui.controllers.project_controller import ProjectController
from citedesk.gui.controllers.review_controller import ReviewController
from citedesk.gui.controllers.sources_controller import SourcesController
from citedesk.gui.controllers.staged_view import StagedView
from citedesk.gui.controllers.word_document import WordFixController
from citedesk.gui.dialogs.consent import AssistConsent
from citedesk.gui.dialogs.download_dialog import ModelDownloads
from citedesk.gui.dialogs.settings_dialog import (
    ALLOWED_FOLDERS,
    SettingsDialog,
    WindowConfiguration,
    apply_theme,
    audit_options,
    window_configuration,
)
from citedesk.gui.editor.completion import CitationCompleter, ask_bibliography
from citedesk.gui.editor.editor import Editor
from citedesk.gui.editor.find_bar import FindBar
from citedesk.gui.editor.legend import Legend
from citedesk.gui.editor.offsets import Utf16Map
from citedesk.gui.menus import build_menus
from citedesk.gui.ops import OpRunner, run_op
from citedesk.gui.panels.evidence_view import EvidenceView
from citedesk.gui.panels.findings_panel import FindingsPanel
from citedesk.gui.panels.sources_panel import SourcesPanel
from citedesk.gui.panels.status_bar import StatusBar
from citedesk.gui.qt import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QIcon,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSettings,
    QSplitter,
    Qt,
    QTabWidget,
    QTimer,
    QVBoxLayout,
    QWidget,
)
from citedesk.gui.view_settings import EDITOR_FONT, GROUPED, LINE_NUMBERS, SOFT_WRAP, ViewSettings


class MainWindow(QMainWindow):
    recent_menu: QMenu
    offline_action: QAction
    assist_action: QAction
    claude_judge_action: QAction
    apply_action: QAction
    line_numbers_action: QAction
    wrap_action: QAction
    monospace_action: QAction
    group_action: QAction
    assist: AssistConsent

    def __init__(
        self, options: AuditOptions | None = None, settings: QSettings | None = None, desk: Desk | None = None
    ) -> None:
        super().__init__()
        self.setWindowIcon(QIcon(str(icon_path())))
        self.setWindowTitle("CiteDesk")
        self.resize(1200, 800)
        self.settings = settings or QSettings("CiteDesk", "CiteDesk")
        self.desk = desk or Desk.from_environment(options)
        self._base_options = self.desk.options
        """What the layered settings are laid on (service addresses, what a caller gave)."""
        self.layers: WindowConfiguration = window_configuration(self.settings)
        """The settings in force for the open document (`_apply_layers`)."""
        self._noticed: set[Path | None] = set()
        """The documents whose settings notices the writer has been shown (once each)."""
        self.desk.options = audit_options(self.layers.configuration, self._base_options)
        self.confirm_allow_folder: Callable[[str], bool] = self._ask_allow_folder
        """Asked when a file the document names (a source, its bibliography) is outside the folders
        CiteDesk may read: the window's Allow (`OutsideFolders`), where the CLI says --allow-folder."""
        self.outside = OutsideFolders(
            lambda question: self.confirm_allow_folder(question),  # noqa: PLW0108 - replaced later
            lambda: self.layers.configuration.settings.allow_folders,
            lambda folders: self.settings.setValue(ALLOWED_FOLDERS, folders),
            self.apply_settings,  # audits again
        )

        self.ops = OpRunner(self)
        self.state = DocumentState()
        """What the window shows of the document: it observes the report here (`_connect`)."""
        self.editor = Editor()
        self.document = DocumentController(self.desk, self.editor, self.settings, self)
        self.audits = AuditController(self._job, self, state=self.state)
        self.findings = FindingsPanel()
        self.evidence = EvidenceView()
        self.sources_panel = SourcesPanel()
        self.find_bar = FindBar(self.editor)
        self.completion = CitationCompleter(self.editor, self._citation_keys)
        self.fixes = WordFixController(
            self.editor,
            lambda: self.document.session,
            lambda: self.report,
            lambda: self.state.text,
            self,
        )
        self.review = ReviewController(
            self.findings, lambda: self.document.session, lambda: self.report, self
        )
        self.downloads = ModelDownloads(self.settings, self)
        self.view_settings = ViewSettings(self.editor, self.findings, self.settings)
        self.legend: Legend | None = None
        self.sources = SourcesController(
            self.sources_panel, lambda: self.document.session, lambda: self.report, self
        )
        self._following = False
        self._offsets: Utf16Map | None = None
        self._build_layout()
        self.project = ProjectController(self.document, self.tabs, lambda: self.options.local_roots, self)
        self.status = StatusBar(self.statusBar())
        self.stage = self.status.stage
        self.progress = self.status.progress
        self.review_label = self.status.review
        self.assist_label = self.status.assist
        self.judge_label = self.status.judge
        self.staged = StagedView(self.state, self.audits, (self.editor, self.findings, self.status), self)
        self.menus = build_menus(self)
        self._menu_parts()
        self.view_settings.restore(
            **{
                LINE_NUMBERS: self.line_numbers_action,
                SOFT_WRAP: self.wrap_action,
                EDITOR_FONT: self.monospace_action,
                GROUPED: self.group_action,
            }
        )
        self._connect()
        self.document.title_changed.emit("Untitled — CiteDesk")
        QTimer.singleShot(0, self, lambda: self.audits.warm() if self.isVisible() else None)  # issue 26

    def _menu_parts(self) -> None:
        """What the menus hold beyond their actions: the File menu's submenus, the checkable
        actions the settings restore, the Claude consent on its two actions."""
        actions = self.menus.actions
        self.recent_menu = self.menus.submenus[RECENT]
        self.recent_menu.aboutToShow.connect(self.fill_recent)
        for name, sample in {**sample_paths(), **self.desk.folder_samples()}.items():
            self.menus.submenus[SAMPLES].addAction(name, functools.partial(self.open_sample, sample))
        self.offline_action = actions["offline"]
        self.offline_action.setChecked(self.options.offline)
        self.assist_action, self.claude_judge_action = actions["assist"], actions["claude_judge"]
        self.apply_action = actions["apply_fix"]
        self.line_numbers_action, self.wrap_action = actions["line_numbers"], actions["soft_wrap"]
        self.monospace_action, self.group_action = actions["monospace"], actions["group"]
        self.assist = AssistConsent(
            self.assist_action,
            self.claude_judge_action,
            self.settings,
            lambda: self.document.session,
            self.editor.toPlainText,
            self,
        )

    # --- what the window is showing ---------------------------------------------------------------
    @property
    def options(self) -> AuditOptions:
        return self.desk.options

    @property
    def report(self) -> Report | None:
        return self.state.report

    def _citation_keys(self) -> Callable[[], tuple[BibReference, ...]]:
        """The job that reads the document's citation keys (the text is read here, on the GUI thread)."""
        session, text = self.document.session, self.editor.toPlainText()
        return lambda: session.citation_works(text)

    def _job(self) -> Job:
        session = self.document.session
        assist, judge = self.assist.audit_choices(self.options.judge)
        return (
            self.editor.toPlainText(),
            str(session.path) if session.path else None,
            session.options(assist=assist, judge=judge),
        )

    # --- assembly ------------------------------------------------------------------------------------
    def _build_layout(self) -> None:
        self.tabs = QTabWidget()
        self.tabs.addTab(self.findings, "Findings")
        self.tabs.addTab(self.sources_panel, "Sources")
        side = QSplitter(Qt.Orientation.Vertical)
        side.addWidget(self.tabs)
        side.addWidget(self.evidence)
        side.setStretchFactor(0, 3)
        side.setStretchFactor(1, 2)
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
        self.setAcceptDrops(True)

    def _connect(self) -> None:
        self.editor.textChanged.connect(self._text_changed)
        self.editor.cursorPositionChanged.connect(self._follow_cursor)
        self.editor.finding_clicked.connect(self._finding_clicked)
        for source in (self.editor, self.evidence):
            source.fix_chosen.connect(self.apply_fix)
            source.decided.connect(self.decide)
        self.editor.evidence_requested.connect(self.show_evidence)
        self.editor.attach_requested.connect(self.sources.ask_file)
        self.document.title_changed.connect(self.setWindowTitle)
        self.document.message.connect(self.show_message)
        self.project.message.connect(self.show_message)
        self.document.opened.connect(self._opened)
        self.document.recovered.connect(self.audits.start)
        self.audits.audit_started.connect(self._audit_started)
        self.audits.progress.connect(self._on_progress)
        self.state.on_change("report", self._show_report)
        self.audits.audit_finished.connect(
            lambda report: self.completion.refresh(report.document.bibliography or ())
        )
        self.audits.audit_failed.connect(self._on_failed)
        self.audits.audit_cancelled.connect(self._on_cancelled)
        self.findings.selection_changed.connect(self._select)
        self.findings.fix_requested.connect(self.apply_selected_fix)
        self.findings.fix_all_requested.connect(self.apply_fix_all_of_kind)
        self.fixes.message.connect(self.show_message)
        self.fixes.applied.connect(lambda _plan: self.audits.start())
        self.review.changed.connect(self._refresh_report)
        self.review.message.connect(self.show_message)
        self.assist.changed.connect(self.audits.start)
        self.assist.message.connect(self.show_message)
        self.sources.message.connect(self.show_message)
        self.sources.audit_requested.connect(lambda keys: self.audits.start(refresh=keys))
        self.status.cancel_button.clicked.connect(self.audits.cancel)
        self.status.legend_button.clicked.connect(self.show_legend)
        self.status.judge_note.clicked.connect(self.downloads.offer)
        self.downloads.message.connect(self.show_message)
        self.downloads.finished.connect(lambda _pulled: self.audits.start())
        self.ops.busy_changed.connect(self.status.set_working)
        self.ops.message.connect(self.show_message)

    # --- documents ----------------------------------------------------------------------------------
    def export_report(self) -> None:
        self.document.export_dialog(self.report)

    def load_file(self, path: str | Path) -> bool:
        return self.document.load_file(path)

    def open_sample(self, path: Path) -> None:
        if self.document.confirm_discard():
            self.document.open_sample(path, self.sources.attach_folder)

    def _opened(self) -> None:
        self.assist.load()
        self.completion.refresh()
        place = self._apply_layers()
        self.document.when_store_ready(self.audits.start)  # the first store open off the GUI thread
        if self.layers.notices and place not in self._noticed:  # once per document, not every audit
            self._noticed.add(place)
            self.show_message(" · ".join(self.layers.notices))

    def _apply_layers(self) -> Path | None:
        """The open document's settings: the user's file, its project file, the window's choices."""
        place = self.document.session.path or self.document.session.folder
        self.layers = window_configuration(self.settings, place)
        self.desk.options = audit_options(self.layers.configuration, self._base_options)
        self.offline_action.setChecked(self.options.offline)
        return place

    def choose_bibliography(self) -> None:
        """File ▸ Bibliography…: the current one read, the new one read and kept, off the GUI thread."""
        session = self.document.session
        run_op(self, session.bibliography, lambda current: self._ask_bibliography(session, current))

    def _ask_bibliography(self, session: DocumentSession, current: Path | None) -> None:
        name = ask_bibliography(self, session, current)
        if name is None:
            return

        def chosen(path: Path | None) -> None:
            self.show_message(f"Bibliography: {path.name if path else 'none'}")
            self.completion.refresh()
            self.audits.start()

        run_op(
            self,
            lambda: session.set_bibliography(name),
            chosen,
            lambda exc: self.show_message(f"Not used as the bibliography: {exc.message}"),
            label="Reading the bibliography…",
        )

    def fill_recent(self) -> None:
        self.recent_menu.clear()
        for name in self.document.recent():
            action = self.recent_menu.addAction(name)
            action.triggered.connect(lambda _=False, n=name: self._open_recent(n))
        if self.recent_menu.isEmpty():
            self.recent_menu.addAction("(none yet)").setEnabled(False)

    def _open_recent(self, name: str) -> None:
        if self.document.confirm_discard():
            self.document.load_file(name)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        if not self.document.confirm_discard():
            event.ignore()
            return
        self.document.autosave.stop()
        self.audits.shutdown()
        self.downloads.shutdown()
        self.ops.shutdown()
        if self.legend is not None:
            self.legend.close()
        event.accept()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt's name
        if any(matches(url.toLocalFile()) for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt's name
        for url in event.mimeData().urls():
            local = url.toLocalFile()
            if matches(local) and self.document.confirm_discard():
                self.document.load_file(local)
                event.acceptProposedAction()
                return

    # --- auditing -----------------------------------------------------------------------------------
    def _text_changed(self) -> None:
        if self.editor.highlighter.repainting:
            return  # new marks, not new text
        audited = self.state.text
        if self.editor.toPlainText() != audited:
            self._offsets = None  # the report's offsets no longer match the text
            self.audits.schedule()
        elif self._offsets is None and audited is not None:
            self._offsets = Utf16Map(audited)  # back to the audited text (an undo): follow again

    def escape(self) -> None:
        if self.editor.card.isVisible():
            self.editor.card.close_card()
        elif self.find_bar.isVisible():
            self.find_bar.close_bar()
        else:
            self.audits.cancel()

    def _audit_started(self) -> None:
        self.status.set_state("Checking…")
        self.progress.setRange(0, 0)
        self.status.busy(True)

    def _on_progress(self, stage: str, done: int, total: int) -> None:
        self.status.set_state(f"{stage} {done}/{total}" if total else stage)
        if total:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
        else:
            self.progress.setRange(0, 0)

    def _on_failed(self, failure: AuditFailure) -> None:
        self.status.busy(False)
        if failure.kind == "outside" and failure.folder and self._allow_folder(failure):
            return
        prefix = "The audit could not finish" if failure.known else "The audit failed (a bug in CiteDesk)"
        self.status.set_summary(f"{prefix}: {failure.message}")
        self.show_message(f"{prefix}: {failure.message}")

    def _on_cancelled(self) -> None:
        self.status.busy(False)
        self.status.set_summary("Cancelled")

    def _refresh_report(self) -> None:
        if self.report is not None:
            self._show_report(self.report)

    def _show_report(self, report: Report) -> None:
        self.status.busy(False)
        if report.assist and report.assist.usage:
            self.assist_label.setText(f"Claude: {report.assist.usage}")
            self.assist_label.setToolTip(
                "\n".join(["Sent for this document with your key.", *report.assist.rejected])
            )
        self.assist_label.setVisible(self.assist.enabled)
        if not self.assist.enabled:
            self.assist_label.setText("")
        text = report.document.text
        self._offsets = Utf16Map(text) if text == self.editor.toPlainText() else None
        self.editor.show_report(report, report.findings)
        self.evidence.cite = report.document.label
        listed = [*report.findings, *(report.dismissed if self.review.show_dismissed else [])]
        decided = {id(f): r.decision.label for f in listed if (r := report.review_of(f))}
        lines = LineIndex(text)
        self._following = True  # the list is refilled: the editor stays where it is
        self.findings.model.cite = report.document.label
        try:
            self.findings.show_findings(
                listed, {f.start: lines.line_col(f.start)[0] for f in listed}, decided
            )
        finally:
            self._following = False
        self._follow_cursor()
        self.review_label.setText(self.review.progress_text())
        self.sources_panel.set_sources(report.sources, *self.document.session.attachments_split())
        count = len(report.findings)
        hidden = f" ({len(report.dismissed)} false alarms hidden)" if report.dismissed else ""
        none = (
            "Nothing could be checked" if report.coverage_or_count().nothing_checked else "No problems found"
        )
        self.status.set_summary((f"{count} finding{'s' if count != 1 else ''}" if count else none) + hidden)
        self.status.show_report(report)
        for notice in report.notices:
            self.show_message(notice)
        self.outside.offer(report, self.document.session.folder)  # issue 28: Allow, not --allow-folder

    # --- findings, evidence, fixes ------------------------------------------------------------------
    def selected_finding(self) -> Finding | None:
        return self.findings.selected_finding()

    def _select(self, finding: Finding | None) -> None:
        report = self.report
        self.menus.follow(ActionState(finding))
        if finding is None or report is None:
            self.evidence.show_finding(None)
            return
        if not self._following:
            self._following = True  # moving the editor to the finding must not re-select from it
            try:
                self.editor.select_span(report.document.text, finding.start, finding.end)
            finally:
                self._following = False
        self.evidence.show_finding(finding, report.review_of(finding))

    def _follow_cursor(self) -> None:
        """Select the finding at the editor's cursor (its own span, else the sentence it is about)."""
        if self._following or self._offsets is None:
            return
        position = self._offsets.to_python(self.editor.textCursor().position())
        shown = self.findings.model.findings()
        here = [f for f in shown if f.start <= position <= f.end]
        if not here and self.report is not None:
            claims = self.report.document.claim_by_id
            here = [
                f
                for f in shown
                if f.claim_id in claims
                and claims[f.claim_id].sentence.start <= position <= claims[f.claim_id].sentence.end
            ]
        if not here:
            return
        chosen = max(here, key=lambda f: (f.severity.rank, -(f.end - f.start)))
        if chosen is not self.selected_finding():
            self._following = True
            try:
                self.findings.select(chosen)
            finally:
                self._following = False

    def _finding_clicked(self, finding: Finding) -> None:
        if self.findings.select(finding):
            self.tabs.setCurrentIndex(0)

    def open_card_at_cursor(self) -> None:
        if not self.editor.open_card_at_cursor():
            self.show_message("Nothing is marked at the cursor.")

    def show_evidence(self, finding: Finding) -> None:
        """The card's "Show evidence": the finding selected, its evidence in the pane."""
        self.tabs.setCurrentIndex(0)
        self.findings.select(finding)
        self.evidence.browser.setFocus()

    def decide(self, finding: Finding, decision: Decision) -> None:
        """A decision from the card, the context menu or the evidence pane: kept, and the writer
        stays where they are."""
        self.review.decide(decision, finding=finding, advance=False)

    def _editable(self) -> bool:
        if not self.fixes.ready():
            self.show_message("The text changed since the last check; checking again before fixing…")
            self.audits.start()
            return False
        return True

    def apply_fix(self, finding: Finding, fix: Fix) -> None:
        if self._editable():
            self.fixes.apply_fix(finding, fix)

    def apply_selected_fix(self) -> None:
        finding = self.selected_finding()
        if finding is not None and finding.fixes and self._editable():
            self.fixes.apply_fix(finding)

    def apply_fix_all_of_kind(self) -> None:
        finding = self.selected_finding()
        if finding is not None and self._editable():
            self.fixes.apply_all_of_kind(finding, self.findings.model.all_findings())

    def renumber(self) -> None:
        """Review ▸ Renumber the reference list: one checked plan, one undo step."""
        if self._editable():
            self.fixes.renumber()

    # --- settings and view --------------------------------------------------------------------------
    def settings_dialog(self) -> None:
        dialog = SettingsDialog(self.settings, self, self.layers.configuration)
        dialog.download_requested.connect(self.downloads.offer)
        if dialog.exec():
            dialog.save()
            self.apply_settings()

    def apply_settings(self) -> None:
        self._apply_layers()
        self.view_settings.restore(
            **{
                LINE_NUMBERS: self.line_numbers_action,
                SOFT_WRAP: self.wrap_action,
                EDITOR_FONT: self.monospace_action,
                GROUPED: self.group_action,
            }
        )
        apply_theme(str(self.settings.value("theme", "system")))
        self.audits.start()

    def _allow_folder(self, failure: AuditFailure) -> bool:
        """A bibliography the document names is outside the folders CiteDesk may read: the writer
        is asked whether to allow its folder (`OutsideFolders`), and if so it is audited again."""
        return self.outside.allow(failure.message.split(": it is outside")[0], str(failure.folder))

    def _ask_allow_folder(self, question: str) -> bool:
        box = QMessageBox.question(self, "Allow this folder?", question)
        return box == QMessageBox.StandardButton.Yes

    def toggle_offline(self, checked: bool) -> None:
        self.settings.setValue("offline", checked)
        self._apply_layers()
        self.audits.start()

    def focus_filter(self) -> None:
        self.tabs.setCurrentIndex(0)
        self.findings.focus_filter()

    # --- messages -----------------------------------------------------------------------------------
    def show_message(self, text: str) -> None:
        self.status.message(text)

    def show_legend(self) -> None:
        if self.legend is None:
            self.legend = Legend(self)
        self.legend.show()
        self.legend.raise_()

    def show_about(self) -> None:
        QMessageBox.about(
            self, "CiteDesk", f"CiteDesk {__version__}: is every citation real, and does it say that?"
        )
