"""Settings: judge and model, offline mode, fetch permissions, the folders a document may name files
in, retrieval, the editor's font, theme.

Kept in QSettings; `options_from_settings` turns them into the engine's `AuditOptions`, so the window
and a fresh start read them the same way.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from citedesk.desk import AuditOptions, models
from citedesk.gui.qt import (
    QApplication,
    QCheckBox,
    QColor,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPalette,
    QPushButton,
    QSettings,
    QWidget,
    Signal,
)
from citedesk.gui.view_settings import EDITOR_FONT, SOFT_WRAP

THEMES = ("system", "light", "dark")
ALLOWED_FOLDERS = "allowed_folders"
"""Folders whose files a document may name (as `--allow-folder`): the writer's choice, kept here."""


def allowed_folders(settings: QSettings) -> list[str]:
    stored = settings.value(ALLOWED_FOLDERS, []) or []
    return [str(p) for p in (stored if isinstance(stored, list) else [stored]) if str(p)]


def options_from_settings(settings: QSettings, base: AuditOptions | None = None) -> AuditOptions:
    base = base or AuditOptions()
    folders = tuple(Path(p) for p in allowed_folders(settings))
    return replace(
        base,
        local_roots=folders,
        offline=bool(settings.value("offline", base.offline, type=bool)),
        judge=str(settings.value("judge", base.judge)),
        allow_private_network=bool(
            settings.value("allow_private_network", base.allow_private_network, type=bool)
        ),
        dense=bool(settings.value("dense", base.dense, type=bool)),
    )


def apply_theme(theme: str, app: QApplication | None = None) -> None:
    instance = app or QApplication.instance()
    if not isinstance(instance, QApplication):
        return
    app = instance
    if theme == "dark":
        app.setStyle("Fusion")
        palette = QPalette()
        colours = {
            QPalette.ColorRole.Window: "#2b2b2b",
            QPalette.ColorRole.WindowText: "#e6e6e6",
            QPalette.ColorRole.Base: "#1e1e1e",
            QPalette.ColorRole.AlternateBase: "#262626",
            QPalette.ColorRole.Text: "#e6e6e6",
            QPalette.ColorRole.Button: "#333333",
            QPalette.ColorRole.ButtonText: "#e6e6e6",
            QPalette.ColorRole.Highlight: "#3d6fb4",
            QPalette.ColorRole.HighlightedText: "#ffffff",
            QPalette.ColorRole.ToolTipBase: "#333333",
            QPalette.ColorRole.ToolTipText: "#e6e6e6",
            QPalette.ColorRole.Link: "#8ab4f8",
            QPalette.ColorRole.PlaceholderText: "#9a9a9a",  # hints and line numbers stay legible
            QPalette.ColorRole.Mid: "#5a5a5a",
        }
        for role, colour in colours.items():
            palette.setColor(role, QColor(colour))
        app.setPalette(palette)
    elif theme == "light":
        app.setStyle("Fusion")
        app.setPalette(app.style().standardPalette())
    else:
        app.setPalette(QPalette())


class SettingsDialog(QDialog):
    download_requested = Signal()
    """ "Download a judge model…": the window offers the recommended models."""

    def __init__(self, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("CiteDesk settings")
        self.settings = settings
        options = options_from_settings(settings)
        self.judge = QComboBox()
        for spec, label in models.judge_choices():
            self.judge.addItem(label, spec)
        index = self.judge.findData(options.judge)
        if index < 0:  # a model that is no longer installed: keep it visible rather than lose it
            self.judge.addItem(f"{options.judge} (not installed)", options.judge)
            index = self.judge.count() - 1
        self.judge.setCurrentIndex(index)
        self.offline = QCheckBox("Fetch nothing: use local files and the cache only")
        self.offline.setChecked(options.offline)
        self.private = QCheckBox("Allow links to loopback and private-network addresses")
        self.private.setChecked(options.allow_private_network)
        self.dense = QCheckBox("Use the embedding model for retrieval (all-MiniLM-L6-v2, when installed)")
        self.dense.setChecked(options.dense)
        self.folders = QListWidget()
        self.folders.addItems(allowed_folders(settings))
        self.folders.setToolTip(
            "A document may name files (sources, its bibliography, that bibliography's attachments) "
            "in its own folder and in these; anything else is not read."
        )
        self.folders.setMaximumHeight(90)
        add_folder = QPushButton("Add…")
        add_folder.setAutoDefault(False)
        add_folder.clicked.connect(self._add_folder)
        remove_folder = QPushButton("Remove")
        remove_folder.setAutoDefault(False)
        remove_folder.clicked.connect(self.remove_selected_folders)
        folder_buttons = QHBoxLayout()
        folder_buttons.addWidget(add_folder)
        folder_buttons.addWidget(remove_folder)
        folder_buttons.addStretch(1)
        self.theme = QComboBox()
        self.theme.addItems(list(THEMES))
        self.theme.setCurrentText(str(settings.value("theme", "system")))
        form = QFormLayout(self)
        form.addRow("Judge", self.judge)
        self.download_button = QPushButton("Download a judge model…")
        self.download_button.setAutoDefault(False)
        self.download_button.clicked.connect(self._download)
        form.addRow("", self.download_button)
        form.addRow("", QLabel("Or install one with `citedesk models import FOLDER`."))
        form.addRow("Offline", self.offline)
        form.addRow("Network", self.private)
        form.addRow("Folders CiteDesk may read", self.folders)
        form.addRow("", folder_buttons)
        form.addRow("Retrieval", self.dense)
        self.font_choice = QComboBox()
        self.font_choice.addItem("Proportional (reads like prose)", "proportional")
        self.font_choice.addItem("Monospaced", "monospace")
        self.font_choice.setCurrentIndex(
            max(0, self.font_choice.findData(settings.value(EDITOR_FONT, "proportional")))
        )
        self.wrap = QCheckBox("Wrap long lines at the window's edge")
        self.wrap.setChecked(bool(settings.value(SOFT_WRAP, True, type=bool)))
        form.addRow("Editor font", self.font_choice)
        form.addRow("Soft wrap", self.wrap)
        form.addRow("Theme", self.theme)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def save(self) -> None:
        self.settings.setValue("judge", self.judge.currentData())
        self.settings.setValue("offline", self.offline.isChecked())
        self.settings.setValue("allow_private_network", self.private.isChecked())
        self.settings.setValue("dense", self.dense.isChecked())
        self.settings.setValue(
            ALLOWED_FOLDERS, [self.folders.item(i).text() for i in range(self.folders.count())]
        )
        self.settings.setValue("theme", self.theme.currentText())
        self.settings.setValue(EDITOR_FONT, self.font_choice.currentData())
        self.settings.setValue(SOFT_WRAP, self.wrap.isChecked())
        self.settings.sync()

    def add_folder(self, folder: str) -> None:
        """Allow a folder (kept when the dialog is accepted); each once."""
        shown = [self.folders.item(i).text() for i in range(self.folders.count())]
        if folder and folder not in shown:
            self.folders.addItem(folder)

    def _add_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "A folder whose files documents may name")
        self.add_folder(folder)

    def remove_selected_folders(self) -> None:
        for item in self.folders.selectedItems():
            self.folders.takeItem(self.folders.row(item))

    def _download(self) -> None:
        self.reject()
        self.download_requested.emit()
