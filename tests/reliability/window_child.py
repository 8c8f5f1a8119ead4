"""A child process for test_window_kill: the real window, with its event loop, auditing a document.

    python -m tests.reliability.window_child DOCUMENT SETTINGS_INI

Prints `audit process PID` once its first audit has finished (the audit process is then running
and warm), and keeps running until it is killed.
"""

from __future__ import annotations

import os
import sys


def main(document: str, settings_ini: str) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from citedesk.core.reports.report import Report
    from citedesk.desk import AuditOptions
    from citedesk.gui.main_window import MainWindow

    app = QApplication([])
    window = MainWindow(
        AuditOptions(offline=True, judge="heuristic", dense=False),
        QSettings(settings_ini, QSettings.Format.IniFormat),
    )
    window.show()

    def finished(_report: Report) -> None:
        print(f"audit process {window.audits.runner.process.pid}", flush=True)

    window.audits.audit_finished.connect(finished)
    window.load_file(document)
    app.exec()


if __name__ == "__main__":
    main(*sys.argv[1:3])
