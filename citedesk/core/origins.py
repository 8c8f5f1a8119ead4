"""Which module made each entry of a table (document formats, containers, dialects, report
formats): CiteDesk's own, registered at import, or a plug-in's, maybe registered at run time.

The window audits in a fresh child process (`desk.background`) that knows only what its imports
register; the entries a module outside CiteDesk registered are passed to it with each audit
(`desk.registrations`), and this is how a table tells them apart. Pure: it reads the caller's
module name from the interpreter's frame, nothing else.
"""

from __future__ import annotations

import sys

OWN = "citedesk"
"""The package whose modules' entries every process has once imported."""


class Origins:
    """For one table: the module that registered each name."""

    def __init__(self) -> None:
        self._by_name: dict[str, str] = {}

    def record(self, name: str) -> None:
        """Called by a table's `register`: the module that called it registered `name`."""
        self._by_name[name] = sys._getframe(2).f_globals.get("__name__", "")

    def forget(self, name: str) -> None:
        self._by_name.pop(name, None)

    def of(self, name: str) -> str:
        """The module that registered `name` (empty: not registered)."""
        return self._by_name.get(name, "")

    def plug_in(self, name: str) -> bool:
        """Whether `name` was registered by a module outside CiteDesk (a plug-in, a test)."""
        module = self.of(name)
        return module != OWN and not module.startswith(OWN + ".")
