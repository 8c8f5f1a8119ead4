"""The open document's state, evented: what the window shows is what this holds (issue 24; after
napari's evented models). Qt-free: observers are plain callbacks, called on the thread that changes
the state (the window changes it only on its GUI thread).

Fields: `text` (the text the report is about), `path` (the document's file, None when unsaved),
`report` (the latest audit's, None before the first) and `generation` (the audit run that made
it), `staged` (what the running audit has found so far, stage by stage: `Staged`, issue 26;
None before the first) and `checking` (the cascade's strong judge re-reading the report shown, in
the background: `Checking`, issue 27; None when nothing is being re-read). `on_change(field, callback)` calls `callback(new value)` after each change of that field;
`update(**fields)` changes several at once and calls the observers once all are set, so none sees
a report beside the text of another.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citedesk.core.document.model import Document
    from citedesk.core.findings import Finding
    from citedesk.core.reports.report import Report

FIELDS = ("text", "path", "report", "generation", "staged", "checking")


@dataclass(frozen=True)
class Checking:
    """The strong judge `judge` re-reading, in the background, what the report of `generation`
    (the fast judge's, on screen) flagged or was unsure about: `done` of `total` claims (total 0:
    not counted yet). Its report replaces the one shown; till then the writer edits and fixes as
    usual, and **Fix all** leaves the judge's fixes (`desk.background.provisional`)."""

    generation: int
    judge: str
    done: int = 0
    total: int = 0

    def describe(self) -> str:
        """What the status bar says: "checking with MiniCheck… 3/12"."""
        return f"checking with {self.judge}…" + (f" {self.done}/{self.total}" if self.total else "")


@dataclass(frozen=True)
class Staged:
    """What the running audit `generation` has found so far: its `document` (from the first stage
    on; None before), every finding published and not withdrawn since, in document order, and the
    stages done. A new one is made for each stage (`after`), so an observer is told once per stage
    and never sees a list half changed. The finished audit's report is the final word."""

    generation: int
    document: Document | None = None
    findings: tuple[Finding, ...] = ()
    stages: tuple[str, ...] = ()

    def after(
        self,
        stage: str,
        added: Iterable[Finding],
        withdrawn: Iterable[Finding] = (),
        document: Document | None = None,
    ) -> Staged:
        """These findings once `stage` is done: `withdrawn` taken out (each matched once, by
        equality: they crossed a process boundary), `added` put in, in document order."""
        kept = _minus(self.findings, withdrawn)
        ordered = sorted([*kept, *added], key=lambda f: (f.start, f.kind.value))
        return Staged(self.generation, document or self.document, tuple(ordered), (*self.stages, stage))


def _minus(these: Iterable[Finding], those: Iterable[Finding]) -> list[Finding]:
    left: dict[Hashable, list[Finding]] = {}
    for finding in those:
        left.setdefault((finding.kind, finding.start, finding.end), []).append(finding)
    out = []
    for finding in these:
        bucket = left.get((finding.kind, finding.start, finding.end), [])
        match = next((i for i, other in enumerate(bucket) if other == finding), None)
        if match is None:
            out.append(finding)
        else:
            del bucket[match]
    return out


class DocumentState:
    def __init__(self) -> None:
        self._values: dict[str, Any] = {
            "text": None,
            "path": None,
            "report": None,
            "generation": 0,
            "staged": None,
            "checking": None,
        }
        self._observers: dict[str, list[Callable[[Any], object]]] = {name: [] for name in FIELDS}

    @property
    def text(self) -> str | None:
        """The text the report is about (None before the first report)."""
        value: str | None = self._values["text"]
        return value

    @property
    def path(self) -> Path | None:
        value: Path | None = self._values["path"]
        return value

    @property
    def report(self) -> Report | None:
        value: Report | None = self._values["report"]
        return value

    @property
    def generation(self) -> int:
        value: int = self._values["generation"]
        return value

    @property
    def staged(self) -> Staged | None:
        value: Staged | None = self._values["staged"]
        return value

    @property
    def checking(self) -> Checking | None:
        value: Checking | None = self._values["checking"]
        return value

    def on_change(self, field: str, callback: Callable[[Any], object]) -> Callable[[], None]:
        """Call `callback(value)` after each change of `field`; returns what stops it."""
        if field not in self._observers:
            raise KeyError(f"no field {field!r}; the fields are {', '.join(FIELDS)}")
        self._observers[field].append(callback)
        return lambda: self._observers[field].remove(callback)

    def update(self, **changes: Any) -> None:
        """Set these fields, then tell each changed field's observers (in FIELDS order). A field
        set to what it holds (the same object) is not a change."""
        unknown = set(changes) - set(FIELDS)
        if unknown:
            raise KeyError(f"no field {', '.join(sorted(unknown))}; the fields are {', '.join(FIELDS)}")
        changed = [name for name in FIELDS if name in changes and changes[name] is not self._values[name]]
        changed = [name for name in changed if not _same(changes[name], self._values[name])]
        for name in changed:
            self._values[name] = changes[name]
        for name in changed:
            for callback in list(self._observers[name]):
                callback(self._values[name])


def _same(new: object, old: object) -> bool:
    """Equal plain values (text, a path, a number) are no change; a report is compared by identity."""
    return isinstance(new, str | Path | int | Checking) and type(new) is type(old) and new == old
