"""Screenshots of the real window on a sample (run under Xvfb; the PNGs go in docs/).

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python -m tests.bench.screenshot docs/window.png [docs/hover-card.png]

The document is the evidence sample with one more sentence citing a web page, audited offline, so
the picture shows a misattributed citation (the sentence it is about underlined lightly), a
citation that could not be checked (offline), the evidence pane with its fix buttons and the status
bar. The second picture is the hover card over the misattributed marker.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from citedesk.core.findings import Kind
from citedesk.core.reports.report import Report
from citedesk.desk import AuditOptions
from citedesk.gui.editor.offsets import Utf16Map
from citedesk.gui.main_window import MainWindow

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"
EXTRA_SENTENCE = "Paris doubled the canopy of its school yards between 2018 and 2023 [4]."
EXTRA_REFERENCE = (
    "4. City of Paris (2023). *Oasis schoolyards*. https://www.paris.fr/pages/les-cours-oasis-7389\n"
)


def document(folder: Path) -> Path:
    shutil.copytree(SAMPLES / "sources", folder / "sources")
    text = (SAMPLES / "evidence.md").read_text(encoding="utf-8")
    text = text.replace("\n\n## References", f" {EXTRA_SENTENCE}\n\n## References", 1) + EXTRA_REFERENCE
    target = folder / "evidence.md"
    target.write_text(text, encoding="utf-8")
    return target


def main(out: str, card_out: str | None) -> None:
    app = QApplication(sys.argv)
    folder = Path(tempfile.mkdtemp())
    settings = QSettings(str(folder / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(
        AuditOptions(offline=True, judge="heuristic", store_path=folder / "store.db"), settings
    )
    window.resize(1360, 820)
    window.show()

    def ready(report: Report) -> None:
        window.audits.audit_finished.disconnect(ready)
        finding = next(f for f in report.findings if f.kind is Kind.MISATTRIBUTED and f.fixes)
        window.findings.select(finding)
        cursor = window.editor.textCursor()
        cursor.setPosition(Utf16Map(report.document.text).to_qt(finding.start))
        window.editor.setTextCursor(cursor)
        QTimer.singleShot(400, lambda: shoot(report, finding.start))

    def shoot(report: Report, start: int) -> None:
        window.grab().save(out)
        if card_out:
            window.editor.show_card_at(Utf16Map(report.document.text).to_qt(start) + 1)
            QTimer.singleShot(300, lambda: (window.editor.grab().save(card_out), app.quit()))
        else:
            app.quit()

    window.audits.audit_finished.connect(ready)
    window.load_file(document(folder))
    app.exec()
    window.document.confirm_discard = lambda: True
    window.close()


if __name__ == "__main__":
    main(
        sys.argv[1] if len(sys.argv) > 1 else "docs/window.png",
        sys.argv[2] if len(sys.argv) > 2 else None,
    )
