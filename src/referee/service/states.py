"""The folded states of recent bouts (`StateCache`), kept by the hash of the last event each
includes, and each bout's rule system with its pack."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from referee.bout.engine import system_of
from referee.bout.events import Event
from referee.bout.fold import apply, project
from referee.bout.state import BoutState
from referee.caches import SizedCache
from referee.store import HELD_EVENTS
from referee.systems.base import RuleSystem

#: Ledger events are plain dicts with seq, type, actor, at, payload, prev, hash.
Record = dict[str, Any]


def _to_bout_events(records: Sequence[Record]) -> list[Event]:
    return [Event.from_dict(r) for r in records]


class StateCache:
    """Folded states of recent bouts, keyed by the hash of the last event they include.

    A state is only ever reused for exactly the events it was folded from (the hash chains
    them all), so a stale entry is never wrong, only unused. Thread-safe; bounded by the
    events the states hold (a state keeps every event still in force: `held_events` in all,
    the least recently used bout's forgotten first, as the store's own cache).
    """

    def __init__(self, size: int = 512, held_events: int = HELD_EVENTS) -> None:
        self._size = size
        self._states: SizedCache[str, tuple[int, str, BoutState]] = SizedCache(held_events)
        self._systems: dict[str, tuple[BoutState, RuleSystem]] = {}
        self._lock = threading.Lock()

    def system(self, bout_id: str, state: BoutState) -> RuleSystem:
        """The bout's rule system with its pack, made once per pack (not once per request).

        Reused only for a state with the very same rules object and system name, which the
        fold carries unchanged from the bout's opening event on.
        """
        with self._lock:
            hit = self._systems.get(bout_id)
        if hit is not None and hit[0].rules is state.rules and hit[0].system == state.system:
            return hit[1]
        rules = system_of(state)
        with self._lock:
            if len(self._systems) >= self._size:
                self._systems.pop(next(iter(self._systems)))
            self._systems[bout_id] = (state, rules)
        return rules

    def state(self, bout_id: str, records: Sequence[Record]) -> BoutState:
        """The state after `records` (all of the bout's events, in order)."""
        if not records:
            return BoutState()
        cached = self._states.get(bout_id)
        state: BoutState | None = None
        if cached is not None:
            seq, digest, known = cached
            if seq < len(records) and records[seq]["hash"] == digest:
                state = known
                for offset, event in enumerate(_to_bout_events(records[seq + 1 :]), seq + 1):
                    state = apply(state, event, offset)
        if state is None:
            state = project(_to_bout_events(records))
        self.remember(bout_id, records[-1], state)
        return state

    def after(self, bout_id: str, last: Record) -> BoutState | None:
        """The state kept as the one after the event `last`, if that is the one kept."""
        cached = self._states.get(bout_id)
        if cached is None or cached[0] != last["seq"] or cached[1] != last["hash"]:
            return None
        return cached[2]

    def remember(self, bout_id: str, last: Record, state: BoutState) -> None:
        """Keep `state` as the state after the event `last`."""
        seq = int(last["seq"])
        self._states.put(bout_id, (seq, str(last["hash"]), state), seq + 1)
