"""A report format of the tests' own, defined in this one module: registered (`registered`), it is
one of `citedesk audit --format`'s choices, an `--out`/export suffix and a filter of the window's
export dialog, with no other file of CiteDesk changed."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from citedesk.core.reports import register, unregister
from citedesk.core.reports.report import Report


class ToyFormat:
    name = "toy"
    suffix = ".toy"
    label = "Toy lines"
    several = False
    finished = True

    def render(self, report: Report, *, colour: bool = False) -> str:
        return "".join(f"TOY {f.kind.value} {f.start}\n" for f in report.findings) or "TOY nothing\n"


@contextlib.contextmanager
def registered(*, several: bool = False) -> Iterator[ToyFormat]:
    toy = ToyFormat()
    toy.several = several
    register(toy)
    try:
        yield toy
    finally:
        unregister(toy.name)
