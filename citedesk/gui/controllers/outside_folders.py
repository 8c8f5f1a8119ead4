"""Files a document names outside the folders CiteDesk may read: the window asks to allow their
folder itself (issue 28).

The audit refuses such a file without reading it, and says how to allow it as the command line
would (`--allow-folder DIR`, `--allow-local-path`). In the window that is no help: a writer who
pasted an essay whose references name `/home/me/notes/interview.txt` has no flag to pass. So when
a report has such sources, or an audit stopped on such a bibliography, the window asks once per
folder — "Allow CiteDesk to read files in …?" — and a yes is kept where the writer can see and undo
it, Settings ▸ Folders CiteDesk may read, and the document is audited again. The input never
decides this; the writer does, here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from citedesk.core.reports.report import Report

_ADVICE = re.compile(r"--allow-folder (.+?) \(or every path")
"""The folder the audit's message names (`sources.local.outside_message`): the file's, links resolved."""


@dataclass(frozen=True)
class OutsideFile:
    """A file the document names that was not read, and the folder that would allow it."""

    shown: str
    folder: str


def outside_files(report: Report, base: Path | None = None) -> list[OutsideFile]:
    """The report's sources refused for lying outside the allowed folders, one per folder."""
    found: dict[str, OutsideFile] = {}
    for source in report.sources:
        if source.status != "outside" or not source.location:
            continue
        named = _ADVICE.search(source.message)
        if named:
            folder = named.group(1)
        else:
            path = Path(source.location)
            folder = str(
                Path(os.path.realpath(path if path.is_absolute() or base is None else base / path)).parent
            )
        found.setdefault(folder, OutsideFile(source.location, folder))
    return list(found.values())


class OutsideFolders:
    """Asks the writer whether to allow a folder (`ask`), keeps a yes with the folders allowed so
    far (`current`, `keep`: the window's settings), and calls `allowed` (the window applies its
    settings and audits again). Each folder is asked about
    once per window: a no is not asked again at every audit."""

    def __init__(
        self,
        ask: Callable[[str], bool],
        current: Callable[[], Sequence[Path]],
        keep: Callable[[list[str]], object],
        allowed: Callable[[], object],
    ) -> None:
        self.ask = ask
        self.keep = keep
        self.current = current
        self.allowed = allowed
        self.asked: set[str] = set()

    def offer(self, report: Report, base: Path | None = None) -> bool:
        """After a report: ask about each folder of a refused file not asked about yet. True when
        the writer allowed one (the document is being audited again)."""
        for outside in outside_files(report, base):
            if outside.folder not in self.asked and self.allow(outside.shown, outside.folder):
                return True
        return False

    def allow(self, shown: str, folder: str) -> bool:
        """Ask about `folder` (where `shown` lies); on a yes keep it and call `allowed`."""
        self.asked.add(folder)
        question = (
            f"{shown} is outside the folders CiteDesk may read, so it was not read.\n\nAllow CiteDesk "
            f"to read files in {folder}? (You can remove it in Settings ▸ Folders CiteDesk may read.)"
        )
        if not self.ask(question):
            return False
        folders = [str(p) for p in self.current()]
        if folder not in folders:
            self.keep([*folders, folder])
        self.allowed()
        return True
