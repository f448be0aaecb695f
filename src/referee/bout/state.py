"""The state of a bout: a plain value, derived by folding its events (see `referee.bout.fold`)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

from referee.bout.records import Record
from referee.errors import NotFoundError


class Status(enum.Enum):
    """Where a bout stands."""

    OPEN = "open"
    """Fighters may join; no initiative yet."""
    RUNNING = "running"
    """Initiative is settled; fighters act in turn."""
    PAUSED = "paused"
    """The referee paused it; no actions until resumed."""
    ENDED = "ended"
    """One side is left (or the referee ended it); a winner may be named."""
    CANCELLED = "cancelled"
    """The referee called it off; no winner."""


# The members the hot paths compare against, as module names: `Status.RUNNING` goes through
# the enum class's `__getattr__` (Python code, about ten times a plain name's cost in 3.11).
OPEN, RUNNING, PAUSED, ENDED, CANCELLED = (
    Status.OPEN,
    Status.RUNNING,
    Status.PAUSED,
    Status.ENDED,
    Status.CANCELLED,
)
#: Each status's name (its value), read without the enum's `value` descriptor.
_STATUS_NAMES = {status: status.value for status in Status}


@dataclass(frozen=True, slots=True)
class Fighter:
    """One combatant as the bout sees it now.

    `stats` are the rule system's (MSV: {"cs": 65}; SRP: a sheet), `wounds` what it has taken
    (MSV damage points, SRP hits), `conditions` maps a condition to the turns it has left
    (None: until cleared), `character` the saved character it is (its join says so).
    """

    name: str
    side: str
    stats: Mapping[str, Any]
    wounds: int = 0
    conditions: Mapping[str, int | None] = field(default_factory=dict)
    defeated: bool = False
    hidden: frozenset[str] = frozenset()
    #: The saved character that joined as this fighter (`referee.service.characters`), as its
    #: id and the version of its sheet; None for a fighter made for the bout.
    character: tuple[str, int] | None = None

    def has(self, condition: str) -> bool:
        """Whether the fighter is under this condition now."""
        return condition in self.conditions


class InForce(NamedTuple):
    """One event folded into a state and still in force, linked to the ones before it.

    States share these links, so keeping them costs one small record per event; a `voided`
    event folds them again without the events it takes back. A named tuple rather than a
    dataclass: one is made for every event folded, and it is built in about half the time of a
    frozen dataclass (it is just as frozen).
    """

    seq: int
    event: Any
    before: InForce | None


class StateReads:
    """What a bout's state holds and answers, read alike from the value (`BoutState`) and
    from a draft being written (`BoutDraft`): the fold's steps and the engine read either.

    The fields are `BoutState`'s, declared there with their defaults and meanings; here only
    their types, for the readers (tests/test_ledger_fold.py checks the two say the same).
    """

    __slots__ = ()
    system: str
    name: str
    rules: Mapping[str, Any]
    dialect: str
    fighters: tuple[Fighter, ...]
    order: tuple[str, ...]
    turn: int | None
    round: int
    status: Status
    winner: str | None
    free_attack: str | None
    joining_closed: bool
    closed: bool
    ledger: int
    client_seed: str | None
    seed_fixed: bool
    next_seq: int
    actions: tuple[tuple[int, int], ...]
    outcome_wounds: Mapping[int, tuple[tuple[str, int], ...]]
    last_outcome: int | None
    in_force: InForce | None
    clock: int

    def fighter(self, name: str) -> Fighter:
        """The fighter called `name`, or NotFoundError."""
        for f in self.fighters:
            if f.name == name:
                return f
        raise NotFoundError(f"no fighter called {name!r} in this bout")

    def has_fighter(self, name: str) -> bool:
        """Whether a fighter of that name is in the bout."""
        for f in self.fighters:  # noqa: SIM110 - a loop makes no generator per call
            if f.name == name:
                return True
        return False

    def living(self) -> tuple[Fighter, ...]:
        """Fighters not yet defeated."""
        return tuple([f for f in self.fighters if not f.defeated])

    def sides_left(self) -> tuple[str, ...]:
        """The sides that still have a fighter standing, in joining order."""
        seen: list[str] = []
        for f in self.fighters:
            if not f.defeated and f.side not in seen:
                seen.append(f.side)
        return tuple(seen)

    def enemies_of(self, name: str) -> tuple[Fighter, ...]:
        """Living fighters on another side than `name`'s."""
        side = self.fighter(name).side
        return tuple([f for f in self.fighters if not f.defeated and f.side != side])

    @property
    def status_name(self) -> str:
        """The bout's status as the store and an export's `bout.status` say it: the folded
        status, or "closed" once the server seed is revealed."""
        return "closed" if self.closed else _STATUS_NAMES[self.status]

    @property
    def current(self) -> str | None:
        """Whose action it is now (a free attack's owner first), or None."""
        status = self.status
        if status is not RUNNING and status is not PAUSED:
            return None
        if self.free_attack is not None:
            return self.free_attack
        if self.turn is None or not self.order:
            return None
        return self.order[self.turn]

    def fighters_with(self, fighter: Fighter) -> tuple[Fighter, ...]:
        """The fighters with `fighter` replacing the one of the same name (or added)."""
        name = fighter.name
        for i, f in enumerate(self.fighters):
            if f.name == name:
                return (*self.fighters[:i], fighter, *self.fighters[i + 1 :])
        return (*self.fighters, fighter)


@dataclass(frozen=True, slots=True)
class BoutState(StateReads):
    """Everything known about a bout after some prefix of its events."""

    system: str = ""
    name: str = ""
    rules: Mapping[str, Any] = field(default_factory=dict)
    #: The dice notation dialect of the bout's rolls (roll20, onlinehost or d20).
    dialect: str = "roll20"
    fighters: tuple[Fighter, ...] = ()
    order: tuple[str, ...] = ()
    turn: int | None = None
    round: int = 0
    status: Status = OPEN
    winner: str | None = None
    free_attack: str | None = None
    #: The referee closed the bout to joiners (`joining_closed`): only the referee adds now.
    joining_closed: bool = False
    #: The server seed was revealed: nothing more may happen in this bout.
    closed: bool = False
    #: The ledger format its header names (2: the client seed chained, hidden values sealed;
    #: 1: a bout made before).
    ledger: int = 1
    #: The client seed as the chain has it so far (the header's part, then `:` and each
    #: fighter's part as it joined); None in a bout whose chain does not carry it (ledger 1).
    client_seed: str | None = None
    #: The chain fixed the client seed (`client_seed_fixed`): no part may join it any more.
    seed_fixed: bool = False
    next_seq: int = 0
    #: (first seq, last seq) of every action group still in force, oldest first (for undo).
    actions: tuple[tuple[int, int], ...] = ()
    #: seq of every outcome event in force -> its wounds as (target, amount).
    outcome_wounds: Mapping[int, tuple[tuple[str, int], ...]] = field(default_factory=dict)
    last_outcome: int | None = None
    #: The events folded into this state and not voided, newest first (see `referee.bout.fold`).
    in_force: InForce | None = field(default=None, compare=False, repr=False)
    #: The evening's play clock in minutes (the header's `clock`, then each `time_passed`);
    #: 0 in a bout that follows none. Never the wall clock.
    clock: int = 0

    def with_fighter(self, fighter: Fighter) -> BoutState:
        """A copy with `fighter` replacing the one of the same name (or added)."""
        return evolve(self, {"fighters": self.fighters_with(fighter)})


_FIGHTER = Record.of(Fighter)
_STATE = Record.of(BoutState)


class BoutDraft(StateReads):
    """A state being written: the fields of a `BoutState`, each changed in place as events
    are folded, then frozen into one new state (`freeze`). Whoever makes one (`of`) keeps it
    to itself until then (the engine's log for one command, the fold of a whole chain), so a
    command or a chain makes one copy of the state, not one per event.

    >>> draft = BoutDraft.of(BoutState(name="spar"))
    >>> draft.change({"round": 2})
    >>> draft.freeze() == BoutState(name="spar", round=2)
    True
    """

    __slots__ = ()  # each field's slot is the made class's (`_DRAFTS`)

    @staticmethod
    def of(state: BoutState) -> BoutDraft:
        """A draft holding the fields of `state`."""
        return _DRAFTS(*_STATE.values(state))

    def change(self, changes: Mapping[str, Any]) -> None:
        """Set each field named in `changes` (all names of `BoutState`'s fields) to its value."""
        for name, value in changes.items():
            setattr(self, name, value)

    def freeze(self) -> BoutState:
        """The state as it stands now, as a value."""
        return _STATE.make(self)


#: The drafts as they are made: `BoutDraft` with a slot for each field of `BoutState`.
_DRAFTS = _STATE.drafts(BoutDraft)


#: A state or a fighter: the values the fold copies with changes (`evolve`).
V = TypeVar("V", BoutState, Fighter)
_RECORDS: dict[type, Record[Any]] = {BoutState: _STATE, Fighter: _FIGHTER}


def evolve(value: V, changes: Mapping[str, Any]) -> V:
    """`dataclasses.replace(value, **changes)` for a state or a fighter and names the fold
    knows are fields, by one call of its class's own constructor (`referee.bout.records`).

    >>> from dataclasses import replace
    >>> evolve(BoutState(name="spar"), {"round": 2}) == replace(BoutState(name="spar"), round=2)
    True
    """
    made: V = _RECORDS[type(value)].copy(value, changes)
    return made
