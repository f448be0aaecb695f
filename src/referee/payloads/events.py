"""The payload of every event type the referee writes, declared once (`referee.payloads`).

The bout engine writes these (`Roll(...).to_json()`), the fold reads them back
(`Roll.read(payload)`), the ledger verifier reads an export by them (`Roll.given(payload)`)
and checks a roll field by declared field, the rules replay checks every payload by them,
the service's redaction and the renderers read which fields are whose, and the JSON Schema of
them all (`referee.payloads.schema`) is what the browser verifier's tests load.

An outcome's payload is the engine's part (`Outcome`: kind, actor, summary, extra_action) and
the rule system's part for that kind, declared in the system's own `payloads` module
(`referee.systems.msv.payloads`, `referee.systems.srp.payloads`); so is an initiative's
`detail`.

>>> Roll(nonce=3, dice=("d20", "d20", "d6"), faces=(14, 3, 5), stream="act:Tarl").to_json()
{'nonce': 3, 'dice': ['d20', 'd20', 'd6'], 'faces': [14, 3, 5], 'stream': 'act:Tarl'}
>>> SHAPES[EventType.VOIDED].read({"from": 3, "to": 9}).first
3
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from referee.payloads.fields import Shape, private, public
from referee.vocabulary import JSON, EventType

# A stat map's values are JSON; a rule pack is a JSON object.
Stats = Mapping[str, JSON]


@dataclass(frozen=True, slots=True, kw_only=True)
class BoutOpened(Shape):
    """The bout's header: the first event of its chain (docs/ledger.md)."""

    system: str = public()
    name: str = public()
    rules: Mapping[str, JSON] | None = public(default=None)
    #: The dice notation of the bout's rolls, written only when it is not roll20.
    dialect: str | None = public(omit=True)
    id: str | None = public(omit=True)
    created_at: str | None = public(omit=True)
    #: The commitment to the first server seed, published before any roll.
    commitment: str | None = public(omit=True)
    #: 2: every owner's dice from a stream of its own (`referee.rng.streams`).
    dice_scheme: int | None = public(omit=True)
    #: 2: every input of every face is in the chain (the client seed's parts and its fixing)
    #: and hidden values are sealed (`referee.ledger.seal`); absent in bouts made before.
    ledger: int | None = public(omit=True)
    #: The referee's part of the client seed (given when the bout was made, or drawn).
    client_seed: str | None = public(omit=True)
    #: The next fight of an evening: the bout it follows (its id), that bout's final head
    #: hash (its `closed` event's), and the evening's play clock in minutes as it begins.
    follows: str | None = public(omit=True)
    follows_head: str | None = public(omit=True)
    clock: int | None = public(omit=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class FighterAdded(Shape):
    """A fighter joined: its side, its stats (each hidden one said "hidden" to all but the
    referee), and which of them are hidden."""

    name: str = public()
    side: str | None = public(omit=True)
    stats: Stats | None = private("name", default=None)
    hidden: tuple[str, ...] | None = public(omit=True)
    #: The fighter's own part of the client seed, given as it joined (`:` and this follow
    #: the parts before it).
    seed_part: str | None = public(omit=True)
    #: The saved character that joined (`referee.service.characters`): its id and the version
    #: of its sheet, so an export says which sheet fought (absent: a fighter made for the bout).
    character: str | None = public(omit=True)
    character_version: int | None = public(omit=True)
    #: Carried from the fight this bout follows (an evening): the wounds and conditions it
    #: ended that fight with (its stats are the sheet it ended it with).
    carried: bool | None = public(omit=True)
    wounds: int | None = public(omit=True)
    conditions: Mapping[str, int | None] | None = public(omit=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientSeedFixed(Shape):
    """The whole client seed, fixed before the first roll (every face is made from it)."""

    client_seed: str = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class FighterUpdated(Shape):
    """The referee changed a fighter's stats (the whole new sheet) or its wounds."""

    name: str = public()
    stats: Stats | None = private("name", omit=True)
    wounds: int | None = public(omit=True)
    hidden: tuple[str, ...] | None = public(omit=True)
    #: Why (the referee's words between fights: rest, healing, recovery), when given.
    reason: str | None = public(omit=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class Named(Shape):
    """An event about one fighter by name (`fighter_removed`)."""

    name: str = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class Revealed(Shape):
    """The referee revealed these hidden stats of a fighter."""

    name: str = public()
    #: None (read from an old log): every stat still hidden.
    keys: tuple[str, ...] | None = public(default=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Action(Shape):
    """Opens the group of one command that rolls dice: an action of the rule system (`options`),
    a free roll (`dice`, or `expression` with its `total`) or initiative; `by` gave it.
    `failed`: its dice were thrown, then it could not be settled (a `failed` event follows).
    `label`: what a free roll is for, in its roller's words (`to hit`)."""

    kind: str = public()
    options: Mapping[str, JSON] | None = public(omit=True)
    expression: str | None = public(omit=True)
    dice: tuple[str, ...] | None = public(omit=True)
    #: A notation roll's total: a whole number, or a fraction as text ("7/2").
    total: int | str | None = public(omit=True)
    by: str | None = public(omit=True)
    failed: bool | None = public(omit=True)
    label: str | None = public(omit=True)
    #: A fighter's own action given on its behalf through a proxy bot: `member`, who gave
    #: it (`discord:USER_ID`), and `proxy`, the proxy that carried it (`pluralkit`).
    via: Mapping[str, JSON] | None = public(omit=True)


#: Most dice one roll may hold, and most sides a die may have, in a roll read from an export.
MAX_DICE_PER_ROLL = 1000
MAX_SIDES = 1 << 32
#: A die's name: `d` and its sides in ASCII digits (the JSON Schema's pattern; the sides are
#: also bounded by `MAX_SIDES`).
DIE_PATTERN = "^d[0-9]+$"


@dataclass(frozen=True, slots=True, kw_only=True)
class Roll(Shape):
    """One throw: its nonce (null: dice the service did not throw), the dice in order, one face
    each, and the stream it drew from (a bout of dice scheme 2)."""

    nonce: int | None = public()
    #: 1 to `MAX_DICE_PER_ROLL` dice, each `d` and its sides (1 to `MAX_SIDES`).
    dice: tuple[str, ...] = public()
    faces: tuple[int, ...] = public()
    stream: str | None = public(omit=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class Initiative(Shape):
    """The settled order, and the rule system's record of every roll (its `initiative`
    shape, declared beside its outcomes)."""

    order: tuple[str, ...] = public()
    detail: Mapping[str, JSON] = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome(Shape):
    """The engine's part of an outcome; the rest is the rule system's shape for `kind`."""

    redact_when_named: ClassVar[bool] = True
    kind: str = public()
    actor: str | None = public(default=None)
    #: One line anyone may read; a hidden stat it names is said "hidden".
    summary: str = public()
    #: The actor acts again at once (MSV-4's free attack).
    extra_action: bool = public(default=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Failed(Shape):
    """Why the action could not be settled after its dice were thrown."""

    error: str = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class Wound(Shape):
    """Damage taken (MSV points, SRP hits) and the total after it."""

    target: str = public()
    amount: int = public()
    total: int = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class Condition(Shape):
    """A condition for `rounds` of the target's turns (null: until cleared; 0: cleared)."""

    target: str = public()
    condition: str = public()
    rounds: int | None = public(default=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Stat(Shape):
    """One stat of a fighter changed; its value is said "hidden" while that stat is."""

    target: str = public()
    key: str = public()
    value: JSON = private("target", stat_field="key", default=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Defeated(Shape):
    """A fighter reached its defeat threshold (or, `defeated: false`, came back)."""

    name: str = public()
    defeated: bool = public(default=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class Turn(Shape):
    """Whose action it is now, in which round."""

    fighter: str = public()
    round: int | None = public(default=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Skipped(Shape):
    """A fighter's turn passed without an action, and why."""

    name: str = public()
    reason: str = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class Nothing(Shape):
    """An event that carries nothing but its type (paused, resumed, joining_closed,
    referee_changed)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Taken(Shape):
    """Wounds an outcome dealt to one target."""

    target: str = public()
    amount: int = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class Total(Shape):
    """Wounds the referee gives one target instead, and its total after them."""

    target: str = public()
    amount: int = public()
    total: int = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class Overridden(Shape):
    """The referee replaced the wounds of the outcome at seq `of` (SRP-20)."""

    of: int | None = public(default=None)
    original: tuple[Taken, ...] = public(default=())
    wounds: tuple[Total, ...] = public(default=())
    note: str | None = public(default=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Voided(Shape):
    """The referee took back the events `from`..`to` (an undo)."""

    first: int = public(name="from")
    last: int = public(name="to")


@dataclass(frozen=True, slots=True, kw_only=True)
class Ended(Shape):
    """The bout is over: the winning side (or null) and why."""

    winner: str | None = public(default=None)
    reason: str | None = public(default=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Cancelled(Shape):
    """The referee called the bout off, and why."""

    reason: str = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class SeedRotated(Shape):
    """Seed `index - 1` revealed, seed `index` committed to (its nonces run from 0)."""

    index: int = public()
    server_seed: str = public()
    next_commitment: str = public()


@dataclass(frozen=True, slots=True, kw_only=True)
class Closed(Shape):
    """The bout is closed: its last server seed revealed, with the commitment it answers."""

    server_seed: str | None = public(omit=True)
    commitment: str | None = public(omit=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class TimePassed(Shape):
    """Play time passed: `minutes` of it, the evening's `clock` after them, and why."""

    minutes: int = public()
    clock: int = public()
    reason: str = public()


#: Each event type's payload shape.
SHAPES: Mapping[EventType, type[Shape]] = {
    EventType.BOUT_OPENED: BoutOpened,
    EventType.FIGHTER_ADDED: FighterAdded,
    EventType.FIGHTER_UPDATED: FighterUpdated,
    EventType.FIGHTER_REMOVED: Named,
    EventType.REVEALED: Revealed,
    EventType.CLIENT_SEED_FIXED: ClientSeedFixed,
    EventType.ACTION: Action,
    EventType.ROLL: Roll,
    EventType.INITIATIVE: Initiative,
    EventType.OUTCOME: Outcome,
    EventType.FAILED: Failed,
    EventType.WOUND: Wound,
    EventType.CONDITION: Condition,
    EventType.STAT: Stat,
    EventType.DEFEATED: Defeated,
    EventType.TURN: Turn,
    EventType.SKIPPED: Skipped,
    EventType.PAUSED: Nothing,
    EventType.RESUMED: Nothing,
    EventType.JOINING_CLOSED: Nothing,
    EventType.OVERRIDDEN: Overridden,
    EventType.VOIDED: Voided,
    EventType.ENDED: Ended,
    EventType.CANCELLED: Cancelled,
    EventType.REFEREE_CHANGED: Nothing,
    EventType.SEED_ROTATED: SeedRotated,
    EventType.CLOSED: Closed,
    EventType.TIME_PASSED: TimePassed,
}
