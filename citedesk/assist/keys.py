"""Where the Anthropic key lives: the environment or the OS keyring, never a settings file or a log."""

from __future__ import annotations

import os

from citedesk.errors import KeyMissing

SERVICE = "citedesk"
ACCOUNT = "anthropic"
HOW_TO_SET = (
    "set ANTHROPIC_API_KEY in the environment, or store it in your system keyring with "
    "`citedesk assist set-key` (it reads the key from standard input)"
)


def api_key() -> str | None:
    """The key from ANTHROPIC_API_KEY, else the OS keyring; None when neither has one."""
    key = os.environ.get("ANTHROPIC_API_KEY", "").strip()
    if key:
        return key
    try:
        import keyring  # noqa: PLC0415
        from keyring.errors import KeyringError  # noqa: PLC0415

        stored = keyring.get_password(SERVICE, ACCOUNT)
    except (ImportError, RuntimeError, KeyringError):  # no backend on this machine
        return None
    return stored.strip() if stored else None


def require_key() -> str:
    key = api_key()
    if not key:
        raise KeyMissing(f"Claude assistance needs an Anthropic API key: {HOW_TO_SET}")
    return key


def store_key(key: str) -> None:
    import keyring  # noqa: PLC0415

    keyring.set_password(SERVICE, ACCOUNT, key.strip())


def redact(text: str, key: str | None) -> str:
    """Never let the key reach a message or a log."""
    return text.replace(key, "sk-…redacted") if key else text
