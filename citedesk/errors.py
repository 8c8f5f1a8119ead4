"""One error hierarchy: the conditions CiteDesk knows about, apart from bugs.

Everything CiteDesk raises on purpose derives from `CiteDeskError` and carries a message meant for
the person using it — a document that cannot be read, a model that is not installed, a store that is
locked. The front ends show that message and a way forward; anything else that escapes is a bug and
is reported as one (the CLI exits 3 with a bug-report hint; the window says so).

This module is the bottom layer: it imports nothing, and every other layer may import it.

Exit codes (the CLI's contract): 0 clean, 1 findings (or a repair refused, which leaves them), 2 a
known condition (usage, input, environment), 3 an internal error; 130 (128 + SIGINT) when the work
was interrupted or cancelled.

A few conditions are not failures at all: a `Cancelled` audit is `silent` — whoever catches
`CiteDeskError` says nothing about it (the CLI exits 130 without a message).
"""

from __future__ import annotations

from typing import ClassVar

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_BUG = 3
EXIT_INTERRUPTED = 130


class CiteDeskError(Exception):
    """A known condition, with a message for the writer; never a bug."""

    exit_code: ClassVar[int] = EXIT_USAGE
    kind: ClassVar[str] = "error"
    """A short name the window uses to tell failures apart (and the audit process sends back)."""
    silent: ClassVar[bool] = False
    """Not a failure (a cancellation): front ends show nothing for it."""

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else self.__class__.__name__


class InputError(CiteDeskError):
    """Bad input from the user: an option value, a file given on the command line."""

    kind = "input"


class UsageError(InputError):
    """The command was used wrongly (an unknown kind, no finding with that number)."""

    kind = "usage"


class DocumentError(InputError):
    """A document that cannot be read: missing, binary, undecodable, too big, not a file."""

    kind = "document"


class OutputError(CiteDeskError):
    """Something could not be written: a report, a fixed document, a folder that is read-only."""

    kind = "output"


class DocumentChangedError(OutputError):
    """The file changed on disk after it was read (edited by another program, moved, deleted), so
    writing would lose that change: nothing was written. The window offers to reload it."""

    kind = "changed"


class RepairError(CiteDeskError):
    """A repair that cannot be applied safely (it would change the prose or break a reference)."""

    exit_code = EXIT_FINDINGS
    kind = "repair"


class NetworkError(CiteDeskError):
    """A service CiteDesk needs could not be reached (the model hub, for a download)."""

    kind = "network"


class ModelError(CiteDeskError):
    """A model that is missing, cannot be loaded, or is not the kind of model it should be."""

    kind = "model"


class StoreError(CiteDeskError):
    """The store (sources, caches, review decisions) cannot be opened or written."""

    kind = "store"


class NotAStore(StoreError):
    """The store's path names a file that is not a CiteDesk store (a document, another program's
    database): it is left exactly as it is, and the setting is the writer's to correct — so it is
    said even where a store that cannot be opened is otherwise only a missing extra."""

    kind = "not_a_store"


class AssistError(CiteDeskError):
    """Claude assistance failed: no answer, an unusable answer, a refusal."""

    kind = "assist"


class KeyMissing(AssistError):
    """Claude assistance was asked for without an Anthropic API key."""

    kind = "key_missing"


class Cancelled(CiteDeskError):
    """The work was cancelled by whoever started it; never shown as an error (`silent`)."""

    exit_code = EXIT_INTERRUPTED
    kind = "cancelled"
    silent = True
