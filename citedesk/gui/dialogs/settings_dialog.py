"""Settings: judge and model (or a local LLM server), the cascade's strong judge and its budget, offline mode, fetch permissions, the folders a document may name files
in, Zotero's data folder, retrieval, the editor's font, theme.

The audit settings come in layers (`citedesk.config`): defaults < the user's `config.toml` < the
open document's `citedesk.toml` < the writer's choices made here, which play the part of the
command line. Only a choice the writer actually made in the window (a key present in QSettings)
is laid on top: an absent key leaves the files' value in force, so a project that sets its judge
keeps it until the writer picks another one here. The view (theme, font, wrap) stays in QSettings
alone. `window_configuration` and `options_from_settings` are the one way the window and a fresh
start read them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from citedesk import config
from citedesk.config import COMMAND_LINE, DEFAULT, Configuration, Settings
from citedesk.core.judge_settings import SERVER_REMOTE, SERVER_SETTINGS, JudgeSetting, declared_settings
from citedesk.core.judge_settings import SERVER_URL as URL_KEY
from citedesk.desk import AuditOptions, models
from citedesk.errors import CiteDeskError
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
    QLineEdit,
    QListWidget,
    QPalette,
    QPushButton,
    QSettings,
    QSpinBox,
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


ZOTERO_DIR = "zotero_dir"
"""Zotero's data folder (as `--zotero-dir`); absent or empty: the usual folder, ~/Zotero."""

WINDOW_KEYS = (
    "judge",
    "strong_judge",
    "strong_budget",
    "offline",
    "dense",
    "allow_private_network",
    "zotero",
)
"""CiteDesk's own audit settings the window offers (with ALLOWED_FOLDERS and ZOTERO_DIR, laid on
apart); each judge's own settings too (`window_keys`)."""


def window_keys() -> tuple[str, ...]:
    """Every audit setting the window offers: CiteDesk's own, then each judge's own setting
    (`JudgeSpec.settings`: the server's address in its box, any other as a row of its own)."""
    return (*WINDOW_KEYS, *(s.key for s in declared_settings()))


def _judge_setting(name: str) -> JudgeSetting | None:
    return next((s for s in declared_settings() if s.key == name), None)


PER_DOCUMENT = frozenset({"assist"})
"""Settings the window asks for per document instead: sending text to Claude is the consent's
(`AssistConsent`), never a settings file's."""


def audit_fields() -> dict[str, tuple[str, ...]]:
    """The AuditOptions fields each setting gives, as the configuration's keys declare them
    (`config.KEYS`, read by `Configuration.audit_options`; a judge's own settings give
    `judge_settings`); the command's own (`fail_on`, `fix_kinds`, `format`) give none."""
    return {name: gives for name, gives in config.option_fields().items() if name not in PER_DOCUMENT}


FILES_ONLY = frozenset(
    {
        "timeout",
        "sources",
        "bibliography",
        "allow_local_paths",
        "store",
        "assist_model",
        "contact_email",
        "recheck_days",
    }
)
"""Audit settings the dialog does not offer: set in a settings file (or per document: a
bibliography, a sources folder are attached to the document), they still reach the window's
audits (`audit_options`)."""


def window_choices(settings: QSettings) -> dict[str, Any]:
    """The audit settings the writer chose in the window, typed as `config.load` wants them; a
    key never set is left out, so the files' value stays in force."""
    choices: dict[str, Any] = {}
    for name in window_keys():
        if not settings.contains(name):
            continue
        own = _judge_setting(name)
        if name == "judge" or (own is not None and not isinstance(own.default, bool)):
            text = settings.value(name)
            if text:
                choices[name] = str(text)
        elif name == "strong_judge":  # empty is a choice too: no cascade, whatever a file says
            choices[name] = str(settings.value(name) or "")
        elif name == "strong_budget":
            seconds = settings.value(name, 0.0, type=float)
            if isinstance(seconds, float) and 0 < seconds <= MAX_BUDGET:
                choices[name] = seconds
        else:
            choices[name] = bool(settings.value(name, False, type=bool))
    return choices


@dataclass(frozen=True)
class WindowConfiguration:
    """The settings in force for one document in the window, and why the files could not all be
    used (`problem`: a file that is not valid TOML, an unknown key…; the window still opens)."""

    configuration: Configuration
    problem: str | None = None

    @property
    def notices(self) -> tuple[str, ...]:
        """What the writer is told once per document: keys a project file was refused, a file
        that could not be read."""
        return (*self.configuration.notices, *((self.problem,) if self.problem else ()))


def window_configuration(settings: QSettings, document: Path | None = None) -> WindowConfiguration:
    """The layers for `document` (None: the user's file only) with the window's choices on top.
    A settings file that cannot be used is set aside (the project's first, then the user's), so
    a broken file never keeps the window from auditing; the writer is told why."""
    choices = window_choices(settings)
    problem: str | None = None
    loaded: Configuration | None = None
    for where in (document, None) if document is not None else (None,):
        try:
            loaded = config.load(where, choices)
            break
        except CiteDeskError as exc:
            problem = problem or f"Settings file not used: {exc.message}"
    if loaded is None:
        loaded = Configuration(
            config.settings_of(choices),
            dict.fromkeys(choices, COMMAND_LINE),
            (),
            config.user_file(),
            None,
        )
    if settings.contains(ALLOWED_FOLDERS):
        # Laid on here rather than given to `config.load`: a folder the writer allowed and later
        # removed from disk is kept in the list (as before), not an error that stops the window.
        loaded = replace(
            loaded,
            settings=replace(
                loaded.settings, allow_folders=tuple(Path(p) for p in allowed_folders(settings))
            ),
            origins={**loaded.origins, "allow_folders": COMMAND_LINE},
        )
    zotero = str(settings.value(ZOTERO_DIR, "") or "")
    if zotero and Path(zotero).is_dir():
        loaded = replace(
            loaded,
            settings=replace(loaded.settings, zotero_dir=Path(zotero)),
            origins={**loaded.origins, "zotero_dir": COMMAND_LINE},
        )
    elif zotero:  # moved or on a disk not mounted: the usual folder, and the writer is told why
        problem = problem or f"Zotero data folder {zotero} not found: Settings ▸ Zotero data folder"
    return WindowConfiguration(loaded, problem)


def audit_options(configuration: Configuration, base: AuditOptions | None = None) -> AuditOptions:
    """`base` (the window's own options: service addresses, what a caller gave) with every setting
    that a file or the window set laid on top; a setting left at its default keeps `base`'s value."""
    base = base or AuditOptions()
    configured = configuration.audit_options()
    sets = audit_fields()
    fields = [
        field
        for name, origin in configuration.origins.items()
        if origin != DEFAULT
        for field in sets.get(name, ())
    ]
    return replace(base, **{field: getattr(configured, field) for field in fields})


def options_from_settings(
    settings: QSettings, base: AuditOptions | None = None, document: Path | None = None
) -> AuditOptions:
    """The options for an audit of `document` in the window (see `window_configuration`)."""
    return audit_options(window_configuration(settings, document).configuration, base)


def origin_note(configuration: Configuration, name: str) -> str:
    """Where a setting's value comes from, when that is a settings file ("from ~/proj/citedesk.toml");
    empty for a default or the window's own choice."""
    path = configuration.origin(name).path
    if path is None:
        return ""
    home = Path.home()
    shown = f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)
    return f"from {shown}"


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


SERVER = "server:"
"""The chooser's entry for a local LLM server; the setting it makes is `server:MODEL`."""
SERVER_URL = "http://127.0.0.1:11434/v1"
"""Ollama's address, what an empty `judge_url` (`--judge-url`) means."""
SERVER_MODEL = "bespoke-minicheck"
SERVER_JUDGE_HELP = (
    "CiteDesk can ask a language model served on this machine whether each source supports the "
    "sentence that cites it. Bespoke-MiniCheck-7B, trained for exactly this, is the strongest judge "
    "CiteDesk offers (77.4 balanced accuracy on LLM-AggreFact, as published), and the slowest.\n\n"
    "1. Install Ollama (ollama.com) and run:  ollama pull bespoke-minicheck\n"
    "2. Settings ▸ Judge ▸ Local LLM server; model: bespoke-minicheck; URL: http://127.0.0.1:11434/v1 "
    "(llama.cpp's server, LM Studio and vLLM work too: give their address and model name).\n\n"
    "The document's sentences and its sources' text go to that server. A server on another machine "
    'needs the explicit "remote" choice, and every report then says that text left this machine. '
    'While the server is down, citations are "not checked (judge server unreachable)", never flagged.'
)
"""Help ▸ Check with a local LLM server: how to set one up (read by `gui.menus`)."""

MAX_BUDGET = 3600
"""The most seconds the strong judge's budget may be (the `strong_budget` key's own limit)."""
STRONG_JUDGE_HELP = (
    "A cascade: the judge above reads every citation as you write; the strong judge re-reads the "
    "fast judge's findings and the fixes they drive, and claims it is unsure about, in the "
    "background; the list updates in place. What it does not reach within the budget keeps the "
    "fast judge's reading, and each finding says which judge decided it. Choose a model here "
    "(FactCG, MiniCheck, or a local LLM server) and a fast judge above."
)
"""What the strong judge does, in one paragraph under its choice."""


class SettingsDialog(QDialog):
    download_requested = Signal()
    """ "Download a judge model…": the window offers the recommended models."""

    def __init__(
        self, settings: QSettings, parent: QWidget | None = None, configuration: Configuration | None = None
    ) -> None:
        """`configuration`: the settings in force for the open document (the user's file alone
        when not given); what the dialog shows, and what a choice left alone stays."""
        super().__init__(parent)
        self.setWindowTitle("CiteDesk settings")
        self.settings = settings
        self.configuration = configuration or window_configuration(settings).configuration
        options = self.configuration.settings
        self.judge = QComboBox()
        for spec, label in models.judge_choices():
            self.judge.addItem(label, spec)
        index = self.judge.findData(options.judge)
        if index < 0 and not options.judge.startswith(
            SERVER
        ):  # a model that is no longer installed: keep it visible rather than lose it
            self.judge.addItem(f"{options.judge} (not installed)", options.judge)
            index = self.judge.count() - 1
        self.judge.setCurrentIndex(index)
        self._server_fields(options)
        self.offline = QCheckBox("Fetch nothing: use local files and the cache only")
        self.offline.setChecked(options.offline)
        self.private = QCheckBox("Allow links to loopback and private-network addresses")
        self.private.setChecked(options.allow_private_network)
        self.dense = QCheckBox("Use the embedding model for retrieval (all-MiniLM-L6-v2, when installed)")
        self.dense.setChecked(options.dense)
        self.folders = QListWidget()
        self.folders.addItems([str(p) for p in options.allow_folders])
        self.folders.setToolTip(
            "A document may name files (sources, its bibliography, that bibliography's attachments) "
            "in its own folder and in these; anything else is not read."
        )
        self.folders.setMaximumHeight(90)
        self.zotero = QCheckBox("Look for cited works' attachments in Zotero (read-only)")
        self.zotero.setChecked(options.zotero)
        self.zotero_dir = QLineEdit(str(options.zotero_dir or ""))
        self.zotero_dir.setPlaceholderText("~/Zotero (the usual folder, when it holds a library)")
        self.zotero_dir.setToolTip(
            "The folder that holds zotero.sqlite and storage/ (Zotero ▸ Settings ▸ Advanced ▸ Files "
            "and Folders ▸ Data Directory Location). CiteDesk only reads it."
        )
        choose_zotero = QPushButton("Choose…")
        choose_zotero.setAutoDefault(False)
        choose_zotero.clicked.connect(self._choose_zotero)
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
        self.origins: dict[str, QLabel] = {}
        """Beside each audit setting a settings file gave: which file (empty when none did)."""
        form.addRow("Judge", self._noted("judge", self.judge))
        form.addRow("", self.server_box)
        self._judge_rows(form)
        self.download_button = QPushButton("Download a judge model…")
        self.download_button.setAutoDefault(False)
        self.download_button.clicked.connect(self._download)
        form.addRow("", self.download_button)
        form.addRow("", QLabel("Or install one with `citedesk models import FOLDER`."))
        self._strong_fields(options)
        form.addRow("Strong judge (cascade)", self._noted("strong_judge", self.strong_judge))
        form.addRow("Strong judge budget", self._noted("strong_budget", self.strong_budget))
        form.addRow("", self.strong_help)
        form.addRow("Offline", self._noted("offline", self.offline))
        form.addRow("Network", self._noted("allow_private_network", self.private))
        form.addRow("Folders CiteDesk may read", self._noted("allow_folders", self.folders))
        form.addRow("", folder_buttons)
        form.addRow("Zotero", self._noted("zotero", self.zotero))
        zotero_row = QHBoxLayout()
        zotero_row.addWidget(self._noted("zotero_dir", self.zotero_dir), 1)
        zotero_row.addWidget(choose_zotero)
        form.addRow("Zotero data folder", zotero_row)
        form.addRow("Retrieval", self._noted("dense", self.dense))
        self.initial = self._audit_choices()
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
        form.addRow("", self.problem)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _server_fields(self, options: Settings) -> None:
        """The chooser's "Local LLM server" entry and its fields (shown when it is chosen): the
        server's address, the model it runs, and the explicit choice a server elsewhere needs."""
        self.judge.addItem("Local LLM server (Ollama, llama.cpp, LM Studio, vLLM)", SERVER)
        self.server_model = QLineEdit(SERVER_MODEL)
        self.server_url = QLineEdit(options.value(URL_KEY) or SERVER_URL)
        self.server_url.setToolTip("The server's OpenAI-compatible address (…/v1); Ollama's by default.")
        self.server_remote = QCheckBox("Allow a server on another machine")
        self.server_remote.setChecked(options.value(SERVER_REMOTE))
        self.server_warning = QLabel(
            "This server is not on this machine: the document's sentences and its sources' text "
            "will be sent to it."
        )
        self.server_warning.setWordWrap(True)
        self.server_warning.setStyleSheet("color: #b35900;")
        self.problem = QLabel("")
        self.problem.setStyleSheet("color: #c0392b;")
        self.problem.setWordWrap(True)
        self.server_box = QWidget()
        fields = QFormLayout(self.server_box)
        fields.setContentsMargins(0, 0, 0, 0)
        fields.addRow("Model", self.server_model)
        fields.addRow("Server URL", self.server_url)
        fields.addRow("", self.server_remote)
        fields.addRow("", self.server_warning)
        fields.addRow("", QLabel("Help ▸ Check with a local LLM server says how to set one up."))
        if options.judge.startswith(SERVER):
            self.server_model.setText(options.judge.removeprefix(SERVER))
            self.judge.setCurrentIndex(self.judge.findData(SERVER))
        self.judge.currentIndexChanged.connect(self._show_server_fields)
        self.server_url.textChanged.connect(self._show_server_fields)
        self._show_server_fields()

    def _judge_rows(self, form: QFormLayout) -> None:
        """A row for each judge's own setting (`JudgeSpec.settings`) but the server's (in its box):
        a check box for a boolean, a line for text, each with its help as the tooltip."""
        self.judge_rows: dict[str, QCheckBox | QLineEdit] = {}
        for setting in declared_settings():
            if setting in SERVER_SETTINGS:
                continue
            value = self.configuration.settings.value(setting.key)
            row: QCheckBox | QLineEdit
            if isinstance(setting.default, bool):
                row = QCheckBox(setting.help)
                row.setChecked(bool(value))
            else:
                row = QLineEdit(str(value or ""))
                row.setToolTip(setting.help)
            self.judge_rows[setting.key] = row
            form.addRow(setting.label, self._noted(setting.key, row))

    def _strong_fields(self, options: Settings) -> None:
        """The cascade's strong judge and its budget. Offered: none, each installed model (a
        chooser entry that names one, `nli:NAME`, `seq2seq:NAME`), and `server:MODEL` where a
        server's address is set or the judge is a server: the judges that read on this machine.
        `auto` and the word-level judge are left out: neither reads better than the fast judge."""
        self.strong_judge = QComboBox()
        self.strong_judge.addItem("None (no cascade)", "")
        for setting, label in models.judge_choices():
            if ":" in setting:
                self.strong_judge.addItem(label, setting)
        if options.value(URL_KEY) or options.judge.startswith(SERVER):
            model = options.judge.removeprefix(SERVER) if options.judge.startswith(SERVER) else SERVER_MODEL
            self.strong_judge.addItem(f"Local LLM server: {model}", f"{SERVER}{model}")
        index = self.strong_judge.findData(options.strong_judge)
        if index < 0:  # a model removed since, or a server no longer set: shown, not lost
            self.strong_judge.addItem(f"{options.strong_judge} (not available here)", options.strong_judge)
            index = self.strong_judge.count() - 1
        self.strong_judge.setCurrentIndex(index)
        self.strong_budget = QSpinBox()
        self.strong_budget.setRange(1, MAX_BUDGET)
        self.strong_budget.setSuffix(" s")
        self.strong_budget.setValue(max(1, min(MAX_BUDGET, round(options.strong_budget))))
        self.strong_budget.setToolTip("Seconds the strong judge may spend re-reading in one audit.")
        self.strong_help = QLabel(STRONG_JUDGE_HELP)
        self.strong_help.setWordWrap(True)
        self.strong_help.setStyleSheet("color: gray;")

    def _show_server_fields(self) -> None:
        chosen = self.judge.currentData() == SERVER
        self.server_box.setVisible(chosen)
        self.server_warning.setVisible(chosen and not config.loopback_url(self.server_url.text().strip()))

    def judge_setting(self) -> str:
        """The `judge` setting chosen: a listed judge's, or `server:MODEL`."""
        chosen = str(self.judge.currentData())
        return f"{SERVER}{self.server_model.text().strip()}" if chosen == SERVER else chosen

    def server_problem(self) -> str | None:
        """Why the server chosen cannot be kept (None: it can, or no server is chosen). A server
        elsewhere is refused until the writer ticks "another machine", as `--judge-remote`."""
        if self.judge.currentData() != SERVER:
            return None
        url = self.server_url.text().strip()
        if not self.server_model.text().strip():
            return f"Name the model the server runs (for Ollama's Bespoke-MiniCheck: {SERVER_MODEL})."
        if not url.startswith(("http://", "https://")) or not url.partition("://")[2].strip("/"):
            return f"The server's URL is http(s)://HOST:PORT/v1 (Ollama's: {SERVER_URL})."
        if not config.loopback_url(url) and not self.server_remote.isChecked():
            return "That server is on another machine: tick “Allow a server on another machine” to send text there."
        return None

    def accept(self) -> None:
        """Closes only with a server choice that can be kept; otherwise says what is missing."""
        problem = self.server_problem()
        self.problem.setText(problem or "")
        if problem is None:
            super().accept()

    def _noted(self, name: str, widget: QWidget) -> QWidget:
        """The widget with a small grey note beside it saying which settings file gave its value."""
        note = QLabel(origin_note(self.configuration, name))
        note.setStyleSheet("color: gray; font-size: small;")
        self.origins[name] = note
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(widget, 1)
        row.addWidget(note)
        return box

    def _audit_choices(self) -> dict[str, object]:
        return {
            "judge": self.judge_setting(),
            URL_KEY: "" if self.server_url.text().strip() == SERVER_URL else self.server_url.text().strip(),
            SERVER_REMOTE: self.server_remote.isChecked(),
            **{
                key: row.isChecked() if isinstance(row, QCheckBox) else row.text().strip()
                for key, row in self.judge_rows.items()
            },
            "strong_judge": str(self.strong_judge.currentData()),
            "strong_budget": float(self.strong_budget.value()),
            "offline": self.offline.isChecked(),
            "allow_private_network": self.private.isChecked(),
            "dense": self.dense.isChecked(),
            ALLOWED_FOLDERS: [self.folders.item(i).text() for i in range(self.folders.count())],
            "zotero": self.zotero.isChecked(),
            ZOTERO_DIR: self.zotero_dir.text().strip(),
        }

    def save(self) -> None:
        """Keep what the writer changed here. An audit setting left as it was is not written: it
        would become the window's choice and hide a later change to a settings file."""
        for key, value in self._audit_choices().items():
            if value != self.initial[key]:
                self.settings.setValue(key, value)
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

    def _choose_zotero(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Zotero's data folder (it holds zotero.sqlite)")
        if folder:
            self.zotero_dir.setText(folder)

    def remove_selected_folders(self) -> None:
        for item in self.folders.selectedItems():
            self.folders.takeItem(self.folders.row(item))

    def _download(self) -> None:
        self.reject()
        self.download_requested.emit()
