"""Every setting reaches what it is for, from one declaration (`config.KEYS`: the `AuditOptions`
fields it gives): the command line's options, the window's options, and the settings dialog,
which offers it, leaves it to the settings files, asks for it per document, or (a report's
format, what fails a run) has nothing to do with it."""

from __future__ import annotations

import typing
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings

from citedesk import config
from citedesk.config import COMMAND_LINE, Configuration, Settings
from citedesk.core.judge_settings import declared_settings
from citedesk.gui.dialogs import settings_dialog
from citedesk.gui.dialogs.settings_dialog import (
    ALLOWED_FOLDERS,
    FILES_ONLY,
    PER_DOCUMENT,
    ZOTERO_DIR,
    options_from_settings,
    window_keys,
)

SAMPLE_VALUES: dict[str, Any] = {  # what the window's own keys are set to (valid, not the defaults)
    "judge": "heuristic",
    "judge_url": "http://127.0.0.1:9/v1",
    "judge_remote": True,
    "strong_judge": "heuristic",
    "strong_budget": 12.0,
    "offline": True,
    "dense": False,
    "allow_private_network": True,
    "zotero": False,
}


def _other_than_default(name: str, default: object, hint: object) -> Any:
    """A value of the setting's type that is not its default."""
    if isinstance(default, bool):
        return not default
    if isinstance(default, float):
        return default + 7
    if isinstance(default, tuple):
        return (Path(f"/elsewhere/{name}"),)
    if default is None and "Path" in str(hint):
        return Path(f"/elsewhere/{name}")
    if default is None and "float" in str(hint):
        return 7.0
    return f"{name}-chosen"


def test_each_setting_is_offered_by_the_dialog_or_said_why_not() -> None:
    laid_apart = {"allow_folders", "zotero_dir"}  # ALLOWED_FOLDERS, ZOTERO_DIR
    commands_own = {name for name in config.KEYS if name not in config.option_fields()}
    groups = [set(window_keys()), laid_apart, set(FILES_ONLY), set(PER_DOCUMENT), commands_own]
    assert sum(len(g) for g in groups) == len(config.KEYS), "a setting in two groups"
    assert set().union(*groups) == set(config.KEYS), "a setting the dialog neither offers nor says why not"
    assert commands_own == {"fail_on", "fix_kinds", "format"}


def test_every_setting_that_reaches_an_audit_reaches_its_options() -> None:
    hints = typing.get_type_hints(Settings)
    chosen = Settings(
        **{
            f.name: _other_than_default(f.name, f.default, hints[f.name])
            for f in fields(Settings)
            if f.name != "judges"
        },
        judges={s.key: _other_than_default(s.key, s.default, type(s.default)) for s in declared_settings()},
    )
    origins = dict.fromkeys(config.KEYS, COMMAND_LINE)
    configured = Configuration(chosen, origins, (), Path("user.toml"), None)
    options = configured.audit_options()
    for name, gives in config.option_fields().items():
        value = chosen.value(name)
        for field in gives:
            expected = config.OPTION_VALUES.get(field, lambda v: v)(value)
            got = getattr(options, field)
            assert (got[name] if field == config.JUDGE_SETTINGS else got) == expected, (name, field)
    # the window's options take the same fields from the same declaration
    window = settings_dialog.audit_options(configured)
    for name, gives in settings_dialog.audit_fields().items():
        assert all(getattr(window, f) == getattr(options, f) for f in gives), name
    assert window.assist == "none"  # per document: the consent's, not a file's
    assert replace(window, assist=options.assist) == options


def test_every_choice_in_the_dialog_reaches_the_windows_audits(tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    assert set(SAMPLE_VALUES) == set(window_keys())
    for name, value in SAMPLE_VALUES.items():
        settings.setValue(name, value)
    settings.setValue(ALLOWED_FOLDERS, [str(tmp_path)])
    settings.setValue(ZOTERO_DIR, str(tmp_path))
    settings.sync()
    options = options_from_settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    for name, value in SAMPLE_VALUES.items():
        for field in config.KEYS[name].gives:
            got = getattr(options, field)
            assert (got[name] if field == config.JUDGE_SETTINGS else got) == value, (name, field)
    assert options.local_roots == (tmp_path,)
    assert options.zotero_dir == tmp_path
