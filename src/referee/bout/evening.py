"""An evening of fights: the next fight starts where the last one ended, in its own chain.

An evening (one sitting of a campaign) is a chain of bouts. A bout made as the next fight names
the one it follows in its header (`follows`, that bout's id; `follows_head`, the hash of its
last event, the `closed` one; `clock`, the evening's play minute as the last fight ended), and
each fighter it carries joins with the state it ended that fight with (`fighter_added` with
`carried`, its sheet, `wounds` and `conditions`). What the referee changes between the fights
follows in the new chain: play time passing (`time_passed`, with its reason, and what time
restores by the rules: SRP-17's 0 PM an hour after passing out) and each change of a fighter
with its reason (`fighter_updated`: healing, a stun worn off, ...). The clock is the
evening's, moved only by `time_passed`; never the wall clock.

`carry(state)` gives the commands that carry every fighter of a finished bout's state;
`between(...)` the referee's changes; `check_evening(exports)` checks a whole evening: each
link, each carried state against the fold of the bout before it.

>>> from referee.bout.state import BoutState, Fighter
>>> last = BoutState(fighters=(Fighter("Ann", "a", {"hits": 9}, wounds=3),))
>>> [(a.name, a.wounds, a.carried) for a in carry(last)]
[('Ann', 3, True)]
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.bout import commands as c
from referee.bout.events import Event
from referee.bout.fold import project
from referee.bout.state import BoutState, Fighter
from referee.errors import RuleError
from referee.payloads.events import BoutOpened, FighterAdded
from referee.payloads.fields import Given
from referee.vocabulary import EventType, Problem

#: Most between-fights changes one next fight may bring (a stated bound).
MAX_CHANGES = 100
#: A value the public view of a bout not yet closed shows for a hidden stat.
HIDDEN = "hidden"


@dataclass(frozen=True, slots=True)
class Change:
    """One change of a fighter between fights, with its reason: `heal` hits (wounds) taken
    back, `wounds` set outright, `stats` changed (PM after a rest, ...), conditions cleared."""

    fighter: str
    reason: str
    heal: int | None = None
    wounds: int | None = None
    stats: Mapping[str, Any] = field(default_factory=dict)
    clear: tuple[str, ...] = ()

    def command(self, state: BoutState) -> c.UpdateFighter:
        """The referee's command for this change in the new bout's `state`.

        >>> s = BoutState(fighters=(Fighter("Ann", "a", {}, wounds=5),))
        >>> Change("Ann", "a salve", heal=2).command(s).wounds
        3
        """
        wounds = self.wounds
        if self.heal is not None:
            if self.wounds is not None:
                raise RuleError(f"{self.fighter}: give heal or wounds, not both")
            heal = self.heal
            if isinstance(heal, bool) or not isinstance(heal, int) or heal < 1:
                raise RuleError(f"{self.fighter}: heal {heal!r} is not a whole number >= 1")
            wounds = max(0, state.fighter(self.fighter).wounds - heal)
        return c.UpdateFighter(self.fighter, dict(self.stats), wounds, self.reason, self.clear)


def carry(state: BoutState, leave: Sequence[str] = ()) -> list[c.AddFighter]:
    """The commands that carry each fighter of a finished bout (but those in `leave`) into the
    next fight: side, sheet, hidden stats, wounds and conditions as they ended it."""
    unknown = sorted(set(leave) - {f.name for f in state.fighters})
    if unknown:
        raise RuleError(f"cannot leave {unknown!r} behind: not in the last fight")
    return [
        c.AddFighter(
            f.name,
            dict(f.stats),
            f.side,
            tuple(sorted(f.hidden)),
            carried=True,
            wounds=f.wounds,
            conditions=dict(f.conditions),
            character=f.character,  # the saved character it is, still its player's
        )
        for f in state.fighters
        if f.name not in leave
    ]


def between(
    minutes: int, reason: str, changes: Sequence[Change], state: BoutState
) -> list[c.Command]:
    """The referee's commands between two fights, in the order they are written: the time
    that passes (none when `minutes` is 0), then each change. `state` is the new bout's after
    the carried fighters joined (a heal is counted from its wounds)."""
    if len(changes) > MAX_CHANGES:
        raise RuleError(f"{len(changes)} changes between fights (at most {MAX_CHANGES})")
    commands: list[c.Command] = []
    if minutes:
        commands.append(c.PassTime(minutes, reason))
    elif reason:
        raise RuleError("a reason for time passing needs minutes that pass")
    commands.extend(change.command(state) for change in changes)
    return commands


@dataclass(frozen=True, slots=True)
class Link:
    """What the next fight's header says of the fight it follows."""

    follows: str
    follows_head: str
    clock: int

    def header(self) -> dict[str, Any]:
        """The header's keys."""
        return {"follows": self.follows, "follows_head": self.follows_head, "clock": self.clock}


def link(bout_id: str, records: Sequence[Mapping[str, Any]], state: BoutState) -> Link:
    """The link to a closed bout: its id, its last event's hash, the clock as it ended."""
    if not state.closed or not records or records[-1].get("type") != EventType.CLOSED:
        raise RuleError(f"bout {bout_id!r} is not closed: the next fight follows a closed one")
    return Link(bout_id, str(records[-1]["hash"]), state.clock)


def _events(doc: Mapping[str, Any]) -> list[Event]:
    return [Event.from_dict(record) for record in doc["events"]]


def check_link(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[Problem]:
    """Whether the bout `after` (an export) is the next fight of `before`: its header names
    `before` and the hash of its closing event, the clock goes on from it, and every fighter
    it carries joins as it ended `before` (a stat hidden in `after`'s public view is checked
    once `after` is closed and complete)."""
    records = list(after["events"])
    previous = list(before["events"])
    if not records or not previous:
        return [Problem(None, None, "an export without events", "evening")]
    header = BoutOpened.given(records[0]["payload"])
    ended = project(_events(before))
    problems: list[Problem] = []

    def wrong(seq: int | None, kind: str | None, message: str) -> None:
        problems.append(Problem(seq, kind, message, "evening"))

    bout_id = before.get("bout", {}).get("id")
    if header.follows != bout_id:
        wrong(0, EventType.BOUT_OPENED, f"follows {header.follows!r}, not bout {bout_id!r}")
    if previous[-1].get("type") != EventType.CLOSED:
        wrong(None, None, f"bout {bout_id!r} is not closed: its head is not final")
    if header.follows_head != previous[-1].get("hash"):
        wrong(0, EventType.BOUT_OPENED, "follows_head is not the hash of the last event before")
    if header.clock != ended.clock:
        wrong(0, EventType.BOUT_OPENED, f"clock {header.clock!r}, the last fight ended at "
              f"minute {ended.clock}")  # fmt: skip
    for seq, record in enumerate(records):
        if record.get("type") == EventType.INITIATIVE:
            break
        if record.get("type") != EventType.FIGHTER_ADDED:
            continue
        added = FighterAdded.given(record["payload"])
        if added.carried:
            for message in _carried_problems(added, ended):
                wrong(seq, EventType.FIGHTER_ADDED, message)
    return problems


def _carried_problems(added: Given[FighterAdded], ended: BoutState) -> list[str]:
    name = str(added.name)
    if not ended.has_fighter(name):
        return [f"{name} is carried, but was not in the last fight"]
    was: Fighter = ended.fighter(name)
    out: list[str] = []
    stats = added.stats if isinstance(added.stats, Mapping) else {}
    for key in sorted(set(stats) | set(was.stats)):
        value = stats.get(key)
        if value != HIDDEN and value != was.stats.get(key):
            out.append(f"{name}'s {key} is {value!r}; it ended the last fight with "
                       f"{was.stats.get(key)!r}")  # fmt: skip
    given: dict[str, Any] = {
        "side": added.side,
        "wounds": added.wounds or 0,
        "conditions": dict(added.conditions or {}),
        "hidden": sorted(added.hidden or ()),
    }
    ending = {
        "side": was.side,
        "wounds": was.wounds,
        "conditions": dict(was.conditions),
        "hidden": sorted(was.hidden),
    }
    for key, value in given.items():
        if value != ending[key]:
            out.append(f"{name}'s {key} is {value!r}; it ended the last fight with "
                       f"{ending[key]!r}")  # fmt: skip
    return out


def check_evening(exports: Sequence[Mapping[str, Any]]) -> list[Problem]:
    """The problems of an evening's exports, in play order: each one after the first must be
    the next fight of the one before it (`check_link`). Each export's own chain, dice and
    rules are `referee verify`'s (`verify_export` with the rules replay)."""
    problems: list[Problem] = []
    for before, after in itertools.pairwise(exports):
        name = after.get("bout", {}).get("id")
        problems += [
            Problem(p.seq, p.type, f"bout {name}: {p.message}", p.check)
            for p in check_link(before, after)
        ]
    return problems
