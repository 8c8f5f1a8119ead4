"""What an audit may reuse from the audits before it in the same process (issue 26: a re-audit
after one edited sentence touches only what changed).

The window audits in one long-lived child process (`desk.background`), the CLI in one process per
command: work whose inputs did not change — a source's passage index and vectors, the evidence
retrieved for a sentence, a judge's answer to a pair — is kept here between audits and found again
by its content. Every key is made of what the result is computed from (texts, their hashes, the
judge's name and policy fingerprint, the embedding model), never of a time or a document's name,
so an entry can only be stale if its inputs are: an edited sentence or a changed source text is a
new key, and the old entry simply ages out. Every cache is bounded (entries and, where the values
are large, bytes) and forgets the least recently used first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Lru(Generic[K, V]):
    """A thread-safe least-recently-used map bounded by entries and by an estimate of bytes.

    `size` estimates one value's bytes (default 1: the byte bound is then an entry bound too). The
    counters say how often it served (`hits`) and how often it had to be filled (`misses`): what
    the tests read to know that an unchanged sentence was reused and an edited one was not.
    """

    def __init__(self, entries: int, *, max_bytes: int | None = None, size: Callable[[V], int] | None = None):
        self.entries = entries
        self.max_bytes = max_bytes
        self._size = size or (lambda value: 1)
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._items.get(key)
            if found is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return found[0]

    def put(self, key: K, value: V) -> None:
        size = self._size(value)
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            if self.max_bytes is not None and size > self.max_bytes:
                return  # larger than the whole cache: not kept
            self._items[key] = (value, size)
            self._bytes += size
            while len(self._items) > self.entries or (
                self.max_bytes is not None and self._bytes > self.max_bytes
            ):
                _, (_, dropped) = self._items.popitem(last=False)
                self._bytes -= dropped

    def __contains__(self, key: object) -> bool:
        """Whether `key` is kept; neither counted nor made recent (a look before the work)."""
        with self._lock:
            return key in self._items

    def items(self) -> list[tuple[K, V]]:
        """What is kept, least recent first (a snapshot; nothing counted or made recent)."""
        with self._lock:
            return [(key, value) for key, (value, _) in self._items.items()]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    @property
    def bytes(self) -> int:
        return self._bytes
