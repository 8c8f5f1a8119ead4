"""What the command prints to a terminal, made safe."""

from __future__ import annotations

import re

_CONTROL = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)


# --- output ------------------------------------------------------------------------------------------
def printable(text: str, *, keep_colour: bool = False) -> str:
    """Text for a terminal: control characters and escape sequences from documents, sources or
    error messages are shown as `�`, so nothing CiteDesk prints can move the cursor, retitle the
    terminal or hide text. With `keep_colour`, CiteDesk's own colour codes (SGR) stay."""

    def replace_control(match: re.Match[str]) -> str:
        found = match.group(0)
        if found in ("\n", "\t") or (keep_colour and re.fullmatch(r"\x1b\[[0-9;]*m", found)):
            return found
        return "\ufffd"

    return _CONTROL.sub(replace_control, text)
