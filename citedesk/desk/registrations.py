"""What a plug-in registered in this process, passed to the audit child (issue 39).

The window's and the language server's audits run in a fresh child process (`desk.background`,
spawned: a clean interpreter) that knows the document formats, containers, citation dialects and
report formats its imports register — CiteDesk's own. A module outside CiteDesk (a plug-in, a
test's `tests/helpers/toy_format.py`) may register one at run time, after the child started; each
table records which module registered each entry (`core.origins`), and each audit request carries
those entries (`plugged_in`), so the child reads the document as its parent would
(`Adopted.adopt`). An entry that cannot be pickled (a lambda in a plug-in's format) stays in the
parent: its module is named in `Registrations.left_out`.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, fields
from typing import Any

from citedesk.core import containers, formats
from citedesk.core.dialects import base as dialects
from citedesk.core.origins import Registry
from citedesk.core.reports import base as reports

_TABLES: dict[str, Registry[Any]] = {
    "formats": formats.REGISTRY,
    "containers": containers.REGISTRY,
    "dialects": dialects.REGISTRY,
    "report_formats": reports.REGISTRY,
}


@dataclass(frozen=True)
class Registrations:
    """The entries of each table that a module outside CiteDesk registered (picklable)."""

    formats: tuple[Any, ...] = ()
    containers: tuple[Any, ...] = ()
    dialects: tuple[Any, ...] = ()
    report_formats: tuple[Any, ...] = ()
    left_out: tuple[str, ...] = ()
    """The modules whose entries could not be passed on (not picklable)."""

    def entries(self) -> list[tuple[str, Any]]:
        return [(t, e) for t in _TABLES for e in getattr(self, t)]


assert set(_TABLES) | {"left_out"} == {f.name for f in fields(Registrations)}


def plugged_in() -> Registrations:
    """What modules outside CiteDesk have registered in this process by now."""
    given: dict[str, list[Any]] = {name: [] for name in _TABLES}
    left_out: list[str] = []
    for name, table in _TABLES.items():
        for entry in table.entries():
            if not table.plug_in(entry.name):
                continue
            try:
                pickle.dumps(entry)
            except (pickle.PicklingError, TypeError, AttributeError):
                left_out.append(table.of(entry.name))
                continue
            given[name].append(entry)
    return Registrations(**{k: tuple(v) for k, v in given.items()}, left_out=tuple(left_out))


ADOPTED = "plug-in of the parent process"
"""What the child records as the module of an entry it adopted (a plug-in: not CiteDesk's own)."""


class Adopted:
    """In the child: the parent's plug-ins registered here, as of its latest request; an entry the
    parent no longer has is taken back (and what it replaced, restored)."""

    def __init__(self) -> None:
        self._added: dict[tuple[str, str], tuple[Any, str]] = {}
        """(table, name) → the entry it replaced here (None: none), and the module that registered it."""

    def adopt(self, given: Registrations) -> None:
        wanted = {(table, entry.name): entry for table, entry in given.entries()}
        for key in [k for k in self._added if k not in wanted]:
            table, name = _TABLES[key[0]], key[1]
            replaced, module = self._added.pop(key)
            if replaced is None:
                table.remove(name)
            else:
                table.add(replaced, module=module)  # in its place in the table's order
        for (table_name, name), entry in wanted.items():
            table = _TABLES[table_name]
            if (table_name, name) not in self._added:
                self._added[(table_name, name)] = (table.get(name), table.of(name))
            table.add(entry, module=ADOPTED)
