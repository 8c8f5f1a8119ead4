"""The main window: it assembles the parts and wires them; the parts do the work.

- `Editor` — the text with findings underlined; hover explains, click selects.
- `DocumentController` — open, save, export, recovery copies.
- `AuditController` — background audits with public signals.
- `FindingsPanel`, `EvidenceView`, `SourcesPanel` — the lists and the evidence.
- `FixController`, `ReviewController`, `AssistConsent` — fixes, decisions, Claude consent.

Every decision about findings, fixes and sources is the desk's; this module only connects.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from citedesk import __version__
from citedesk.assets import icon_path, sample_paths
from citedesk.core.findings import Finding
from citedesk.core.report import Report
from citedesk.core.review import Decision
from citedesk.core.text import LineIndex
from citedesk.desk import AuditOptions, Desk
from citedesk.desk.background import AuditFailure
from citedesk.errors import CiteDeskError
from citedesk.gui.audit_controller import AuditController, Job
from citedesk.gui.completion import CitationCompleter, ask_bibliography
from citedesk.gui.consent import AssistConsent
from citedesk.gui.document_session import DOCUMENT_SUFFIXES, DocumentController
from citedesk.gui.editor import Editor
from citedesk.gui.evidence_view import EvidenceView
from citedesk.gui.find_bar import FindBar
from citedesk.gui.findings_panel import FindingsPanel
from citedesk.gui.fix_controller import FixController
from citedesk.gui.highlighter import STYLES
from citedesk.gui.qt import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDropEvent,
    QIcon,
    QKeySequence,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSettings,
    QSplitter,
    Qt,
    QTabWidget,
    QUrl,
    QVBoxLayout,
    QWidget,
)
from citedesk.gui.review_controller import ReviewController
from citedesk.gui.settings_dialog import SettingsDialog, apply_theme, options_from_settings
from citedesk.gui.sources_panel import SourcesPanel


class MainWindow(QMainWindow):
    def __init__(
        self, options: AuditOptions | None = None, settings: QSettings | None = None, desk: Desk | None = None
    ) -> None:
        super().__init__()
        self.setWindowIcon(QIcon(str(icon_path())))
        self.setWindowTitle("CiteDesk")
        self.resize(1200, 800)
        self.settings = settings or QSettings("CiteDesk", "CiteDesk")
        self.desk = desk or Desk.from_environment(options or options_from_settings(self.settings))
        self._menus: dict[str, QMenu] = {}

        self.editor = Editor()
        self.document = DocumentController(self.desk, self.editor, self.settings, self)
        self.audits = AuditController(self._job, self)
        self.findings = FindingsPanel()
        self.evidence = EvidenceView()
        self.sources_panel = SourcesPanel()
        self.find_bar = FindBar(self.editor)
        self.completion = CitationCompleter(
            self.editor, lambda: self.document.session.citation_keys(self.editor.toPlainText())
        )
        self.fixes = FixController(
            self.editor,
            lambda: self.document.session,
            lambda: self.report,
            lambda: self.audits.audited_text,
            self,
        )
        self.review = ReviewController(
            self.findings, lambda: self.document.session, lambda: self.report, self
        )
        self._build_layout()
        self._build_status_bar()
        self._build_menus()
        self._connect()
        self.document.title_changed.emit("Untitled — CiteDesk")

    # --- what the window is showing ---------------------------------------------------------------
    @property
    def options(self) -> AuditOptions:
        return self.desk.options

    @property
    def report(self) -> Report | None:
        return self.audits.report

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

    def _build_status_bar(self) -> None:
        self.stage = QLabel("Ready")
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(160)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.audits.cancel)
        self.review_label = QLabel("")
        self.assist_label = QLabel("")
        self.assist_label.setVisible(False)
        self.judge_label = QLabel("")
        bar = self.statusBar()
        bar.addWidget(self.stage, 1)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)
        bar.addPermanentWidget(self.review_label)
        bar.addPermanentWidget(self.assist_label)
        bar.addPermanentWidget(self.judge_label)

    def _action(
        self,
        menu_name: str,
        text: str,
        slot: Callable[..., object],
        shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
    ) -> QAction:
        if menu_name not in self._menus:
            self._menus[menu_name] = self.menuBar().addMenu(menu_name)
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        self._menus[menu_name].addAction(action)
        self.addAction(action)
        return action

    def _build_menus(self) -> None:
        doc = self.document
        self._action("&File", "&Open…", doc.open_dialog, QKeySequence.StandardKey.Open)
        self._action("&File", "&Save", doc.save, QKeySequence.StandardKey.Save)
        self._action("&File", "Save &as…", doc.save_as_dialog, QKeySequence.StandardKey.SaveAs)
        file_menu = self._menus["&File"]
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        samples_menu = file_menu.addMenu("Open a &sample (as a copy)")
        for name, sample in sample_paths().items():
            samples_menu.addAction(name, functools.partial(self.open_sample, sample))
        self._action("&File", "&Export report…", lambda: doc.export_dialog(self.report), "Ctrl+E")
        self._action("&File", "&Bibliography…", self.choose_bibliography)
        self._action("&File", "Se&ttings…", self.settings_dialog, "Ctrl+,")
        self._action("&File", "&Quit", self.close, QKeySequence.StandardKey.Quit)
        self._action("&Edit", "&Undo", self.editor.undo, QKeySequence.StandardKey.Undo)
        self._action("&Edit", "&Redo", self.editor.redo, QKeySequence.StandardKey.Redo)
        self._action("&Edit", "&Find…", self.find_bar.open_bar, QKeySequence.StandardKey.Find)
        self._action("&Edit", "Find and &replace…", lambda: self.find_bar.open_bar(replacing=True), "Ctrl+H")
        self._action("&Edit", "Find &next", self.find_bar.find_next, QKeySequence.StandardKey.FindNext)
        self._action("&Edit", "Filter &findings…", self._focus_filter, "Ctrl+Shift+F")
        self._action("&Audit", "&Audit now", self.audits.start, "F5")
        self._action("&Audit", "&Cancel audit", self._escape, "Escape")
        self.offline_action = self._action("&Audit", "&Offline (fetch nothing)", self._toggle_offline)
        self.offline_action.setCheckable(True)
        self.offline_action.setChecked(self.options.offline)
        self.assist_action = self._action(
            "&Audit", "Claude &assistance for this document…", lambda: None, "Ctrl+Shift+A"
        )
        self.claude_judge_action = self._action(
            "&Audit", "Claude &judges the citations too…", lambda: None, "Ctrl+Shift+J"
        )
        self.assist = AssistConsent(
            self.assist_action,
            self.claude_judge_action,
            self.settings,
            lambda: self.document.session,
            self.editor.toPlainText,
            self,
        )
        self._action("&Review", "&Next finding", lambda: self.findings.step(1), "F8")
        self._action("&Review", "&Previous finding", lambda: self.findings.step(-1), "Shift+F8")
        self._action("&Review", "&Apply fix", self.apply_selected_fix, "Ctrl+.")
        self._action("&Review", "Fix &all of this kind", self.apply_fix_all_of_kind, "Ctrl+Shift+.")
        self._menus["&Review"].addSeparator()
        review = self.review
        self._action("&Review", "&Start review (first undecided)", review.start, "F7")
        self._action("&Review", "&Confirmed", lambda: review.decide(Decision.CONFIRMED), "Ctrl+1")
        self._action("&Review", "&False alarm (hide)", lambda: review.decide(Decision.FALSE_ALARM), "Ctrl+2")
        self._action("&Review", "&Needs a source", lambda: review.decide(Decision.NEEDS_SOURCE), "Ctrl+3")
        self._action("&Review", "Add a &note…", review.note_dialog, "Ctrl+Shift+N")
        self._action("&Review", "C&lear the decision", review.clear, "Ctrl+0")
        dismissed = self._action("&Review", "Show &false alarms", review.toggle_dismissed, "Ctrl+Shift+H")
        dismissed.setCheckable(True)
        self.line_numbers_action = self._action("&View", "&Line numbers", self._toggle_line_numbers)
        self.line_numbers_action.setCheckable(True)
        shown = bool(self.settings.value("line_numbers", True, type=bool))
        self.line_numbers_action.setChecked(shown)
        self.editor.line_numbers.set_shown(shown)
        self._action("&Help", "&Legend", self.show_legend)
        self._action("&Help", "&About CiteDesk", self.show_about)

    def _connect(self) -> None:
        self.editor.textChanged.connect(self._text_changed)
        self.editor.finding_clicked.connect(self._finding_clicked)
        self.document.title_changed.connect(self.setWindowTitle)
        self.document.message.connect(self.show_message)
        self.document.opened.connect(self._opened)
        self.audits.audit_started.connect(self._audit_started)
        self.audits.progress.connect(self._on_progress)
        self.audits.audit_finished.connect(self._show_report)
        self.audits.audit_finished.connect(lambda _report: self.completion.refresh())
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
        self.sources_panel.refresh_requested.connect(self.refresh_source)
        self.sources_panel.open_requested.connect(self.open_source)
        self.sources_panel.attach_requested.connect(self.attach_source)

    # --- documents ----------------------------------------------------------------------------------
    def load_file(self, path: str | Path) -> bool:
        return self.document.load_file(path)

    def open_sample(self, path: Path) -> None:
        if self.document.confirm_discard():
            self.document.open_copy(path)

    def _opened(self) -> None:
        self.assist.load()
        self.completion.refresh()
        self.audits.start()

    def choose_bibliography(self) -> None:
        said = ask_bibliography(self, self.document.session)
        if said is not None:
            self.show_message(said)
            self.completion.refresh()
            self.audits.start()

    def _fill_recent(self) -> None:
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
        event.accept()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt's name
        if any(url.toLocalFile().lower().endswith(DOCUMENT_SUFFIXES) for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt's name
        for url in event.mimeData().urls():
            local = url.toLocalFile()
            if local.lower().endswith(DOCUMENT_SUFFIXES) and self.document.confirm_discard():
                self.document.load_file(local)
                event.acceptProposedAction()
                return

    # --- auditing -----------------------------------------------------------------------------------
    def _text_changed(self) -> None:
        if self.editor.toPlainText() != self.audits.audited_text:
            self.audits.schedule()

    def _escape(self) -> None:
        if self.find_bar.isVisible():
            self.find_bar.close_bar()
        else:
            self.audits.cancel()

    def _audit_started(self) -> None:
        self.stage.setText("Checking…")
        self.progress.setRange(0, 0)
        self._busy(True)

    def _busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)

    def _on_progress(self, stage: str, done: int, total: int) -> None:
        self.stage.setText(f"{stage} {done}/{total}" if total else stage)
        if total:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
        else:
            self.progress.setRange(0, 0)

    def _on_failed(self, failure: AuditFailure) -> None:
        self._busy(False)
        prefix = "The audit could not finish" if failure.known else "The audit failed (a bug in CiteDesk)"
        self.stage.setText(f"{prefix}: {failure.message}")

    def _on_cancelled(self) -> None:
        self._busy(False)
        self.stage.setText("Cancelled")

    def _refresh_report(self) -> None:
        if self.report is not None:
            self._show_report(self.report)

    def _show_report(self, report: Report) -> None:
        self._busy(False)
        if report.assist and report.assist.usage:
            self.assist_label.setText(f"Claude: {report.assist.usage}")
            self.assist_label.setToolTip(
                "\n".join(["Sent for this document with your key.", *report.assist.rejected])
            )
        self.assist_label.setVisible(self.assist.enabled)
        if not self.assist.enabled:
            self.assist_label.setText("")
        text = report.document.text
        self.editor.show_findings(text, report.findings)
        listed = [*report.findings, *(report.dismissed if self.review.show_dismissed else [])]
        decided = {id(f): r.decision.label for f in listed if (r := report.review_of(f))}
        lines = LineIndex(text)
        self.findings.show_findings(listed, {f.start: lines.line_col(f.start)[0] for f in listed}, decided)
        self.review_label.setText(self.review.progress_text())
        self.sources_panel.set_sources(report.sources, self.document.session.attachments())
        count = len(report.findings)
        hidden = f" ({len(report.dismissed)} false alarms hidden)" if report.dismissed else ""
        self.stage.setText(
            (f"{count} finding{'s' if count != 1 else ''}" if count else "No problems found") + hidden
        )
        self.judge_label.setText(f"judge: {report.judge}" if report.judge else "")
        for notice in report.notices:
            self.show_message(notice)

    # --- findings, evidence, fixes ------------------------------------------------------------------
    def selected_finding(self) -> Finding | None:
        return self.findings.selected_finding()

    def _select(self, finding: Finding | None) -> None:
        report = self.report
        if finding is None or report is None:
            self.evidence.show_finding(None)
            return
        self.editor.select_span(report.document.text, finding.start, finding.end)
        self.evidence.show_finding(finding, report.review_of(finding))

    def _finding_clicked(self, finding: Finding) -> None:
        if self.findings.select(finding):
            self.tabs.setCurrentIndex(0)

    def _editable(self) -> bool:
        if not self.fixes.ready():
            self.stage.setText("The text changed since the last check; checking again before fixing…")
            self.audits.start()
            return False
        return True

    def apply_selected_fix(self) -> None:
        finding = self.selected_finding()
        if finding is not None and finding.fixes and self._editable():
            self.fixes.apply_fix(finding)

    def apply_fix_all_of_kind(self) -> None:
        finding = self.selected_finding()
        if finding is not None and self._editable():
            self.fixes.apply_all_of_kind(finding, self.findings.model.all_findings())

    # --- sources ------------------------------------------------------------------------------------
    def refresh_source(self, key: str) -> None:
        """Fetch one reference again (the cached copy stays if the fetch fails), then re-audit."""
        self.show_message(f"Fetching [{key}] again…")
        self.audits.start(refresh=frozenset({key}))

    def open_source(self, key: str) -> None:
        source = self.sources_panel.source(key)
        location = self.document.session.attachments().get(key) or (source.location if source else "") or ""
        url = source_url(location, self.document.path.parent if self.document.path else None)
        if url is None:
            self.show_message(f"Reference [{key}] has nothing to open.")
            return
        QDesktopServices.openUrl(url)

    def attach_source(self, key: str, path: str) -> None:
        """Use a local file as reference [key]'s content (for this document, kept in the store)."""
        try:
            attached = self.document.session.attach(key, path)
        except CiteDeskError as exc:
            self.show_message(f"Not attached: {exc.message}")
            return
        self.show_message(f"Attached {attached.name} as reference [{key}]")
        self.audits.start()

    # --- settings and view --------------------------------------------------------------------------
    def settings_dialog(self) -> None:
        dialog = SettingsDialog(self.settings, self)
        if dialog.exec():
            dialog.save()
            self.apply_settings()

    def apply_settings(self) -> None:
        self.desk.options = options_from_settings(self.settings, self.options)
        self.offline_action.setChecked(self.options.offline)
        apply_theme(str(self.settings.value("theme", "system")))
        self.audits.start()

    def _toggle_offline(self, checked: bool) -> None:
        from dataclasses import replace  # noqa: PLC0415

        self.desk.options = replace(self.options, offline=checked)
        self.settings.setValue("offline", checked)
        self.audits.start()

    def _toggle_line_numbers(self, checked: bool) -> None:
        self.editor.line_numbers.set_shown(checked)
        self.settings.setValue("line_numbers", checked)

    def _focus_filter(self) -> None:
        self.tabs.setCurrentIndex(0)
        self.findings.focus_filter()

    # --- messages -----------------------------------------------------------------------------------
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
