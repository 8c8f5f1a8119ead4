"""`citedesk` with no command (or `citedesk open FILE`): the window.

The window is shown before anything heavy is imported; torch and the models load in a worker the
first time an audit needs them. After a crash, unsaved text found in the recovery folder is offered
back.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citedesk.gui.window import MainWindow


def run(path: str | None = None) -> int:
    started = time.perf_counter()
    from PySide6.QtWidgets import QApplication  # noqa: PLC0415

    from citedesk.gui.settings_dialog import apply_theme  # noqa: PLC0415
    from citedesk.gui.window import MainWindow, recovery_dir  # noqa: PLC0415

    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("CiteDesk")
    app.setOrganizationName("CiteDesk")
    window = MainWindow()
    apply_theme(str(window.settings.value("theme", "system")))
    window.show()
    if "--startup-time" in sys.argv:
        print(f"window shown in {time.perf_counter() - started:.2f} s", file=sys.stderr)
    if path:
        window.load_file(path)
    else:
        offer_recovery(window, recovery_dir())
    return int(app.exec())


def offer_recovery(window: MainWindow, folder: Path, ask: Callable[[str], bool] | None = None) -> Path | None:
    """Offer the newest recovery copy back; returns the copy opened, if any.

    Whatever the answer, the copy is kept (renamed `*.md.seen`, so it is offered only once): a
    writer who says no by mistake can still find their text in the recovery folder.
    """
    copies = (
        sorted(folder.glob("*.md"), key=lambda p: p.stat().st_mtime, reverse=True) if folder.is_dir() else []
    )
    if not copies:
        return None
    newest = copies[0]
    question = (
        f"CiteDesk found unsaved text from an earlier session ({time.ctime(newest.stat().st_mtime)}). "
        f"Open it? (It stays in {folder} either way.)"
    )
    accepted = (ask or (lambda q: _ask_yes_no(window, q)))(question)
    kept = newest.with_suffix(".md.seen")
    newest.replace(kept)
    if not accepted:
        return None
    text = kept.read_text(encoding="utf-8")
    body = text.split("\n", 1)[1] if text.startswith("<!-- citedesk recovery") else text
    window.editor.setPlainText(body)
    window.editor.document().setModified(True)
    return kept


def _ask_yes_no(window: MainWindow, question: str) -> bool:
    from PySide6.QtWidgets import QMessageBox as box  # noqa: PLC0415, N813

    return box.question(window, "Recover unsaved text?", question) == box.StandardButton.Yes
