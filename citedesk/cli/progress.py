"""Long work, shown on standard error while it runs: several documents audited, a model
downloaded, references looked up and sources fetched.

On a terminal a bar (rich) with counts and the time left; anywhere else (a CI log, a file, a pipe)
plain lines, one when a piece of work is first seen to last and then at most one every few seconds,
with the same counts and time left, and a last one when it is done. Work that is over within
`SHOW_AFTER_S` (a bar) or `PLAIN_AFTER_S` (lines) shows nothing at all, so a quick audit prints
exactly what it printed before.

The caller hands every count it gets (`update`); this module decides what to show. Counts may come
from another thread (a download's), and a label whose count goes back to 0 (the next document's
look-ups) starts again. rich is imported only when a bar is drawn: `citedesk --help` and a CI run
never pay for it.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress as RichProgress
    from rich.progress import TaskID

SHOW_AFTER_S = 1.0
"""The bar: work that ends sooner than this after the first count shows nothing."""
PLAIN_AFTER_S = 10.0
"""Plain lines: only for work that lasts longer than this (a log wants no lines for a quick audit,
and a script that reads standard error sees what it saw before)."""
PLAIN_EVERY_S = 10.0
"""Plain lines: at most one per piece of work this often (and its last)."""
BAR_EVERY_S = 0.1
"""The bar is drawn again at most this often (a download counts every chunk); and when all is done."""


@dataclass
class _Work:
    """One piece of work, by its label: its counts and when it began (for the time left)."""

    label: str
    done: int
    total: int
    started: float
    unit: str = ""
    note: str = ""
    first_done: int = 0
    """The count when it was first seen."""
    warm_done: int | None = None
    warm_at: float = 0.0
    """The count and time when the first item was done: the rate is of what was done since, so the
    one-time start (loading a model, preparing the embedder) never swells the time left (a first
    audit said "about 2 min left", then was done in 25 s)."""
    said_at: float | None = None
    """Plain lines: when the last was said (None: none yet)."""
    ended: bool = False
    """Plain lines: its last line (done) is said."""
    task: TaskID | None = None


def counts(done: int, total: int, unit: str = "") -> str:
    """`12/40` (with the unit: `12/40 files`), or for bytes `120 of 400 MB` (under a megabyte: kB)."""
    if unit == "bytes":
        scale, name = (1e6, "MB") if total >= 1e6 else (1e3, "kB")
        return f"{done / scale:,.0f} of {total / scale:,.0f} {name}"
    return f"{done}/{total}" + (f" {unit}" if unit else "")


def duration(seconds: float) -> str:
    """`8 s`, `3 min`, `1 h 20 min`: what a writer reads at a glance."""
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


def time_left(work: _Work, now: float) -> float | None:
    """The time left at the rate seen since the first item was done (None while there is no such
    rate to go by: the start, however long, says nothing of the items' pace)."""
    if work.warm_done is None:
        return None
    gained, elapsed = work.done - work.warm_done, now - work.warm_at
    if gained <= 0 or elapsed <= 0 or work.done >= work.total:
        return None
    return elapsed / gained * (work.total - work.done)


class Progress:
    """Counts shown as a rich bar when `console` is given or `stream` is a terminal, else as plain
    lines on `stream`. Use it as a context manager, so that the bar ends with the work."""

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        console: Console | None = None,
        clock: Callable[[], float] = time.monotonic,
        show_after: float | None = None,
        plain_every: float | None = None,
    ) -> None:
        """`show_after`, `plain_every`: SHOW_AFTER_S (a bar) or PLAIN_AFTER_S (lines), and
        PLAIN_EVERY_S, unless given."""
        self.stream = stream if stream is not None else sys.stderr
        self.console = console
        self.bar = console is not None or _is_terminal(self.stream)
        self.clock = clock
        self.show_after = (
            show_after if show_after is not None else SHOW_AFTER_S if self.bar else PLAIN_AFTER_S
        )
        self.plain_every = PLAIN_EVERY_S if plain_every is None else plain_every
        self.started = clock()
        self.visible = False
        self._work: dict[str, _Work] = {}
        self._rich: RichProgress | None = None
        self._drawn_at: float | None = None
        self._lock = threading.Lock()

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def update(self, label: str, done: int, total: int, *, unit: str = "", note: str = "") -> None:
        """The work `label` has `done` of `total` (a total of 0 or less: not counted, not shown)."""
        if total <= 0:
            return
        with self._lock:
            now = self.clock()
            work = self._work.get(label)
            if work is None or done < work.done or total != work.total:  # new, or begun again
                if work is not None and work.task is not None and self._rich is not None:
                    self._rich.remove_task(work.task)
                work = self._work[label] = _Work(label, done, total, now, unit, first_done=done)
            if work.warm_done is None and done > work.first_done:
                work.warm_done, work.warm_at = done, now
            work.done, work.note = done, note
            if not self.visible and now - self.started < self.show_after:
                return
            self.visible = True
            if self.bar:
                self._draw(now)
            else:
                self._say(work, now)

    def close(self) -> None:
        """End the bar (its last state stays on screen); plain lines need no ending."""
        with self._lock:
            if self._rich is not None:
                self._rich.stop()
                self._rich = None

    # plain lines -----------------------------------------------------------------------------------
    def _say(self, work: _Work, now: float) -> None:
        finished = work.done >= work.total
        if work.done <= 0 and not finished:
            return  # nothing done yet: its first line comes with its first count
        due = work.said_at is None or now - work.said_at >= self.plain_every
        if work.ended or not (finished or due):
            return
        line = f"citedesk: {work.label} {counts(work.done, work.total, work.unit)}"
        line += f" ({100 * work.done // work.total}%)"
        if work.note:
            line += f" {work.note}"
        left = time_left(work, now)
        if finished:
            line += f", done in {duration(now - work.started)}"
        elif left is not None:
            line += f", about {duration(left)} left"
        print(line, file=self.stream, flush=True)
        work.said_at, work.ended = now, finished

    # the bar ---------------------------------------------------------------------------------------
    def _draw(self, now: float) -> None:
        rich = self._rich or self._start_bar()
        for work in self._work.values():
            shown = counts(work.done, work.total, work.unit)
            if work.task is None:
                work.task = rich.add_task(
                    work.label, total=work.total, completed=work.done, counts=shown, note=work.note
                )
            else:
                rich.update(work.task, completed=work.done, counts=shown, note=work.note)
        finished = all(work.done >= work.total for work in self._work.values())
        if finished or self._drawn_at is None or now - self._drawn_at >= BAR_EVERY_S:
            rich.refresh()
            self._drawn_at = now

    def _start_bar(self) -> RichProgress:
        from rich.console import Console  # noqa: PLC0415 - only a terminal pays for rich
        from rich.progress import BarColumn, TextColumn, TimeRemainingColumn  # noqa: PLC0415
        from rich.progress import Progress as RichProgress  # noqa: PLC0415

        console = self.console or Console(file=self.stream)
        self._rich = RichProgress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[note]}"),
            console=console,
            get_time=self.clock,
            auto_refresh=False,
        )
        self._rich.start()
        return self._rich


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream: no bar
        return False
