"""`citedesk` with no command (or `citedesk open FILE`): the window.

The window is shown before anything heavy is imported; torch and the models load in the audit
process the first time an audit needs them. At a bare start, unsaved text found in the recovery
folder is offered back — for the file it belongs to, when it had one. Once the window shows, with
no NLI model installed and the model hub answering (checked in a worker thread), a recommended
model is offered for download, once.
"""

from __future__ import annotations

import sys


def run(path: str | None = None) -> int:
    from citedesk.gui.main_window import MainWindow  # noqa: PLC0415
    from citedesk.gui.qt import QApplication  # noqa: PLC0415
    from citedesk.gui.settings_dialog import apply_theme  # noqa: PLC0415

    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("CiteDesk")
    app.setOrganizationName("CiteDesk")
    window = MainWindow()
    apply_theme(str(window.settings.value("theme", "system")))
    window.show()
    if path:
        window.load_file(path)
    else:
        window.document.offer_recovery_at_start()
    window.downloads.check_first_use(window.options.offline)
    return int(app.exec())
