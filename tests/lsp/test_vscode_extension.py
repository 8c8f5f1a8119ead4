"""The VS Code extension (editors/vscode) offers exactly the server's settings, each typed as the
server takes it, so a setting made in VS Code reaches `citedesk lsp` (`citedesk.lsp.settings`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from citedesk.lsp.settings import NAMES, ClientSettings

EXTENSION = Path(__file__).resolve().parents[2] / "editors" / "vscode"
EXTENSION_ONLY = {"path"}
"""Settings the extension reads itself (how to start the server), never sent to it."""
TYPES = {
    "offline": {"boolean", "null"},
    "judge": {"string"},
    "strong_judge": {"string"},
    "sources": {"string"},
    "allow_folders": {"array", "null"},
}


def _properties() -> dict[str, dict[str, object]]:
    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    properties: dict[str, dict[str, object]] = manifest["contributes"]["configuration"]["properties"]
    return {name.removeprefix("citedesk."): spec for name, spec in properties.items()}


def test_the_extension_offers_every_server_setting_and_no_other() -> None:
    offered = {name for name in _properties() if name not in EXTENSION_ONLY}
    assert all(name in NAMES for name in offered)
    assert {NAMES[name] for name in offered} == set(NAMES.values()) == set(TYPES)


def test_each_setting_is_typed_as_the_server_takes_it_and_its_default_is_not_set() -> None:
    for name, spec in _properties().items():
        if name in EXTENSION_ONLY:
            continue
        kinds = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
        assert set(kinds) == TYPES[NAMES[name]], name
        assert not ClientSettings.parse({"citedesk": {name: spec["default"]}}).given, name


def test_the_extension_sends_the_settings_it_offers() -> None:
    script = (EXTENSION / "extension.js").read_text(encoding="utf-8")
    sent = re.search(r"SERVER_SETTINGS = \[([^\]]*)\]", script)
    assert sent is not None
    assert set(re.findall(r'"(\w+)"', sent.group(1))) == set(_properties()) - EXTENSION_ONLY
    assert 'configurationSection: "citedesk"' in script
