"""A cache bounded by what its entries hold, not by how many there are.

The store keeps each bout's events in memory, the service each bout's folded state (which
holds its events too). Bounded by a count of bouts, such a cache holds a few small bouts or
as many of the biggest (100,000 events, about 130 MB each): a server's memory would grow with
the size of the bouts it serves. `SizedCache` holds at most `budget` units in all (events),
forgetting the least recently used first; one entry bigger than the budget is not kept at all
(whoever asks again reads it afresh). Thread-safe.

>>> cache = SizedCache(budget=10)
>>> cache.put("a", "A", 6); cache.put("b", "B", 3); cache.get("a")
'A'
>>> cache.put("c", "C", 4)  # 13 > 10: "b", the least recently used, goes
>>> cache.get("b"), cache.get("a"), cache.held
(None, 'A', 10)
>>> cache.put("d", "D", 11); cache.get("d")  # bigger than the whole budget: not kept
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class SizedCache(Generic[K, V]):
    """At most `budget` units of entries, each put with its size; least recently used first
    out."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    @property
    def held(self) -> int:
        """The units held now."""
        return self._held

    def get(self, key: K) -> V | None:
        """The entry of `key` (now the most recently used), or None."""
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return None
            self._entries.move_to_end(key)
            return found[0]

    def put(self, key: K, value: V, size: int) -> None:
        """Keep `value` as `key`'s entry, of `size` units, forgetting the least recently used
        entries until everything fits (an entry bigger than the budget is not kept)."""
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._held -= old[1]
            if size > self.budget:
                return
            self._entries[key] = (value, size)
            self._held += size
            while self._held > self.budget:
                _, (_, dropped) = self._entries.popitem(last=False)
                self._held -= dropped

    def pop(self, key: K) -> None:
        """Forget `key`'s entry, if any."""
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._held -= old[1]

    def __len__(self) -> int:
        return len(self._entries)
