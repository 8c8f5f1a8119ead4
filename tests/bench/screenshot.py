"""Screenshot of the real window on a sample (run under Xvfb; the PNG goes in docs/).

xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python -m tests.bench.screenshot docs/window.png
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from citedesk.core.findings import Kind
from citedesk.desk import AuditOptions
from citedesk.gui.main_window import MainWindow

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"


def main(out: str) -> None:
    app = QApplication(sys.argv)
    folder = Path(tempfile.mkdtemp())
    shutil.copytree(SAMPLES / "sources", folder / "sources")
    shutil.copy(SAMPLES / "evidence.md", folder / "evidence.md")
    settings = QSettings(str(folder / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(AuditOptions(offline=True, judge="heuristic"), settings)
    window.resize(1360, 820)
    window.show()

    def ready(_report: object) -> None:
        model = window.findings.model
        finding = next(f for f in model.findings() if f.kind is Kind.MISATTRIBUTED and f.fixes)
        window.findings.select(finding)
        QTimer.singleShot(400, lambda: (window.grab().save(out), app.quit()))

    window.audits.audit_finished.connect(ready)
    window.load_file(folder / "evidence.md")
    app.exec()
    window.document.confirm_discard = lambda: True
    window.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/window.png")
