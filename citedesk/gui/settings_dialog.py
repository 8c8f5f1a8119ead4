"""Settings: judge and model, offline mode, fetch permissions, retrieval, the editor's font, theme.

Kept in QSettings; `options_from_settings` turns them into the engine's `AuditOptions`, so the window
and a fresh start read them the same way.
"""

from __future__ import annotations

from dataclasses import replace

from citedesk.desk import AuditOptions, models
from citedesk.gui.qt import (
    QApplication,
    QCheckBox,
    QColor,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPalette,
    QPushButton,
    QSettings,
    QWidget,
    Signal,
)
from citedesk.gui.view_settings import EDITOR_FONT, SOFT_WRAP

THEMES = ("system", "light", "dark")


def options_from_settings(settings: QSettings, base: AuditOptions | None = None) -> AuditOptions:
    base = base or AuditOptions()
    return replace(
        base,
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
        self.settings.setValue("theme", self.theme.currentText())
        self.settings.setValue(EDITOR_FONT, self.font_choice.currentData())
        self.settings.setValue(SOFT_WRAP, self.wrap.isChecked())
        self.settings.sync()

    def _download(self) -> None:
        self.reject()
        self.download_requested.emit()
