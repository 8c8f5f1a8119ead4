"""The tables things register in (document formats, containers, dialects, report formats), each one
`Registry`: its entries by name, and which module made each — CiteDesk's own, registered at
import, or a plug-in's, maybe registered at run time.

The window audits in a fresh child process (`desk.background`) that knows only what its imports
register; the entries a module outside CiteDesk registered are passed to it with each audit
(`desk.registrations`), and this is how a table tells them apart. Pure: it reads the caller's
module name from the interpreter's frame, nothing else.
"""

from __future__ import annotations

import sys
from typing import Generic, Protocol, TypeVar

OWN = "citedesk"
"""The package whose modules' entries every process has once imported."""


class Named(Protocol):
    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=Named)


class Registry(Generic[T]):
    """One table: its entries by name, in the order first registered (a second registration under
    a name replaces the first in its place), and the module that registered each."""

    def __init__(self) -> None:
        self._entries: dict[str, T] = {}
        self._by_name: dict[str, str] = {}

    def add(self, entry: T, *, module: str | None = None) -> T:
        """Called by a table's `register`: the module that called it registered `entry` (`module`:
        the one to record instead, for a caller that is not a table's `register`)."""
        self._entries[entry.name] = entry
        self._by_name[entry.name] = (
            module if module is not None else sys._getframe(2).f_globals.get("__name__", "")
        )
        return entry

    def remove(self, name: str) -> None:
        self._entries.pop(name, None)
        self._by_name.pop(name, None)

    def __getitem__(self, name: str) -> T:
        return self._entries[name]

    def get(self, name: str) -> T | None:
        return self._entries.get(name)

    def entries(self) -> tuple[T, ...]:
        return tuple(self._entries.values())

    def of(self, name: str) -> str:
        """The module that registered `name` (empty: not registered)."""
        return self._by_name.get(name, "")

    def plug_in(self, name: str) -> bool:
        """Whether `name` was registered by a module outside CiteDesk (a plug-in, a test)."""
        module = self.of(name)
        return module != OWN and not module.startswith(OWN + ".")
