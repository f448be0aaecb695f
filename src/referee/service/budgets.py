"""How much of a bout each owner may spend, checked before any die is thrown.

A bout holds at most `Budgets.events` events. No fighter may spend that for others: each
owner's free rolls (a fighter's, the referee's) and each fighter's own commands count against
budgets of its own, the free rolls of all against one of the bout's, and the last
`Budgets.reserved` events are kept for the commands that end a bout (end, cancel, close,
hand-over), so the referee can always close it and reveal its seed. Every command is taken
only while there is room for the most any command can write (`Budgets.worst`: a free roll of
the most dice the notation allows, its action, its failure and the client seed's fixing), so
whether a command is refused never depends on a face: the check comes before the dice
(docs/api.md, "Bounds"; docs/ledger.md, "No outcome before its record").

`Spending` is what a bout's events have spent so far, folded from them (an action event opens
a group its actor owns; the engine's events after it, by "system", are the group's);
`Ledgers` keeps it per bout, reading only the events since it last looked.

>>> from referee.bout import commands as c
>>> budgets = Budgets(events=3_000, free_per_roller=1_200, worst=1_100)
>>> spent = Spending().after([{"type": "action", "actor": "Tarl", "payload": {"kind": "roll"}},
...                           {"type": "roll", "actor": "system", "payload": {}}])
>>> spent.free["Tarl"], spent.total
(2, 2)
>>> budgets.refusal(2, lambda: spent, c.FreeRoll("Tarl", (6,)), "Tarl") is None
True
>>> spent = Spending(total=210, free={"Tarl": 200})
>>> print(budgets.refusal(210, lambda: spent, c.FreeRoll("Tarl", (6,)), "Tarl")[:61])
Tarl's free rolls have written 200 events; a free roll may wr
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from referee.bout import commands as c
from referee.bout.fold import GROUP_TYPES
from referee.store import MAX_EVENTS_PER_BOUT, MAX_NEW_EVENTS
from referee.vocabulary import EventType

#: The commands that end a bout: they may use the events kept for them.
ENDING = (c.End, c.Cancel)
#: The most events an ending writes (the close: the end, then the close itself).
ENDING_EVENTS = 3
_ACTION, _ROTATED, _HANDED = EventType.ACTION, EventType.SEED_ROTATED, EventType.REFEREE_CHANGED
_SYSTEM = "system"


@dataclass(frozen=True, slots=True)
class Budgets:
    """The stated bounds of a bout (docs/api.md, "Bounds")."""

    #: Events a bout holds in all (the store's own bound).
    events: int = MAX_EVENTS_PER_BOUT
    #: The last events, kept for the commands that end a bout.
    reserved: int = 100
    #: The most events one command can write (the store's bound on one append, above what any
    #: command writes: a free roll of the most dice the notation allows, 1,000 throws, with its
    #: action, its failure and the client seed's fixing). A command is taken only while there
    #: is room for this many, so nothing thrown is ever refused for want of room.
    worst: int = MAX_NEW_EVENTS
    #: Events one roller's free rolls may write in a bout (each fighter, and the referee).
    free_per_roller: int = 10_000
    #: Events the free rolls of everyone may write in a bout.
    free_per_bout: int = 50_000
    #: Events one fighter's own commands (actions, initiative it gives, free rolls) may write.
    per_fighter: int = 25_000
    #: Seed rotations the referee may ask for in a bout (the service's own, every 1,000 rolls,
    #: are not counted: a full bout makes at most 100 of them).
    rotations: int = 1_000
    #: Hand-overs to another referee in a bout (each takes one of the kept events).
    hand_overs: int = 20
    #: Fighters a bout holds (each join is an event, and needs no token while the bout is open).
    fighters: int = 100

    @property
    def untouched(self) -> int:
        """Below how many events a bout cannot have spent any budget yet, whoever spent them:
        while `events + worst` is at most this, no command is refused for a budget (so the
        spending need not be counted)."""
        return min(
            self.events - self.reserved, self.free_per_roller, self.free_per_bout, self.per_fighter
        )

    def refusal(
        self,
        events: int,
        spending: Callable[[], Spending],
        command: c.Command,
        by: str,
        fighters: int = 0,
    ) -> str | None:
        """Why `command`, given by `by`, may not be taken now (None: it may), before it runs,
        in a bout of `events` events and `fighters` fighters; `spending()` tells what its
        events spent (asked only of a bout big enough to have spent a budget)."""
        if isinstance(command, c.AddFighter) and fighters >= self.fighters:
            return f"the bout holds {fighters} fighters, the most a bout holds"
        if events + self.worst <= self.untouched:
            return None
        spent = spending()
        if isinstance(command, ENDING):
            return self._room(spent, ending=True)
        found = self._room(spent, ending=False)
        if found is not None:
            return found
        owner = _owner(command, by)
        if owner is None:
            return None
        if isinstance(command, c.FreeRoll):
            found = self._free(spent, owner)
            if found is not None:
                return found
        if owner != "referee" and spent.own.get(owner, 0) + self.worst > self.per_fighter:
            return (
                f"{owner}'s own commands have written {spent.own.get(owner, 0):,} events; one "
                f"may write up to {self.worst:,} more, and a fighter's write at most "
                f"{self.per_fighter:,} in a bout"
            )
        return None

    def ending_refusal(self, spent: Spending, *, hand_over: bool = False) -> str | None:
        """Why an ending write (the close, a hand-over) may not be made now, or None."""
        if hand_over and spent.hand_overs >= self.hand_overs:
            return f"the bout was handed over {spent.hand_overs} times, the most a bout allows"
        return self._room(spent, ending=True)

    def rotation_refusal(self, spent: Spending) -> str | None:
        """Why the referee may not rotate the seed now, or None."""
        if spent.rotations >= self.rotations:
            return f"the referee rotated the seed {spent.rotations:,} times, the most a bout allows"
        return self._room(spent, ending=False)

    def _room(self, spent: Spending, *, ending: bool) -> str | None:
        if ending:  # an ending writes at most ENDING_EVENTS events (the close: end, closed)
            if spent.total + ENDING_EVENTS <= self.events:
                return None
        elif spent.total + self.worst <= self.events - self.reserved:
            return None
        kept = "" if ending else f" ({self.reserved} kept for ending it)"
        return (
            f"the bout holds {spent.total:,} events, and a bout holds at most "
            f"{self.events:,}{kept}: end or close it"
        )

    def _free(self, spent: Spending, owner: str) -> str | None:
        mine = spent.free.get(owner, 0)
        if mine + self.worst > self.free_per_roller:
            return (
                f"{owner}'s free rolls have written {mine:,} events; a free roll may write up "
                f"to {self.worst:,} more, and a roller's free rolls write at most "
                f"{self.free_per_roller:,} in a bout"
            )
        everyone = sum(spent.free.values())
        if everyone + self.worst > self.free_per_bout:
            return (
                f"the bout's free rolls have written {everyone:,} events, and everyone's "
                f"together write at most {self.free_per_bout:,} in a bout"
            )
        return None


def _owner(command: c.Command, by: str) -> str | None:
    """Whose budget a command spends: a free roll its roller's, an action its actor's, any
    other command (the referee's rulings, a join) nobody's but the bout's."""
    if isinstance(command, c.FreeRoll):
        return command.actor
    if isinstance(command, c.Act):
        return command.actor
    if isinstance(command, c.RollInitiative):
        return by
    return None


@dataclass(frozen=True, slots=True)
class Spending:
    """What a bout's events have spent: in all, each roller's free rolls, each owner's own
    commands, the referee's seed rotations and the hand-overs; with the open group's owner."""

    total: int = 0
    free: Mapping[str, int] = field(default_factory=dict)
    own: Mapping[str, int] = field(default_factory=dict)
    rotations: int = 0
    hand_overs: int = 0
    #: The owner of the group the last event belongs to, and whether it is a free roll.
    group: tuple[str, bool] | None = None

    def after(self, events: Sequence[Mapping[str, Any]]) -> Spending:
        """This spending moved on by `events` (the bout's next ones)."""
        free, own = dict(self.free), dict(self.own)
        rotations, hand_overs, group = self.rotations, self.hand_overs, self.group
        for event in events:
            kind, actor = event.get("type"), event.get("actor")
            if kind == _ACTION:
                payload = event.get("payload")
                what = payload.get("kind") if isinstance(payload, Mapping) else None
                group = (str(actor), what == "roll")
            elif actor != _SYSTEM or kind not in GROUP_TYPES:
                group = None
            if kind == _ROTATED and actor == "referee":
                rotations += 1
            elif kind == _HANDED:
                hand_overs += 1
            if group is not None:
                owner, is_free = group
                own[owner] = own.get(owner, 0) + 1
                if is_free:
                    free[owner] = free.get(owner, 0) + 1
        return replace(
            self,
            total=self.total + len(events),
            free=free,
            own=own,
            rotations=rotations,
            hand_overs=hand_overs,
            group=group,
        )


class Ledgers:
    """Each bout's `Spending`, kept by the hash of the last event it counts, so that a write
    reads only the events since (thread-safe; bounded to the most recent bouts)."""

    def __init__(self, size: int = 512) -> None:
        self._size = size
        self._kept: dict[str, tuple[int, str, Spending]] = {}
        self._lock = threading.Lock()

    def spending(self, bout_id: str, records: Sequence[Mapping[str, Any]]) -> Spending:
        """What the bout's `records` (all of its events, in order) have spent."""
        with self._lock:
            kept = self._kept.get(bout_id)
        start, spent = 0, Spending()
        if kept is not None:
            count, last, known = kept
            if 0 < count <= len(records) and records[count - 1].get("hash") == last:
                start, spent = count, known
        if start < len(records):
            spent = spent.after(records[start:])
        if records:
            with self._lock:
                if len(self._kept) >= self._size and bout_id not in self._kept:
                    self._kept.pop(next(iter(self._kept)))
                self._kept[bout_id] = (len(records), str(records[-1].get("hash")), spent)
        return spent
