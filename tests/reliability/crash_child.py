"""A child process for test_crash_safety: the real window saving (or autosaving) until it is killed.

    python -m tests.reliability.crash_child save|autosave DOCUMENT SETTINGS_INI

Prints `writing N` before and `wrote N` after each write of version N, so the test can kill it in
the middle of one.
"""

from __future__ import annotations

import itertools
import os
import sys
from pathlib import Path

PARAGRAPHS = 20_000  # about 2.5 MB per version: a write takes long enough to be interrupted


def version(n: int) -> str:
    """Version n of the document; every version differs throughout, so a torn mix shows."""
    body = "".join(
        f"Paragraph {p} of version {n} says trees cool streets [1].\n\n" for p in range(PARAGRAPHS)
    )
    return f"# Draft {n}\n\n{body}## References\n\n1. A source. https://example.org/{n}\n<!-- end {n} -->\n"


def main(mode: str, document: str, settings_ini: str) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from citedesk.desk import AuditOptions
    from citedesk.gui.main_window import MainWindow

    app = QApplication([])  # no event loop runs: nothing but the writes below happens
    window = MainWindow(
        AuditOptions(check_sources=False, judge="none"),
        QSettings(settings_ini, QSettings.Format.IniFormat),
    )
    if mode == "save":
        window.load_file(document)
    for n in itertools.count(1):
        window.editor.setPlainText(version(n))
        window.editor.document().setModified(True)
        print(f"writing {n}", flush=True)
        if mode == "save":
            assert window.document.save_to(Path(document))
        else:
            window.document.write_recovery()
        print(f"wrote {n}", flush=True)
    app.quit()


if __name__ == "__main__":
    main(*sys.argv[1:4])
