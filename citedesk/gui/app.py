"""`citedesk` with no command (or `citedesk open FILE`): the window.

The window is shown before anything heavy is imported; torch and the models load in the audit
process the first time an audit needs them; the store (whose import costs half a second) is
imported on a thread while the window shows, and the first document opens when it is ready. At a
bare start, unsaved text found in the recovery
folder is offered back — for the file it belongs to, when it had one. Once the window shows, with
no NLI model installed and the model hub answering (checked in a worker thread), a recommended
model is offered for download, once.

The window's modules are imported at the top, not inside `run`: this module is itself imported
only when the window is about to open (`citedesk.main.open_window` imports it lazily, so the CLI
never pays for Qt), and everything it imports is needed before the window can show.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from functools import partial

from citedesk.desk.desk import warm_up
from citedesk.gui.dialogs.settings_dialog import apply_theme
from citedesk.gui.main_window import MainWindow
from citedesk.gui.qt import QApplication, QObject, QTimer

SAY_SHOWN = "CITEDESK_SAY_SHOWN"
"""Set: a line on stderr once the first window has been shown and the event loop runs."""


def run(*paths: str) -> int:
    """The window on each of `paths` (`citedesk a.md b.md`: one window each), or one empty window."""
    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("CiteDesk")
    app.setOrganizationName("CiteDesk")
    windows = []  # held until the loop ends: a window no one refers to would be collected
    for path in paths or [None]:
        window = MainWindow()
        apply_theme(str(window.settings.value("theme", "system")))
        window.show()
        when_ready(partial(_first_document, window, path), window)
        windows.append(window)
    if os.environ.get(SAY_SHOWN):  # tests/bench/bundle.py times the packaged window by this line
        QTimer.singleShot(0, lambda: print("citedesk: window shown", file=sys.stderr, flush=True))
    return int(app.exec())


def _first_document(window: MainWindow, path: str | None) -> None:
    if path:
        window.load_file(path)
    else:
        window.document.offer_recovery_at_start()
    window.downloads.check_first_use(window.options.offline)


def when_ready(then: Callable[[], object], parent: QObject) -> threading.Thread:
    """Import the store on a thread (`desk.warm_up`), then call `then` on the GUI thread: the window
    stays responsive while the first document's job pays for the import."""
    warm = threading.Thread(target=warm_up, name="citedesk-warm-up", daemon=True)
    warm.start()
    poll = QTimer(parent)
    poll.setInterval(20)

    def check() -> None:
        if not warm.is_alive():
            poll.stop()
            poll.deleteLater()
            then()

    poll.timeout.connect(check)
    poll.start()
    return warm
