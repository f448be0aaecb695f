"""Commands: what someone asks of a bout. `referee.bout.engine.decide` turns them into events."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: Who gives a command: "referee" or a fighter's name.
Who = str


@dataclass(frozen=True, slots=True)
class Via:
    """How a fighter's own action reached the bout when a client speaks for it on someone's
    behalf: the person who gave it, in the client's words (`discord:USER_ID`), and the proxy
    that carried it (`pluralkit`, `tupperbox`). Recorded in the action's event."""

    member: str
    proxy: str

    def as_json(self) -> dict[str, str]:
        """As the action event records it.

        >>> Via("discord:12", "pluralkit").as_json()
        {'member': 'discord:12', 'proxy': 'pluralkit'}
        """
        return {"member": self.member, "proxy": self.proxy}


@dataclass(frozen=True, slots=True)
class Open:
    """Open a bout of a rule system with a rule pack."""

    system: str
    name: str
    rules: Mapping[str, Any] = field(default_factory=dict)
    dialect: str = "roll20"
    """The dice notation dialect of the bout's rolls (referee.dice.dialects)."""


@dataclass(frozen=True, slots=True)
class AddFighter:
    """Add a fighter (the referee's NPC, or a player joining) on a side (default: its own)."""

    name: str
    stats: Mapping[str, Any]
    side: str | None = None
    hidden: tuple[str, ...] = ()
    seed_part: str | None = None
    """The fighter's own part of the client seed, recorded in its join (the service checks it
    and adds it to the client seed in the same transaction)."""
    character: tuple[str, int] | None = None
    """The saved character that joins, as (id, version): recorded in its join."""
    carried: bool = False
    """The referee carries the fighter from the fight this bout follows (an evening): it
    starts with the `wounds` and `conditions` it ended that fight with."""
    wounds: int = 0
    conditions: Mapping[str, int | None] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class UpdateFighter:
    """The referee changes a fighter's stats and/or its wounds."""

    name: str
    stats: Mapping[str, Any] = field(default_factory=dict)
    wounds: int | None = None
    reason: str = ""
    """Why, in the referee's words (between fights: rest, healing, recovery)."""
    clear: tuple[str, ...] = ()
    """Conditions the referee clears (a stun worn off between fights, ...)."""


@dataclass(frozen=True, slots=True)
class PassTime:
    """The referee lets play time pass (the evening's clock, in minutes; never the wall
    clock), saying why; whatever the rules restore with time follows (SRP-17)."""

    minutes: int
    reason: str


@dataclass(frozen=True, slots=True)
class RemoveFighter:
    """A fighter leaves (quit) or the referee removes it."""

    name: str


@dataclass(frozen=True, slots=True)
class Reveal:
    """The referee reveals hidden stats of a fighter (all when `keys` is empty)."""

    name: str
    keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RollInitiative:
    """Settle the turn order and start the bout."""


@dataclass(frozen=True, slots=True)
class Act:
    """A fighter's action (MSV: "attack"; SRP: "attack", "shoot", "disarm", "move", ...)."""

    actor: str
    kind: str
    options: Mapping[str, Any] = field(default_factory=dict)
    #: Who gave it and through which proxy, when a client acted on someone's behalf.
    via: Via | None = None


@dataclass(frozen=True, slots=True)
class FreeRoll:
    """A fighter (or the referee) rolls dice outside the rules: recorded, no effect on the bout.

    Either `sides` (one die per entry, an AOL roll) or `expression`, any dice notation
    (`2d20+1d6`, `4d6kh3`) under the dice package's default limits, as the CLI rolls it.
    `label`: what the roll is for, as its roller said it (`~roll 1d20+5 to hit`), kept in its
    action event.
    """

    actor: str
    sides: tuple[int, ...] = ()
    expression: str = ""
    label: str = ""


@dataclass(frozen=True, slots=True)
class Skip:
    """The referee passes the current fighter's turn.

    A guarded skip (a turn clock's) names the turn it timed: `expected`, the fighter whose turn
    it is, and `at_seq`, the bout's next event number when it looked. It is refused if the
    turn moved or anything was stored since, so it can never skip a turn it did not time.
    """

    expected: str | None = None
    at_seq: int | None = None


@dataclass(frozen=True, slots=True)
class Pause:
    """The referee pauses the bout."""


@dataclass(frozen=True, slots=True)
class Resume:
    """The referee resumes a paused bout."""


@dataclass(frozen=True, slots=True)
class CloseJoining:
    """The referee closes the bout to joiners (OnlineHost's close); it may still add fighters."""


@dataclass(frozen=True, slots=True)
class Override:
    """The referee replaces the wounds of the outcome event `of` (SRP-20); the original stays."""

    of: int
    wounds: Mapping[str, int]
    note: str = ""


@dataclass(frozen=True, slots=True)
class Void:
    """The referee takes back the last action still in force (an undo event)."""


@dataclass(frozen=True, slots=True)
class End:
    """The referee ends the bout, naming the winning side or none."""

    winner: str | None = None
    reason: str = "ended by the referee"


@dataclass(frozen=True, slots=True)
class Cancel:
    """The referee calls the bout off."""

    reason: str = "cancelled by the referee"


Command = (
    Open
    | AddFighter
    | UpdateFighter
    | PassTime
    | RemoveFighter
    | Reveal
    | RollInitiative
    | Act
    | FreeRoll
    | Skip
    | Pause
    | CloseJoining
    | Resume
    | Override
    | Void
    | End
    | Cancel
)
